// analysis/bandwidth_fit: synthetic curves with known answers, each rule at its edge, bad input.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "analysis/bandwidth_fit.hpp"
#include "harness/error.hpp"
#include "harness/littles_law.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe::analysis;
namespace ll = gpuprobe::littles_law;

namespace {

constexpr double KiB = 1024.0, MiB = 1024.0 * 1024.0;

// A concurrency sweep from the loaded-latency model (bytes/ns, ns, bytes) with relative noise.
std::vector<ConcurrencyPoint> sweep_from_model(const ll::LoadedLatency& m, int sms, double noise,
                                               unsigned seed, double x_lo = 512, double x_hi = 131072,
                                               double step = 1.25) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n01(0.0, 1.0);
  std::vector<ConcurrencyPoint> p;
  for (double x = x_lo; x <= x_hi; x *= step) {
    const double b = ll::bandwidth_for(m, x * sms) * 1e9;
    p.push_back({x, b * (1 + noise * n01(rng))});
  }
  return p;
}

// Noise-free plateaus: `levels` (bandwidth, last footprint) then points every 2^step octaves.
std::vector<FootprintPoint> staircase(const std::vector<std::pair<double, double>>& levels,
                                      double first, double last, double step = 0.25) {
  std::vector<FootprintPoint> p;
  for (double lx = std::log2(first); lx <= std::log2(last) + 1e-9; lx += step) {
    const double x = std::exp2(lx);
    double b = levels.back().first;
    for (const auto& [bw, end] : levels) {
      if (x <= end) {
        b = bw;
        break;
      }
    }
    p.push_back({x, b});
  }
  return p;
}

std::string joined(const std::vector<std::string>& v) {
  return std::accumulate(v.begin(), v.end(), std::string(), [](std::string a, const std::string& b) {
    return a + b + "\n";
  });
}

}  // namespace

// --- Little's law: the concurrency sweep ------------------------------------------------------

TEST_CASE("concurrency fit recovers a known peak (3%) and bytes in flight for 90% (10%) under noise",
          "[bandwidth_fit]") {
  const ll::LoadedLatency m{600.0, 20.0, 2000.0};  // ns, ns, bytes/ns (= 2 TB/s)
  const int sms = 100;
  const double truth_per_sm = ll::bytes_in_flight_for(m, 0.9) / sms;
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u}) {
    INFO("seed " << seed);
    const auto fit = fit_concurrency_sweep(sweep_from_model(m, sms, 0.01, seed), {sms});
    CHECK(fit.peak_bandwidth_bytes_per_s == Approx(2000e9).epsilon(0.03));
    CHECK(fit.bytes_in_flight_per_sm == Approx(truth_per_sm).epsilon(0.10));
    CHECK(fit.bytes_in_flight_lo_per_sm <= fit.bytes_in_flight_per_sm);
    CHECK(fit.bytes_in_flight_hi_per_sm >= fit.bytes_in_flight_per_sm);
    CHECK(fit.crossing_measured);
    CHECK_FALSE(fit.still_rising);
    CHECK(fit.unloaded_latency_ns == Approx(600.0).epsilon(0.10));
    // The model's peak extrapolates past the measured top, so noise there moves it more.
    CHECK(fit.model.peak_bandwidth_bytes_per_s == Approx(2000e9).epsilon(0.06));
    CHECK(fit.model.unloaded_latency_ns == Approx(600.0).epsilon(0.10));
    CHECK(fit.model_rms_rel_bandwidth_residual < 0.03);   // 3 x the 1% noise
    CHECK(fit.confidence > 0.8);
  }
}

