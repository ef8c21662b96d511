#include "harness/points.hpp"

#include <cmath>

#include "harness/stats.hpp"

namespace gpuprobe {

void measure_points(ProbeContext& ctx, const std::vector<PlannedPoint>& points) {
  measure_clock(ctx, "before");
  auto measure = [&](const PlannedPoint& planned) {
    nlohmann::json point = planned.measure();
    for (const auto& [k, v] : planned.axes.items()) point[k] = v;
    return point;
  };
  for (const PlannedPoint& planned : points) ctx.add_point(measure(planned));

  // Clock outliers: a point measured while the clock was elsewhere is re-measured once.
  std::vector<double> clocks;
  for (const auto& p : ctx.series())
    if (p.value("region_sm_clock_mhz", 0.0) > 0) clocks.push_back(p["region_sm_clock_mhz"]);
  if (!clocks.empty()) {
    const double median_mhz = stats::median(clocks);
    ctx.extra()["median_region_sm_clock_mhz"] = median_mhz;
    auto off = [&](const nlohmann::json& p) {
      const double mhz = p.value("region_sm_clock_mhz", 0.0);
      return mhz > 0 && std::abs(mhz - median_mhz) > kClockOutlierRel * median_mhz;
    };
    uint64_t remeasured = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (!off(ctx.series()[i])) continue;
      nlohmann::json again = measure(points[i]);
      again["remeasured_for_clock"] = true;
      again["clock_outlier"] = off(again);
      ctx.replace_point(i, std::move(again));
      ++remeasured;
    }
    ctx.extra()["clock_outliers_remeasured"] = remeasured;
  }
  measure_clock(ctx, "after");
}

double measure_clock(ProbeContext& ctx, const char* when) {
  const double mhz = ctx.device().measure_sm_clock_mhz(200'000);
  ctx.extra()["sm_clock_mhz"][when] = mhz;
  return mhz;
}

}  // namespace gpuprobe
