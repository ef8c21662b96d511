// Measuring a probe's points, for every family: each point is added (and the record saved) as it is
// measured; then every point whose own SM clock (its `region_sm_clock_mhz`) is more than 2% off
// the run's median is measured once more, and flagged `clock_outlier` if it is still off. The SM
// clock is recorded before and after (`sm_clock_mhz`). Points of an interrupted earlier run (the
// context's resumed points, matched by their axes) are kept as measured, not measured again.
#pragma once
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/probe.hpp"

namespace gpuprobe {

// A point to measure: the axes that place it, and how to measure it (again, if its clock was off).
struct PlannedPoint {
  nlohmann::json axes;
  std::function<nlohmann::json()> measure;
};

// A point whose SM clock differs from the run's median by more than this is measured again.
inline constexpr double kClockOutlierRel = 0.02;

void measure_points(ProbeContext& ctx, const std::vector<PlannedPoint>& points);

// Measures the SM clock and records it in the run record under sm_clock_mhz.<when>.
double measure_clock(ProbeContext& ctx, const char* when);

}  // namespace gpuprobe
