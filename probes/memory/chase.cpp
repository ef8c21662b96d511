// The memory family's probes, each a sweep of chase points (chase_point.hpp) over the chains of
// harness/chain.hpp. Kernels: probes/memory/chase.cu, chase_shared.cu; operations: chase_ops.hpp.
#include <algorithm>
#include <cstdio>
#include <string>

#include "harness/error.hpp"
#include "probes/common/op_table.hpp"
#include "probes/memory/chase_point.hpp"

namespace gpuprobe::probes {
namespace {

// The rule among the chase parameters that needs the run's --max-seconds-per-point:
// --min-region-us no longer than a point may take. A chase probe's ProbeSpec::check, so `probe`
// refuses it before any device opens; chase_settings checks it again for run-all's plans.
void check_chase_params(const Params& prm, double max_seconds_per_point) {
  const double region_us = prm.get_real("min-region-us");
  if (!(region_us >= 0) || region_us > max_seconds_per_point * 1e6) {
    char bound[96];
    std::snprintf(bound, sizeof bound,
                  " (%g s) is longer than a point may take (--max-seconds-per-point %g s)", region_us * 1e-6,
                  max_seconds_per_point);
    throw Error("--min-region-us " + prm.get_text("min-region-us") + bound);
  }
}

// A chase probe (its caller sets its run): `params` (its size sweep's and its own), then those
// every chase probe shares: cache-op (global memory only, with its default), timed-hops,
// min-region-us, sampled-hops (with its default) and sm; checked by check_chase_params.
ProbeSpec chase_probe(const char* id, const char* summary, std::vector<ParamSpec> params, MemorySpace space,
                      const char* default_op, const char* default_sampled_hops, bool sm_all_allowed = false) {
  using K = ParamSpec::Kind;
  if (space == MemorySpace::global)
    params.push_back({"cache-op", K::choice, default_op,
                      "the global load (ptx/load_variants.def): default (plain ld.global, the "
                      "weak load of ordinary CUDA C++), ca, cg (L2 only), cs, lu, cv, nc "
                      "(read-only path), L1_no_allocate",
                      op_names(ptx::kLoadVariants)});
  params.push_back({"timed-hops", K::integer, "4096",
                    "fewest hops in the timed region (a multiple of " +
                        std::to_string(kChaseHopsPerIteration) +
                        ", the loop's unroll); more are taken to fill --min-region-us",
                    {}, kMaxTimedHops, kChaseHopsPerIteration, kChaseHopsPerIteration});
  params.push_back({"min-region-us", K::real, "0",
                    "shortest timed region in microseconds (0: the device's, 1000 on a GPU; at most "
                    "--max-seconds-per-point)",
                    {}, kMaxRegionUs});
  params.push_back({"sampled-hops", K::integer, default_sampled_hops,
                    "hops timed one by one for the p50/p95 distribution", {}, kMaxSampledHops});
  params.push_back({"sm", K::sm, "0",
                    std::string("the SM that walks: a number, or any (wherever the scheduler "
                                "puts it)") +
                        (sm_all_allowed ? ", or all (an L2 latency map of every SM)" : ""),
                    sm_all_allowed ? std::vector<std::string>{"any", "all"} : std::vector<std::string>{"any"}});
  return {.id = id, .summary = summary, .params = std::move(params), .run = {}, .needs = {},
          .check = check_chase_params};
}

// The settings from those parameters (sm "all" is the caller's to expand).
ChaseSettings chase_settings(ProbeContext& ctx, MemorySpace space) {
  const auto& prm = ctx.params();
  check_chase_params(prm, ctx.repeat().max_seconds);
  ChaseSettings s;
  s.space = space;
  if (space == MemorySpace::global) s.load = *ptx::parse_load_variant(prm.get_text("cache-op"));
  s.min_timed_hops = prm.get_u64("timed-hops");
  const double region_us = prm.get_real("min-region-us");
  s.min_region_ns = region_us > 0 ? static_cast<uint64_t>(region_us * 1000.0)
                                  : ctx.device().min_timed_region_ns();
  s.sampled_hops = static_cast<uint32_t>(prm.get_u64("sampled-hops"));
  const int sm = prm.get_sm("sm");
  s.sm = sm == Params::kSmAll ? kAnySm : sm;   // "all" is expanded by the caller
  if (s.sm != kAnySm) check_sm(s.sm, ctx.device().info());
  return s;
}

// The point of `axes` that chases the chain make_chain() builds, built only when the point is
// measured (one chain of the sweep in memory at a time).
PlannedPoint chase_point(ProbeContext& ctx, nlohmann::json axes, std::function<Chain()> make_chain,
                         const ChaseSettings& s) {
  return {std::move(axes), [&ctx, make_chain = std::move(make_chain), s] {
            return measure_chase(ctx, make_chain(), s);
          }};
}

// chase_point over a random cycle of `bytes` in --slot-bytes slots (--seed).
PlannedPoint random_cycle_point(ProbeContext& ctx, nlohmann::json axes, uint64_t bytes,
                                const ChaseSettings& s) {
  const auto slot = static_cast<uint32_t>(ctx.params().get_u64("slot-bytes"));
  const uint64_t seed = ctx.params().get_u64("seed");
  return chase_point(
      ctx, std::move(axes), [=] { return make_random_cycle(bytes, slot, seed); }, s);
}

// The footprint sweep of memory/chase and memory/chase_shared: from --min-footprint-bytes to
// max_bytes at --points-per-octave, one random cycle per point.
void sweep_random_cycles(ProbeContext& ctx, const ChaseSettings& s, uint64_t max_bytes) {
  const auto& prm = ctx.params();
  std::vector<PlannedPoint> points;
  for (uint64_t f : geometric_sweep(prm.get_u64("min-footprint-bytes"), max_bytes,
                                    prm.get_u64("points-per-octave"), prm.get_u64("slot-bytes")))
    points.push_back(random_cycle_point(ctx, {{"footprint_bytes", f}}, f, s));
  measure_points(ctx, points);
}

// memory/chase --sm all, the per-SM L2 map: for each SM, a point inside the near L2 partition (an
// eighth of the L2) and one past it (three quarters of the L2: the far-L2 plateau where there is
// one).
void sm_map(ProbeContext& ctx, ChaseSettings s) {
  const auto& prm = ctx.params();
  const DeviceInfo& info = ctx.device().info();
  uint64_t near_bytes = prm.get_u64("map-near-bytes");
  uint64_t far_bytes = prm.get_u64("map-far-bytes");
  if (near_bytes == 0) near_bytes = info.l2_bytes / 8;
  if (far_bytes == 0) far_bytes = info.l2_bytes / 4 * 3;
  if (near_bytes == 0 || far_bytes <= near_bytes)
    throw Error("--sm all needs --map-near-bytes below --map-far-bytes (the device reports an L2 "
                "of " + std::to_string(info.l2_bytes) + " bytes)");
  require_free_memory(ctx, "map footprint", far_bytes, "map-far-bytes");
  // The map is of the L2: a load that can hit L1 would mix L1 hits into small footprints.
  if (ptx::info(s.load).first_level == ptx::CacheLevel::L1) s.load = ptx::LoadVariant::cg;
  std::vector<PlannedPoint> points;
  for (int sm = 0; sm < info.sm_count; ++sm) {
    for (const auto& [level, bytes] : {std::pair{"L2", near_bytes}, std::pair{"L2-far", far_bytes}}) {
      ChaseSettings pinned = s;
      pinned.sm = sm;
      points.push_back(random_cycle_point(
          ctx, {{"map_level", level}, {"footprint_bytes", bytes}, {"pinned_sm", sm}}, bytes, pinned));
    }
  }
  ctx.extra()["sm_map"] = {{"near_footprint_bytes", near_bytes},
                           {"far_footprint_bytes", far_bytes}};
  measure_points(ctx, points);
}

// memory/chase: latency against footprint for one global load variant. A random single cycle at
// slot (line) granularity, one thread, warm-up pass, calibrated timed region, per-hop samples.
// With --sm all: the L2 latency map instead (sm_map), every SM at two footprints.
ProbeSpec chase_global_probe() {
  using K = ParamSpec::Kind;
  std::vector<ParamSpec> params = size_sweep_params("footprint", "1K", "4x the L2 size", "8");
  params.insert(params.end(), {
      {"slot-bytes", K::bytes, "128", "distance between chain slots (one per cache line)", {}, kMaxSlotBytes,
       8, 8},
      {"seed", K::integer, "1", "seed of the random cycle", {}},
      {"map-near-bytes", K::bytes, "0", "--sm all: the near-L2 footprint (0: L2 / 8)", {}},
      {"map-far-bytes", K::bytes, "0", "--sm all: the far-L2 footprint (0: 3/4 of the L2)", {}},
  });
  ProbeSpec p = chase_probe("memory/chase",
                            "global-memory latency against footprint (L1/L2/far-L2/DRAM), one load "
                            "variant; --sm all: per-SM L2 latency map",
                            std::move(params), MemorySpace::global, "default", "512",
                            /*sm_all_allowed=*/true);
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const auto& info = ctx.device().info();
    ChaseSettings s = chase_settings(ctx, MemorySpace::global);
    if (prm.get_sm("sm") == Params::kSmAll) return sm_map(ctx, s);
    uint64_t max_bytes = prm.get_u64("max-footprint-bytes");
    if (max_bytes == 0) max_bytes = 4 * info.l2_bytes;
    if (max_bytes == 0) throw Error("device reports no L2 size: give --max-footprint-bytes");
    require_free_memory(ctx, "footprint", max_bytes, "max-footprint-bytes");
    sweep_random_cycles(ctx, s, max_bytes);
  };
  return p;
}

// memory/chase_shared: shared-memory (ld.shared.u32) load-to-use latency against footprint.
ProbeSpec chase_shared_probe() {
  using K = ParamSpec::Kind;
  std::vector<ParamSpec> params =
      size_sweep_params("footprint", "1K", "the block's opt-in shared memory less the sample buffer", "2");
  params.insert(params.end(), {
      {"slot-bytes", K::bytes, "8", "distance between chain slots", {}, kMaxSlotBytes, 8, 8},
      {"seed", K::integer, "1", "seed of the random cycle", {}},
  });
  ProbeSpec p = chase_probe("memory/chase_shared",
                            "shared-memory latency (ld.shared chase) against footprint", std::move(params),
                            MemorySpace::shared, "", "512");
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const uint64_t sampled = prm.get_u64("sampled-hops");
    const uint64_t optin = ctx.device().info().shared_memory_per_block_optin_bytes;
    // What the chain may take next to the scratch slot and the samples (harness/device.hpp).
    const uint64_t beside = shared_chase_bytes(0, static_cast<uint32_t>(sampled));  // chase.cuh
    const uint64_t room = optin > beside ? (optin - beside) / 8 * 8 : 0;
    uint64_t max_bytes = prm.get_u64("max-footprint-bytes");
    if (max_bytes == 0) max_bytes = room;
    if (max_bytes > room)
      throw Error("shared-memory footprint " + std::to_string(max_bytes) +
                  " bytes exceeds the " + std::to_string(room) +
                  " bytes a block can use next to its samples");
    sweep_random_cycles(ctx, chase_settings(ctx, MemorySpace::shared), max_bytes);
  };
  return p;
}

