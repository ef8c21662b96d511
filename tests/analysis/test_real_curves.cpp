// fit_hierarchy on real curves from four GPUs (te42kyfo/gpu-benches, see
// tests/data/real/gpu-benches/gpu-latency/PROVENANCE.md). Expected values are read off the files.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "analysis/csv_import.hpp"
#include "analysis/hierarchy_fit.hpp"

using namespace gpuprobe::analysis;

namespace {

constexpr double KiB = 1024.0;  // the files' "kB" column is KiB

struct Expected {
  const char* file;
  std::vector<std::string> names;
  std::vector<double> latency_cycles;
  // End of each level except the last, in the files' KiB: [lo, hi].
  std::vector<std::pair<double, double>> capacity_kib;
  bool far_l2;
  double clock_mhz;
};

HierarchyFit fit_file(const char* file, Curve* curve_out = nullptr) {
  const Curve curve = read_gpubenches_latency(std::string(GPUPROBE_TEST_DATA_DIR) +
                                              "/real/gpu-benches/gpu-latency/" + file);
  if (curve_out) *curve_out = curve;
  return fit_hierarchy(curve);
}

}  // namespace

TEST_CASE("real curves: levels, latencies, capacities, far L2", "[analysis][real]") {
  const std::vector<Expected> cases = {
      {"v100.txt", {"L1", "L2", "DRAM"}, {30, 215, 435}, {{118, 145}, {5245, 6400}}, false, 1380},
      {"a100_40.txt", {"L1", "L2", "L2-far", "DRAM"}, {36, 213, 425, 574},
       {{140, 177}, {18000, 24136}, {35343, 47045}}, true, 1410},
      {"h100_pcie.txt", {"L1", "L2", "L2-far", "DRAM"}, {34, 265.5, 470, 654},
       {{210, 264}, {21000, 29207}, {42767, 60000}}, true, 1755},
      {"l40.txt", {"L1", "L2", "DRAM"}, {36, 276.5, 631}, {{80, 101}, {88000, 105435}}, false, 2490},
  };
  for (const Expected& e : cases) {
    INFO(e.file);
    Curve curve;
    const HierarchyFit fit = fit_file(e.file, &curve);
    CHECK(curve.clock_mhz == e.clock_mhz);
    std::vector<std::string> names;
    for (const auto& l : fit.levels) names.push_back(l.name);
    REQUIRE(names == e.names);
    for (std::size_t k = 0; k < fit.levels.size(); ++k) {
      const Level& l = fit.levels[k];
      INFO(l.name);
      CHECK(l.latency_cycles == Approx(e.latency_cycles[k]).epsilon(0.05));
      CHECK(l.latency_ns == Approx(l.latency_cycles / e.clock_mhz * 1000).epsilon(0.002));
      CHECK(l.confidence > 0.9);
      CHECK(l.points >= 3);
      if (k + 1 < fit.levels.size()) {
        CHECK(l.capacity_bytes >= e.capacity_kib[k].first * KiB);
        CHECK(l.capacity_bytes <= e.capacity_kib[k].second * KiB);
        CHECK(l.capacity_lo_bytes <= l.capacity_bytes);
        CHECK(l.capacity_hi_bytes >= l.capacity_bytes);
      } else {
        CHECK(l.capacity_bytes == 0);
      }
    }
    CHECK(fit.far_l2.detected == e.far_l2);
    CHECK_FALSE(fit.far_l2.reason.empty());
  }
}

TEST_CASE("real curves: L40's creeping L2 is one level up to ~90 MB", "[analysis][real]") {
  const HierarchyFit fit = fit_file("l40.txt");
  REQUIRE(fit.levels.size() == 3);
  CHECK(fit.levels[1].plateau_last_x >= 86651 * KiB);
  CHECK(fit.levels[1].points > 140);
  CHECK_THAT(fit.far_l2.reason, Catch::Contains("no plateau between L2"));
}

TEST_CASE("real curves: the far-L2 plateau's extent", "[analysis][real]") {
  const HierarchyFit a100 = fit_file("a100_40.txt");
  REQUIRE(a100.levels.size() == 4);
  CHECK(a100.levels[2].plateau_first_x >= 29207 * KiB);
  CHECK(a100.levels[2].plateau_last_x <= 42767 * KiB);
  const HierarchyFit h100 = fit_file("h100_pcie.txt");
  REQUIRE(h100.levels.size() == 4);
  CHECK(h100.levels[2].plateau_first_x >= 29207 * KiB);
  CHECK(h100.levels[2].plateau_last_x <= 51750 * KiB);
  CHECK_THAT(h100.far_l2.reason, Catch::Contains("far L2"));
}
