// What the tensor probes (tensor/mma, tensor/wgmma, tensor/tcgen05) share: their simulator cost
// table (one per preset, tensor_costs.cpp, registered as "tensor"), the operands of their timed
// runs, the axes of their points (op, kind, operands), the result of one measurement, the repeat
// loop that keeps the first launch's result (harness/repeat.hpp's repeat_point) and the timing
// fields of a point (harness/points.hpp: repeats, the SM clock measured right after, then latency
// in cycles and ns or throughput in FLOP/clk/SM, its spread over the SMs and FLOP/s). Each probe
// keeps its own fields (form, shape, kernel, self-check...).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/axes.hpp"
#include "harness/kernel_runner.hpp"
#include "harness/launch_config.hpp"
#include "harness/params.hpp"
#include "harness/probe.hpp"
#include "harness/repeat.hpp"
#include "harness/sim/preset.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/tensor/tile_reference.hpp"

namespace gpuprobe::probes::tensor {

constexpr uint64_t kMaxIterations = uint64_t{1} << 20;

// Rate and latency of one tensor-core instruction form on a simulated GPU. `op` is the form's name
// as the tensor probes write it in their records ("mma_m16n8k16_f16_f32": path, shape, input
// precision, accumulator); a form the preset has no entry of is skipped with the reason.
struct TensorCost {
  std::string op;
  double flops_per_clk_per_sm = 0;  // dense FLOP (2 per multiply-add; integer kinds: 2 per MAC)
  double latency_cycles = 0;        // one instruction, issue to result usable (a dependent chain)
  bool emulated = false;            // the target runs the form as a sequence of other instructions
  std::string source;               // FIGURES.md keys, DER, or "assumption"
};
using TensorCosts = std::vector<TensorCost>;
inline constexpr const char* kCostTable = "tensor";

// The preset's entry of `op`: no tensor table at all makes the probe unavailable
// (OpsUnavailable: "the simulated <preset> has no tensor model"), no entry skips the point.
const TensorCost& tensor_cost(const sim::Preset& p, const std::string& op);

// What A and B hold while timing: random values of the input format, or all zeros (tensor cores
// draw less power on zeros and may clock higher; both are recorded).
enum class Operands { random, zeros };
const char* operands_name(Operands operands);  // "random", "zeros"
Operands parse_operands(const std::string& name);
// --operands random|zeros|both, with the probe's help text.
ParamSpec operands_param(const std::string& help);

// The axes of a tensor probe's points: op (over `ops`, filtered by --op), kind (--kind) and
// operands (--operands), in that order.
std::vector<Axis> point_axes(std::vector<std::string> ops);

// One measurement of a form. Latency: cycles per instruction (wgmma, tcgen05: the loop's cycles
// per iteration less the commit/wait baseline's). Throughput: per SM, the FLOP its units did over
// its span (the median SM, the lowest and the highest).
struct TensorResult {
  uint64_t ops_per_chain = 0;  // mma: mmas per accumulator chain
  double latency_cycles = 0;
  double cycles_per_iteration = 0;  // wgmma, tcgen05: the timed loop's, and the baseline's
  double baseline_cycles = 0;
  double flops_per_clk_per_sm = 0;
  double flops_per_clk_per_sm_min = 0;
  double flops_per_clk_per_sm_max = 0;
  uint32_t sms = 0;         // SMs that ran units
  double units_per_sm = 0;  // mma: warps, wgmma: warpgroups (mean over those SMs)
  TileCheck self_check;     // wgmma, tcgen05: the tile checked before the timed launch
  LaunchRecord launch;      // the timed launch
};

// repeat_point over run() (a TensorResult): the latency for a latency point, else the throughput;
// a Skip skips the point.
template <class Run>
auto repeat_point(ProbeContext& ctx, bool latency, Run&& run) {
  return gpuprobe::repeat_point(ctx.repeat(), run, [latency](const TensorResult& r) {
    return latency ? r.latency_cycles : r.flops_per_clk_per_sm;
  });
}

// The repeats of a wgmma or tcgen05 point, whose measurement run(launcher) makes its launches through
// a launcher: each repeat checks that the op fits the device (fits(info): Skip or Error), then runs
// with the simulator's launcher, simulate(sim, op's TensorCost, launch), or the GPU's,
// launch_on_gpu(kernel runner, launch).
template <class Fits, class Run, class Simulate, class LaunchOnGpu>
PointRepeats<TensorResult> repeat_launches(ProbeContext& ctx, bool latency, const std::string& op,
                                           Fits&& fits, Run&& run, Simulate&& simulate,
                                           LaunchOnGpu&& launch_on_gpu) {
  Device& device = ctx.device();
  return repeat_point(ctx, latency, [&] {
    fits(device.info());
    if (auto* sim = dynamic_cast<sim::SimDevice*>(&device)) {
      const TensorCost& cost = tensor_cost(sim->preset(), op);
      return run([&](const auto& launch) { return simulate(*sim, cost, launch); });
    }
    KernelRunner& gpu = kernel_runner(device);
    return run([&](const auto& launch) { return launch_on_gpu(gpu, launch); });
  });
}

// Measures the SM clock, then writes into p the fields every tensor point has: repeats,
// converged, iterations, sms, region_sm_clock_mhz and, for a latency point, latency_cycles,
// ci95_cycles, latency_ns (null without a clock); for a throughput point flops_per_clk_per_sm,
// its ci95, sm_spread_flops_per_clk and flops_per_s (from the first launch's spread). Returns the
// clock (MHz).
double write_timing(nlohmann::json& p, ProbeContext& ctx, const RepeatOutcome& outcome, bool latency,
                    uint64_t iterations, const TensorResult& first);

// A wgmma or tcgen05 point (loops timed against a commit/wait baseline launch) after its repeats:
// write_timing's fields, the timed kernel, the first launch, the self-check and, for latency,
// cycles_per_iteration, baseline_cycles and baseline_kernel.
void write_baselined_point(nlohmann::json& p, ProbeContext& ctx, const PointRepeats<TensorResult>& r,
                           bool latency, uint64_t iterations, const std::string& kernel,
                           const std::string& baseline_kernel, nlohmann::json self_check);

}  // namespace gpuprobe::probes::tensor