TEST_CASE("loaded-latency fit recovers the model's parameters from clean points", "[bandwidth_fit]") {
  const ll::LoadedLatency m{450.0, 35.0, 900.0};
  std::vector<LoadedLatencyPoint> pts;
  for (double rho : {0.05, 0.2, 0.4, 0.6, 0.75, 0.85, 0.9, 0.95, 0.98})
    pts.push_back({rho * 900e9, ll::latency_at(m, rho * 900.0)});
  const auto fit = fit_loaded_latency(pts);
  CHECK(fit.unloaded_latency_ns == Approx(450.0).epsilon(0.01));
  CHECK(fit.queue_ns == Approx(35.0).epsilon(0.02));
  CHECK(fit.peak_bandwidth_bytes_per_s == Approx(900e9).epsilon(0.005));
  CHECK(fit.rms_rel_residual < 1e-3);
  CHECK(fit.peak_identified);
  CHECK(fit.raw.size() == pts.size());
  // The same formula the simulator uses: the fitted model reproduces the bandwidths.
  const auto back = to_littles_law_ns(fit);
  const double n = 0.9 * 900.0 * ll::latency_at(m, 0.9 * 900.0);
  CHECK(ll::bandwidth_for(back, n) == Approx(0.9 * 900.0).epsilon(0.01));
}

TEST_CASE("loaded latency without queueing cannot tell the peak: low confidence", "[bandwidth_fit]") {
  std::vector<LoadedLatencyPoint> flat;
  for (double b : {1e9, 2e9, 4e9, 8e9, 16e9}) flat.push_back({b, 500.0});
  const auto fit = fit_loaded_latency(flat);
  CHECK_FALSE(fit.peak_identified);
  CHECK(fit.unloaded_latency_ns == Approx(500.0));
  CHECK(fit.confidence < 0.5);
  CHECK(joined(fit.reasons).find("no queueing") != std::string::npos);
}

TEST_CASE("thin or contradictory concurrency data gives low confidence", "[bandwidth_fit]") {
  const ll::LoadedLatency m{600.0, 20.0, 2000.0};
  const auto good = fit_concurrency_sweep(sweep_from_model(m, 100, 0.0, 1), {100});
  CHECK(good.confidence > 0.9);
  // Three points.
  const auto thin = fit_concurrency_sweep(sweep_from_model(m, 100, 0.0, 1, 4096, 16384, 2.0), {100});
  CHECK(thin.confidence < 0.5);
  // Bandwidth jumping up and down with concurrency.
  std::vector<ConcurrencyPoint> zigzag;
  for (int i = 0; i < 12; ++i) zigzag.push_back({1024.0 * (i + 1), (i % 2 ? 1000e9 : 500e9)});
  const auto contra = fit_concurrency_sweep(zigzag, {100});
  CHECK(contra.confidence < 0.5);
  CHECK(joined(contra.reasons).find("steps fall") != std::string::npos);
  // Starting above 90%: the bytes in flight are an upper bound.
  const auto late = fit_concurrency_sweep(sweep_from_model(m, 100, 0.0, 1, 65536, 131072 * 4), {100});
  CHECK_FALSE(late.crossing_measured);
  CHECK(late.bytes_in_flight_hi_per_sm == 65536);
  CHECK(late.confidence <= 0.5);
}

TEST_CASE("the 90% crossing is interpolated on the measured curve, between its two points",
          "[bandwidth_fit]") {
  std::vector<ConcurrencyPoint> p;
  for (int i = 1; i <= 10; ++i) p.push_back({1000.0 * i, 10e9 * i});   // 10..100 GB/s
  for (int i = 11; i <= 16; ++i) p.push_back({1000.0 * i, 100e9});
  auto fit = fit_concurrency_sweep(p);
  CHECK(fit.peak_bandwidth_bytes_per_s == Approx(100e9));
  CHECK(fit.bytes_in_flight_per_sm == Approx(9000.0));
  ConcurrencyFitOptions o;
  o.fraction = 0.85;
  fit = fit_concurrency_sweep(p, o);
  CHECK(fit.bytes_in_flight_per_sm == Approx(8500.0));
  CHECK(fit.bytes_in_flight_lo_per_sm == 8000.0);
  CHECK(fit.bytes_in_flight_hi_per_sm == 9000.0);
  CHECK(fit.unloaded_latency_ns == 0);  // no SM count
  CHECK(joined(fit.reasons).find("SM count unknown") != std::string::npos);
}

