// What the tensor probes (tensor/mma, tensor/wgmma, tensor/tcgen05) share: their simulator cost
// table, the operands and axes of their points, the result of one measurement, its repeat loop and
// timing fields, and the baselined measurement of wgmma and tcgen05. Each probe keeps its own
// fields (form, shape, kernel, self-check...).
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/error.hpp"
#include "harness/kernel_runner.hpp"
#include "harness/points.hpp"
#include "harness/repeat.hpp"
#include "harness/self_check.hpp"
#include "harness/sim/preset.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/common/op_probe.hpp"
#include "probes/tensor/tile_diagnosis.hpp"
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

// How fast shared memory lets an instruction form run (probes/tensor/tensor_costs.cpp, where the
// simulator's SS costs use it; the derivation is there): an instruction of `flops` that reads
// rows_a rows of A and rows_b of B from shared memory, 32 bytes each, needs needed_bytes_per_clk
// at peak_flops_per_clk, and reaches `fraction` of that peak, min(1, shared / needed), on an SM
// with shared_bytes_per_clk (0: no bound, fraction 1).
struct SharedBound {
  double fraction = 1;
  double needed_bytes_per_clk = 0;
  double shared_bytes_per_clk = 0;
};
SharedBound ss_shared_bound(double shared_bytes_per_clk, double rows_a, double rows_b, double flops,
                            double peak_flops_per_clk);

// The preset's entry of `op` (tensor_costs.cpp): no tensor table at all makes the probe unavailable
// (OpsUnavailable: "the simulated <preset> has no tensor model"), no entry skips the point.
const TensorCost& tensor_cost(const sim::Preset& p, const std::string& op);

// What A and B hold while timing: random values of the input format, or all zeros (tensor cores
// draw less power on zeros and may clock higher; both are recorded).
enum class Operands { random, zeros };
inline Operands parse_operands(const std::string& name) {
  return name == "zeros" ? Operands::zeros : Operands::random;
}
// --operands random|zeros|both, with the probe's help text.
inline ParamSpec operands_param(const std::string& help) {
  return {"operands", ParamSpec::Kind::choice, "both", help, {"both", "random", "zeros"}};
}

// The axes of a tensor probe's points: op (over `ops`, filtered by --op), kind (--kind) and
// operands (--operands), in that order.
inline std::vector<Axis> point_axes(std::vector<std::string> ops) {
  return {op_axis(std::move(ops)), kind_axis(), fixed_axis("operands", {"random", "zeros"}, "both")};
}

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

// ---- tensor/wgmma and tensor/tcgen05: a loop timed against a commit/wait baseline ---------------
// Both measure through a launcher (the GPU's or the simulator's) in one flow, run_baselined: the
// self-check launch (random operands, one iteration, the tile stored and checked against the host's
// float64 reference: Error "self-check failed ..." on a mismatch), the timed launch and, for
// latency, the baseline launch (the same loop without the instruction). Latency: the loop's cycles
// per iteration less the baseline's; throughput: per SM, the FLOP of its issuing units over its
// span. A unit is what one record stamps: a warpgroup (wgmma, one per block) or a CTA (tcgen05).
// One instruction runs on a group of units: cta_group::2 is a CTA pair whose even CTA issues and
// times it, each SM of the pair credited half of its FLOP (wgmma's groups are one unit).
//
// The probe's side is a class P of static members (wgmma.cpp Wgmma, tcgen05.cpp Tcgen05):
//   Op, Info, Data (a launch's operands), Unit (what a unit reports), Args (the kernel arguments);
//   kUnit (its name in messages), kThreads (per unit), kPerIteration (instructions per throughput
//   iteration), kSimBaselineCycles, kLaunches (the simulator's launch counter of the probe),
//   kThroughputSmemBytes (dynamic shared memory of a throughput launch on a GPU), kNeeds (what a
//   build lacking a kernel lacks);
//   info(op), group(info), flops(info) (one instruction's, its whole group's), kernel_name(op,
//   kind), baseline_kernel(info), kernel(launch) (null where the build lacks it), fits(setup,
//   device info) (Skip or Error before any launch), operands(info, Operands, seed), tile(info)
//   (its ZeroCTile), reference(info, data), check_tile(info, data, words), tile_words(info, values)
//   (the words a correct GPU stores holding `values`), tile_size(info) (their count), args(data,
//   upload) (all but tile, iterations, zero and store; upload(words) gives a device copy of the
//   words), self_check_json(TileCheck) (the record's self_check).

// What a baselined op computes, D = A * B with C = 0: its shape, formats and operand layout
// (tile_reference.hpp), for the reference, the check and the simulator's planted errors.
struct ZeroCTile {
  TileShape shape;
  TileElem input, acc;
  TileLayout layout;
  std::vector<double> zero_c() const { return std::vector<double>(size_t(shape.m) * shape.n, 0.0); }
};

