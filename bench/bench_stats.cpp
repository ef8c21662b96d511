// Speed of stats::summarize (the 95% CI of the median among it) on large samples: it must grow
// as n log n (the sort), not n^2. Target: 1M samples well under a second.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "harness/stats.hpp"

namespace {

void BM_Summarize(benchmark::State& state) {
  std::mt19937 rng(5);
  std::normal_distribution<double> noise(100.0, 3.0);
  std::vector<double> samples(static_cast<std::size_t>(state.range(0)));
  for (auto& x : samples) x = noise(rng);
  for (auto _ : state) {
    const auto s = gpuprobe::stats::summarize(samples);
    benchmark::DoNotOptimize(s.median_ci95.lo);
  }
  state.SetComplexityN(state.range(0));
}

}  // namespace

BENCHMARK(BM_Summarize)->RangeMultiplier(10)->Range(1000, 1000000)->Complexity(benchmark::oNLogN)->Unit(benchmark::kMillisecond);
