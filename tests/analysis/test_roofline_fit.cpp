// analysis/roofline_fit: synthetic intensity sweeps with known ceilings (soft knee, noise, a
// throttled tail) recovered within 2%, the sweeps that never reach a ceiling, bad input, and
// the intensity-sweep CSV form (analysis/csv_import).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "analysis/csv_import.hpp"
#include "analysis/roofline_fit.hpp"
#include "harness/error.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe::analysis;

namespace {

constexpr double kBandwidth = 2.0e12;        // bytes/s
constexpr double kFlopsPerClk = 20000;       // FLOP per SM clock, whole device
constexpr double kClockMhz = 1800;

// Soft roofline: P = min-like blend of I x B and C, with exponent n (n large: sharp corner).
double soft_roofline(double intensity, double bandwidth, double compute, double n) {
  const double m = intensity * bandwidth, lo = std::min(m, compute), hi = std::max(m, compute);
  return lo / std::pow(1 + std::pow(lo / hi, n), 1.0 / n);
}

// Intensities 0.25 .. 256 FLOP/B, `per_octave` points per octave, `repeats` lines each.
std::vector<IntensityPoint> sweep(double noise_rel, double knee_n, bool throttle, int repeats = 2,
                                  unsigned seed = 7) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, noise_rel);
  std::vector<IntensityPoint> p;
  for (int i = 0; i <= 40; ++i) {
    const double x = 0.25 * std::pow(2.0, i / 4.0);
    for (int r = 0; r < repeats; ++r) {
      // The throttled tail: past the ridge the clock falls from 1800 to 1350 MHz as power rises.
      const double ridge = kFlopsPerClk * kClockMhz * 1e6 / kBandwidth;
      const double clock = throttle && x > ridge ? kClockMhz * std::max(0.75, 1 - 0.1 * std::log2(x / ridge)) : kClockMhz;
      const double flops = soft_roofline(x, kBandwidth, kFlopsPerClk * clock * 1e6, knee_n) * (1 + noise(rng));
      p.push_back({x, flops, 0, clock, 0});
    }
  }
  return p;
}

std::string scratch(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("gpuprobe_roofline_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("roofline fit: a sharp, noiseless roofline gives both ceilings and the ridge", "[roofline_fit]") {
  const RooflineFit fit = fit_roofline(sweep(0, 60, false));
  REQUIRE(fit.bandwidth.found);
  REQUIRE(fit.compute.found);
  CHECK(fit.bandwidth_bytes_per_s == Approx(kBandwidth).epsilon(0.005));
  CHECK(fit.flops_per_clk == Approx(kFlopsPerClk).epsilon(0.005));
  CHECK(fit.stated_clock_mhz == kClockMhz);
  CHECK(fit.flops_per_s == Approx(kFlopsPerClk * kClockMhz * 1e6).epsilon(0.005));
  CHECK(fit.ridge_flop_per_byte == Approx(18.0).epsilon(0.01));
  CHECK_FALSE(fit.throttled);
  CHECK(fit.confidence > 0.8);
}

TEST_CASE("roofline fit: soft knee and 1% noise, ceilings within 2% for several seeds", "[roofline_fit]") {
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u}) {
    INFO("seed " << seed);
    const RooflineFit fit = fit_roofline(sweep(0.01, 3, false, 2, seed));
    REQUIRE(fit.bandwidth.found);
    REQUIRE(fit.compute.found);
    CHECK(fit.bandwidth_bytes_per_s == Approx(kBandwidth).epsilon(0.02));
    CHECK(fit.flops_per_clk == Approx(kFlopsPerClk).epsilon(0.02));
    CHECK(fit.flops_per_s == Approx(kFlopsPerClk * kClockMhz * 1e6).epsilon(0.02));
  }
}

TEST_CASE("roofline fit: a throttled tail, per clock, keeps the ceiling and says the clock fell",
          "[roofline_fit]") {
  RooflineFitOptions o;
  o.sm_count = 100;
  const RooflineFit fit = fit_roofline(sweep(0.01, 4, true), o);
  REQUIRE(fit.compute.found);
  CHECK(fit.flops_per_clk == Approx(kFlopsPerClk).epsilon(0.02));
  CHECK(fit.flops_per_clk_per_sm == Approx(kFlopsPerClk / 100).epsilon(0.02));
  CHECK(fit.bandwidth_bytes_per_s == Approx(kBandwidth).epsilon(0.02));
  CHECK(fit.throttled);
  CHECK(fit.stated_clock_mhz < 0.9 * kClockMhz);
  CHECK(fit.clock_max_mhz == kClockMhz);
  // FLOP/s is stated at the clock the compute-bound lines held, consistently.
  CHECK(fit.flops_per_s == Approx(fit.flops_per_clk * fit.stated_clock_mhz * 1e6));
  REQUIRE_FALSE(fit.notes.empty());
  CHECK(fit.notes.front().find("throttled") == 0);

  // The same sweep without its clocks: FLOP/s falls at the end, and the fit says why it may.
  auto no_clock = sweep(0.0, 4, true);
  for (auto& p : no_clock) p.sm_clock_mhz = 0;
  const RooflineFit blind = fit_roofline(no_clock);
  CHECK_FALSE(blind.clocked);
  CHECK(blind.flops_per_clk == 0);
  bool said = false;
  for (const auto& n : blind.notes) said = said || n.find("sm_clock_mhz column") != std::string::npos;
  CHECK(said);
}

