#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "analysis/hierarchy_fit.hpp"
#include "harness/error.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe::analysis;

namespace {

// Sequential stride ring through an LRU cache of capacity_bytes with line_bytes lines and
// sector_bytes sectors: the knee is at capacity * max(1, stride/line); beyond it every line is
// evicted before reuse and a fraction min(1, stride/sector) of the accesses miss.
Curve stride_curve(double stride, double capacity, double line, double sector, double hit,
                   double miss, std::uint32_t seed) {
  Curve curve;
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.004);
  const double knee = capacity * std::max(1.0, stride / line);
  const double excess = (miss - hit) * std::min(1.0, stride / sector);
  for (double x = 8 * 1024; x <= 64.0 * 1024 * 1024; x *= 1.1) {
    const double lat = x <= knee ? hit : hit + excess;
    curve.points.push_back({std::round(x), lat * (1 + noise(rng)), 0});
  }
  return curve;
}

std::vector<StrideCurve> sweep(double line, double sector, std::vector<double> strides) {
  std::vector<StrideCurve> curves;
  std::uint32_t seed = 1;
  for (double s : strides) curves.push_back({s, stride_curve(s, 128 * 1024, line, sector, 33, 250, seed++)});
  return curves;
}

}  // namespace

TEST_CASE("fit_line_and_sector: 128 B lines, 32 B sectors", "[analysis][line]") {
  const LineSectorFit fit = fit_line_and_sector(sweep(128, 32, {4, 8, 16, 32, 64, 128, 256, 512, 1024}));
  CHECK(fit.line_bytes == 128);
  CHECK(fit.sector_bytes == 32);
  CHECK(fit.confidence > 0.8);
  CHECK_THAT(fit.note, Catch::Contains("9 of 9"));
}

TEST_CASE("fit_line_and_sector: other geometries, unsorted input", "[analysis][line]") {
  LineSectorFit fit = fit_line_and_sector(sweep(64, 64, {512, 8, 16, 32, 64, 128, 256}));
  CHECK(fit.line_bytes == 64);
  CHECK(fit.sector_bytes == 64);
  fit = fit_line_and_sector(sweep(256, 32, {8, 16, 32, 64, 128, 256, 512, 1024}));
  CHECK(fit.line_bytes == 256);
  CHECK(fit.sector_bytes == 32);
}

TEST_CASE("fit_line_and_sector: line beyond the sweep is said so", "[analysis][line]") {
  const LineSectorFit fit = fit_line_and_sector(sweep(1024, 32, {8, 16, 32, 64, 128}));
  CHECK(fit.line_bytes == 128);
  CHECK_THAT(fit.note, Catch::Contains("line >= 128 B"));
}

TEST_CASE("fit_line_and_sector: rejects too few or duplicate strides", "[analysis][line]") {
  CHECK_THROWS_WITH(fit_line_and_sector(sweep(128, 32, {32, 64})), Catch::Contains("at least 3"));
  CHECK_THROWS_WITH(fit_line_and_sector(sweep(128, 32, {32, 64, 64})), Catch::Contains("appears twice"));
}

}  // namespace GPUPROBE_TEST_FILE
