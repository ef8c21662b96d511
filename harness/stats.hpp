// Order statistics for measurement samples. NaN samples (a failed measurement) are dropped and
// counted; an empty input gives NaN for every statistic, never a crash.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

namespace gpuprobe::stats {

// Median; the mean of the two middle values for an even count. NaN if no finite sample.
double median(std::span<const double> samples);
// Percentile p in [0, 100] by linear interpolation between order statistics (Hyndman-Fan type 7,
// numpy's default). NaN if no sample. Throws gpuprobe::Error for p outside [0, 100].
double percentile(std::span<const double> samples, double p);
// Median absolute deviation from the median (unscaled; multiply by 1.4826 for a normal sigma).
double mad(std::span<const double> samples);

struct Interval {
  double lo = 0;
  double hi = 0;
};
// Distribution-free confidence interval of the median from order statistics (binomial), at the
// given confidence. For fewer than 6 samples the 95% interval is the whole range [min, max].
Interval median_ci(std::span<const double> samples, double confidence = 0.95);

struct Summary {
  std::size_t n = 0;          // finite samples used
  std::size_t nan_count = 0;  // samples dropped because they were NaN
  double mean = 0, stddev = 0, min = 0, max = 0;
  double median = 0, p05 = 0, p95 = 0, mad = 0;
  Interval median_ci95;
  double rel_ci_halfwidth = 0;  // (ci.hi - ci.lo) / 2 / |median|
};
Summary summarize(std::span<const double> samples);

}  // namespace gpuprobe::stats