TEST_CASE("the top band is 3% of the second-largest point, wider with noise, at most 10%",
          "[bandwidth_fit]") {
  const auto with_point = [](double rel) {
    std::vector<ConcurrencyPoint> p;
    for (int i = 1; i <= 5; ++i) p.push_back({1000.0 * i, 20e9 * i});  // 20..100
    p.push_back({6000, 100e9});
    p.push_back({7000, 100e9 * rel});
    p.push_back({8000, 100e9});
    p.push_back({9000, 100e9});
    return fit_concurrency_sweep(p);
  };
  CHECK(with_point(0.9705).top_points == 5);   // 100 at x=5000 and 6000, the point, 8000, 9000
  CHECK(with_point(0.9695).top_points == 4);
  CHECK(with_point(0.9695).top_band_rel == Approx(0.03));
  // A single spike does not set the peak: the band hangs from the second-largest point.
  std::vector<ConcurrencyPoint> spike;
  for (int i = 1; i <= 8; ++i) spike.push_back({1000.0 * i, std::min(8, i) * 12.5e9});
  spike[7].bandwidth_bytes_per_s = 100e9;
  spike.push_back({9000, 100e9});
  spike.push_back({10000, 100e9});
  spike.push_back({11000, 150e9});
  spike.push_back({12000, 100e9});
  CHECK(fit_concurrency_sweep(spike).peak_bandwidth_bytes_per_s == Approx(100e9));
  // Noisy top: the band follows 3 x noise, up to max_top_band.
  const ll::LoadedLatency m{600.0, 20.0, 2000.0};
  const auto noisy = fit_concurrency_sweep(sweep_from_model(m, 100, 0.03, 7));
  CHECK(noisy.top_band_rel > 0.04);
  CHECK(noisy.top_band_rel < 0.10);
  ConcurrencyFitOptions capped;
  capped.max_top_band = 0.04;
  CHECK(fit_concurrency_sweep(sweep_from_model(m, 100, 0.03, 7), capped).top_band_rel == Approx(0.04));
}

TEST_CASE("a sag at the highest concurrency is left out of the peak and reported", "[bandwidth_fit]") {
  std::vector<ConcurrencyPoint> p;
  for (int i = 1; i <= 6; ++i) p.push_back({1000.0 * i, std::min(4, i) * 25e9});
  p.push_back({7000, 85e9});
  p.push_back({8000, 83e9});
  const auto fit = fit_concurrency_sweep(p);
  CHECK(fit.peak_bandwidth_bytes_per_s == Approx(100e9));
  CHECK(fit.sag_points == 2);
  CHECK(fit.sag_rel == Approx(0.16));
  CHECK_FALSE(fit.still_rising);
}

TEST_CASE("still rising: the top band's slope against 0.1 per octave", "[bandwidth_fit]") {
  const auto rising = [](double slope_per_octave) {
    std::vector<ConcurrencyPoint> p;
    for (int i = 1; i <= 4; ++i) p.push_back({250.0 * i, 25e9 * i});
    // Three top points a quarter octave apart, within the band of each other.
    for (int k = 0; k < 3; ++k)
      p.push_back({1000.0 * std::exp2(0.25 * (k + 1)), 100e9 * std::exp(slope_per_octave * 0.25 * (k + 1))});
    ConcurrencyFitOptions o;
    o.min_top_band = 0.1;
    return fit_concurrency_sweep(p, o);
  };
  CHECK(rising(0.11).still_rising);
  CHECK_FALSE(rising(0.09).still_rising);
  CHECK(rising(0.11).confidence < rising(0.09).confidence);
}

TEST_CASE("unloaded latency uses the points below half the peak", "[bandwidth_fit]") {
  // 10 SMs, 1000 ns: B = x * 10 / 1e-6 below the knee.
  std::vector<ConcurrencyPoint> p;
  for (double x : {1000.0, 2000.0, 4000.0}) p.push_back({x, x * 10 / 1e-6});
  p.push_back({8000, 79e9});   // 98.75% of the linear value, above half the peak: not used
  for (double x : {16000.0, 32000.0, 64000.0}) p.push_back({x, 100e9});
  ConcurrencyFitOptions o;
  o.sm_count = 10;
  const auto fit = fit_concurrency_sweep(p, o);
  CHECK(fit.low_load_points == 3);
  CHECK(fit.unloaded_latency_ns == Approx(1000.0));
  o.low_load_fraction = 0.35;   // 40 GB/s is now the highest point used
  CHECK(fit_concurrency_sweep(p, o).low_load_points == 2);
}

// --- footprint sweep --------------------------------------------------------------------------

