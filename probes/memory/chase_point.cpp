#include "probes/memory/chase_point.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "harness/error.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::probes {

void add_chase_params(std::vector<ParamSpec>& params, MemorySpace space, const char* default_op,
                      const char* default_sampled_hops) {
  using K = ParamSpec::Kind;
  if (space == MemorySpace::global)
    params.push_back({"cache-op", K::choice, default_op,
                      "ld.global cache operator: ca (L1+L2), cg (L2 only), nc (read-only path), "
                      "cs, lu, cv",
                      {"ca", "cg", "cs", "lu", "cv", "nc"}});
  params.push_back({"timed-hops", K::integer, "4096",
                    "hops in the timed region (a multiple of " +
                        std::to_string(kChaseHopsPerIteration) + ", the loop's unroll)",
                    {}});
  params.push_back({"sampled-hops", K::integer, default_sampled_hops,
                    "hops timed one by one for the p50/p95 distribution", {}});
}

ChaseSettings chase_settings(ProbeContext& ctx, MemorySpace space) {
  const auto& prm = ctx.params();
  ChaseSettings s;
  s.space = space;
  if (space == MemorySpace::global) s.op = *parse_cache_op(prm.get_text("cache-op"));
  s.timed_hops = prm.get_u64("timed-hops");
  s.sampled_hops = static_cast<uint32_t>(prm.get_u64("sampled-hops"));
  s.clock_mhz = measure_clock(ctx, "before");
  return s;
}

nlohmann::json measure_chase(ProbeContext& ctx, const Chain& chain, const ChaseSettings& s) {
  if (s.timed_hops == 0 || s.timed_hops % kChaseHopsPerIteration != 0)
    throw Error("timed hops must be a positive multiple of " +
                std::to_string(kChaseHopsPerIteration));
  ChaseRequest req;
  req.space = s.space;
  req.op = s.op;
  req.chain = &chain;
  req.warmup_hops = std::max<uint64_t>(chain.slots(), 1024);
  req.timed_hops = s.timed_hops;
  req.sampled_hops = s.sampled_hops;
  const uint64_t expected =
      chain.offset_bytes[walk(chain, chain.start, req.warmup_hops + req.timed_hops +
                                                      req.sampled_hops)];

  std::vector<double> samples;
  std::vector<double> region_clock_mhz;
  const auto outcome = repeat_until_stable(
      [&] {
        const ChaseResult r = ctx.device().chase(req);
        if (r.final_offset_bytes != expected)
          throw Error("self-check failed: the chase over " + std::to_string(chain.span_bytes) +
                      " bytes ended at offset " + std::to_string(r.final_offset_bytes) +
                      ", the host predicted " + std::to_string(expected) +
                      " (loads were skipped, reordered or corrupted)");
        for (uint32_t c : r.sample_cycles) samples.push_back(c);
        if (r.timed_ns > 0)
          region_clock_mhz.push_back(static_cast<double>(r.timed_cycles) * 1000.0 /
                                     static_cast<double>(r.timed_ns));
        return static_cast<double>(r.timed_cycles) / static_cast<double>(req.timed_hops);
      },
      ctx.repeat());

  const auto& sum = outcome.summary;
  nlohmann::json p = {
      {"latency_cycles", sum.median},
      {"latency_ns", s.clock_mhz > 0 ? sum.median / s.clock_mhz * 1000.0 : 0.0},
      {"mad_cycles", sum.mad},
      {"ci95_cycles", {sum.median_ci95.lo, sum.median_ci95.hi}},
      {"repeats", sum.n},
      {"converged", outcome.converged},
      {"region_sm_clock_mhz", stats::median(region_clock_mhz)},
      {"self_check", "passed"}};
  if (!samples.empty()) {
    p["p50_cycles"] = stats::percentile(samples, 50);
    p["p95_cycles"] = stats::percentile(samples, 95);
    p["samples"] = samples.size();
  }
  return p;
}

void sweep_random_cycles(ProbeContext& ctx, MemorySpace space, uint64_t max_bytes) {
  const auto& prm = ctx.params();
  const uint64_t slot = prm.get_u64("slot-bytes");
  const ChaseSettings s = chase_settings(ctx, space);
  for (uint64_t f : geometric_sweep(prm.get_u64("min-footprint-bytes"), max_bytes,
                                    prm.get_u64("points-per-octave"), slot)) {
    const Chain chain = make_random_cycle(f, static_cast<uint32_t>(slot), prm.get_u64("seed"));
    auto point = measure_chase(ctx, chain, s);
    point["footprint_bytes"] = f;
    ctx.add_point(std::move(point));
  }
  measure_clock(ctx, "after");
}

std::vector<uint64_t> geometric_sweep(uint64_t min_bytes, uint64_t max_bytes,
                                      uint64_t points_per_octave, uint64_t granularity_bytes) {
  if (points_per_octave == 0) throw Error("points per octave must be at least 1");
  if (granularity_bytes == 0) throw Error("sweep granularity must be positive");
  if (min_bytes < granularity_bytes) min_bytes = granularity_bytes;
  if (max_bytes < min_bytes)
    throw Error("sweep maximum " + std::to_string(max_bytes) + " bytes is below the minimum " +
                std::to_string(min_bytes) + " bytes");
  std::vector<uint64_t> out;
  const double octaves = std::log2(static_cast<double>(max_bytes) / static_cast<double>(min_bytes));
  const auto steps = static_cast<uint64_t>(std::floor(octaves * static_cast<double>(points_per_octave) + 1e-9));
  for (uint64_t i = 0; i <= steps; ++i) {
    const double x = static_cast<double>(min_bytes) *
                     std::exp2(static_cast<double>(i) / static_cast<double>(points_per_octave));
    uint64_t b = static_cast<uint64_t>(std::llround(x));
    b -= b % granularity_bytes;
    if (b >= granularity_bytes && (out.empty() || b > out.back()) && b <= max_bytes)
      out.push_back(b);
  }
  uint64_t last = max_bytes - max_bytes % granularity_bytes;
  if (out.empty() || last > out.back()) out.push_back(last);
  return out;
}

void require_free_memory(ProbeContext& ctx, const char* what, uint64_t bytes, const char* param) {
  const uint64_t free_bytes = ctx.device().free_memory_bytes();
  if (bytes > free_bytes)
    throw Error(std::string(what) + " of " + std::to_string(bytes) +
                " bytes exceeds free device memory (" + std::to_string(free_bytes) +
                " bytes): lower --" + param);
}

double measure_clock(ProbeContext& ctx, const char* when) {
  const double mhz = ctx.device().measure_sm_clock_mhz(200'000);
  ctx.extra()["sm_clock_mhz"][when] = mhz;
  return mhz;
}

}  // namespace gpuprobe::probes
