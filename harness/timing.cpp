#include "harness/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "harness/error.hpp"

namespace gpuprobe::timing {

uint64_t calibrate_count(const std::function<double(uint64_t count)>& measure_ns,
                         uint64_t min_count, uint64_t granularity, double target_ns,
                         uint64_t max_count, double max_seconds) {
  if (granularity == 0) throw Error("calibration granularity must be positive");
  auto round_up = [&](uint64_t n) { return (n + granularity - 1) / granularity * granularity; };
  uint64_t count = round_up(std::max<uint64_t>(min_count, 1));
  max_count = std::max(count, max_count / granularity * granularity);
  for (int attempt = 0; attempt < 4 && count < max_count; ++attempt) {
    const auto start = std::chrono::steady_clock::now();
    const double ns = measure_ns(count);
    const double wall_ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    if (!(ns > 0) || !std::isfinite(ns))
      throw Error("calibration measured " + std::to_string(ns) + " ns for " +
                  std::to_string(count) + " units: the timer did not advance");
    if (ns >= target_ns) break;
    const double scaled = static_cast<double>(count) * target_ns / ns * 1.1;
    uint64_t next = std::min(max_count, round_up(static_cast<uint64_t>(std::ceil(scaled))));
    // Within the time bound, by whichever clock runs slower here.
    const double per_unit_ns = std::max(ns, wall_ns) / static_cast<double>(count);
    const double fits = max_seconds * 1e9 / per_unit_ns;
    if (fits < static_cast<double>(next))
      next = static_cast<uint64_t>(fits) / granularity * granularity;
    if (next <= count) break;
    count = next;
  }
  return count;
}

double per_unit_from_difference(double t_n, double t_2n, uint64_t n) {
  if (n == 0) throw Error("N/2N difference needs n > 0");
  return (t_2n - t_n) / static_cast<double>(n);
}

}  // namespace gpuprobe::timing