// memory/stride: sequential stride rings, latency against footprint for each stride. The L1
// capacity knee grows with the stride once the stride passes the line size (each hop then holds a
// whole line's tag for one sector), and beyond the knee the miss fraction is
// min(1, stride / sector): analysis/line_sector_fit.cpp reads both. Each slot sits at a random
// offset inside its stride-sized block so that power-of-two strides don't alias into a subset of
// the cache sets (harness/chain.hpp).
ProbeSpec stride_probe() {
  using K = ParamSpec::Kind;
  std::vector<ParamSpec> params = size_sweep_params(
      "footprint", "4K", "min(8 MiB, L2 / 2): room past the 1 KiB-stride knee, inside L2", "4");
  params.insert(params.end(), {
      {"strides-bytes", K::list, "8,16,32,64,128,256,512,1024", "strides to sweep", {}, kMaxStrides, 8, 8},
      {"scatter-seed", K::integer, "1", "seed of the in-block slot offsets (0: slots at block starts)", {}},
  });
  ProbeSpec p = chase_probe("memory/stride",
                            "stride sweep: latency against footprint per stride (line and sector size)",
                            std::move(params), MemorySpace::global, "default", "0");
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    uint64_t max_bytes = prm.get_u64("max-footprint-bytes");
    if (max_bytes == 0) max_bytes = std::min<uint64_t>(8ull << 20, ctx.device().info().l2_bytes / 2);
    require_free_memory(ctx, "footprint", max_bytes, "max-footprint-bytes");
    const ChaseSettings s = chase_settings(ctx, MemorySpace::global);
    const uint64_t scatter_seed = prm.get_u64("scatter-seed");
    std::vector<PlannedPoint> points;
    for (uint64_t stride : prm.get_u64_list("strides-bytes")) {
      const uint64_t lo = std::max(prm.get_u64("min-footprint-bytes"), 2 * stride);
      for (uint64_t f : geometric_sweep(lo, max_bytes, prm.get_u64("points-per-octave"), stride))
        points.push_back(chase_point(ctx, {{"stride_bytes", stride}, {"footprint_bytes", f}}, [=] {
          return make_stride_ring(f, static_cast<uint32_t>(stride), scatter_seed);
        }, s));
    }
    measure_points(ctx, points);
  };
  return p;
}