template <class Op>
struct BaselinedSetup {
  Op op{};
  Kind kind = Kind::latency;
  Operands operands = Operands::random;  // the timed launch's (the self-check: random)
  uint32_t units = 1;                    // latency: one group; throughput: on every SM
};

struct BaselinedRun {
  uint64_t iterations = 1024;
  uint64_t seed = 1;  // of the random operands (the self-check's and the timed ones)
};

// One launch as a backend makes it: the kernel (the op's _lat/_thr, or its baseline when
// `baseline`), `units` units, the operands, and whether the tile is stored.
template <class Op, class Data>
struct BaselinedLaunch {
  Op op;
  Kind kind;
  bool baseline = false;
  uint32_t units = 1;
  uint64_t iterations = 1;
  bool store = false;
  const Data* operands = nullptr;
};
template <class Unit>
struct BaselinedLaunchOut {
  std::vector<Unit> units;
  std::vector<uint32_t> tile;  // store: the accumulator words as the kernel stores them
  LaunchRecord launch;
};

// Every unit ran; unit u issued (and timed) its group's instructions when u % group == 0 (a Unit
// with a `leader` field must say so); the issuing units ended after they started. Per SM of an
// issuing unit: their span and count (SmSpan::units); `sms`, if given, gets the SMs any unit ran
// on.
template <class Unit>
std::map<uint32_t, SmSpan> group_spans(const std::vector<Unit>& units, uint64_t expected, uint32_t group,
                                       const std::string& kernel, const char* unit, uint32_t* sms = nullptr) {
  if (units.size() != expected)
    throw SelfCheckFailed(kernel + " reported " + std::to_string(units.size()) + " " + unit + "s, expected " +
                          std::to_string(expected));
  std::map<uint32_t, SmSpan> per_sm;
  std::set<uint32_t> seen;
  for (size_t u = 0; u < units.size(); ++u) {
    const Unit& o = units[u];
    const bool issues = u % group == 0;
    bool role = true;
    if constexpr (requires { o.leader; }) role = o.leader == (issues ? 1u : 0u);
    const std::string which = kernel + " " + unit + " " + std::to_string(u);
    if (o.ran != 1 || !role)
      throw SelfCheckFailed(which + (o.ran != 1 ? " did not run" : " has the wrong issuing role"));
    seen.insert(o.smid);
    if (!issues) continue;
    if (!(o.end_cycles > o.start_cycles)) throw SelfCheckFailed(which + " ended before it started");
    SmSpan& s = per_sm[o.smid];
    s.first = std::min(s.first, o.start_cycles);
    s.last = std::max(s.last, o.end_cycles);
    ++s.units;
  }
  if (sms) *sms = static_cast<uint32_t>(seen.size());
  return per_sm;
}

template <class P>
using LaunchOf = BaselinedLaunch<typename P::Op, typename P::Data>;
template <class P>
using LaunchOutOf = BaselinedLaunchOut<typename P::Unit>;

// The whole measurement (above) through launch(LaunchOf<P>) -> LaunchOutOf<P>, every launch's
// units checked (group_spans).
template <class P, class Launcher>
TensorResult run_baselined(const BaselinedSetup<typename P::Op>& setup, const BaselinedRun& run,
                           const Launcher& launch) {
  using Launch = LaunchOf<P>;
  const auto& info = P::info(setup.op);
  const std::string kernel = P::kernel_name(setup.op, setup.kind);
  if (run.iterations == 0) throw Error(kernel + ": no iterations");
  const uint32_t group = P::group(info);
  TensorResult r;
  const auto cycles_per_iteration = [&](const auto& out) {
    return double(out.units[0].end_cycles - out.units[0].start_cycles) / double(run.iterations);
  };

  // 1. The self-check: one instruction on random operands against float64.
  const auto check_data = P::operands(info, Operands::random, run.seed);
  const auto checked = launch(Launch{setup.op, Kind::latency, false, group, 1, true, &check_data});
  group_spans(checked.units, group, group, P::kernel_name(setup.op, Kind::latency), P::kUnit);
  r.self_check = P::check_tile(info, check_data, checked.tile);
  if (!r.self_check.passed)
    throw_tile_mismatch(std::string(info.name) + ": " + r.self_check.why, r.self_check, checked.tile);

  // 2. The timed launch.
  const auto timed_data = setup.operands == Operands::random ? check_data
                                                             : P::operands(info, setup.operands, run.seed);
  const auto out = launch(
      Launch{setup.op, setup.kind, false, setup.units, run.iterations, false, &timed_data});
  r.launch = out.launch;
  const auto per_sm = group_spans(out.units, setup.units, group, kernel, P::kUnit, &r.sms);
  r.units_per_sm = units_per_sm(per_sm);
  if (setup.kind == Kind::latency) {
    r.cycles_per_iteration = cycles_per_iteration(out);
    // 3. The baseline: the same loop without the instruction.
    const auto base = launch(
        Launch{setup.op, Kind::latency, true, group, run.iterations, false, &timed_data});
    group_spans(base.units, group, group, P::baseline_kernel(info), P::kUnit);
    r.baseline_cycles = cycles_per_iteration(base);
    r.latency_cycles = r.cycles_per_iteration - r.baseline_cycles;
  } else {
    // Per issuing unit: its instructions' FLOP on its SM (a group's split evenly over its SMs).
    const double flops_per_unit = double(run.iterations) * P::kPerIteration * double(P::flops(info)) / group;
    const SmRates rates = sm_rates(
        per_sm, [&](const SmSpan& span) { return flops_per_unit * span.units / span.cycles(); });
    r.flops_per_clk_per_sm = rates.median;
    r.flops_per_clk_per_sm_min = rates.min;
    r.flops_per_clk_per_sm_max = rates.max;
  }
  return r;
}