TEST_CASE("footprint fit: three levels with soft knees and noise", "[bandwidth_fit]") {
  std::mt19937 rng(11);
  std::normal_distribution<double> n01(0.0, 1.0);
  const double b1 = 20000e9, b2 = 5000e9, b3 = 1800e9;
  const double c1 = 128 * KiB, c2 = 20 * MiB;
  const auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
  std::vector<FootprintPoint> p;
  for (double lx = 10; lx <= 30; lx += 0.25) {
    const double l1 = std::log(b2) + (std::log(b1) - std::log(b2)) * sig((std::log2(c1) - lx) / 0.15);
    const double l2 = std::log(b3) + (l1 - std::log(b3)) * sig((std::log2(c2) - lx) / 0.15);
    p.push_back({std::exp2(lx), std::exp(l2) * (1 + 0.015 * n01(rng))});
  }
  FootprintFitOptions o;
  o.level_names = {"L1", "L2"};
  const auto fit = fit_footprint_sweep(p, o);
  REQUIRE(fit.levels.size() == 3);
  CHECK(fit.levels[0].name == "L1");
  CHECK(fit.levels[1].name == "L2");
  CHECK(fit.levels[2].name == "level 3");
  CHECK(fit.levels[0].bandwidth_bytes_per_s == Approx(b1).epsilon(0.03));
  CHECK(fit.levels[1].bandwidth_bytes_per_s == Approx(b2).epsilon(0.03));
  CHECK(fit.levels[2].bandwidth_bytes_per_s == Approx(b3).epsilon(0.03));
  CHECK(fit.levels[0].end_bytes == Approx(c1).epsilon(0.3));
  CHECK(fit.levels[1].end_bytes == Approx(c2).epsilon(0.3));
  CHECK(fit.levels[2].end_bytes == 0);
  for (const auto& L : fit.levels) {
    CHECK(L.bandwidth_lo_bytes_per_s <= L.bandwidth_bytes_per_s);
    CHECK(L.bandwidth_hi_bytes_per_s >= L.bandwidth_bytes_per_s);
    CHECK(L.confidence > 0.7);
  }
}

TEST_CASE("footprint fit: the end is 10% of the log step, between the two points around it",
          "[bandwidth_fit]") {
  // Level at 1000 until 2^3, then 100 from 2^4 on (one octave between points).
  std::vector<FootprintPoint> p;
  for (int e = 0; e <= 3; ++e) p.push_back({std::exp2(e), 1000.0});
  for (int e = 4; e <= 8; ++e) p.push_back({std::exp2(e), 100.0});
  const auto fit = fit_footprint_sweep(p);
  REQUIRE(fit.levels.size() == 2);
  CHECK(fit.levels[0].end_bytes == Approx(std::exp2(3.1)));
  CHECK(fit.levels[0].end_lo_bytes == 8.0);
  CHECK(fit.levels[0].end_hi_bytes == 16.0);
  CHECK(joined(fit.reasons).find("sweep ends on level 2") != std::string::npos);
}

TEST_CASE("footprint fit: a step just inside the band is one level, just outside two",
          "[bandwidth_fit]") {
  const auto levels_for = [](double ln_step) {
    return fit_footprint_sweep(staircase({{1000.0, 64.0}, {1000.0 * std::exp(-ln_step), 1e9}}, 1, 4096))
        .levels.size();
  };
  CHECK(levels_for(0.049) == 1);
  CHECK(levels_for(0.051) == 2);
}

TEST_CASE("footprint fit: the band is 3 x noise, clamped to 5% .. 15%", "[bandwidth_fit]") {
  const auto band_for = [](double noise) {
    std::mt19937 rng(5);
    std::normal_distribution<double> n01(0.0, 1.0);
    std::vector<FootprintPoint> p;
    for (int i = 0; i < 200; ++i) p.push_back({1024.0 + i, 1000.0 * std::exp(noise * n01(rng))});
    const auto fit = fit_footprint_sweep(p);
    return std::pair{fit.band_rel, fit.noise_rel};
  };
  CHECK(band_for(0.0).first == Approx(0.05));
  const auto [mid_band, mid_noise] = band_for(0.03);
  CHECK(mid_noise == Approx(0.03).epsilon(0.25));
  CHECK(mid_band == Approx(3 * mid_noise));
  CHECK(band_for(0.2).first == Approx(0.15));
}

