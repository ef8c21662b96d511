#include "analysis/curve.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "harness/error.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe::analysis;

namespace {

// n points, log-spaced over `octaves` octaves from 1 KiB, latency 30 then 300 past the middle.
Curve two_level_curve(std::size_t n, double octaves) {
  Curve c;
  c.clock_mhz = 1500;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = std::round(1024 * std::exp2(octaves * static_cast<double>(i) / static_cast<double>(n)));
    if (!c.points.empty() && x <= c.points.back().x) continue;
    const double cycles = i < n / 2 ? 30.0 : 300.0;
    c.points.push_back({x, cycles, cycles / 1.5});
  }
  return c;
}

}  // namespace

TEST_CASE("bin_curve: a curve within the bound comes back unchanged", "[analysis][curve]") {
  const Curve c = two_level_curve(200, 10);
  const BinnedCurve b = bin_curve(c, 200);
  CHECK_FALSE(b.binned);
  CHECK(b.bin_octaves == 0);
  CHECK(b.input_points == c.points.size());
  REQUIRE(b.curve.points.size() == c.points.size());
  for (std::size_t i = 0; i < c.points.size(); ++i) CHECK(b.curve.points[i].x == c.points[i].x);
}

TEST_CASE("bin_curve: medians of equal log-width bins, x strictly increasing", "[analysis][curve]") {
  const Curve c = two_level_curve(100000, 20);
  const BinnedCurve b = bin_curve(c, 1000);
  CHECK(b.binned);
  CHECK(b.input_points == c.points.size());
  CHECK(b.bin_octaves == Approx(std::log2(c.points.back().x / c.points.front().x) / 1000));
  CHECK(b.curve.clock_mhz == 1500);
  REQUIRE(b.curve.points.size() <= 1000);
  REQUIRE(b.curve.points.size() >= 990);  // every bin of a dense sweep holds points
  CHECK(b.curve.points.front().x >= c.points.front().x);
  CHECK(b.curve.points.back().x <= c.points.back().x);
  for (std::size_t i = 1; i < b.curve.points.size(); ++i)
    REQUIRE(b.curve.points[i].x > b.curve.points[i - 1].x);
  // The levels survive: every bin is one plateau or the other (the step falls on a bin edge or
  // inside one bin, whose median is then one of the two values or their mean).
  std::size_t low = 0, high = 0;
  for (const auto& p : b.curve.points) {
    if (p.latency_cycles == 30) ++low;
    if (p.latency_cycles == 300) ++high;
    CHECK(p.latency_ns == Approx(p.latency_cycles / 1.5));
  }
  CHECK(low + high >= b.curve.points.size() - 1);
  CHECK(low == Approx(high).margin(2));
}

TEST_CASE("bin_curve: a bin's median ignores one wild point", "[analysis][curve]") {
  Curve c;
  for (int i = 0; i < 9; ++i) c.points.push_back({1000.0 + i, i == 4 ? 1e6 : 50.0, 0});
  for (int i = 0; i < 9; ++i) c.points.push_back({2000.0 + i, 80.0, 0});
  const BinnedCurve b = bin_curve(c, 2);
  REQUIRE(b.curve.points.size() == 2);
  CHECK(b.curve.points[0].x == 1004);
  CHECK(b.curve.points[0].latency_cycles == 50);
  CHECK(b.curve.points[1].latency_cycles == 80);
  CHECK_THROWS_AS(bin_curve(c, 0), gpuprobe::Error);
}

}  // namespace GPUPROBE_TEST_FILE