template <class P>
std::string launch_kernel_name(const LaunchOf<P>& l) {
  return l.baseline ? P::baseline_kernel(P::info(l.op)) : P::kernel_name(l.op, l.kind);
}

// `units` blocks of P::kThreads threads, in clusters of a group of more than one unit.
template <class P>
LaunchConfig baselined_config(const LaunchOf<P>& l, uint64_t smem_bytes = 0) {
  const uint32_t group = P::group(P::info(l.op));
  return launch_config(l.units, P::kThreads, smem_bytes, group > 1 ? group : 0);
}

// On a GPU (harness/kernel_runner.hpp), timed in the kernel by %clock64 of the issuing thread (one
// SM). The kernels are weak references: a build without the arch-specific code links, and the
// probe is skipped before it gets here (ProbeSpec::needs); should one still be missing, the op is
// refused in one line. An operand image the op does not use (empty) is one zero word.
template <class P>
LaunchOutOf<P> launch_baselined(KernelRunner& gpu, const LaunchOf<P>& l) {
  const std::string name = launch_kernel_name<P>(l);
  const void* kernel = P::kernel(l);
  if (kernel == nullptr) skip(name + " is not in this build (it needs " + P::kNeeds + ")");
  std::vector<DeviceBuffer> images;
  const auto upload = [&](const std::vector<uint32_t>& words) {
    images.push_back(gpu.alloc(std::max<uint64_t>(words.size(), 1) * 4, words.data(), words.size() * 4));
    return static_cast<const uint32_t*>(images.back().get());
  };
  typename P::Args args = P::args(*l.operands, upload);
  const uint64_t tile_words = P::tile_size(P::info(l.op));
  const DeviceBuffer tile = gpu.alloc(tile_words * 4);
  args.tile = static_cast<uint32_t*>(tile.get());
  args.iterations = l.iterations;
  args.zero = 0;
  args.store = l.store ? 1 : 0;
  const LaunchConfig config =
      baselined_config<P>(l, l.kind == Kind::throughput && !l.baseline ? P::kThroughputSmemBytes : 0);
  LaunchOutOf<P> o;
  o.units = run_units<typename P::Unit>(gpu, kernel, name, config, args, l.units, o.launch);
  if (l.store) o.tile = gpu.download<uint32_t>(tile, tile_words);
  return o;
}

// On the simulator: a latency launch takes iterations x (latency + P::kSimBaselineCycles, the
// commit/wait round trip), the baseline launch iterations x the round trip; a throughput launch
// takes, on the SM of every issuing unit, the FLOP its instructions do there over the preset's
// rate. Unit u runs on SM u mod SMs (a group's units on neighbouring SMs), the preset's noise per
// SM; a unit that does not issue reports only its SM. A stored tile is the host's float64
// reference in the accumulator format, so the self-check passes (unless a wrong result of the op
// is planted: tile_diagnosis.hpp's tile_with_error).
template <class P>
LaunchOutOf<P> simulate_baselined(sim::SimDevice& device, const TensorCost& cost, const LaunchOf<P>& l) {
  const auto& info = P::info(l.op);
  const uint32_t group = P::group(info);
  const uint32_t sms = static_cast<uint32_t>(device.preset().info.sm_count);
  std::vector<uint32_t> issuing_on(sms, 0);
  for (uint32_t u = 0; u < l.units; u += group) ++issuing_on[u % sms];
  const uint64_t seed = std::hash<std::string>{}(info.name) ^ l.units ^ (l.iterations << 16) ^
                        device.next_launch(P::kLaunches);
  LaunchOutOf<P> o;
  o.units = simulate_units<typename P::Unit>(device.preset(), l.units, 1, seed, [&](uint32_t sm, uint32_t) {
    if (l.baseline) return double(l.iterations) * P::kSimBaselineCycles;
    if (l.kind == Kind::latency) return double(l.iterations) * (cost.latency_cycles + P::kSimBaselineCycles);
    const double flops = double(issuing_on[sm]) * double(l.iterations) * P::kPerIteration *
                         double(P::flops(info)) / group;
    return flops / cost.flops_per_clk_per_sm;
  });
  if constexpr (requires { o.units[0].leader; })
    for (uint32_t u = 0; u < l.units; ++u) {
      auto& w = o.units[u];
      w.leader = u % group == 0 ? 1 : 0;
      if (!w.leader) w.start_cycles = w.end_cycles = 0;
    }
  if (l.store) {
    // A planted wrong result (SimDevice::plant_wrong_result): the tile with that layout error.
    const sim::SimDevice::WrongResult* wrong = device.wrong_result(info.name);
    const auto& d = *l.operands;
    const ZeroCTile t = P::tile(info);
    const std::string how = wrong && !wrong->how.empty() ? wrong->how : "one_element";
    o.tile = P::tile_words(
        info, wrong ? tile_with_error(how, t.shape, d.a, d.b, t.zero_c(), t.input, t.acc, t.layout)
                    : P::reference(info, d));
  }
  o.launch.kernel = launch_kernel_name<P>(l);
  o.launch.config = baselined_config<P>(l);
  return o;
}

