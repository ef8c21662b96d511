// WgmmaOps on the simulated device: each op's rate and latency come from the preset's tensor
// table (tensor_costs.cpp; looked up by the op's record name). A latency
// launch takes iterations x (latency + the fence/commit/wait round trip), the baseline launch
// iterations x the round trip; a throughput launch takes, on every SM, its warpgroups' FLOP over
// the preset's rate. Blocks go to SMs round robin. A stored tile is the host's float64
// reference in the accumulator format, so the self-check passes; the timing carries the
// preset's relative noise. Everything then goes through the same run_wgmma as a real GPU.
#include <algorithm>
#include <random>
#include <string>

#include "harness/ops.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/tensor/tensor_point.hpp"
#include "probes/tensor/wgmma_ops.hpp"

namespace gpuprobe::probes {
namespace {

using tensor::WgmmaGroupOut;

// The fence/commit/wait round trip of an empty commit group: assumption (not in FIGURES).
constexpr double kSimBaselineCycles = 24;

class SimWgmmaOps final : public WgmmaOps {
 public:
  explicit SimWgmmaOps(sim::SimDevice& device) : device_(device) {}

  WgmmaResult run(const WgmmaSetup& setup, const WgmmaRun& run) override {
    const sim::Preset& p = device_.preset();
    check_wgmma_fits(setup, device_.info());
    const tensor::TensorCost& model = tensor::tensor_cost(p, wgmma_info(setup.op).name);
    return run_wgmma(setup, run, [&](const WgmmaLaunch& l) { return launch(l, model, p); });
  }

 private:
  WgmmaLaunchOut launch(const WgmmaLaunch& l, const tensor::TensorCost& model,
                        const sim::Preset& p) {
    const WgmmaOpInfo& info = wgmma_info(l.op);
    const uint32_t sms = static_cast<uint32_t>(p.info.sm_count);
    std::vector<uint32_t> groups_on(sms, 0);
    for (uint32_t b = 0; b < l.blocks; ++b) ++groups_on[b % sms];
    std::mt19937_64 rng(std::hash<std::string>{}(info.name) ^ l.blocks ^ (l.iterations << 16) ^
                        ++launches_);
    std::normal_distribution<double> noise(0.0, p.noise_rel);
    std::vector<double> sm_cycles(sms, 0);
    for (uint32_t s = 0; s < sms; ++s) {
      double cycles;
      if (l.baseline) {
        cycles = double(l.iterations) * kSimBaselineCycles;
      } else if (l.kind == WgmmaKind::latency) {
        cycles = double(l.iterations) * (model.latency_cycles + kSimBaselineCycles);
      } else {
        const double flops = double(groups_on[s]) * double(l.iterations) *
                             tensor::kWgmmaThroughputPerIteration * double(tensor::wgmma_flops(info));
        cycles = flops / model.flops_per_clk_per_sm;
      }
      sm_cycles[s] = cycles * std::max(0.5, 1.0 + noise(rng));
    }
    WgmmaLaunchOut o;
    o.groups.resize(l.blocks);
    for (uint32_t g = 0; g < l.blocks; ++g) {
      WgmmaGroupOut& w = o.groups[g];
      w.smid = g % sms;
      w.start_cycles = sim::kStartCycles;
      w.end_cycles = sim::kStartCycles + static_cast<uint64_t>(sm_cycles[w.smid] + 0.5);
      w.ran = 1;
    }
    if (l.store) o.tile = wgmma_tile_words(info, wgmma_reference(info, *l.operands));
    o.launch.kernel = l.baseline ? kWgmmaBaselineKernel : wgmma_kernel_name(l.op, l.kind);
    o.launch.config.grid = Dim3{l.blocks, 1, 1};
    o.launch.config.block = Dim3{tensor::kWgmmaThreads, 1, 1};
    return o;
  }

  sim::SimDevice& device_;
  uint64_t launches_ = 0;
};

const OpsRegistration<WgmmaOps> kRegistration("sim", __FILE__, [](Device& d) {
  return std::make_unique<SimWgmmaOps>(dynamic_cast<sim::SimDevice&>(d));
});

}  // namespace
}  // namespace gpuprobe::probes
