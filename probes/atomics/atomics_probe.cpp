// atomics/ops: the cost of atom/red on global and shared memory (add, cas, exch; 32 and 64 bits)
// in each address pattern (probes/atomics/atomics.cuh): a latency (one dependent chain per thread
// in one warp, or one warp on every SM for the contended pattern: cycles per op, and ns at the SM
// clock measured right after) and a rate (4 independent chains per thread, many warps per SM:
// thread-level atomics per clock per SM, and per second). Each point names what ptxas made of the
// op (native, warp-aggregated, CAS loop, POPC.INC: the SASS test checks it). Each point repeats its
// launch until stable; every launch's final words pass the self-check. red has no latency.
#include <string>
#include <vector>

#include "harness/error.hpp"
#include "harness/points.hpp"
#include "harness/probe.hpp"
#include "harness/repeat.hpp"
#include "probes/atomics/atomics_ops.hpp"

namespace gpuprobe::probes {
namespace {

constexpr uint64_t kMaxIterations = uint64_t{1} << 16;

nlohmann::json measure_atomics(ProbeContext& ctx, const AtomicsSetup& setup, const AtomicsRun& run) {
  const atomics::AtomicsOpInfo& info = atomics_info(setup.op);
  const bool latency = setup.kind == AtomicsKind::latency;
  const auto r = repeat_point<AtomicsOpUnavailable>(
      ctx.repeat(), [&] { return ctx.ops<AtomicsOps>().run(setup, run); },
      [&](const AtomicsResult& x) { return latency ? x.latency_cycles : x.ops_per_clk_per_sm; });
  if (r.skipped) return {{"ptx", info.ptx}, {"skipped", *r.skipped}};
  const AtomicsResult& first = r.first;
  nlohmann::json p = {{"ptx", info.ptx},
                      {"space", info.shared ? "shared" : "global"},
                      {"bytes", info.bytes},
                      {"lowering", atomics_lowering_name(info.lowering)},
                      {"ops_per_chain", first.ops_per_chain},
                      {"chains_per_thread", atomics_chains(setup.kind)},
                      {"block_threads", setup.block_threads},
                      {"blocks", setup.blocks},
                      {"warps_per_sm", first.warps_per_sm},
                      {"sms", first.sms},
                      {"kernel", atomics_kernel_name(setup.op, setup.kind)},
                      {"launch", to_json(first.launch)},
                      {"self_check", "passed"}};
  const double clock_mhz = write_point_repeats(p, ctx, r.outcome, run.iterations);
  if (latency) {
    write_latency(p, r.outcome.summary, clock_mhz);
    p["slowest_warp_cycles"] = first.latency_cycles_max;
  } else {
    write_rate(p, ctx, "ops", r.outcome.summary, first.ops_per_clk_per_sm_min,
               first.ops_per_clk_per_sm_max, clock_mhz);
  }
  return p;
}

ProbeSpec atomics_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "atomics/ops";
  p.summary = "atom/red on global and shared memory (add, cas, exch; 32/64-bit) with the same, "
              "distinct and cross-SM contended addresses: latency (cycles, ns) and rate (ops/clk/SM)";
  std::vector<std::string> op_choices{"all"};
  for (const auto& info : atomics::kAtomicsOps) op_choices.push_back(info.name);
  p.params = {
      {"op", K::choice, "all", "the op to measure (all: every op of probes/atomics/atomics.cuh)", op_choices},
      {"pattern", K::choice, "all", "the address pattern (all: every pattern the op runs)",
       {"all", "same", "distinct", "contended", "uniform"}},
      {"kind", K::choice, "both", "latency, throughput or both", {"both", "latency", "throughput"}},
      {"iterations", K::integer, "16",
       "loop iterations per launch (16 atomics per chain each)", {}, kMaxIterations},
      {"block-threads", K::integer, "256", "threads per block of a throughput launch (a multiple of 32)", {}, 1024},
      {"blocks-per-sm", K::integer, "4", "blocks per SM of a throughput launch (1 to 32)", {}, 32},
  };
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const uint32_t threads = read_block_threads(prm);
    const uint32_t per_sm = read_blocks_per_sm(prm);
    AtomicsRun run;
    run.iterations = read_iterations(prm, kMaxIterations);
    const std::string which = prm.get_text("op");
    const std::string pattern = prm.get_text("pattern");
    const std::string kinds = prm.get_text("kind");
    const uint32_t sms = static_cast<uint32_t>(ctx.device().info().sm_count);
    std::vector<PlannedPoint> points;
    for (const auto& info : atomics::kAtomicsOps) {
      if (which != "all" && which != info.name) continue;
      for (AtomicsPattern pat : atomics_patterns(info.op)) {
        if (pattern != "all" && pattern != atomics_pattern_name(pat)) continue;
        std::vector<AtomicsSetup> setups;
        AtomicsSetup s;
        s.op = info.op;
        s.pattern = pat;
        if (kinds != "throughput" && info.operation != atomics::AtomicsOperation::red_add) {
          s.kind = AtomicsKind::latency;
          s.block_threads = 32;
          s.blocks = pat == AtomicsPattern::contended ? sms : 1;
          setups.push_back(s);
        }
        if (kinds != "latency") {
          s.kind = AtomicsKind::throughput;
          s.block_threads = threads;
          s.blocks = sms * per_sm;
          setups.push_back(s);
        }
        for (const AtomicsSetup& x : setups) {
          nlohmann::json axes = {{"op", info.name},
                                 {"pattern", atomics_pattern_name(x.pattern)},
                                 {"kind", atomics_kind_name(x.kind)}};
          points.push_back({axes, [&ctx, x, run] { return measure_atomics(ctx, x, run); }});
        }
      }
    }
    if (points.empty())
      throw Error("--op " + which + " --pattern " + pattern + " --kind " + kinds +
                  " measures nothing (red has no latency; the *_uniform ops run only the uniform "
                  "pattern, shared ops no contended one)");
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(atomics_probe);

}  // namespace
}  // namespace gpuprobe::probes
