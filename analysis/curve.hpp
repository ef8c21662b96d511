// A latency curve: what the analysis consumes, from our own probes or imported from any tool.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpuprobe::analysis {

struct CurvePoint {
  double x = 0;                 // footprint_bytes, stride_bytes or span_bytes (see Curve::x_name)
  double latency_cycles = 0;    // the value the fit uses (mean latency per hop)
  double latency_ns = 0;        // 0 when unknown
};

struct Curve {
  std::string x_name = "footprint_bytes";
  double clock_mhz = 0;         // SM clock the cycles were counted at; 0 when unknown
  std::vector<CurvePoint> points;  // sorted by x, strictly increasing
};

// A bounded summary of a dense curve. The segmentation in fit_hierarchy grows faster than
// linearly with the point count, and a million-point curve would also be stored whole in the
// model, so a curve of more than max_points points is reduced to max_points bins of equal width
// in log2(x) over its range; each non-empty bin becomes one point: the median of its x, of its
// latency_cycles and of its latency_ns. Medians keep x strictly increasing (bins are disjoint)
// and ignore a stray outlier inside a bin. A curve of at most max_points points comes back as is.
struct BinnedCurve {
  Curve curve;
  std::size_t input_points = 0;   // points before binning
  bool binned = false;
  double bin_octaves = 0;         // width of one bin in log2(x); 0 when not binned
};
// Sweeps measured by gpuprobe and gpu-benches have at most a few hundred points, so they are never
// binned. 2048 bins over a 1 KiB..1 GiB sweep are 1/100 octave (0.7%) wide, finer than any
// capacity interval the fit reports, and fit_hierarchy takes a few tens of ms on them
// (bench/bench_csv_import.cpp).
constexpr std::size_t kMaxFitPoints = 2048;
BinnedCurve bin_curve(const Curve& curve, std::size_t max_points = kMaxFitPoints);

}  // namespace gpuprobe::analysis