TEST_CASE("footprint fit: a plateau needs 3 points over 0.2 octaves", "[bandwidth_fit]") {
  // 1000 up to 2^6, a short middle run at 400, then 100.
  const auto middle = [](int points, double spacing) {
    std::vector<FootprintPoint> p;
    for (int e = 0; e <= 6; ++e) p.push_back({std::exp2(e), 1000.0});
    double x = 128;
    for (int k = 0; k < points; ++k, x *= std::exp2(spacing)) p.push_back({x, 400.0});
    for (int e = 0; e < 6; ++e) p.push_back({x * std::exp2(e + 1), 100.0});
    return fit_footprint_sweep(p).levels.size();
  };
  CHECK(middle(3, 0.5) == 3);
  CHECK(middle(2, 0.5) == 2);
  CHECK(middle(3, 0.105) == 3);   // spans 0.21 octaves
  CHECK(middle(3, 0.095) == 2);   // spans 0.19 octaves
}

TEST_CASE("footprint fit: a plateau's slope is at most 0.1 per octave", "[bandwidth_fit]") {
  const auto ramp = [](double slope) {
    std::vector<FootprintPoint> p;
    for (double lx = 0; lx <= 1.0 + 1e-9; lx += 0.125) p.push_back({std::exp2(lx), 1000.0 * std::exp(slope * lx)});
    return fit_footprint_sweep(p);
  };
  CHECK(ramp(-0.09).levels.size() == 1);
  CHECK(ramp(-0.09).levels[0].slope_per_octave == Approx(-0.09));
  const auto steep = ramp(-0.11);
  CHECK(steep.levels.empty());
  REQUIRE(steep.rejected.size() == 1);
  CHECK(steep.rejected[0].rule == "slope");
}

TEST_CASE("footprint fit: up to two points outside a plateau are outliers, and a dip is one level",
          "[bandwidth_fit]") {
  const auto with_excursion = [](int n_out) {
    std::vector<FootprintPoint> p;
    double x = 1;
    for (int k = 0; k < 8; ++k, x *= 1.25) p.push_back({x, 1000.0});
    for (int k = 0; k < n_out; ++k, x *= 1.25) p.push_back({x, k % 2 ? 800.0 : 650.0});  // not flat
    for (int k = 0; k < 8; ++k, x *= 1.25) p.push_back({x, 1000.0});
    return fit_footprint_sweep(p);
  };
  const auto two = with_excursion(2);
  REQUIRE(two.levels.size() == 1);
  CHECK(two.levels[0].outliers == 2);
  CHECK(joined(two.reasons).find("join") == std::string::npos);
  const auto three = with_excursion(3);
  REQUIRE(three.levels.size() == 1);       // two plateaus at one bandwidth: joined
  CHECK(three.levels[0].outliers == 3);
  CHECK(joined(three.reasons).find("join") != std::string::npos);
  CHECK(three.levels[0].confidence < two.levels[0].confidence);
  // A flat run of lower points between two equal plateaus is a dip, not a level.
  auto dip = staircase({{1000.0, 16.0}, {850.0, 32.0}, {1000.0, 1e9}}, 1, 256);
  const auto fit = fit_footprint_sweep(dip);
  REQUIRE(fit.levels.size() == 1);
  CHECK(fit.levels[0].outliers == 4);
  CHECK(joined(fit.reasons).find("dip") != std::string::npos);
}

TEST_CASE("footprint fit: bandwidth rising with footprint is a contradiction", "[bandwidth_fit]") {
  const auto fit = fit_footprint_sweep(staircase({{500.0, 16.0}, {1000.0, 1e9}}, 1, 1024));
  REQUIRE(fit.levels.size() == 1);
  CHECK(fit.levels[0].bandwidth_bytes_per_s == 1000.0);  // the plateau with more points stays
  REQUIRE(fit.rejected.size() == 1);
  CHECK(fit.rejected[0].rule == "rise");
}