TEST_CASE("roofline fit: a sweep that stays memory-bound or compute-bound gives a bound, not a ceiling",
          "[roofline_fit]") {
  std::vector<IntensityPoint> mem, comp;
  for (int i = 0; i < 10; ++i) {
    const double x = 0.25 * std::pow(2.0, i / 2.0);  // 0.25 .. 5.7 FLOP/B, ridge at 18
    mem.push_back({x, x * kBandwidth, 0, 0, 0});
    const double y = 100 * std::pow(2.0, i / 2.0);
    comp.push_back({y, 3.6e13, 0, 0, 0});
  }
  const RooflineFit m = fit_roofline(mem);
  CHECK(m.bandwidth.found);
  CHECK_FALSE(m.compute.found);
  CHECK(m.flops_per_s == 0);
  CHECK(m.compute.lower_bound == Approx(mem.back().flop_per_s));
  CHECK(m.confidence == 0);
  const RooflineFit c = fit_roofline(comp);
  CHECK(c.compute.found);
  CHECK(c.flops_per_s == Approx(3.6e13));
  CHECK_FALSE(c.bandwidth.found);
  CHECK(c.bandwidth.lower_bound == Approx(3.6e13 / 100));
  CHECK(c.ridge_flop_per_byte == 0);
}

TEST_CASE("roofline fit: bad points get one line", "[roofline_fit]") {
  std::vector<IntensityPoint> p = {{1, 1e12, 0, 0, 0}, {2, 2e12, 0, 0, 0}, {4, 3e12, 0, 0, 0}};
  CHECK_THROWS_WITH(fit_roofline(p), Catch::Contains("too few points: 3"));
  p.push_back({8, 3e12, 0, 1500, 0});
  CHECK_THROWS_WITH(fit_roofline(p), Catch::Contains("1 of 4 points carry an SM clock"));
  p.back().sm_clock_mhz = 0;
  p.back().flop_per_s = NAN;
  CHECK_THROWS_WITH(fit_roofline(p), Catch::Contains("point 4: not finite"));
  p.back().flop_per_s = 0;
  CHECK_THROWS_WITH(fit_roofline(p), Catch::Contains("must be positive"));
}

TEST_CASE("intensity-sweep CSV: columns, optional clock and bandwidth, kind told by the header",
          "[roofline_fit][csv]") {
  const auto path = scratch("ok.csv",
                            "# a sweep\nflop_per_s,flop_per_byte,sm_clock_mhz,power_w,bandwidth_bytes_per_s\n"
                            "4e12,2,1500,300,2e12\n1e12,0.5,1500,250,2e12\n4e12,4,1500,310,1e12\n2e12,1,1500,260,2e12\n");
  CHECK(csv_curve_kind(path) == CsvCurveKind::intensity_sweep);
  CHECK(std::string(to_string(CsvCurveKind::intensity_sweep)) == "intensity sweep");
  const auto pts = read_intensity_csv(path);
  REQUIRE(pts.size() == 4);
  CHECK(pts[0].flop_per_byte == 0.5);  // sorted by intensity
  CHECK(pts[0].flop_per_s == 1e12);
  CHECK(pts[0].sm_clock_mhz == 1500);
  CHECK(pts[0].power_w == 250);
  CHECK(pts[3].bytes_per_s == 1e12);
  std::filesystem::remove(path);
}

TEST_CASE("intensity-sweep CSV: malformed files get one line with path and line", "[roofline_fit][csv]") {
  struct Bad {
    const char* text;
    const char* message;
  };
  const Bad bad[] = {
      {"flop_per_byte,flop_per_s\n1,1e12\n2,abc\n4,3e12\n8,3e12\n", ":3: column 'flop_per_s': 'abc' is not a number"},
      {"flop_per_byte,flop_per_s\n1,1e12\n2,2e12\n4,3e12\n", ":4: too few rows: 3 (need at least 4)"},
      {"flop_per_byte,flop_per_s,sm_clock_mhz\n1,1e12,0\n", ":2: column 'sm_clock_mhz': must be positive, got 0"},
      {"flop_per_byte,flop_per_s\n1,1e12\n-2,2e12\n", ":3: column 'flop_per_byte': -2 is negative"},
      {"flop_per_byte;flop_per_s\n1;1e12\n", ":1: unknown header 'flop_per_byte;flop_per_s'"},
      {"flop_per_byte,flop_per_s\n1,1e12,5\n", ":2: expected 2 fields as in the header, got 3"},
      {"flop_per_byte,flop_per_s,footprint_bytes,latency_cycles\n1,1,1,1\n", "more than one kind of curve"},
  };
  int i = 0;
  for (const auto& b : bad) {
    INFO(b.text);
    const auto path = scratch("bad" + std::to_string(i++) + ".csv", b.text);
    const auto read = [&] {
      if (csv_curve_kind(path) == CsvCurveKind::intensity_sweep) (void)read_intensity_csv(path);
    };
    try {
      read();
      FAIL("no error");
    } catch (const gpuprobe::Error& e) {
      const std::string what = e.what();
      CHECK(what.find(b.message) != std::string::npos);
      CHECK(what.find(path) == 0);
      CHECK(what.find('\n') == std::string::npos);
    }
    std::filesystem::remove(path);
  }
}

}  // namespace GPUPROBE_TEST_FILE
