// Repeat a measurement until its noise is low enough, within a time bound.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "harness/error.hpp"
#include "harness/stats.hpp"
#include "harness/timing.hpp"

namespace gpuprobe {

struct RepeatPolicy {
  std::size_t min_repeats = 3;
  std::size_t max_repeats = 15;
  double target_rel_ci = 0.01;   // stop once the 95% CI of the median is within +-1%
  double max_seconds = 2.0;      // per measured point; stops early with converged = false
};

struct RepeatOutcome {
  std::vector<double> values;
  stats::Summary summary;
  bool converged = false;        // reached target_rel_ci before max_repeats / max_seconds
};

// Calls measure() min_repeats times, then until the target is met or a bound is hit. The time
// bound stops it below min_repeats too (once it has a value: not converged); the caller keeps a
// single measure() within the bound (timing::calibrate_count's max_ns).
// The noise test is the 95% CI of the median relative to the median (the half-range when there
// are too few values for an order-statistics interval).
RepeatOutcome repeat_until_stable(const std::function<double()>& measure,
                                  const RepeatPolicy& policy);

// The same, where measure() may reject a repeat (std::nullopt: it does not count, the time bound
// still applies). The caller bounds how many it rejects.
RepeatOutcome repeat_until_stable_rejecting(const std::function<std::optional<double>()>& measure,
                                            const RepeatPolicy& policy);

// A point's repeats (repeat_point) and its first repeat's whole result (the family's shape,
// counts and launch come from it); `skipped` says why the device cannot measure the point.
template <class Result>
struct PointRepeats {
  RepeatOutcome outcome;
  Result first{};
  std::optional<std::string> skipped;
};

// repeat_until_stable over a family's run() (returns its Result): value(result) is the number
// that must settle (a latency, a rate). Keeps the first result; a Skip thrown by run()
// (harness/error.hpp) ends the point with skipped = its what().
template <class Run, class Value>
auto repeat_point(const RepeatPolicy& policy, Run&& run, Value&& value)
    -> PointRepeats<std::decay_t<decltype(run())>> {
  using Result = std::decay_t<decltype(run())>;
  PointRepeats<Result> r;
  bool have_first = false;
  try {
    r.outcome = repeat_until_stable(
        [&] {
          const Result x = run();
          if (!have_first) r.first = x, have_first = true;
          return value(x);
        },
        policy);
  } catch (const Skip& e) {
    r.skipped = e.what();
  }
  return r;
}

// A point whose count (passes, hops) is calibrated before its repeats (calibrate_point): the
// count, the policy left for the repeats (the bound less the calibration's time) and the
// calibration's last run, which counts as the first repeat when its count is the one kept.
template <class Result>
struct CalibratedPoint {
  uint64_t count = 0;
  RepeatPolicy policy;
  std::optional<Result> kept;
  // The kept run the first time there is one, else run(count).
  template <class Run>
  Result take_or_run(Run&& run) {
    if (!kept) return run(count);
    Result r = std::move(*kept);
    kept.reset();
    return r;
  }
};

// timing::calibrate_count over run(count), whose result's duration is ns(result): the count
// reaching target_ns, no run planned past calibration_max_seconds; the time it takes comes off
// `policy`'s per-point bound.
template <class Run, class Ns>
auto calibrate_point(const RepeatPolicy& policy, double calibration_max_seconds, Run&& run, Ns&& ns,
                     uint64_t min_count, uint64_t granularity, double target_ns, uint64_t max_count)
    -> CalibratedPoint<std::decay_t<decltype(run(uint64_t{}))>> {
  using Result = std::decay_t<decltype(run(uint64_t{}))>;
  CalibratedPoint<Result> c;
  std::optional<std::pair<uint64_t, Result>> last;
  const auto started = std::chrono::steady_clock::now();
  c.count = timing::calibrate_count(
      [&](uint64_t n) {
        last.emplace(n, run(n));
        return static_cast<double>(ns(last->second));
      },
      min_count, granularity, target_ns, max_count, calibration_max_seconds);
  c.policy = policy;
  c.policy.max_seconds = std::max(
      0.0,
      policy.max_seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  if (last && last->first == c.count) c.kept = std::move(last->second);
  return c;
}

}  // namespace gpuprobe
