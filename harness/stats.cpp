#include "harness/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "harness/error.hpp"

namespace gpuprobe::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> sorted_finite(std::span<const double> samples) {
  std::vector<double> v;
  v.reserve(samples.size());
  for (double s : samples)
    if (!std::isnan(s)) v.push_back(s);
  std::sort(v.begin(), v.end());
  return v;
}

// Type-7 percentile of an already sorted, non-empty vector.
double percentile_sorted(const std::vector<double>& v, double p) {
  const double h = (static_cast<double>(v.size()) - 1.0) * p / 100.0;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// log P(X = i) for X ~ Binomial(n, 1/2) (n up to millions is fine in log space).
double log_binomial_half_pmf(std::size_t n, std::size_t i) {
  return std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(i) + 1) -
         std::lgamma(static_cast<double>(n - i) + 1) + static_cast<double>(n) * std::log(0.5);
}

}  // namespace

double median(std::span<const double> samples) { return percentile(samples, 50.0); }

double percentile(std::span<const double> samples, double p) {
  if (!(p >= 0.0 && p <= 100.0))
    throw Error("percentile must be within [0, 100], got " + std::to_string(p));
  const auto v = sorted_finite(samples);
  if (v.empty()) return kNaN;
  return percentile_sorted(v, p);
}

double mad(std::span<const double> samples) {
  const auto v = sorted_finite(samples);
  if (v.empty()) return kNaN;
  const double m = percentile_sorted(v, 50.0);
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::fabs(x - m));
  std::sort(dev.begin(), dev.end());
  return percentile_sorted(dev, 50.0);
}

Interval median_ci(std::span<const double> samples, double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0))
    throw Error("confidence must be within (0, 1), got " + std::to_string(confidence));
  const auto v = sorted_finite(samples);
  if (v.empty()) return {kNaN, kNaN};
  const std::size_t n = v.size();
  // [v[k], v[n-1-k]] (0-based) covers the median with probability 1 - 2 P(X <= k), X ~ B(n, 1/2).
  // Take the largest k with P(X <= k) <= alpha/2. For small n no k qualifies and the whole range
  // (the best a sample of n can do) is returned.
  const double alpha_half = (1.0 - confidence) / 2.0;
  // One pass: the CDF grows term by term (re-summing it for every j made this quadratic in n).
  std::size_t k = 0;
  bool found = false;
  double cdf = 0;
  for (std::size_t j = 0; j < n / 2; ++j) {
    cdf += std::exp(log_binomial_half_pmf(n, j));
    if (cdf > alpha_half) break;
    k = j;
    found = true;
  }
  if (!found) return {v.front(), v.back()};
  return {v[k], v[n - 1 - k]};
}

Summary summarize(std::span<const double> samples) {
  Summary s;
  const auto v = sorted_finite(samples);
  s.n = v.size();
  s.nan_count = samples.size() - v.size();
  if (v.empty()) {
    s.mean = s.stddev = s.min = s.max = s.median = s.p05 = s.p95 = s.mad = kNaN;
    s.median_ci95 = {kNaN, kNaN};
    s.rel_ci_halfwidth = kNaN;
    return s;
  }
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.stddev = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;
  s.min = v.front();
  s.max = v.back();
  s.median = percentile_sorted(v, 50.0);
  s.p05 = percentile_sorted(v, 5.0);
  s.p95 = percentile_sorted(v, 95.0);
  s.mad = mad(v);
  s.median_ci95 = median_ci(v, 0.95);
  s.rel_ci_halfwidth = s.median != 0.0
                           ? (s.median_ci95.hi - s.median_ci95.lo) / 2.0 / std::fabs(s.median)
                           : std::numeric_limits<double>::infinity();
  return s;
}

}  // namespace gpuprobe::stats
