// Tcgen05Ops on the simulated device: each op's rate and latency come from the preset's tensor
// table (tensor_costs.cpp; looked up by the op's record name). A latency
// launch takes iterations x (latency + the commit/wait round trip), the baseline launch iterations
// x the round trip; a throughput launch takes, on the SM of every issuing CTA, the FLOP its MMAs
// do there (half of each for cta_group::2) over the preset's rate. Clusters go to SM pairs round
// robin. A stored tile is the host's float64 reference in the accumulator format, so the
// self-check passes; the timing carries the preset's relative noise. Everything then goes through
// the same run_tcgen05 as a real GPU.
#include <algorithm>
#include <random>
#include <string>

#include "harness/ops.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/tensor/tcgen05_ops.hpp"
#include "probes/tensor/tensor_point.hpp"

namespace gpuprobe::probes {
namespace {

using tensor::Tcgen05CtaOut;

// The commit/mbarrier-wait round trip with no MMA outstanding: assumption (not in FIGURES).
constexpr double kSimBaselineCycles = 40;

class SimTcgen05Ops final : public Tcgen05Ops {
 public:
  explicit SimTcgen05Ops(sim::SimDevice& device) : device_(device) {}

  Tcgen05Result run(const Tcgen05Setup& setup, const Tcgen05Run& run) override {
    const sim::Preset& p = device_.preset();
    check_tcgen05_fits(setup, device_.info());
    const tensor::TensorCost& model = tensor::tensor_cost(p, tcgen05_info(setup.op).name);
    return run_tcgen05(setup, run, [&](const Tcgen05Launch& l) { return launch(l, model, p); });
  }

 private:
  Tcgen05LaunchOut launch(const Tcgen05Launch& l, const tensor::TensorCost& model,
                          const sim::Preset& p) {
    const Tcgen05OpInfo& info = tcgen05_info(l.op);
    const uint32_t group = info.cta_group;
    const uint32_t sms = static_cast<uint32_t>(p.info.sm_count);
    // CTA c runs on SM c mod sms: the two CTAs of a pair on neighbouring SMs.
    auto sm_of = [&](uint32_t cta) { return cta % sms; };
    std::vector<uint32_t> leaders_on(sms, 0);
    for (uint32_t c = 0; c < l.ctas; c += group) ++leaders_on[sm_of(c)];
    std::mt19937_64 rng(std::hash<std::string>{}(info.name) ^ l.ctas ^ (l.iterations << 16) ^
                        ++launches_);
    std::normal_distribution<double> noise(0.0, p.noise_rel);
    std::vector<double> sm_cycles(sms, 0);
    for (uint32_t s = 0; s < sms; ++s) {
      double cycles;
      if (l.baseline) {
        cycles = double(l.iterations) * kSimBaselineCycles;
      } else if (l.kind == Tcgen05Kind::latency) {
        cycles = double(l.iterations) * (model.latency_cycles + kSimBaselineCycles);
      } else {
        const double flops = double(leaders_on[s]) * double(l.iterations) *
                             tensor::kTcgen05ThroughputPerIteration *
                             double(tensor::tcgen05_flops(info)) / group;
        cycles = flops / model.flops_per_clk_per_sm;
      }
      sm_cycles[s] = cycles * std::max(0.5, 1.0 + noise(rng));
    }
    Tcgen05LaunchOut o;
    o.ctas.resize(l.ctas);
    for (uint32_t c = 0; c < l.ctas; ++c) {
      Tcgen05CtaOut& w = o.ctas[c];
      w.smid = sm_of(c);
      w.leader = c % group == 0 ? 1 : 0;
      w.ran = 1;
      if (w.leader) {
        w.start_cycles = sim::kStartCycles;
        w.end_cycles = sim::kStartCycles + static_cast<uint64_t>(sm_cycles[w.smid] + 0.5);
      }
    }
    if (l.store) o.tile = tcgen05_tile_words(info, tcgen05_reference(info, *l.operands));
    o.launch.kernel = l.baseline ? tcgen05_baseline_kernel(group) : tcgen05_kernel_name(l.op, l.kind);
    o.launch.config.grid = Dim3{l.ctas, 1, 1};
    o.launch.config.block = Dim3{tensor::kTcgen05Threads, 1, 1};
    if (group == 2) o.launch.config.cluster = Dim3{2, 1, 1};
    return o;
  }

  sim::SimDevice& device_;
  uint64_t launches_ = 0;
};

const OpsRegistration<Tcgen05Ops> kRegistration("sim", __FILE__, [](Device& d) {
  return std::make_unique<SimTcgen05Ops>(dynamic_cast<sim::SimDevice&>(d));
});

}  // namespace
}  // namespace gpuprobe::probes
