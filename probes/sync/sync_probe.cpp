// sync/primitives: the cost of every synchronization primitive of probes/sync/sync.cuh, as a
// latency (one dependent chain: cycles per op, and ns at the SM clock measured right after) and as
// a rate (independent work on every SM: ops per clock per SM, and per second). The barriers'
// latencies are swept: bar.* against the warps per block (1 to 32), the cluster ops against the
// cluster size (1 or 2 to 8), the grid barrier against the grid (1 CTA, then 1, 2 and 4 CTAs per
// SM; launched cooperatively, no rate: a grid has one barrier). Each point repeats its launch
// until stable; every launch's results pass the self-check. An op the device lacks is recorded as
// skipped with the reason.
#include <string>
#include <vector>

#include "harness/error.hpp"
#include "harness/points.hpp"
#include "harness/probe.hpp"
#include "harness/repeat.hpp"
#include "probes/sync/sync_ops.hpp"

namespace gpuprobe::probes {
namespace {

using sync::SyncShape;

constexpr uint64_t kMaxIterations = uint64_t{1} << 20;
// Throughput shapes (harness/sim/presets/sync_costs.cpp chooses its rates for these).
constexpr uint32_t kCtaThroughputThreads = 64;     // two warps per CTA
constexpr uint32_t kCtaThroughputBlocksPerSm = 16;
constexpr uint32_t kClusterThroughputSize = 2;
constexpr uint32_t kGridBlockThreads = 128;

nlohmann::json measure_sync(ProbeContext& ctx, const SyncSetup& setup, const SyncRun& run) {
  const sync::SyncOpInfo& info = sync_info(setup.op);
  const bool latency = setup.kind == SyncKind::latency;
  const auto r = repeat_point(
      ctx.repeat(), [&] { return ctx.ops<SyncOps>().run(setup, run); },
      [&](const SyncResult& x) { return latency ? x.latency_cycles : x.ops_per_clk_per_sm; });
  if (r.skipped) return {{"ptx", info.ptx}, {"skipped", *r.skipped}};
  const SyncResult& first = r.first;
  nlohmann::json p = {{"ptx", info.ptx},
                      {"scope", info.scope},
                      {"unit", sync_unit_name(info.unit)},
                      {"ops_per_chain", first.ops_per_chain},
                      {"chains_per_thread", sync_chains(setup.op, setup.kind)},
                      {"block_threads", setup.block_threads},
                      {"blocks", setup.blocks},
                      {"warps_per_sm", first.warps_per_sm},
                      {"sms", first.sms},
                      {"kernel", sync_kernel_name(setup.op, setup.kind)},
                      {"launch", to_json(first.launch)},
                      {"self_check", "passed"}};
  const double clock_mhz = write_point_repeats(p, ctx, r.outcome, run.iterations);
  const auto& sum = r.outcome.summary;
  if (setup.cluster_size != 0) p["cluster_size"] = setup.cluster_size;
  if (latency) {
    write_latency(p, sum, clock_mhz);
    p["slowest_warp_cycles"] = first.latency_cycles_max;
  } else {
    write_rate(p, ctx, "ops", sum, first.ops_per_clk_per_sm_min, first.ops_per_clk_per_sm_max,
               clock_mhz);
    if (setup.op == SyncOp::dsmem_ld) {  // 8-byte loads
      const double sms = ctx.device().info().sm_count;
      p["bytes_per_clk_per_sm"] = sum.median * 8;
      p["bytes_per_s"] = sum.median * 8 * sms * clock_mhz * 1e6;
    }
  }
  return p;
}

// The latency launches of an op: one warp, or its sweep.
std::vector<SyncSetup> latency_setups(SyncOp op, uint32_t sm_count) {
  std::vector<SyncSetup> out;
  SyncSetup s;
  s.op = op;
  s.kind = SyncKind::latency;
  switch (sync_info(op).shape) {
    case SyncShape::cta:
      for (uint32_t warps : {1u, 2u, 4u, 8u, 16u, 32u}) {
        if (op == SyncOp::bar_arrive && warps < 2) continue;
        s.block_threads = 32 * warps;
        out.push_back(s);
      }
      break;
    case SyncShape::cluster:
    case SyncShape::dsmem:
      for (uint32_t size : {1u, 2u, 4u, 8u}) {
        if (sync_info(op).shape == SyncShape::dsmem && size < 2) continue;
        s.cluster_size = s.blocks = size;
        out.push_back(s);
      }
      break;
    case SyncShape::grid:
      s.block_threads = kGridBlockThreads;
      for (uint32_t blocks : {1u, sm_count, 2 * sm_count, 4 * sm_count}) {
        s.blocks = blocks;
        out.push_back(s);
      }
      break;
    default: out.push_back(s); break;
  }
  return out;
}

// The throughput launch of an op (none for the grid barrier).
std::vector<SyncSetup> throughput_setups(SyncOp op, uint32_t sm_count, uint32_t threads,
                                         uint32_t per_sm) {
  SyncSetup s;
  s.op = op;
  s.kind = SyncKind::throughput;
  switch (sync_info(op).shape) {
    case SyncShape::grid: return {};
    case SyncShape::cta:
      s.block_threads = kCtaThroughputThreads;
      s.blocks = sm_count * kCtaThroughputBlocksPerSm;
      break;
    case SyncShape::cluster:
      s.block_threads = 32;
      s.cluster_size = kClusterThroughputSize;
      s.blocks = sm_count * kCtaThroughputBlocksPerSm;
      break;
    case SyncShape::dsmem:
      s.block_threads = threads;
      s.cluster_size = kClusterThroughputSize;
      s.blocks = sm_count * ((per_sm + 1) / 2 * 2);  // whole clusters
      break;
    default:
      s.block_threads = threads;
      s.blocks = sm_count * per_sm;
      break;
  }
  return {s};
}

ProbeSpec sync_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "sync/primitives";
  p.summary = "warp, CTA, cluster and grid synchronization, mbarrier and fences: latency (cycles, "
              "ns) and rate (ops/clk/SM)";
  std::vector<std::string> op_choices{"all"};
  for (const auto& info : sync::kSyncOps) op_choices.push_back(info.name);
  p.params = {
      {"op", K::choice, "all", "the op to measure (all: every op of probes/sync/sync.cuh)",
       op_choices},
      {"kind", K::choice, "both", "latency, throughput or both", {"both", "latency", "throughput"}},
      {"iterations", K::integer, "64",
       "loop iterations per launch (64 warp ops, 16 barriers or fences, 8 mbarrier round trips or "
       "1 grid barrier per chain each)", {}, kMaxIterations},
      {"block-threads", K::integer, "256",
       "threads per block of a warp-op, fence, mbarrier or DSMEM throughput launch (a multiple of "
       "32, at most 1024)", {}, 1024},
      {"blocks-per-sm", K::integer, "4", "blocks per SM of those throughput launches (1 to 32)",
       {}, 32},
  };
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const uint32_t threads = read_block_threads(prm);
    const uint32_t per_sm = read_blocks_per_sm(prm);
    SyncRun run;
    run.iterations = read_iterations(prm, kMaxIterations);
    const std::string which = prm.get_text("op");
    const std::string kinds = prm.get_text("kind");
    const uint32_t sms = static_cast<uint32_t>(ctx.device().info().sm_count);
    std::vector<PlannedPoint> points;
    for (const auto& info : sync::kSyncOps) {
      if (which != "all" && which != info.name) continue;
      std::vector<SyncSetup> setups;
      if (kinds != "throughput") setups = latency_setups(info.op, sms);
      if (kinds != "latency")
        for (const SyncSetup& s : throughput_setups(info.op, sms, threads, per_sm))
          setups.push_back(s);
      for (const SyncSetup& s : setups) {
        nlohmann::json axes = {{"op", info.name}, {"kind", sync_kind_name(s.kind)}};
        if (s.kind == SyncKind::latency && *info.sweep != '\0') axes[info.sweep] = sync_sweep_value(s);
        points.push_back({axes, [&ctx, s, run] { return measure_sync(ctx, s, run); }});
      }
    }
    if (points.empty())
      throw Error("--op " + which + " --kind " + kinds +
                  " measures nothing: the grid barrier has no rate (a grid holds one barrier)");
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(sync_probe);

}  // namespace
}  // namespace gpuprobe::probes
