// The sync family's simulator costs per preset (SyncCost, probes/sync/sync.hpp), registered as
// "sync" (sim::PresetTable); a GPU's SM, SM count, clock and L2 hit latency are its preset's own
// (cited there). Sources, FIGURES.md §6:
//   [R6000D] GB202 __syncthreads: 5.0 cyc (1 warp), 7.0 (2), 11.0 (4), 14.2 (8), 15.25 (16 and 32
//            warps) (P): 5 + 3.07 per doubling of the warps, flat from 8 warps (14.2)
//   [HPMLL DSM log] H800 distributed shared memory: remote SM 180-213 cyc, 181 at cluster size 2,
//            median 197-207 (M): 169 + 12 per doubling of the cluster (181 at 2, 205 at 8)
//   [GB24 *_gsync] grid.sync + a tiny SCALE on 64 KiB: A100 <= 1.34 us, H200 <= 1.13 us, L40
//            <= 0.82 us per iteration (DER from M, an upper bound)
// FIGURES §6 has "no measured figure" for shfl, vote, __syncwarp and barrier.cluster, and none for
// match, redux, elect, bar.arrive, bar.red, mbarrier or the fences: those are assumptions, each
// marked, chosen plausible. Shuffles about a shared-memory load's latency at one warp-wide SHFL
// per clock per SM (the CUDA C++ Programming Guide's 32 results per clock, not in FIGURES); votes
// on the integer pipe; match and redux slower (third-party B300 reports [R], not in FIGURES:
// MATCH at 0.5 warp instructions per clock per SM, redux min/max 4x faster than add); the cluster
// barrier shaped on B200's cluster.sync of 362 cyc at 8 CTAs and its relaxed arrive ~270 cyc
// cheaper (a third-party B200 study [R], not in FIGURES); a GPU-scope
// fence about one L2 round trip (the preset's own cited L2 hit latency), a system-scope one three
// times that. The rates of barriers, fences and mbarriers are chosen so the probe's throughput
// launch (probes/sync/sync.cpp) has enough independent work to reach them.
#include <string>

#include "harness/sim/family_tables.hpp"
#include "probes/sync/sync.hpp"

