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

namespace {
Curve real_curve(const char* file) {
  return read_gpubenches_latency(std::string(GPUPROBE_TEST_DATA_DIR) +
                                 "/real/gpu-benches/gpu-latency/" + file);
}
// Every `step`-th point, as a coarser sweep of the same GPU would see it.
Curve thinned(const Curve& c, std::size_t step) {
  Curve out = c;
  out.points.clear();
  for (std::size_t i = 0; i < c.points.size(); i += step) out.points.push_back(c.points[i]);
  return out;
}
// The curve cut after the first point at or beyond `x`.
Curve cut_after(const Curve& c, double x) {
  Curve out = c;
  out.points.clear();
  for (const auto& p : c.points) {
    out.points.push_back(p);
    if (p.x >= x) break;
  }
  return out;
}
std::vector<std::string> names_of(const HierarchyFit& f) {
  std::vector<std::string> n;
  for (const auto& l : f.levels) n.push_back(l.name);
  return n;
}
}  // namespace

TEST_CASE("real curves at half the density keep their levels and far L2", "[analysis][real]") {
  // About 2.5 points per octave: the far L2 of A100 and H100 rests on 2-3 points.
  CHECK(names_of(fit_hierarchy(thinned(real_curve("a100_40.txt"), 2))) ==
        std::vector<std::string>{"L1", "L2", "L2-far", "DRAM"});
  CHECK(names_of(fit_hierarchy(thinned(real_curve("h100_pcie.txt"), 2))) ==
        std::vector<std::string>{"L1", "L2", "L2-far", "DRAM"});
  CHECK(names_of(fit_hierarchy(thinned(real_curve("v100.txt"), 2))) ==
        std::vector<std::string>{"L1", "L2", "DRAM"});
  // L40 keeps 2-3 DRAM points: the short tail is still a level, not a reason to call L2 memory.
  const auto l40 = fit_hierarchy(thinned(real_curve("l40.txt"), 2));
  REQUIRE(names_of(l40) == std::vector<std::string>{"L1", "L2", "DRAM"});
  CHECK(l40.levels[2].latency_cycles == Approx(631).epsilon(0.05));
}

TEST_CASE("a sweep that stops mid-rise does not call its last plateau memory", "[analysis][real]") {
  // A100 cut inside the rise after the far L2 (the point at ~47 MB is half-way to DRAM).
  const auto fit = fit_hierarchy(cut_after(real_curve("a100_40.txt"), 47045 * KiB));
  CHECK(fit.ended_in_rise);
  REQUIRE(names_of(fit) == std::vector<std::string>{"L1", "L2", "L2-far"});
  // The far L2 still gets the capacity where the curve leaves it.
  CHECK(fit.levels[2].capacity_bytes > 38000 * KiB);
  CHECK(fit.levels[2].capacity_bytes < 47045 * KiB);
  CHECK(fit.far_l2.detected);
  // Cut flat inside L2's plateau, the shape cannot tell a cache from memory: by default the last
  // plateau is memory; told that the sweep ends in a cache, the fit says no far L2 can be seen.
  const Curve inside_l2 = cut_after(real_curve("a100_40.txt"), 8000 * KiB);
  CHECK(names_of(fit_hierarchy(inside_l2)) == std::vector<std::string>{"L1", "DRAM"});
  HierarchyFitOptions ends_in_cache;
  ends_in_cache.last_is_memory = false;
  const auto inside = fit_hierarchy(inside_l2, ends_in_cache);
  CHECK(names_of(inside) == std::vector<std::string>{"L1", "L2"});
  CHECK_FALSE(inside.far_l2.detected);
  CHECK_THAT(inside.far_l2.reason, Catch::Contains("ends inside L2"));
}

TEST_CASE("a far L2 bordered by transition points on a noisy curve is still found",
          "[analysis][real]") {
  // 1% multiplicative noise from a fixed generator: the optimal partition may keep transition
  // points with the far plateau; trimming them must recover it.
  Curve c = real_curve("a100_40.txt");
  uint64_t state = 12345;
  for (auto& p : c.points) {
    double sum = 0;  // approximately normal: sum of 12 uniforms minus 6
    for (int k = 0; k < 12; ++k) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      sum += static_cast<double>(state >> 11) / 9007199254740992.0;
    }
    p.latency_cycles *= 1.0 + 0.01 * (sum - 6.0);
    p.latency_ns = 0;
  }
  const auto fit = fit_hierarchy(c);
  CHECK(names_of(fit) == std::vector<std::string>{"L1", "L2", "L2-far", "DRAM"});
}
