// run-all's profiles on the simulated H100, as a user runs them (the gpuprobe executable, one
// child process per planned run), into a fresh temporary folder. Targets on this 2-core machine
// (issue 11, README "run-all profiles"): --quick 10 s or less, --full 2 minutes or less, wall
// clock. Each profile runs once per benchmark run (Iterations(1)): one --full takes half a minute.
// The counter `h100_estimate_s` is the plan's estimated time on an H100 (cli/run_plan.cpp).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "cli/run_plan.hpp"

namespace {

namespace fs = std::filesystem;

void run_all(benchmark::State& state, const char* profile, gpuprobe::RunProfile plan) {
  const fs::path out = fs::temp_directory_path() /
                       ("gpuprobe-bench-run-all-" + std::to_string(getpid()) + profile);
  const std::string command = std::string(GPUPROBE_EXE) + " run-all --device sim:h100 " + profile +
                              " --force --out " + out.string() + " > /dev/null 2>&1";
  for (auto _ : state) {
    if (std::system(command.c_str()) != 0) {
      state.SkipWithError(("failed: " + command).c_str());
      break;
    }
  }
  std::error_code ec;
  fs::remove_all(out, ec);
  state.counters["h100_estimate_s"] = gpuprobe::estimated_h100_seconds(gpuprobe::run_all_plan(plan));
}

void BM_RunAllQuickSimH100(benchmark::State& state) {
  run_all(state, "--quick", gpuprobe::RunProfile::quick);
}
void BM_RunAllFullSimH100(benchmark::State& state) {
  run_all(state, "--full", gpuprobe::RunProfile::full);
}

}  // namespace

BENCHMARK(BM_RunAllQuickSimH100)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);
BENCHMARK(BM_RunAllFullSimH100)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);