// The default memory/tlb sweep reaches this fraction of the free memory: past every TLB level
// measured so far (A100: 64 GB reach), leaving room for the chain arrays and the context.
constexpr double kDefaultSpanOfFree = 0.85;

// memory/tlb: one hop per page over a growing span (GiBs, bounded by free memory). Data stay in
// L2 (.cg, one line per page, offset per hop to spread the sets), so the steps are translation
// misses: TLB reach and miss cost (analysis/tlb_fit.cpp).
ProbeSpec tlb_probe() {
  using K = ParamSpec::Kind;
  // No minimum: the sweep starts at one page.
  std::vector<ParamSpec> params = size_sweep_params("span", "", "85% of the free memory", "4");
  params.insert(params.end(), {
      {"page-bytes", K::bytes, "2M", "distance between hops (the page size probed)", {}, 0, 64, 8},
      {"offset-step-bytes", K::bytes, "136", "extra in-page offset per hop (spreads cache sets)", {}, kMaxSlotBytes, 0, 8},
      {"seed", K::integer, "1", "seed of the random page order", {}},
  });
  ProbeSpec p = chase_probe("memory/tlb",
                            "TLB sweep: one hop per page over a growing span (reach, miss cost)",
                            std::move(params), MemorySpace::global, "cg", "0");
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const uint64_t page = prm.get_u64("page-bytes");
    uint64_t max_span = prm.get_u64("max-span-bytes");
    if (max_span == 0)
      max_span = static_cast<uint64_t>(kDefaultSpanOfFree *
                                       static_cast<double>(ctx.device().free_memory_bytes()));
    require_free_memory(ctx, "span", max_span, "max-span-bytes");
    if (page == 0 || max_span < page) throw Error("the span must hold at least one page");
    const ChaseSettings s = chase_settings(ctx, MemorySpace::global);
    const uint32_t step = static_cast<uint32_t>(prm.get_u64("offset-step-bytes"));
    const uint64_t seed = prm.get_u64("seed");
    std::vector<PlannedPoint> points;
    for (uint64_t span : geometric_sweep(page, max_span, prm.get_u64("points-per-octave"), page)) {
      const uint64_t pages = span / page;
      points.push_back(chase_point(ctx, {{"span_bytes", span}, {"pages", pages}},
                                   [=] { return make_page_cycle(pages, page, step, seed); }, s));
    }
    ctx.extra()["page_bytes"] = page;
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kChase(chase_global_probe);
const ProbeRegistration kChaseShared(chase_shared_probe);
const ProbeRegistration kStride(stride_probe);
const ProbeRegistration kTlb(tlb_probe);

}  // namespace
}  // namespace gpuprobe::probes
