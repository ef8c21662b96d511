#include "probes/memory/chase_point.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "harness/self_check.hpp"
#include "harness/error.hpp"
#include "harness/repeat.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::probes {

namespace {
std::vector<std::string> load_choices() {
  std::vector<std::string> names;
  for (const auto& v : ptx::kLoadVariants) names.emplace_back(v.name);
  return names;
}
}  // namespace

void add_chase_params(std::vector<ParamSpec>& params, MemorySpace space, const char* default_op,
                      const char* default_sampled_hops, bool sm_all_allowed) {
  using K = ParamSpec::Kind;
  if (space == MemorySpace::global)
    params.push_back({"cache-op", K::choice, default_op,
                      "the global load (ptx/load_variants.def): default (plain ld.global, the "
                      "weak load of ordinary CUDA C++), ca, cg (L2 only), cs, lu, cv, nc "
                      "(read-only path), L1_no_allocate",
                      load_choices()});
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
}

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

ChaseSettings chase_settings(ProbeContext& ctx, MemorySpace space) {
  const auto& prm = ctx.params();
  check_chase_params(prm, ctx.repeat().max_seconds);
  ChaseSettings s;
  s.space = space;
  if (space == MemorySpace::global) s.load = *ptx::parse_load_variant(prm.get_text("cache-op"));
  s.min_timed_hops = prm.get_u64("timed-hops");
  if (s.min_timed_hops == 0 || s.min_timed_hops % kChaseHopsPerIteration != 0)
    throw Error("--timed-hops must be a positive multiple of " +
                std::to_string(kChaseHopsPerIteration));
  const double region_us = prm.get_real("min-region-us");
  s.min_region_ns = region_us > 0 ? static_cast<uint64_t>(region_us * 1000.0)
                                  : ctx.device().min_timed_region_ns();
  s.sampled_hops = static_cast<uint32_t>(prm.get_u64("sampled-hops"));
  const int sm = prm.get_sm("sm");
  s.sm = sm == Params::kSmAll ? kAnySm : sm;   // "all" is expanded by the caller
  if (s.sm >= ctx.device().info().sm_count)
    throw Error("--sm " + std::to_string(s.sm) + " does not exist: " + ctx.device().info().name +
                " has SMs 0 to " + std::to_string(ctx.device().info().sm_count - 1));
  return s;
}