TEST_CASE("footprint fit: thin data gives low confidence", "[bandwidth_fit]") {
  const auto thin = fit_footprint_sweep({{1024, 1e12}, {2048, 1e12}, {4096, 1e12}});
  REQUIRE(thin.levels.size() == 1);
  CHECK(thin.levels[0].confidence < 0.6);
  const auto rich = fit_footprint_sweep(staircase({{1e12, 1e9}}, 1024, 1 << 20));
  CHECK(rich.levels[0].confidence > 0.9);
  // Bandwidth jumping by 2x from point to point: no level at all.
  std::vector<FootprintPoint> zigzag;
  for (int i = 0; i < 20; ++i) zigzag.push_back({1024.0 * (i + 1), i % 2 ? 5e11 : 1e12});
  CHECK(fit_footprint_sweep(zigzag).levels.empty());
  // Every fourth point of a level 30% low: the level stays, with less confidence (every third:
  // no three consecutive points agree, and there is no level).
  const auto scattered = [](int every) {
    std::vector<FootprintPoint> p;
    for (int i = 0; i < 24; ++i) p.push_back({1024.0 * std::exp2(i / 4.0), i % every == 1 ? 7e11 : 1e12});
    return fit_footprint_sweep(p);
  };
  const auto sc = scattered(4);
  REQUIRE(sc.levels.size() == 1);
  CHECK(sc.levels[0].outliers == 5);
  CHECK(sc.levels[0].confidence < 0.8);
  CHECK(scattered(3).levels.empty());
}

TEST_CASE("footprint fit: the last level ends only when at least two later points fall",
          "[bandwidth_fit]") {
  auto p = staircase({{1000.0, 1e9}}, 1, 256);
  p.push_back({512, 500});
  CHECK(fit_footprint_sweep(p).levels.at(0).end_bytes == 0);
  p.push_back({1024, 400});
  const auto fit = fit_footprint_sweep(p);
  CHECK(fit.levels.at(0).end_bytes > 256);
  CHECK(fit.levels.at(0).end_bytes < 512);
}

TEST_CASE("bandwidth fits refuse bad input with one line", "[bandwidth_fit]") {
  using gpuprobe::Error;
  CHECK_THROWS_AS(fit_footprint_sweep({{1, 1}, {2, 1}}), Error);
  CHECK_THROWS_WITH(fit_footprint_sweep({{1, 1}, {3, 1}, {2, 1}}), Catch::Contains("increase strictly"));
  CHECK_THROWS_WITH(fit_footprint_sweep({{1, 1}, {2, -1}, {3, 1}}), Catch::Contains("positive"));
  CHECK_THROWS_WITH(fit_concurrency_sweep({{1, 1}, {2, NAN}, {3, 1}}), Catch::Contains("finite"));
  CHECK_THROWS_AS(fit_loaded_latency({{1, 1}, {1, 2}, {1, 3}}), Error);
  CHECK_THROWS_AS(fit_bank_conflicts({{1, 10}}), Error);
  CHECK_THROWS_WITH(fit_bank_conflicts({{1, 10}, {1, 5}}), Catch::Contains("twice"));
  CHECK_THROWS_AS(bank_wavefronts(1, 6), Error);
  CHECK_THROWS_AS(bank_wavefronts(-1, 4), Error);
}

// --- bank conflicts ---------------------------------------------------------------------------

TEST_CASE("bank wavefronts: gcd(stride, 32) for 4-byte words, 2 gcd(stride, 16) for 8, 4 gcd(stride, 8) for 16",
          "[bandwidth_fit]") {
  CHECK(bank_wavefronts(0, 4) == 1);   // one word: broadcast
  CHECK(bank_wavefronts(0, 8) == 2);
  for (int s = 1; s <= 256; ++s) {
    INFO("stride " << s);
    CHECK(bank_wavefronts(s, 4) == std::gcd(s, 32));
    CHECK(bank_wavefronts(s, 8) == 2 * std::gcd(s, 16));
    CHECK(bank_wavefronts(s, 16) == 4 * std::gcd(s, 8));
  }
}

