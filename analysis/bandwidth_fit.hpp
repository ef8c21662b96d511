// Fits of bandwidth curves (issue 8; method and why it holds on real files: docs/ANALYSIS.md,
// "Bandwidth fits").
//
//   fit_footprint_sweep     bandwidth against footprint -> levels (plateau bandwidth, where it ends)
//   fit_concurrency_sweep   bandwidth against bytes in flight per SM -> peak, bytes in flight for
//                           90% of it, unloaded latency, the loaded-latency model (Little's law)
//   fit_loaded_latency      latency against achieved bandwidth -> the same model
//   fit_bank_conflicts      bytes/clk/SM against stride -> peak and conflict degree per stride
//
// The loaded-latency model is harness/littles_law.hpp, shared with the simulator. Every result
// carries a confidence from the data (0..1) and a `reasons` trail of the rules applied with their
// numbers. Bad input (too few points, not finite, not positive, unsorted x) throws gpuprobe::Error.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "harness/littles_law.hpp"

namespace gpuprobe::analysis {

// --- footprint sweep --------------------------------------------------------------------------
struct FootprintPoint {
  double footprint_bytes = 0;
  double bandwidth_bytes_per_s = 0;
};

struct BandwidthLevel {
  std::string name;                  // options.level_names[i], else "level <i+1>"
  double bandwidth_bytes_per_s = 0;  // median of the stable part of the plateau
  double bandwidth_lo_bytes_per_s = 0;  // distribution-free 95% interval of that median
  double bandwidth_hi_bytes_per_s = 0;
  // Where the level ends: the footprint at which the curve has fallen by 10% of the (log) step to
  // the next level, interpolated in log-log between the two points around it; the interval is
  // those two points. Past the last level, the step is to the lowest later point when at least
  // two later points lie below the band (the sweep ends falling); otherwise 0 (all three): the
  // sweep ends on this level.
  double end_bytes = 0;
  double end_lo_bytes = 0;
  double end_hi_bytes = 0;
  double plateau_first_bytes = 0;    // footprints of the plateau's first and last points
  double plateau_last_bytes = 0;
  int points = 0;                    // points of the stable part
  int outliers = 0;                  // points inside the plateau's span left out of it
  double spread_rel = 0;             // 1.4826 MAD of log(bandwidth) of the stable part
  double slope_per_octave = 0;       // least-squares d ln(bandwidth) / d log2(footprint)
  // points_score x spread_score x inlier_fraction:
  //   points_score = 1 - 2^(-(points - 1) / 2)                (3 points 0.5, 8 points 0.91)
  //   spread_score = exp(-(spread_rel / (0.25 x log step to the nearest level))^2), with a step
  //                  of ln 2 (a factor of 2) for the only level of a curve
  //   inlier_fraction = points / (points + outliers)
  double confidence = 0;
};

struct RejectedPlateau {
  double bandwidth_bytes_per_s = 0;
  double first_bytes = 0, last_bytes = 0;
  int points = 0;
  std::string rule;                  // "slope", "rise"
  std::string reason;                // one line with the numbers
};

struct FootprintFitOptions {
  std::vector<std::string> level_names;  // names given to levels in order (e.g. L1, L2, DRAM)
  // A point belongs to a plateau while within `band` (relative, in log) of the median of the
  // plateau's last three points; band = clamp(3 x noise, min_band, max_band), noise = 1.4826 MAD
  // of successive log differences / sqrt 2.
  double min_band = 0.05;
  double max_band = 0.15;
  int max_excursion_points = 2;      // a plateau survives this many consecutive points outside it
  // A plateau starts at this many consecutive points within the band of their median (so a
  // curve where no three neighbours agree has no level), and keeps at least this many.
  int min_plateau_points = 3;
  double min_plateau_octaves = 0.2;  // last/first footprint >= 2^0.2
  // |slope| of a plateau, in ln(bandwidth) per octave of footprint; steeper runs are knees.
  double max_slope_per_octave = 0.1;
};

struct FootprintFit {
  std::vector<BandwidthLevel> levels;   // in footprint order; bandwidth falls level by level
  double noise_rel = 0;
  double band_rel = 0;                  // the band used
  std::vector<RejectedPlateau> rejected;
  std::vector<std::string> reasons;     // rules applied, dips merged, contradictions
};

// Points sorted by footprint (strictly increasing), at least 3, all finite and positive. A denser
// curve than kMaxFootprintFitPoints is first binned to that many equal widths of log2(footprint)
// (median footprint and bandwidth per bin; said in `reasons`): a rejected candidate is rescanned
// from its next point, so the cost grows faster than linearly (bench/bench_bandwidth_fit.cpp).
constexpr std::size_t kMaxFootprintFitPoints = 1024;
FootprintFit fit_footprint_sweep(const std::vector<FootprintPoint>& points,
                                 const FootprintFitOptions& options = {});

// The binning above, for any curve sorted by x (x > 0, same length as y): a curve of more than
// max_points points becomes max_points bins of equal width in log2(x) over its range, each
// non-empty bin one point holding the median of its x and of its y (x stays increasing). Returns
// the bin width in octaves; 0 (x and y untouched) when there are at most max_points points or
// all x are equal. Also bounds imported curves (analyze --import-csv).
double bin_log_x(std::vector<double>& x, std::vector<double>& y, std::size_t max_points);

// --- loaded latency (Little's law) ------------------------------------------------------------
struct LoadedLatencyPoint {
  double bandwidth_bytes_per_s = 0;
  double latency_ns = 0;             // from cycles: cycles / clock_MHz x 1000
};

// latency(B) = unloaded + queue x B / (peak - B), fitted by weighted least squares on the
// relative latency residual: linear in (unloaded, queue) for a given peak, the peak searched on a
// log grid of (peak / max B - 1) in [1e-4, 10] and refined by golden section.
struct LoadedLatencyFit {
  double unloaded_latency_ns = 0;
  double queue_ns = 0;
  double peak_bandwidth_bytes_per_s = 0;
  double rms_rel_residual = 0;       // sqrt(mean((model - latency) / latency)^2)
  int points = 0;
  // False when the data cannot tell the peak (no queueing seen: queue = 0, or the best peak at
  // the end of the search grid): the peak is then only >= the largest bandwidth measured.
  bool peak_identified = false;
  // points_score x exp(-(rms_rel_residual / 0.1)^2) x (peak_identified ? 1 : 0.3)
  double confidence = 0;
  std::vector<LoadedLatencyPoint> raw;  // the points fitted (for the model JSON and plots)
  std::vector<std::string> reasons;
};

// The model in units littles_law::bandwidth_for takes with bytes in flight: bytes/ns and ns.
littles_law::LoadedLatency to_littles_law_ns(const LoadedLatencyFit& fit);

// At least 3 points with distinct bandwidths; all finite and positive.
LoadedLatencyFit fit_loaded_latency(const std::vector<LoadedLatencyPoint>& points);

// --- concurrency sweep ------------------------------------------------------------------------
struct ConcurrencyPoint {
  double bytes_in_flight_per_sm = 0;
  double bandwidth_bytes_per_s = 0;  // whole device
};

struct ConcurrencyFitOptions {
  int sm_count = 0;                  // 0: unknown; no latency and no model fit then
  double fraction = 0.9;             // of the peak, for bytes_in_flight_per_sm
  // The top band: points within band of the second-largest bandwidth; band =
  // clamp(3 x noise, min_top_band, max_top_band), noise = 1.4826 MAD of the residuals of the
  // points within max_top_band about their log-log trend (0 for fewer than 3 such points).
  double min_top_band = 0.03;
  double max_top_band = 0.10;
  // Still rising: the last point is in the top band and the band's log-log slope exceeds this
  // (ln(bandwidth) per octave of bytes in flight; 0.1 = +7% per doubling).
  double max_top_slope_per_octave = 0.1;
  // The unloaded latency comes from points below this fraction of the peak.
  double low_load_fraction = 0.5;
};

struct ConcurrencyFit {
  double peak_bandwidth_bytes_per_s = 0;   // median of the top band
  double peak_lo_bytes_per_s = 0, peak_hi_bytes_per_s = 0;  // 95% interval of that median
  int top_points = 0;
  double top_band_rel = 0;
  bool still_rising = false;         // the peak is a lower bound
  double sag_rel = 0;                // 1 - median(points past the band) / peak; 0 if none
  int sag_points = 0;
  // Bytes in flight per SM where the measured curve (linear interpolation) last crosses
  // fraction x peak before the top band; interval: the two points around the crossing, widened
  // to the crossings of fraction x (peak interval).
  double bytes_in_flight_per_sm = 0;
  double bytes_in_flight_lo_per_sm = 0, bytes_in_flight_hi_per_sm = 0;
  bool crossing_measured = false;    // false: the sweep starts above the threshold (upper bound)
  // latency = bytes in flight x SMs / bandwidth, from the through-origin slope of the points below
  // low_load_fraction x peak; 0 when sm_count is 0 or fewer than 2 such points.
  double unloaded_latency_ns = 0;
  int low_load_points = 0;
  // Fitted on (B, x * SMs / B) up to the top band (not the sag), its peak chosen on the bandwidth
  // residual below; empty if no SM count.
  LoadedLatencyFit model;
  // The model as the simulator uses it: rms of (littles_law::bandwidth_for(model, x * SMs) - B) / B
  // over the points fitted (0 without a model).
  double model_rms_rel_bandwidth_residual = 0;
  // points_score(top_points) x (still_rising ? 0.5 : 1) x (crossing_measured ? 1 : 0.5)
  double confidence = 0;
  std::vector<std::string> reasons;
};

// Points sorted by bytes in flight (strictly increasing), at least 3, finite and positive.
ConcurrencyFit fit_concurrency_sweep(const std::vector<ConcurrencyPoint>& points,
                                     const ConcurrencyFitOptions& options = {});

// --- bank conflicts ---------------------------------------------------------------------------
// Wavefronts one warp-wide load of `word_bytes` (4, 8 or 16) per thread at a stride of
// `stride_elements` elements needs from 32 banks of 4 bytes: the warp is served in word_bytes / 4
// groups of consecutive threads; each group takes as many wavefronts as the most distinct 4-byte
// words falling in one bank (the same word is broadcast). For 4-byte words this is
// gcd(stride, 32), and 1 for stride 0; for 8-byte words 2 x gcd(stride, 16).
int bank_wavefronts(int stride_elements, int word_bytes);

struct StridePoint {
  int stride_elements = 0;
  double bytes_per_cycle_per_sm = 0;
};

struct StrideConflict {
  int stride_elements = 0;
  double measured_slowdown = 0;      // peak / measured
  int degree = 0;                    // measured_slowdown rounded
  int wavefronts = 0;                // bank_wavefronts(stride, word_bytes)
  // max(wavefronts, base_cycles) / base_cycles: what the banks alone allow.
  double predicted_slowdown = 0;
  // "banks": measured within tolerance of predicted; "slower": another limit on top (on the L1
  // path: the distinct cache lines a request touches); "faster": contradicts the bank model.
  std::string verdict;
};

struct BankConflictOptions {
  int word_bytes = 4;
  double tolerance = 0.15;           // relative, measured vs predicted slowdown
  // The peak is the median of the conflict-free strides (bank_wavefronts = word_bytes / 4) within
  // this of their best; of all strides within it of the fastest when none is conflict-free.
  double peak_band = 0.03;
};

struct BankConflictFit {
  double peak_bytes_per_cycle_per_sm = 0;
  // Cycles of a conflict-free warp-wide load: round(32 x word_bytes / peak), at least 1. Above
  // word_bytes / 4 when the data path is narrower than the banks (A40/L40: 64 B/clk).
  int base_cycles = 0;
  std::vector<StrideConflict> strides;
  int banks = 0, slower = 0, faster = 0;
  // points_score(strides) x (1 - faster / strides)
  double confidence = 0;
  std::vector<std::string> reasons;
};

// At least 2 points, distinct strides >= 0, bandwidths finite and positive.
BankConflictFit fit_bank_conflicts(const std::vector<StridePoint>& points,
                                   const BankConflictOptions& options = {});

}  // namespace gpuprobe::analysis