nlohmann::json measure_chase(ProbeContext& ctx, const Chain& chain, const ChaseSettings& s) {
  const auto prepared = ctx.ops<ChaseOps>().prepare(
      {.space = s.space, .load = s.load, .chain = &chain, .sampled_hops = s.sampled_hops, .pinned_sm = s.sm});

  const uint64_t warmup_hops = std::max<uint64_t>(chain.slots(), 1024);
  // Checks one run against the host's prediction; throws on any difference. The prediction is
  // walked once per length (the repeats of a point share it).
  std::map<uint64_t, uint64_t> predicted_offset;
  auto self_check = [&](const ChaseRun& run, const ChaseResult& r) {
    const uint64_t hops = run.warmup_hops + run.timed_hops + s.sampled_hops;
    auto [it, added] = predicted_offset.try_emplace(hops, 0);
    if (added) it->second = chain.offset_bytes[walk(chain, chain.start, hops)];
    const uint64_t expected = it->second;
    if (r.final_offset_bytes != expected)
      throw SelfCheckFailed("the chase over " + std::to_string(chain.span_bytes) + " bytes ended at offset " +
                            std::to_string(r.final_offset_bytes) + ", the host predicted " +
                            std::to_string(expected) + " (loads were skipped, reordered or corrupted)");
    const uint64_t iterations = run.timed_hops / kChaseHopsPerIteration;
    if (r.timed_iterations != iterations)
      throw SelfCheckFailed("the timed loop ran " + std::to_string(r.timed_iterations) + " iterations, " +
                            std::to_string(iterations) + " were asked for (" +
                            std::to_string(run.timed_hops) + " hops)");
  };

  auto run_once = [&](uint64_t timed_hops) {
    const ChaseRun run{warmup_hops, timed_hops};
    ChaseResult r = prepared->run(run);
    self_check(run, r);
    return r;
  };
  // Calibrate: grow the timed region until it lasts min_region_ns. The per-point time bound covers
  // the calibration and the repeats together, and no single run is planned past it.
  auto calibrated = calibrate_point(
      ctx.repeat(), ctx.repeat().max_seconds, run_once,
      [](const ChaseResult& r) { return static_cast<double>(r.timed_ns); }, s.min_timed_hops,
      kChaseHopsPerIteration, static_cast<double>(s.min_region_ns), kMaxTimedHops);
  const uint64_t timed_hops = calibrated.count;

  std::vector<double> samples;
  std::vector<double> empty_samples;
  std::vector<double> region_clock_mhz;
  std::vector<double> region_ns;
  std::optional<LaunchRecord> launch;   // the first repeat's: its SM is the point's
  uint64_t rejected = 0;
  const auto outcome = repeat_until_stable_rejecting(
      [&]() -> std::optional<double> {
        ChaseResult r = calibrated.take_or_run(run_once);
        if (!launch) launch = r.launch;
        if (r.launch.smid != launch->smid) {
          ++rejected;   // never mix SMs within a point: their L2 distance differs
          if (rejected > 2 * ctx.repeat().max_repeats)
            throw Error("repeats of one point keep landing on different SMs (" +
                        std::to_string(launch->smid) + ", " + std::to_string(r.launch.smid) +
                        "): pin the chase with --sm N");
          return std::nullopt;
        }
        for (uint32_t c : r.sample_cycles) samples.push_back(c);
        for (uint32_t c : r.empty_sample_cycles) empty_samples.push_back(c);
        if (r.timed_ns > 0) {
          region_clock_mhz.push_back(static_cast<double>(r.timed_cycles) * 1000.0 /
                                     static_cast<double>(r.timed_ns));
          region_ns.push_back(static_cast<double>(r.timed_ns));
        }
        return static_cast<double>(r.timed_cycles) / static_cast<double>(timed_hops);
      },
      calibrated.policy);

  const auto& sum = outcome.summary;
  const double clock_mhz = region_clock_mhz.empty() ? 0.0 : stats::median(region_clock_mhz);
  nlohmann::json p = {
      {"mad_cycles", sum.mad},
      {"repeats", sum.n},
      {"rejected_repeats", rejected},
      {"converged", outcome.converged},
      {"timed_hops", timed_hops},
      {"warmup_hops", warmup_hops},
      {"timed_region_ns", region_ns.empty() ? 0.0 : stats::median(region_ns)},
      {"region_sm_clock_mhz", clock_mhz},
      {"sm", launch ? nlohmann::json(launch->smid) : nlohmann::json(nullptr)},
      {"launch", launch ? to_json(*launch) : nlohmann::json(nullptr)},
      {"load", s.space == MemorySpace::shared ? std::string("ld.shared.u32")
                                              : std::string(ptx::info(s.load).name)},
      {"self_check", "passed"}};
  write_latency(p, sum, clock_mhz);
  if (!samples.empty()) {
    const double overhead = empty_samples.empty() ? 0.0 : stats::median(empty_samples);
    const double p50 = stats::percentile(samples, 50);
    const double p95 = stats::percentile(samples, 95);
    p["p50_cycles"] = p50;
    p["p95_cycles"] = p95;
    p["sample_overhead_cycles"] = overhead;
    p["p50_corrected_cycles"] = p50 - overhead;
    p["p95_corrected_cycles"] = p95 - overhead;
    p["samples"] = samples.size();
  }
  return p;
}

void sweep_random_cycles(ProbeContext& ctx, MemorySpace space, uint64_t max_bytes) {
  const auto& prm = ctx.params();
  const uint64_t slot = prm.get_u64("slot-bytes");
  const ChaseSettings s = chase_settings(ctx, space);
  const uint64_t seed = prm.get_u64("seed");
  std::vector<PlannedPoint> points;
  for (uint64_t f : geometric_sweep(prm.get_u64("min-footprint-bytes"), max_bytes,
                                    prm.get_u64("points-per-octave"), slot))
    points.push_back(chase_point(ctx, {{"footprint_bytes", f}}, [=] {
      return make_random_cycle(f, static_cast<uint32_t>(slot), seed);
    }, s));
  measure_points(ctx, points);
}

PlannedPoint chase_point(ProbeContext& ctx, nlohmann::json axes, std::function<Chain()> make_chain,
                         const ChaseSettings& s) {
  return {std::move(axes), [&ctx, make_chain = std::move(make_chain), s] {
            return measure_chase(ctx, make_chain(), s);
          }};
}

}  // namespace gpuprobe::probes
