// Speed of the bandwidth fits (analysis/bandwidth_fit.hpp). fit_footprint_sweep is linear on
// curves made of plateaus and knees, but each start of a rejected candidate rescans it, so a long
// ramp slightly steeper than max_slope_per_octave is its worst case (about n x points per
// band / (slope - max slope) octaves); curves past kMaxFootprintFitPoints are binned to it first,
// which bounds a fit. Target: a 4096-point sweep in well under 50 ms (the ramp: ~13 ms CPU on the
// CI machine, the three-level curve ~2 ms). The loaded-latency fit is 121 + 60 passes over the
// points; stats::median_ci (quadratic in the points it gets) dominates the concurrency sweep.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "analysis/bandwidth_fit.hpp"

namespace {

using namespace gpuprobe::analysis;

// Three levels with soft knees and 1% noise over 1 KiB .. 1 GiB.
std::vector<FootprintPoint> levels_curve(int n) {
  std::mt19937 rng(3);
  std::normal_distribution<double> n01(0.0, 1.0);
  const auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
  std::vector<FootprintPoint> p;
  for (int i = 0; i < n; ++i) {
    const double lx = 10 + 20.0 * i / n;
    const double l1 = std::log(5e12) + std::log(4.0) * sig((17 - lx) / 0.15);
    const double y = std::log(1.8e12) + (l1 - std::log(1.8e12)) * sig((24 - lx) / 0.15);
    p.push_back({std::exp2(lx), std::exp(y) * (1 + 0.01 * n01(rng))});
  }
  return p;
}

// The worst case: a ramp of 0.11 per octave over 20 octaves.
std::vector<FootprintPoint> ramp_curve(int n) {
  std::vector<FootprintPoint> p;
  for (int i = 0; i < n; ++i) {
    const double lx = 10 + 20.0 * i / n;
    p.push_back({std::exp2(lx), 1e12 * std::exp(-0.11 * (lx - 10))});
  }
  return p;
}

void BM_FootprintLevels(benchmark::State& state) {
  const auto p = levels_curve(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(fit_footprint_sweep(p).levels.size());
  state.SetComplexityN(state.range(0));
}

void BM_FootprintRamp(benchmark::State& state) {
  const auto p = ramp_curve(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(fit_footprint_sweep(p).levels.size());
  state.SetComplexityN(state.range(0));
}

void BM_ConcurrencySweep(benchmark::State& state) {
  std::vector<ConcurrencyPoint> p;
  const int n = static_cast<int>(state.range(0));
  for (int i = 1; i <= n; ++i) {
    const double x = 64.0 * i;
    p.push_back({x, 2e12 * x / (x + 16384.0)});
  }
  ConcurrencyFitOptions o;
  o.sm_count = 132;
  for (auto _ : state) benchmark::DoNotOptimize(fit_concurrency_sweep(p, o).peak_bandwidth_bytes_per_s);
  state.SetComplexityN(state.range(0));
}

}  // namespace

BENCHMARK(BM_FootprintLevels)->RangeMultiplier(4)->Range(64, 4096)->Complexity()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FootprintRamp)->RangeMultiplier(4)->Range(64, 4096)->Complexity()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConcurrencySweep)->RangeMultiplier(4)->Range(64, 4096)->Complexity()->Unit(benchmark::kMicrosecond);
