#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "analysis/hierarchy_fit.hpp"
#include "harness/error.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe::analysis;

namespace {

constexpr double MiB = 1024.0 * 1024.0;

// One hop per page over `pages` pages: base latency, + miss1 once pages > entries1,
// + miss2 once pages > entries2.
Curve tlb_curve(double page_bytes, double entries1, double miss1, double entries2, double miss2,
                double max_pages, std::uint32_t seed) {
  Curve curve;
  curve.x_name = "span_bytes";
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.004);
  for (double pages = 2; pages <= max_pages; pages = std::ceil(pages * 1.12)) {
    double lat = 480;
    if (pages > entries1) lat += miss1;
    if (pages > entries2) lat += miss2;
    curve.points.push_back({pages * page_bytes, lat * (1 + noise(rng)), 0});
  }
  return curve;
}

}  // namespace

TEST_CASE("fit_tlb: two TLB levels", "[analysis][tlb]") {
  const double page = 2 * MiB;
  const TlbFit fit = fit_tlb(tlb_curve(page, 16, 60, 512, 250, 8192, 5), page);
  CHECK(fit.page_bytes == page);
  CHECK(fit.base_latency_cycles == Approx(480).epsilon(0.01));
  REQUIRE(fit.levels.size() == 2);
  CHECK(fit.levels[0].name == "TLB1");
  CHECK(fit.levels[1].name == "TLB2");
  // Reach within one sweep step (x1.12) of the entry count times the page.
  CHECK(fit.levels[0].reach_bytes / page == Approx(16).epsilon(0.15));
  CHECK(fit.levels[1].reach_bytes / page == Approx(512).epsilon(0.15));
  CHECK(fit.levels[0].reach_lo_bytes <= fit.levels[0].reach_bytes);
  CHECK(fit.levels[0].reach_hi_bytes >= fit.levels[0].reach_bytes);
  CHECK(fit.levels[0].miss_cost_cycles == Approx(60).epsilon(0.1));
  CHECK(fit.levels[1].miss_cost_cycles == Approx(250).epsilon(0.05));
  CHECK(fit.levels[0].confidence > 0.9);
  CHECK_THAT(fit.note, Catch::Contains("2 TLB level"));
}

TEST_CASE("fit_tlb: no step within the sweep", "[analysis][tlb]") {
  const double page = 64 * 1024;
  const TlbFit fit = fit_tlb(tlb_curve(page, 1e9, 60, 1e9, 0, 4096, 2), page);
  CHECK(fit.levels.empty());
  CHECK(fit.base_latency_cycles == Approx(480).epsilon(0.01));
  CHECK_THAT(fit.note, Catch::Contains("no step within the sweep: reach >"));
  CHECK_THAT(fit.note, Catch::Contains("MiB"));
}

TEST_CASE("fit_tlb: rejects a bad page size", "[analysis][tlb]") {
  const Curve c = tlb_curve(4096, 16, 60, 512, 250, 2048, 1);
  CHECK_THROWS_AS(fit_tlb(c, 0), gpuprobe::Error);
  CHECK_THROWS_AS(fit_tlb(c, -4096), gpuprobe::Error);
}

TEST_CASE("fit_tlb: a miss cost of a few percent is still a level", "[analysis][tlb]") {
  // H100-like: 10 cycles on a 266-cycle L2 hop once the 2 MiB pages exceed 128 entries.
  Curve curve;
  curve.x_name = "span_bytes";
  std::mt19937 rng(9);
  std::normal_distribution<double> noise(0.0, 0.0005);
  const double page = 2 * MiB;
  for (double pages = 1; pages <= 32768; pages = std::ceil(pages * 1.19)) {
    const double lat = pages > 128 ? 276.7 : 266.0;
    curve.points.push_back({pages * page, lat * (1 + noise(rng)), 0});
  }
  const TlbFit fit = fit_tlb(curve, page);
  REQUIRE(fit.levels.size() == 1);
  CHECK(fit.base_latency_cycles == Approx(266).epsilon(0.005));
  CHECK(fit.levels[0].miss_cost_cycles == Approx(10.7).epsilon(0.05));
  CHECK(fit.levels[0].reach_bytes / page == Approx(128).epsilon(0.19));
}

}  // namespace GPUPROBE_TEST_FILE