// Measures the SM clock, then writes into p the fields every tensor point has: repeats,
// converged, iterations, sms, region_sm_clock_mhz and, for a latency point, latency_cycles,
// ci95_cycles, latency_ns (null without a clock); for a throughput point flops_per_clk_per_sm,
// its ci95, sm_spread_flops_per_clk and flops_per_s (from the first launch's spread). Returns the
// clock (MHz).
inline double write_timing(nlohmann::json& p, ProbeContext& ctx, const RepeatOutcome& outcome, bool latency,
                           uint64_t iterations, const TensorResult& first) {
  const double clock_mhz = write_point_repeats(p, ctx, outcome, iterations);
  p["sms"] = first.sms;
  if (latency) write_latency(p, outcome.summary, clock_mhz);
  else
    write_rate(p, ctx, "flops", outcome.summary, first.flops_per_clk_per_sm_min,
               first.flops_per_clk_per_sm_max, clock_mhz);
  return clock_mhz;
}

// A tile self-check as tensor/mma and tensor/wgmma record it: passed, max_abs_error, tolerance
// (tile_tolerance_rel), what it is relative to (`tolerance_is`) and the elements checked.
inline nlohmann::json tile_check_json(const TileCheck& c, const std::string& tolerance_is) {
  return {{"passed", c.passed},
          {"max_abs_error", c.max_abs_error},
          {"tolerance", c.tolerance_rel},
          {"tolerance_is", tolerance_is},
          {"elements", c.elements}};
}

// A point of P: its repeats (each checks that the op fits the device, P::fits, then runs on the
// simulator, with the op's TensorCost, or on the GPU), then into p {skipped}, or write_timing's
// fields, the timed kernel, the first launch, the self-check (P::self_check_json) and, for
// latency, cycles_per_iteration, baseline_cycles and baseline_kernel.
template <class P>
PointRepeats<TensorResult> measure_baselined(nlohmann::json& p, ProbeContext& ctx,
                                             const BaselinedSetup<typename P::Op>& setup,
                                             const BaselinedRun& run) {
  Device& device = ctx.device();
  const bool latency = setup.kind == Kind::latency;
  const auto r = repeat_point(ctx, latency, [&] {
    P::fits(setup, device.info());
    if (auto* sim = dynamic_cast<sim::SimDevice*>(&device)) {
      const TensorCost& cost = tensor_cost(sim->preset(), P::info(setup.op).name);
      return run_baselined<P>(setup, run,
                              [&](const LaunchOf<P>& l) { return simulate_baselined<P>(*sim, cost, l); });
    }
    KernelRunner& gpu = kernel_runner(device);
    return run_baselined<P>(setup, run, [&](const LaunchOf<P>& l) { return launch_baselined<P>(gpu, l); });
  });
  if (r.skipped) {
    p["skipped"] = *r.skipped;
    return r;
  }
  write_timing(p, ctx, r.outcome, latency, run.iterations, r.first);
  p["kernel"] = P::kernel_name(setup.op, setup.kind);
  p["launch"] = to_json(r.first.launch);
  p["self_check"] = P::self_check_json(r.first.self_check);
  if (latency) {
    p["cycles_per_iteration"] = r.first.cycles_per_iteration;
    p["baseline_cycles"] = r.first.baseline_cycles;
    p["baseline_kernel"] = P::baseline_kernel(P::info(setup.op));
  }
  return r;
}

}  // namespace gpuprobe::probes::tensor
