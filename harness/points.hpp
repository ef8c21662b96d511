// Measuring a probe's points, for every family: each point is added (and the record saved) as it is
// measured; then every point whose own SM clock (its `region_sm_clock_mhz`) is more than 2% off
// the run's median is measured once more, and flagged `clock_outlier` if it is still off. The SM
// clock is recorded before and after (`sm_clock_mhz`). Points of an interrupted earlier run (the
// context's resumed points, matched by their axes) are kept as measured, not measured again.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/params.hpp"
#include "harness/probe.hpp"
#include "harness/repeat.hpp"

namespace gpuprobe {

// A point to measure: the axes that place it, and how to measure it (again, if its clock was off).
struct PlannedPoint {
  nlohmann::json axes;
  std::function<nlohmann::json()> measure;
};

// A point whose SM clock differs from the run's median by more than this is measured again.
inline constexpr double kClockOutlierRel = 0.02;

void measure_points(ProbeContext& ctx, const std::vector<PlannedPoint>& points);

// The launch parameters the probe families share, read and checked before anything runs; a bad
// value is one line naming the parameter and its range:
//   --iterations      1 to max_iterations (loop iterations per launch)
//   --block-threads   a multiple of 32 from 32 to max_block_threads
//   --blocks-per-sm   1 to 32
uint64_t read_iterations(const Params& params, uint64_t max_iterations);
uint32_t read_block_threads(const Params& params, uint32_t max_block_threads = 1024);
uint32_t read_blocks_per_sm(const Params& params);

// Measures the SM clock and records it in the run record under sm_clock_mhz.<when>.
double measure_clock(ProbeContext& ctx, const char* when);

// The fields a repeated point shares, whatever its family (docs/SCHEMA.md).
// The SM clock spin after each point (ns).
inline constexpr uint64_t kPointClockSpinNs = 200'000;

// Measures the SM clock right after a point and writes repeats, converged, iterations and
// region_sm_clock_mhz. Returns the clock (MHz).
double write_point_repeats(nlohmann::json& p, ProbeContext& ctx, const RepeatOutcome& outcome,
                           uint64_t iterations);

// A latency median: latency_cycles, ci95_cycles and latency_ns at clock_mhz (null without a clock).
void write_latency(nlohmann::json& p, const stats::Summary& sum, double clock_mhz);

// A rate median in <unit> per clock per SM: <unit>_per_clk_per_sm, ci95_<unit>_per_clk_per_sm,
// sm_spread_<unit>_per_clk ([slowest, fastest] SM) and <unit>_per_s over the device's SMs at
// clock_mhz.
void write_rate(nlohmann::json& p, ProbeContext& ctx, const std::string& unit,
                const stats::Summary& sum, double spread_min, double spread_max, double clock_mhz);

}  // namespace gpuprobe
