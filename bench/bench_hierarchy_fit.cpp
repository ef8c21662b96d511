// Speed of fit_hierarchy on a dense sweep: 2,000 footprints, four levels, 0.5% noise.
// Target: well under 50 ms per fit (docs/ANALYSIS.md).
#include <benchmark/benchmark.h>

#include <cmath>

#include "analysis/hierarchy_fit.hpp"
#include "tests/analysis/synthetic_curves.hpp"

namespace {

gpuprobe::analysis::Curve dense_curve(int points) {
  gpuprobe::analysis::testing::SyntheticSpec spec;
  spec.levels = {{30, 96.0 * 1024}, {220, 6.0 * 1024 * 1024}, {420, 48.0 * 1024 * 1024}, {600, 0}};
  spec.x_first_bytes = 1024;
  spec.x_ratio = std::pow(2.0, 20.0 / points);  // 1 KiB .. 1 GiB
  spec.points = points;
  spec.noise_rel = 0.005;
  spec.knee_octaves = 0.3;
  spec.seed = 11;
  return gpuprobe::analysis::testing::make_curve(spec);
}

void BM_FitHierarchy(benchmark::State& state) {
  const auto curve = dense_curve(static_cast<int>(state.range(0)));
  std::size_t levels = 0;
  for (auto _ : state) {
    const auto fit = gpuprobe::analysis::fit_hierarchy(curve);
    levels = fit.levels.size();
    benchmark::DoNotOptimize(levels);
  }
  state.counters["levels"] = static_cast<double>(levels);
}

}  // namespace

BENCHMARK(BM_FitHierarchy)->Arg(100)->Arg(500)->Arg(2000)->Unit(benchmark::kMillisecond);
