// `gpuprobe roofline` on large kernel inputs, as a user runs it (the executable, the plot by
// analysis/plot_roofline.py), issue 21 / hostile test D7: 20,000 ncu launches took 717 s and
// 1.3 GB to plot when every launch was its own kernel. Target on this 2-core machine: 10^5
// launches analysed and plotted in under 30 s and 500 MB (wall clock; the peak RSS of gpuprobe and
// the plot script, counter `peak_rss_mb`). Launches of one kernel are aggregated, the JSON is
// written as it is made, and the plot labels the kernels with the most time only:
//   NcuLaunches/100000   an Nsight Compute export of 10^5 launches of 1,000 kernels
//   CsvKernels/100000    a kernels CSV of 10^5 distinct kernels (nothing to aggregate)
// `/plot:0` runs with --no-plot. Each runs once per benchmark run (Iterations(1)).
#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

fs::path scratch() {
  static const fs::path dir = [] {
    const fs::path d = fs::temp_directory_path() / ("gpuprobe-bench-roofline-" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(fs::temp_directory_path() / ("gpuprobe-bench-roofline-" + std::to_string(::getpid())),
                     ec);
    });
    return d;
  }();
  return dir;
}

// A model with FP32 and FP16 ceilings and DRAM, L2 and L1 bandwidths (an H100-like machine).
std::string model_file() {
  const fs::path path = scratch() / "model.json";
  if (!fs::exists(path))
    std::ofstream(path) << R"({"schema": "gpuprobe.machine_model", "schema_version": 1,
      "device": {"name": "Bench GPU"}, "simulated": true,
      "compute": {"ops": {"fma_rn_f32": {"path": "fma", "precision": "f32", "flops_per_s": 5.1e13},
                          "mma_f16": {"path": "mma.sync", "precision": "f16", "flops_per_s": 5.1e14}}},
      "bandwidth": {"DRAM": {"read": {"concurrency": {"peak_bytes_per_s": 1.9e12}}},
                    "L2": {"concurrency": {"peak_bytes_per_s": 7.4e12}},
                    "L1": {"concurrency": {"peak_bytes_per_s": 2.5e13}}}})";
  return path.string();
}

// An ncu raw-page export of `launches` launches of 1,000 kernels with long C++ names.
std::string ncu_file(long launches) {
  const fs::path path = scratch() / ("ncu-" + std::to_string(launches) + ".csv");
  if (fs::exists(path)) return path.string();
  std::ofstream out(path);
  out << "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"dram__bytes.sum\","
         "\"gpu__time_duration.sum\",\"l1tex__t_bytes.sum\",\"lts__t_bytes.sum\","
         "\"sm__sass_thread_inst_executed_op_fadd_pred_on.sum\","
         "\"sm__sass_thread_inst_executed_op_ffma_pred_on.sum\","
         "\"sm__sass_thread_inst_executed_op_fmul_pred_on.sum\"\n"
         "\"\",\"\",\"\",\"\",\"\",\"Mbyte\",\"usecond\",\"Mbyte\",\"Mbyte\",\"inst\",\"inst\",\"inst\"\n";
  char line[512];
  for (long i = 0; i < launches; ++i) {
    const long k = i % 1000;
    std::snprintf(
        line, sizeof line,
        "\"%ld\",\"4242\",\"void gemm_kernel<%ld, cutlass::half_t>(float const*, float*, int)\","
        "\"(256, 1, 1)\",\"(%ld, 1, 1)\",\"%.2f\",\"%.3f\",\"%.2f\",\"%.2f\",\"%ld\",\"%ld\",\"0\"\n",
        i, k, 128 + k, 10.0 + k % 37, 50.0 + k % 91 + (i % 7) * 0.25, 100.0 + k % 7, 40.0 + k % 13,
        1000 * (k % 5), 1000000 * (1 + k % 17));
    out << line;
  }
  return path.string();
}

// A kernels CSV of `kernels` distinct kernels.
std::string csv_file(long kernels) {
  const fs::path path = scratch() / ("kernels-" + std::to_string(kernels) + ".csv");
  if (fs::exists(path)) return path.string();
  std::ofstream out(path);
  out << "name,flops,time_s,bytes_hbm,bytes_l2\n";
  char line[160];
  for (long i = 0; i < kernels; ++i) {
    std::snprintf(line, sizeof line, "kernel_%ld,%g,%g,%g,1e9\n", i, 1e9 * (1 + i % 100), 1e-4 * (1 + i % 37),
                  1e8 * (1 + i % 13));
    out << line;
  }
  return path.string();
}

// `gpuprobe roofline --model M ARGS`: its wall time is the benchmark's; the peak RSS of it and its
// plot script (wait4's, the largest of the process and the children it waited for) a counter.
void run_roofline(benchmark::State& state, const std::vector<std::string>& input) {
  const bool plot = state.range(1) != 0;
  std::vector<std::string> args = {GPUPROBE_EXE, "roofline", "--model",
                                   model_file(), "--out",    (scratch() / "out").string()};
  args.insert(args.end(), input.begin(), input.end());
  if (!plot) args.push_back("--no-plot");
  long peak_kb = 0;
  for (auto _ : state) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      std::freopen("/dev/null", "w", stdout);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    int status = 0;
    struct rusage usage {};
    ::wait4(pid, &status, 0, &usage);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError("gpuprobe roofline failed (without Python and matplotlib, run the /plot:0 cases)");
      break;
    }
    peak_kb = std::max(peak_kb, usage.ru_maxrss);
  }
  state.counters["peak_rss_mb"] = static_cast<double>(peak_kb) / 1024;
  state.counters["json_mb"] = static_cast<double>(fs::file_size(scratch() / "out.roofline.json")) /
                              (1024.0 * 1024.0);
}

void BM_RooflineNcuLaunches(benchmark::State& state) {
  run_roofline(state, {"--ncu-csv", ncu_file(state.range(0))});
}
void BM_RooflineCsvKernels(benchmark::State& state) {
  run_roofline(state, {"--kernels-csv", csv_file(state.range(0))});
}

}  // namespace

BENCHMARK(BM_RooflineNcuLaunches)
    ->ArgsProduct({{100000}, {0, 1}})
    ->ArgNames({"", "plot"})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_RooflineCsvKernels)
    ->ArgsProduct({{100000}, {0, 1}})
    ->ArgNames({"", "plot"})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);