namespace gpuprobe::probes {
namespace {

SyncCost op(const char* name, double latency, double rate, std::string source) {
  return {{name, rate, latency, std::move(source)}};
}

SyncCost swept(SyncCost m, double per_doubling, double saturates_at) {
  m.per_doubling_cycles = per_doubling, m.saturates_at = saturates_at;
  return m;
}

// Throughput launches (probes/sync/sync.cpp): 16 two-warp CTAs per SM for the CTA barriers,
// 16 one-warp CTAs in clusters of 2 for the cluster barriers, 32 warps per SM for fences and
// mbarriers. A rate of half what that work could reach at the op's latency keeps it issue-bound.
double half_reachable(double units, double latency) { return 0.5 * units / latency; }

// The grid barrier's figure per preset.
struct GridFigure {
  const char* preset;
  double grid_sync_ns;  // FIGURES §6 upper bound per grid.sync iteration, at the preset's clock
  const char* source;
};
const GridFigure kGridFigures[] = {
    // No grid.sync figure for GV100 beyond [GR438]'s 18.8 us per iteration with 1M elements of
    // work: the A100's (assumption).
    {"v100", 1340, "assumption: the A100's M [GB24 a100_gsync] <= 1.34 us x 1380 MHz"},
    {"a100", 1340, "DER M [GB24 a100_gsync] <= 1.34 us x 1410 MHz"},
    {"h100", 1130, "assumption: the H200's (same GH100 SM) M [GB24 h200_gsync] <= 1.13 us x 1755 MHz"},
    {"h100-sxm", 1130, "assumption: the H200's (same GH100 SM) M [GB24 h200_gsync] <= 1.13 us x 1980 MHz"},
    {"h200", 1130, "DER M [GB24 h200_gsync] <= 1.13 us x 1980 MHz"},
    {"l40", 820, "DER M [GB24 l40_gsync] <= 0.82 us x 2490 MHz"},
    {"b200", 1130, "assumption: the H200's M [GB24 h200_gsync] <= 1.13 us x 1965 MHz"},
    {"rtx5090", 820, "assumption: the L40's M [GB24 l40_gsync] <= 0.82 us x 2407 MHz"},
};

// The table of preset `p` (SM number: which ops exist; SM count: the grid barrier's per-CTA share;
// its L2 hit latency, cited there), whose grid.sync figure is `f`.
SyncCosts table(const sim::Preset& p, const GridFigure& f) {
  const int sm = p.info.cc.sm();
  const double l2_cycles = cache_hit_cycles(p, "L2");
  const std::string none = "assumption: no measured figure (FIGURES §6)";
  const std::string l2 = std::to_string(static_cast<int>(l2_cycles + 0.5));
  SyncCosts t;
  for (const char* name : {"shfl_idx", "shfl_up", "shfl_down", "shfl_bfly"})
    t.push_back(op(name, 23, 1.0, none + "; latency ~ a shared-memory load's, rate one SHFL per "
                                         "clock per SM (CUDA guide, not in FIGURES)"));
  t.push_back(op("vote_any", 10, 2.0, none + "; the integer pipe's half rate"));
  t.push_back(op("vote_all", 10, 2.0, none + "; the integer pipe's half rate"));
  t.push_back(op("vote_ballot", 14, 2.0, none + "; VOTE + the LOP3 that makes its predicate"));
  t.push_back(op("match_any", 50, 0.5, none + "; rate: B300's 0.5 (a B300 report [R])"));
  t.push_back(op("match_all", 50, 0.5, none + "; rate: B300's 0.5 (a B300 report [R])"));
  t.push_back(op("redux_add", 30, 0.5, none + "; REDUX plus the move out of its uniform register"));
  // Blackwell's CREDUX: min/max about 4x add (a third-party B300 report [R]).
  t.push_back(op("redux_min", sm >= 100 ? 20 : 30, sm >= 100 ? 2.0 : 0.5,
                 none + (sm >= 100 ? "; CREDUX 4x REDUX.SUM's rate (a B300 report [R])" : "")));
  t.push_back(op("elect", 40, 0.5, none + "; REDUX.OR + R2UR + ELECT + LOP3 per step (ptx/warp.cuh)"));
  t.push_back(op("bar_warp_sync", 1, 4.0, "assumption: ptxas leaves a NOP (tests/probes/sync/test_sass.py): one "
                                          "issue slot of each of 4 schedulers"));

  SyncCost bar = swept(op("bar_sync", 5.0, 0.5, ""), 3.07, 8);
  bar.source = p.name == "rtx5090"  // GB202: [R6000D] measured this very curve
                   ? "P [R6000D] GB202 5.0/7.0/11.0/14.2/15.25 cyc at 1/2/4/8/16+ warps; rate: assumption"
                   : "assumption: the GB202 curve P [R6000D] (no figure for this GPU, FIGURES §6); rate: assumption";
  t.push_back(bar);
  t.push_back(swept(op("bar_arrive", 12, 0.25, none + "; a round trip: two hand-offs of a barrier"), 6, 8));
  t.push_back(swept(op("bar_red_popc", 10, 0.5, none + "; BAR.RED + B2R + LOP3 per step"), 3.07, 8));

  // 242 + 40 per doubling: 362 at 8 CTAs; relaxed: 270 less.
  SyncCost cluster = swept(op("barrier_cluster", 242, 0, none + "; B200 cluster.sync 362 cyc at 8 "
                                 "CTAs (a B200 report [R]); rate: assumption"), 40, 8);
  cluster.rate = half_reachable(16, sync_latency_cycles(cluster, 2));
  t.push_back(cluster);
  SyncCost relaxed = swept(op("barrier_cluster_relaxed", 62, 0, none + "; B200's release fence ~270 "
                                 "cyc (a B200 report [R]) less; rate: assumption"), 10, 8);
  relaxed.rate = half_reachable(16, sync_latency_cycles(relaxed, 2));
  t.push_back(relaxed);
  t.push_back(swept(op("dsmem_ld", 169, 16,
                       sm == 90 ? "M [HPMLL DSM log] H800 181 cyc at cluster size 2, 180-213 (FIGURES "
                                    "§6); rate (8-byte loads per clock per SM): assumption"
                                  : "assumption: the Hopper figure M [HPMLL DSM log] (FIGURES §6); B200 "
                                    "remote 204 cyc at 8 CTAs (B200 report [R]) agrees; rate: assumption"),
                    12, 8));

  // grid.sync: two L2 round trips (the atomic and the poll) and two bar.sync at one CTA; the rest
  // of the FIGURES upper bound spread over a grid of 4 CTAs per SM.
  SyncCost grid = op("grid_sync", 2 * l2_cycles + 20, 0, "");
  const double upper = f.grid_sync_ns * p.info.rated_sm_clock_mhz / 1000;  // the figure's clock
  grid.per_unit_cycles = (upper - grid.latency_cycles) / (4 * double(p.info.sm_count) - 1);
  grid.source = std::string(f.source) + " = " + std::to_string(static_cast<int>(upper)) +
                " cyc, taken at 4 CTAs/SM; base 2 x L2 (" + l2 + ") + 20: assumption; the rest per CTA";
  t.push_back(grid);

  t.push_back(op("mbarrier_test_wait", 60, half_reachable(32, 60), none + "; rate: assumption"));
  t.push_back(op("mbarrier_try_wait", 60, half_reachable(32, 60), none + "; rate: assumption"));
  const double gpu_fence = l2_cycles;
  const std::string fence = "assumption: a GPU-scope fence waits one L2 round trip (the preset's L2 "
                            "hit latency, " + l2 + " cyc); rate: assumption";
  t.push_back(op("membar_cta", 20, half_reachable(32, 20), none + "; rate: assumption"));
  t.push_back(op("membar_gl", gpu_fence, half_reachable(32, gpu_fence), fence));
  t.push_back(op("membar_sys", 3 * gpu_fence, half_reachable(32, 3 * gpu_fence),
                 "assumption: 3x the GPU-scope fence; rate: assumption"));
  t.push_back(op("fence_acq_rel_gpu", gpu_fence, half_reachable(32, gpu_fence), fence));
  t.push_back(op("fence_acq_rel_cluster", gpu_fence, half_reachable(32, gpu_fence),
                 fence + "; the same MEMBAR.ALL.GPU in SASS (tests/probes/sync/test_sass.py)"));
  t.push_back(op("fence_proxy_async", 30, half_reachable(32, 30), none + "; rate: assumption"));
  // Only the ops this SM has (each op's cap in sync.def).
  std::erase_if(t,
                [&](const SyncCost& c) { return !ptx::device_has(sync_info(parse_sync_op(c.op)).cap, sm); });
  return t;
}

SyncCosts sync_costs(const sim::Preset& p) {
  for (const GridFigure& f : kGridFigures)
    if (p.name == f.preset) return table(p, f);
  return {};
}

// slowdown=F: every rate / F, every latency term x F.
const sim::PresetTable<SyncCosts> kTables("sync", sync_costs, [](SyncCosts& costs, double factor) {
  slow_op_costs_with(costs, factor, &SyncCost::per_doubling_cycles, &SyncCost::per_unit_cycles);
});

}  // namespace
}  // namespace gpuprobe::probes
