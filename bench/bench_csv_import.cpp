// Speed of `gpuprobe analyze --import-csv` on a million-row curve (issue 7): reading and fitting
// it must take no more than a few times a plain parse of the same file (target: ImportAndFit
// under 4x PlainParse, and a few seconds at most). The fit sees at most kMaxFitPoints binned
// points (analysis/curve.hpp), so its cost no longer grows with the row count.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

#include "analysis/csv_import.hpp"
#include "analysis/machine_model.hpp"

namespace {

// A CSV of `rows` footprints from 1 KiB to 1 GiB over three levels with 0.5% noise, written once
// per row count and removed at exit.
const std::string& csv_file(long rows) {
  static std::string path;
  static long written = 0;
  if (written != rows) {
    if (!path.empty()) std::filesystem::remove(path);
    path = (std::filesystem::temp_directory_path() /
            ("gpuprobe-bench-" + std::to_string(::getpid()) + "-" + std::to_string(rows) + ".csv"))
               .string();
    std::ofstream out(path);
    out << "footprint_bytes,latency_cycles,latency_ns\n";
    std::mt19937 rng(3);
    std::normal_distribution<double> noise(0.0, 0.005);
    double last = 0;
    char line[96];
    for (long i = 0; i < rows; ++i) {
      double x = std::round(1024 * std::exp2(20.0 * static_cast<double>(i) / static_cast<double>(rows)));
      if (x <= last) x = last + 1;
      last = x;
      const double base = x < 96.0 * 1024 ? 30 : x < 6.0 * 1024 * 1024 ? 220 : 600;
      const double cycles = base * (1 + noise(rng));
      std::snprintf(line, sizeof line, "%.0f,%.2f,%.2f\n", x, cycles, cycles / 1.755);
      out << line;
    }
    written = rows;
    static const bool cleanup_registered = [] {
      std::atexit([] { if (!path.empty()) std::filesystem::remove(path); });
      return true;
    }();
    (void)cleanup_registered;
  }
  return path;
}

// The floor: getline and strtod on every field, nothing checked or kept but a sum.
void BM_PlainCsvParse(benchmark::State& state) {
  const std::string& path = csv_file(state.range(0));
  for (auto _ : state) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    double sum = 0;
    while (std::getline(in, line)) {
      const char* p = line.c_str();
      char* end = nullptr;
      for (int f = 0; f < 3; ++f) {
        sum += std::strtod(p, &end);
        p = *end == ',' ? end + 1 : end;
      }
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_ReadLatencyCsv(benchmark::State& state) {
  const std::string& path = csv_file(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(gpuprobe::analysis::read_latency_csv(path));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// What `analyze --import-csv` does, less writing the file: read, bin, fit, build the model.
void BM_ImportAndFit(benchmark::State& state) {
  const std::string& path = csv_file(state.range(0));
  std::size_t levels = 0;
  for (auto _ : state) {
    const auto model = gpuprobe::analysis::build_machine_model_from_curve(
        gpuprobe::analysis::read_latency_csv(path), path);
    levels = model["memory"]["levels"].size();
    benchmark::DoNotOptimize(levels);
  }
  state.counters["levels"] = static_cast<double>(levels);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

}  // namespace

BENCHMARK(BM_PlainCsvParse)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadLatencyCsv)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ImportAndFit)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);
