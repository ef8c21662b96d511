#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "harness/error.hpp"
#include "harness/stats.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe::stats;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST_CASE("median of odd and even counts", "[stats]") {
  std::vector<double> odd{5, 1, 3};
  std::vector<double> even{4, 1, 3, 2};
  CHECK(median(odd) == 3.0);
  CHECK(median(even) == 2.5);  // mean of the two middle values, not the upper one
  std::vector<double> one{7};
  CHECK(median(one) == 7.0);
}

TEST_CASE("percentiles interpolate between order statistics (type 7)", "[stats]") {
  std::vector<double> v{10, 20, 30, 40, 50};
  CHECK(percentile(v, 0) == 10.0);
  CHECK(percentile(v, 100) == 50.0);
  CHECK(percentile(v, 25) == 20.0);
  CHECK(percentile(v, 95) == Approx(48.0).epsilon(1e-12));
  std::vector<double> w{1, 2, 3, 4};
  CHECK(percentile(w, 50) == 2.5);
  CHECK(percentile(w, 10) == Approx(1.3).epsilon(1e-12));
  CHECK_THROWS_AS(percentile(v, 101), gpuprobe::Error);
  CHECK_THROWS_AS(percentile(v, -1), gpuprobe::Error);
}

TEST_CASE("MAD is the median absolute deviation", "[stats]") {
  std::vector<double> v{1, 1, 2, 2, 4, 6, 9};  // median 2, deviations 1 1 0 0 2 4 7
  CHECK(mad(v) == 1.0);
  std::vector<double> c{3, 3, 3};
  CHECK(mad(c) == 0.0);
}

TEST_CASE("empty input gives NaN, never a crash", "[stats]") {
  std::vector<double> none;
  CHECK(std::isnan(median(none)));
  CHECK(std::isnan(percentile(none, 95)));
  CHECK(std::isnan(mad(none)));
  auto ci = median_ci(none);
  CHECK(std::isnan(ci.lo));
  auto s = summarize(none);
  CHECK(s.n == 0);
  CHECK(std::isnan(s.median));
}

TEST_CASE("NaN samples are dropped and counted", "[stats]") {
  std::vector<double> v{1, kNaN, 3, kNaN};
  CHECK(median(v) == 2.0);
  auto s = summarize(v);
  CHECK(s.n == 2);
  CHECK(s.nan_count == 2);
  CHECK(s.mean == 2.0);
  std::vector<double> all_nan{kNaN, kNaN};
  CHECK(std::isnan(median(all_nan)));
}

TEST_CASE("median confidence interval from order statistics", "[stats]") {
  // n = 5 is too few for 95%: the interval is the whole range.
  std::vector<double> five{1, 2, 3, 4, 5};
  auto r = median_ci(five);
  CHECK(r.lo == 1.0);
  CHECK(r.hi == 5.0);
  // n = 10: P(X <= 1) = 11/1024 = 0.0107 <= 0.025 < P(X <= 2) = 56/1024, so the 95% interval is
  // the 2nd and 9th order statistics (coverage 1 - 22/1024 = 97.9%).
  std::vector<double> ten{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  auto c = median_ci(ten);
  CHECK(c.lo == 2.0);
  CHECK(c.hi == 9.0);
  CHECK_THROWS_AS(median_ci(ten, 1.5), gpuprobe::Error);
  // n = 6: P(X <= 0) = 1/64 = 0.0156 <= 0.025: the range is a 96.9% interval.
  std::vector<double> six{6, 5, 4, 3, 2, 1};
  auto s6 = median_ci(six);
  CHECK(s6.lo == 1.0);
  CHECK(s6.hi == 6.0);
  // n = 100: the textbook 95% interval of the median is the 40th and 61st order statistics.
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  auto h = median_ci(hundred);
  CHECK(h.lo == 40.0);
  CHECK(h.hi == 61.0);
  // n = 10001: the normal approximation puts the bounds at n/2 -+ 1.96 sqrt(n) / 2, about the
  // 4903rd and 5099th order statistics; the exact binomial choice is within one rank of that.
  std::vector<double> many;
  for (int i = 1; i <= 10001; ++i) many.push_back(i);
  auto m = median_ci(many);
  CHECK(m.lo >= 4902.0);
  CHECK(m.lo <= 4904.0);
  CHECK(m.hi == 10002.0 - m.lo);
}

TEST_CASE("summary fields", "[stats]") {
  std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9};
  auto s = summarize(v);
  CHECK(s.mean == 5.0);
  CHECK(s.stddev == Approx(std::sqrt(32.0 / 7.0)).epsilon(1e-12));
  CHECK(s.min == 2.0);
  CHECK(s.max == 9.0);
  CHECK(s.median == 4.5);
  CHECK(s.rel_ci_halfwidth == Approx((s.median_ci95.hi - s.median_ci95.lo) / 2 / 4.5));
}

}  // namespace GPUPROBE_TEST_FILE
