// MmaOps on the simulated device: each form's rate (FLOP per clock per SM) and dependent latency
// come from the tensor family's cost table (tensor_costs.cpp). A latency launch
// takes the longer of mmas x latency and its issue time; on every SM a throughput launch takes
// the longer of one chain's mmas x latency and the busiest scheduler's FLOP over a quarter of the
// rate. Blocks go to SMs round robin; the timing carries the preset's relative noise. The tile of
// the self-check is the host's emulation (the float64 product rounded to the accumulator), so the
// same check as on a GPU runs on it. Everything then goes through summarize_mma_launch.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "harness/ops.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/tensor/mma_ops.hpp"
#include "probes/tensor/tensor_point.hpp"

namespace gpuprobe::probes {
namespace {

using tensor::MmaWarpOut;

// Schedulers (SM sub-partitions, one tensor core each) per SM, Volta and later: assumption (not
// in FIGURES; FIGURES §1 "x 4 TC/SM" for H100 and A100).
constexpr double kSubPartitions = 4;

class SimMmaOps final : public MmaOps {
 public:
  explicit SimMmaOps(sim::SimDevice& device) : device_(device) {}

  std::vector<uint32_t> run_tile(MmaOp op, const std::vector<tensor::MmaLane>& lanes) override {
    MmaSetup s;
    s.op = op;
    model_of(s);
    return mma_emulate_tile(op, lanes);
  }

  MmaResult run(const MmaSetup& setup, const MmaRun& run) override {
    const tensor::TensorCost& model = model_of(setup);
    const sim::Preset& p = device_.preset();
    if (run.iterations == 0) throw Error(mma_kernel_name(setup.op, setup.kind) + ": no iterations");
    const uint32_t chains = mma_chains(setup.kind);
    const uint64_t mmas = run.iterations * tensor::kMmaPerIteration / chains;
    const uint32_t sms = static_cast<uint32_t>(p.info.sm_count);
    const uint32_t warps_per_block = setup.block_threads / 32;
    std::vector<uint32_t> warps_on(sms, 0);
    for (uint32_t b = 0; b < setup.blocks; ++b) warps_on[b % sms] += warps_per_block;

    std::mt19937_64 rng(std::hash<std::string>{}(mma_kernel_name(setup.op, setup.kind)) ^
                        setup.blocks ^ (run.iterations << 16) ^ ++launches_);
    std::normal_distribution<double> noise(0.0, p.noise_rel);
    const double flops = mma_flops(setup.op);
    std::vector<double> sm_cycles(sms, 0);
    for (uint32_t s = 0; s < sms; ++s) {
      const double chain_cycles = double(mmas) * model.latency_cycles;
      const double busiest = std::ceil(double(warps_on[s]) / kSubPartitions);
      const double issue_cycles =
          busiest * chains * double(mmas) * flops / (model.flops_per_clk_per_sm / kSubPartitions);
      sm_cycles[s] = std::max(chain_cycles, issue_cycles) * std::max(0.5, 1.0 + noise(rng));
    }
    std::vector<MmaWarpOut> warps(uint64_t(setup.blocks) * warps_per_block);
    for (uint64_t w = 0; w < warps.size(); ++w) {
      const uint32_t sm = static_cast<uint32_t>((w / warps_per_block) % sms);
      MmaWarpOut& o = warps[w];
      o.smid = sm;
      o.start_cycles = sim::kStartCycles;
      o.end_cycles = sim::kStartCycles + static_cast<uint64_t>(sm_cycles[sm] + 0.5);
      o.ran = 1;
    }
    MmaResult r = summarize_mma_launch(setup, run, warps);
    r.launch.kernel = mma_kernel_name(setup.op, setup.kind);
    r.launch.config.grid = Dim3{setup.blocks, 1, 1};
    r.launch.config.block = Dim3{setup.block_threads, 1, 1};
    return r;
  }

 private:
  const tensor::TensorCost& model_of(const MmaSetup& setup) {
    const sim::Preset& p = device_.preset();
    // A form the simulated GPU's SM lacks is skipped for that reason, as on a real one.
    check_mma_fits(setup, device_.info());
    return tensor::tensor_cost(p, mma_info(setup.op).name);
  }

  sim::SimDevice& device_;
  uint64_t launches_ = 0;
};

const OpsRegistration<MmaOps> kRegistration("sim", __FILE__, [](Device& d) {
  return std::make_unique<SimMmaOps>(dynamic_cast<sim::SimDevice&>(d));
});

}  // namespace
}  // namespace gpuprobe::probes
