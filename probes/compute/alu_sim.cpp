// AluOps on the simulated device: each op's issue rate and dependent latency come from the
// preset's compute table (harness/sim/preset.hpp, Preset::compute). A latency launch takes
// the longer of ops x latency and its issue time; on every SM a throughput launch takes the longer
// of one chain's ops x latency and the busiest scheduler's thread-ops over a quarter of the rate. Blocks go
// to SMs round robin. The chains' results are the host's reference, so the self-check passes;
// the timing carries the preset's relative noise. Everything then goes through the same
// summarize_alu_launch as a real GPU's records.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "harness/ops.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/compute/alu_ops.hpp"

namespace gpuprobe::probes {
namespace {

using compute::AluWarpOut;

// Schedulers (SM sub-partitions) per SM, Volta and later: assumption (not in FIGURES).
constexpr double kSubPartitions = 4;

class SimAluOps final : public AluOps {
 public:
  explicit SimAluOps(sim::SimDevice& device) : device_(device) {}

  AluResult run(const AluSetup& setup, const AluRun& run) override {
    const sim::Preset& p = device_.preset();
    if (p.compute.empty())
      throw OpsUnavailable("the simulated " + p.name + " has no compute model");
    check_alu_fits(setup, device_.info());
    const std::string name = alu_info(setup.op).name;
    const auto model = sim::model_of<AluOpUnavailable>(
        p, p.compute, name, [&](const sim::AluOpModel& m) { return m.op == name; });
    if (run.iterations == 0) throw Error(alu_kernel_name(setup.op, setup.kind) + ": no iterations");

    const uint32_t chains = alu_chains(setup.kind);
    const uint64_t ops = run.iterations * compute::kAluOpsPerIteration / chains;
    const uint32_t sms = static_cast<uint32_t>(p.info.sm_count);
    const uint32_t warps_per_block = setup.block_threads / 32;
    std::vector<uint32_t> warps_on(sms, 0);
    for (uint32_t b = 0; b < setup.blocks; ++b) warps_on[b % sms] += warps_per_block;

    std::mt19937_64 rng(std::hash<std::string>{}(alu_kernel_name(setup.op, setup.kind)) ^
                        setup.blocks ^ (run.iterations << 16) ^ ++launches_);
    std::normal_distribution<double> noise(0.0, p.noise_rel);
    std::vector<double> sm_cycles(sms, 0);
    for (uint32_t s = 0; s < sms; ++s) {
      const double chain_cycles = double(ops) * model->latency_cycles;
      // Warps spread over the SM's kSubPartitions schedulers, each with a quarter of the rate.
      const double busiest = std::ceil(double(warps_on[s]) / kSubPartitions);
      const double issue_cycles = busiest * 32 * chains * double(ops) /
                                  (model->ops_per_clk_per_sm / kSubPartitions);
      sm_cycles[s] = std::max(chain_cycles, issue_cycles) * std::max(0.5, 1.0 + noise(rng));
    }
    uint64_t reference[compute::kAluMaxChains] = {};
    for (uint32_t k = 0; k < chains; ++k) reference[k] = alu_reference_bits(setup.op, k, ops);
    std::vector<AluWarpOut> warps(uint64_t(setup.blocks) * warps_per_block);
    for (uint64_t w = 0; w < warps.size(); ++w) {
      const uint32_t sm = static_cast<uint32_t>((w / warps_per_block) % sms);
      AluWarpOut& o = warps[w];
      o.smid = sm;
      o.start_cycles = sim::kStartCycles;
      o.end_cycles = sim::kStartCycles + static_cast<uint64_t>(sm_cycles[sm] + 0.5);
      o.ran = 1;
      if (run.store)
        for (uint32_t k = 0; k < chains; ++k) o.result[k] = reference[k];
    }
    AluResult r = summarize_alu_launch(setup, run, warps);
    r.launch.kernel = alu_kernel_name(setup.op, setup.kind);
    r.launch.config.grid = Dim3{setup.blocks, 1, 1};
    r.launch.config.block = Dim3{setup.block_threads, 1, 1};
    return r;
  }

 private:
  sim::SimDevice& device_;
  uint64_t launches_ = 0;
};

const OpsRegistration<AluOps> kRegistration("sim", __FILE__, [](Device& d) {
  return std::make_unique<SimAluOps>(dynamic_cast<sim::SimDevice&>(d));
});

}  // namespace
}  // namespace gpuprobe::probes
