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

void check_sm(int sm, const DeviceInfo& info) {
  if (sm < 0 || sm >= info.sm_count)
    throw Error("--sm " + std::to_string(sm) + " does not exist: " + info.name + " has SMs 0 to " +
                std::to_string(info.sm_count - 1));
}

uint64_t check_chase_fits(const ChaseSetup& setup, const DeviceInfo& info, uint64_t free_bytes) {
  if (setup.chain == nullptr) throw Error("chase setup without a chain");
  check_chain(*setup.chain);
  const Chain& chain = *setup.chain;
  const bool shared = setup.space == MemorySpace::shared;
  const uint64_t smem_bytes = shared ? shared_chase_bytes(chain.span_bytes, setup.sampled_hops)
                                     : global_chase_smem_bytes(setup.sampled_hops);
  if (smem_bytes > info.shared_memory_per_block_optin_bytes)
    throw Error((shared ? "shared-memory chase of " + std::to_string(chain.span_bytes) +
                              " bytes with "
                        : std::string("global chase with ")) +
                std::to_string(setup.sampled_hops) + " samples needs " +
                std::to_string(smem_bytes) + " bytes of shared memory; " + info.name + " allows " +
                std::to_string(info.shared_memory_per_block_optin_bytes) + " per block");
  if (setup.pinned_sm != kAnySm) check_sm(setup.pinned_sm, info);
  const uint64_t need = (shared ? 0 : chain.span_bytes) +
                        chain.slots() * (sizeof(uint64_t) + sizeof(uint32_t));
  if (need > free_bytes)
    throw Error("chain of " + std::to_string(need >> 20) + " MiB exceeds the free device memory (" +
                std::to_string(free_bytes >> 20) + " MiB) of " + info.name);
  return smem_bytes;
}

void check_chase_run(const ChaseRun& run) {
  if (run.warmup_hops < kChaseHopsPerIteration || run.timed_hops == 0 ||
      run.timed_hops % kChaseHopsPerIteration != 0)
    throw Error("chase run needs at least " + std::to_string(kChaseHopsPerIteration) +
                " warm-up hops and a positive multiple of " +
                std::to_string(kChaseHopsPerIteration) + " timed hops");
}

nlohmann::json measure_chase(ProbeContext& ctx, const Chain& chain, const ChaseSettings& s) {
  const auto prepared = ctx.ops<ChaseOps>().prepare(
      {.space = s.space, .load = s.load, .chain = &chain, .sampled_hops = s.sampled_hops, .pinned_sm = s.sm});

  const uint64_t warmup_hops = std::max<uint64_t>(chain.slots(), 1024);
  // One run, checked against the host's prediction; throws on any difference. The prediction is
  // walked once per length (the repeats of a point share it).
  std::map<uint64_t, uint64_t> predicted_offset;
  auto run_once = [&](uint64_t timed_hops) {
    ChaseResult r = prepared->run({warmup_hops, timed_hops});
    const uint64_t hops = warmup_hops + timed_hops + s.sampled_hops;
    auto [it, added] = predicted_offset.try_emplace(hops, 0);
    if (added) it->second = chain.offset_bytes[walk(chain, chain.start, hops)];
    const uint64_t expected = it->second;
    if (r.final_offset_bytes != expected)
      throw SelfCheckFailed("the chase over " + std::to_string(chain.span_bytes) + " bytes ended at offset " +
                            std::to_string(r.final_offset_bytes) + ", the host predicted " +
                            std::to_string(expected) + " (loads were skipped, reordered or corrupted)");
    const uint64_t iterations = timed_hops / kChaseHopsPerIteration;
    if (r.timed_iterations != iterations)
      throw SelfCheckFailed("the timed loop ran " + std::to_string(r.timed_iterations) + " iterations, " +
                            std::to_string(iterations) + " were asked for (" + std::to_string(timed_hops) +
                            " hops)");
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

}  // namespace gpuprobe::probes