TEST_CASE("bank conflicts: degrees, a narrow data path, and the 15% tolerance", "[bandwidth_fit]") {
  std::vector<StridePoint> p;
  for (int s : {1, 2, 4, 8, 16, 32}) p.push_back({s, 128.0 / std::gcd(s, 32)});
  auto fit = fit_bank_conflicts(p);
  CHECK(fit.peak_bytes_per_cycle_per_sm == 128.0);
  CHECK(fit.base_cycles == 1);
  CHECK(fit.banks == 6);
  for (const auto& s : fit.strides) CHECK(s.degree == std::gcd(s.stride_elements, 32));
  // A 64 B/clk path hides 2-way conflicts: stride 2 is as fast as stride 1.
  std::vector<StridePoint> narrow;
  for (int s : {1, 2, 4, 8}) narrow.push_back({s, 64.0 / std::max(1, std::gcd(s, 32) / 2)});
  fit = fit_bank_conflicts(narrow);
  CHECK(fit.base_cycles == 2);
  CHECK(fit.banks == 4);
  CHECK(fit.strides[1].predicted_slowdown == 1.0);
  CHECK(fit.strides[2].predicted_slowdown == 2.0);
  // The tolerance, at its edges: stride 2 predicted 2x.
  const auto verdict = [](double slowdown) {
    return fit_bank_conflicts({{1, 128.0}, {2, 128.0 / slowdown}}).strides[1].verdict;
  };
  CHECK(verdict(2 * 1.14) == "banks");
  CHECK(verdict(2 * 1.16) == "slower");
  CHECK(verdict(2 * 0.86) == "banks");
  CHECK(verdict(2 * 0.84) == "faster");
  CHECK(fit_bank_conflicts({{1, 128.0}, {2, 128.0 / 1.5}, {4, 128.0}}).confidence <
        fit_bank_conflicts({{1, 128.0}, {2, 64.0}, {4, 32.0}}).confidence);
}

TEST_CASE("footprint fit: more than kMaxFootprintFitPoints points are binned first", "[bandwidth_fit]") {
  const auto fit_n = [](std::size_t n) {
    std::vector<FootprintPoint> p;
    for (std::size_t i = 0; i < n; ++i) {
      const double lx = 10 + 20.0 * static_cast<double>(i) / static_cast<double>(n);
      p.push_back({std::exp2(lx), lx < 20 ? 4e12 : 1e12});
    }
    return fit_footprint_sweep(p);
  };
  const auto at = fit_n(kMaxFootprintFitPoints);
  CHECK(joined(at.reasons).find("binned") == std::string::npos);
  CHECK(at.levels.at(0).points + at.levels.at(1).points == static_cast<int>(kMaxFootprintFitPoints));
  const auto past = fit_n(kMaxFootprintFitPoints + 1);
  CHECK(joined(past.reasons).find("1025 points binned to") != std::string::npos);
  REQUIRE(past.levels.size() == 2);
  CHECK(past.levels[0].bandwidth_bytes_per_s == 4e12);
  CHECK(past.levels[0].end_bytes == Approx(std::exp2(20.0)).epsilon(0.02));
  CHECK(past.levels[0].points + past.levels[1].points <= static_cast<int>(kMaxFootprintFitPoints));
}

TEST_CASE("bank conflicts: the peak comes from conflict-free strides, within 3% of their best",
          "[bandwidth_fit]") {
  // Stride 2 measured fast by a glitch does not raise the peak: it is not conflict-free.
  auto fit = fit_bank_conflicts({{1, 128.0}, {3, 127.0}, {2, 140.0}, {4, 32.0}});
  CHECK(fit.peak_bytes_per_cycle_per_sm == Approx(127.5));
  CHECK(fit.strides[2].verdict == "faster");
  // The 3% band, at its edge: 124.3 joins 128, 124.1 does not.
  CHECK(fit_bank_conflicts({{1, 128.0}, {3, 124.3}, {2, 64.0}}).peak_bytes_per_cycle_per_sm == Approx(126.15));
  CHECK(fit_bank_conflicts({{1, 128.0}, {3, 124.1}, {2, 64.0}}).peak_bytes_per_cycle_per_sm == 128.0);
  // No conflict-free stride: the fastest one, said so.
  fit = fit_bank_conflicts({{2, 64.0}, {4, 32.0}, {8, 16.0}});
  CHECK(fit.peak_bytes_per_cycle_per_sm == 64.0);
  CHECK(joined(fit.reasons).find("no conflict-free stride") != std::string::npos);
}

}  // namespace GPUPROBE_TEST_FILE
