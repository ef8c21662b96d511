#include "harness/repeat.hpp"

#include <chrono>
#include <cmath>

#include "harness/interrupt.hpp"

namespace gpuprobe {
namespace {

// Relative half-width of a 95% interval for the median. Below 6 values the order-statistics
// interval is the whole range, so the half-range is used: conservative, and unlike the MAD it
// does not call {100, 200, 100} steady.
double relative_noise(const stats::Summary& s) {
  if (s.n == 0 || s.median == 0.0) return INFINITY;
  if (s.n >= 6) return s.rel_ci_halfwidth;
  return (s.max - s.min) / 2.0 / std::fabs(s.median);
}

}  // namespace

RepeatOutcome repeat_until_stable(const std::function<double()>& measure,
                                  const RepeatPolicy& policy) {
  return repeat_until_stable_rejecting([&]() -> std::optional<double> { return measure(); },
                                       policy);
}

RepeatOutcome repeat_until_stable_rejecting(const std::function<std::optional<double>()>& measure,
                                            const RepeatPolicy& policy) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  RepeatOutcome out;
  const std::size_t max_repeats = std::max(policy.max_repeats, std::size_t{1});
  while (out.values.size() < max_repeats) {
    const std::optional<double> value = measure();
    throw_if_interrupted();  // a point cut short is not saved: its repeats are not all there
    if (value) out.values.push_back(*value);
    if (out.values.size() < policy.min_repeats) {
      // The time bound holds below the minimum too: slow repeats give fewer values, not longer.
      if (std::chrono::duration<double>(clock::now() - start).count() >= policy.max_seconds &&
          !out.values.empty())
        break;
      continue;
    }
    out.summary = stats::summarize(out.values);
    if (relative_noise(out.summary) <= policy.target_rel_ci) {
      out.converged = true;
      return out;
    }
    const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
    if (elapsed >= policy.max_seconds) break;
  }
  out.summary = stats::summarize(out.values);
  // Fewer values than the minimum (rejections, the time bound) never count as converged: one
  // value has no spread to judge.
  out.converged = out.values.size() >= policy.min_repeats &&
                  relative_noise(out.summary) <= policy.target_rel_ci;
  return out;
}

}  // namespace gpuprobe
