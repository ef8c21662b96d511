// ChaseOps on the simulated device: each run walks the chain through the simulator's machine
// model (harness/sim/sim_device.hpp) in the same phases as the CUDA kernels (chase.cu), and
// reports what the kernel would: cycles, the simulated %globaltimer, the executed iterations, the
// samples, the final slot and the launch configuration the CUDA backend would use.
#include <cmath>
#include <string>

#include "harness/ops.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/common/units.hpp"
#include "probes/memory/chase_ops.hpp"

namespace gpuprobe::probes {
namespace {

// The instrumentation of one sample on the simulated device: two clock reads and a store, in
// cycles: the empty samples of the H100 runs in results/nvidia-h100-80gb-hbm3 read 4.
constexpr double kSimSampleOverheadCycles = 4.0;

class SimPreparedChase final : public PreparedChase {
 public:
  SimPreparedChase(sim::SimDevice& device, const ChaseSetup& setup)
      : device_(device), setup_(setup),
        smem_bytes_(check_chase_fits(setup, device.info(), device.free_memory_bytes())),
        chain_(*setup.chain) {}

  ChaseResult run(const ChaseRun& run) override {
    check_chase_run(run);
    const int sm = setup_.pinned_sm == kAnySm ? 0 : setup_.pinned_sm;
    sim::WalkSpec spec;
    spec.shared = setup_.space == MemorySpace::shared;
    spec.from_l1 = ptx::info(setup_.load).first_level == ptx::CacheLevel::L1;
    spec.sm = sm;
    spec.phase_hops = {run.warmup_hops, run.timed_hops, setup_.sampled_hops};
    spec.keep_each_hop = {false, false, true};
    const sim::WalkResult walked = device_.walk(chain_, spec);

    ChaseResult result;
    const double mhz = walked.clock_mhz;
    result.timed_cycles = static_cast<uint64_t>(std::llround(walked.phase_cycles[1]));
    result.timed_ns = static_cast<uint64_t>(std::llround(walked.phase_cycles[1] / mhz * 1000.0));
    result.timed_iterations =
        (run.timed_hops + walked.extra_timed_hops) / kChaseHopsPerIteration;
    for (double c : walked.hop_cycles[2])
      result.sample_cycles.push_back(static_cast<uint32_t>(std::lround(c + kSimSampleOverheadCycles)));
    result.empty_sample_cycles.assign(kEmptySamples,
                                      static_cast<uint32_t>(kSimSampleOverheadCycles));
    result.final_offset_bytes = chain_.offset_bytes[walked.final_slot];
    LaunchRecord& launch = result.launch;
    launch.kernel = spec.shared ? "gpuprobe_chase_shared"
                                : "gpuprobe_chase_global_" + std::string(ptx::info(setup_.load).id);
    const uint32_t grid = setup_.pinned_sm == kAnySm ? 1 : 4 * static_cast<uint32_t>(device_.info().sm_count);
    launch.config = launch_config(grid, spec.shared ? kSharedChaseThreads : 1u, smem_bytes_);
    launch.config.l1_carveout_percent = 0;
    launch.config.pinned_sm = setup_.pinned_sm;
    launch.smid = sm;
    return result;
  }

 private:
  sim::SimDevice& device_;
  ChaseSetup setup_;
  uint64_t smem_bytes_ = 0;
  const Chain& chain_;   // checked by check_chase_fits first
};

const auto kRegistration = register_prepare_ops<ChaseOps, sim::SimDevice, SimPreparedChase>("sim", __FILE__);

}  // namespace
}  // namespace gpuprobe::probes
