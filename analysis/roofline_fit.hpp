// Roofline fit of an arithmetic-intensity sweep (issue 9; method and the real files it holds on:
// docs/ANALYSIS.md, "Roofline fit of an intensity sweep"). Performance against FLOP per byte
// moved rises as intensity x bandwidth while memory-bound and flattens at the compute ceiling;
// real curves have a soft knee, noise and clock/power throttling. The fit gives:
//   bandwidth ceiling   the plateau of bytes/s (flop_per_s / flop_per_byte, or the measured
//                       bytes/s) over the low-intensity end;
//   compute ceiling     the plateau of FLOP per SM clock (flop_per_s / clock) over the
//                       high-intensity end when the points carry their clock, else of FLOP/s;
//                       FLOP/s is then stated at the clock the compute-bound points held;
//   ridge point         compute ceiling / bandwidth ceiling (FLOP/byte).
// Each ceiling carries its points, spread and a confidence in 0..1; `reasons` and `notes` say
// what was applied and what the data show (a throttled clock, a ceiling still rising at the end).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuprobe::analysis {

struct IntensityPoint {
  double flop_per_byte = 0;          // > 0
  double flop_per_s = 0;             // > 0, the whole device
  double bytes_per_s = 0;            // 0: flop_per_s / flop_per_byte
  double sm_clock_mhz = 0;           // 0: not recorded
  double power_w = 0;                // 0: not recorded (only reported: its range)
};

struct RooflineFitOptions {
  // > 0: the SM clock of every point that does not carry one (analyze --clock-mhz).
  double clock_mhz = 0;
  // > 0 (with clocks): also FLOP per clock per SM.
  int sm_count = 0;
  // A plateau is the contiguous run of intensities, around the curve's highest (3-point running
  // median) value, within `member_band` of it; its ceiling is the median of the run's points
  // within `estimate_band` of that value. A plateau must span `min_span` in intensity (last /
  // first): a memory-bound stretch (FLOP/s proportional to intensity) or a compute-bound one
  // (bytes/s inversely proportional) leaves the band within a few percent of intensity.
  double member_band = 0.06;
  double estimate_band = 0.03;
  double min_span = 1.5;
};

// One plateau (a ceiling) as fitted.
struct RooflineCeiling {
  bool found = false;                // false: the sweep never reached it (see lower_bound)
  double value = 0;                  // bytes/s, or FLOP/clk (with clocks) or FLOP/s
  double lower_bound = 0;            // when !found: the highest value seen (the ceiling is above)
  int points = 0;                    // raw points behind the median
  double first_flop_per_byte = 0;    // the plateau's intensity span
  double last_flop_per_byte = 0;
  double spread_rel = 0;             // 1.4826 MAD / median of those points
  double slope_per_octave = 0;       // least-squares d ln(value) / d log2(intensity) over the run
  // points_score x exp(-(spread_rel / 0.03)^2) x (0.8 when still rising > 1%/octave at the
  // sweep's end); points_score = 1 - 2^(-(points - 1) / 2). 0 when !found.
  double confidence = 0;
};

struct RooflineFit {
  bool clocked = false;              // the compute ceiling is per clock
  std::string clock_source;          // "sm_clock_mhz column", "--clock-mhz", "" (none)
  RooflineCeiling bandwidth;         // bytes/s
  RooflineCeiling compute;           // FLOP/clk when clocked, else FLOP/s
  // With clocks: the clock the compute plateau's points held (median), the sweep's range and the
  // compute plateau's range, in MHz.
  double stated_clock_mhz = 0, clock_min_mhz = 0, clock_max_mhz = 0;
  double compute_clock_min_mhz = 0, compute_clock_max_mhz = 0;
  bool throttled = false;            // compute-bound lines held < 98% of the sweep's top clock
  double flops_per_s = 0;            // compute ceiling in FLOP/s (at stated_clock_mhz); 0: none
  double flops_per_clk = 0;          // 0: no clock
  double flops_per_clk_per_sm = 0;   // 0: no clock or no SM count
  double bandwidth_bytes_per_s = 0;  // 0: not reached
  double ridge_flop_per_byte = 0;    // 0: a ceiling missing
  // The sweep's highest FLOP/s and where it was measured.
  double max_flops_per_s = 0, max_flop_per_byte = 0, max_clock_mhz = 0;
  double power_min_w = 0, power_max_w = 0;  // 0: not recorded
  double confidence = 0;             // min of the two ceilings' confidences
  std::size_t input_points = 0;
  std::vector<IntensityPoint> curve; // per distinct intensity, the medians (sorted by intensity)
  std::vector<std::string> notes;    // what the data show (throttling, still rising, bounds)
  std::vector<std::string> reasons;  // rules applied with their numbers
};

// At least 4 points, any order, repeats of an intensity allowed (devices, repetitions: their
// median is the point). All finite; flop_per_byte and flop_per_s > 0; bytes_per_s and
// sm_clock_mhz >= 0; either every point carries a clock or none does (options.clock_mhz fills
// those without). Throws gpuprobe::Error (one line) otherwise.
RooflineFit fit_roofline(const std::vector<IntensityPoint>& points, const RooflineFitOptions& options = {});

// The model's compute.imported object (docs/SCHEMA.md): kind "intensity_sweep", the ceilings,
// clocks, ridge, fits, notes and reasons, and `source`/`file` naming `source`.
nlohmann::json to_json(const RooflineFit& fit, const std::string& source);

}  // namespace gpuprobe::analysis
