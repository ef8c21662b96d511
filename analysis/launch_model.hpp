// The machine model's `launch` section (docs/SCHEMA.md "launch"): what a kernel launch, a CUDA
// graph and the ways of running many small kernels cost, from the launch/* run records or from
// imported small-kernel curves. Two fitted models, both least squares with Eigen:
//   t = a + b*n   a graph's instantiate, update or launch time against its node count n
//                 (a: per graph, b: per node)
//   T = a + V/b   the time per iteration of a small kernel moving V bytes, run as stream
//                 launches, one CUDA graph, a persistent grid.sync kernel or persistent threads
//                 (a: the per-launch or per-iteration overhead, b: the bandwidth it then gets)
// Each parameter carries its 95% interval and a confidence in 0..1 from that interval's width.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/family.hpp"

namespace gpuprobe::analysis {

// y = a + b*x by ordinary least squares. The intervals are a +- t(0.975, n-2) x the standard
// error. n == 2: exact through both points, intervals of zero width and confidence 0.5 (no
// residual to judge by). Throws gpuprobe::Error with fewer than 2 points, non-finite values or
// all x equal.
struct LinearFit {
  double a = 0, b = 0;
  double a_lo = 0, a_hi = 0, b_lo = 0, b_hi = 0;  // 95% intervals
  double r2 = 0;                                  // 1 when y is constant and fitted exactly
  std::size_t points = 0;
  double confidence = 0;                          // of a and b together, 0..1
};
LinearFit fit_line(const std::vector<double>& x, const std::vector<double>& y);

// One point of a small-kernel sweep: V bytes moved per iteration, T seconds per iteration.
struct SmallKernelPoint {
  double bytes = 0;
  double time_s = 0;
};

// T = a + V/b over the overhead-dominated points: those with V <= window x the smallest V
// (default 4: two octaves; a larger V leaves the L2 and its time the line). b comes from the
// slope 1/b; a slope whose 95% interval reaches 0 gives bytes_per_s 0 (unresolved: the work time
// does not show within the window), with a still fitted.
struct SmallKernelFit {
  double overhead_s = 0;           // a
  double overhead_lo_s = 0, overhead_hi_s = 0;
  double bytes_per_s = 0;          // b (0: not resolved)
  double bytes_per_s_lo = 0, bytes_per_s_hi = 0;
  double smallest_bytes = 0;
  double smallest_time_s = 0;      // the measured time of the smallest case
  double window = 4;
  std::size_t points = 0;          // in the window
  std::size_t input_points = 0;
  double r2 = 0;
  double confidence = 0;           // of the overhead
};
constexpr double kSmallKernelWindow = 4;
SmallKernelFit fit_small_kernels(std::vector<SmallKernelPoint> points,
                                 double window = kSmallKernelWindow);
nlohmann::json to_json(const SmallKernelFit& fit);
nlohmann::json to_json(const LinearFit& fit, const char* a_name, const char* b_name,
                       double scale = 1.0);

// te42kyfo/gpu-benches gpu-small-kernels output (tests/data/real/gpu-benches/gpu-small-kernels/
// PROVENANCE.md): rows "doubles <n>kB <GB/s per block size ...>", the 2024 layout with 6 block
// sizes (32..1024) and the older one with 9; the kB column is ignored (the old files print 0kB).
// Per row V = 16 x doubles bytes (SCALE reads and writes one double each) and the best bandwidth
// over the block sizes gives T = V / bandwidth. The method is told by the file name's suffix:
// none = "stream", _graph = "graph", _gsync = "gsync", _pt = "pt". A last line cut short (no
// newline, fewer columns: the run was stopped mid-row) is dropped. Malformed input throws
// gpuprobe::Error "path:line: problem".
struct SmallKernelFile {
  std::string method;
  std::vector<SmallKernelPoint> points;   // in file order
};
SmallKernelFile read_gpubenches_small_kernels(const std::string& path);
// "stream", "graph", "gsync", "pt" from a gpu-benches file name (a100_80_graph.txt -> graph).
std::string small_kernel_method_of_file(const std::string& path);

// Adds what a launch/* record measured to `launch` (an object). Throws gpuprobe::Error (one
// line) when a point lacks what the section needs.
void add_launch_from_run(const nlohmann::json& run, nlohmann::json& launch);

// The model from imported small-kernel curves (gpuprobe analyze --import-csv with the header
// bytes,time_s,method): one fit per method under launch.small_kernels.
nlohmann::json build_machine_model_from_small_kernels(
    const std::vector<std::pair<std::string, std::vector<SmallKernelPoint>>>& methods,
    const std::string& source);


// metrics[] of the model's launch section.
void launch_metrics(const nlohmann::json& model, const MetricSink& add);

}  // namespace gpuprobe::analysis
