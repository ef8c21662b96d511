#include "analysis/curve.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "harness/error.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::analysis {

BinnedCurve bin_curve(const Curve& curve, std::size_t max_points) {
  BinnedCurve out;
  out.input_points = curve.points.size();
  const auto& p = curve.points;
  if (max_points < 1) throw Error("bin_curve: max_points must be at least 1");
  if (p.size() <= max_points) {
    out.curve = curve;
    return out;
  }
  const double lo = std::log2(p.front().x);
  const double span = std::log2(p.back().x) - lo;
  if (!(p.front().x > 0) || !std::isfinite(span) || !(span > 0))
    throw Error("bin_curve: " + curve.x_name + " must be positive, finite and increasing");
  out.binned = true;
  out.bin_octaves = span / static_cast<double>(max_points);
  out.curve.x_name = curve.x_name;
  out.curve.clock_mhz = curve.clock_mhz;
  std::vector<double> xs, cycles, ns;
  const auto flush = [&] {
    if (xs.empty()) return;
    out.curve.points.push_back({stats::median(xs), stats::median(cycles), stats::median(ns)});
    xs.clear();
    cycles.clear();
    ns.clear();
  };
  std::size_t bin = 0;
  for (const CurvePoint& point : p) {
    // Points are sorted, so a bin's points are contiguous; the last bin is closed at the top.
    const auto b = std::min(max_points - 1,
                            static_cast<std::size_t>((std::log2(point.x) - lo) / out.bin_octaves));
    if (b != bin) flush();
    bin = b;
    xs.push_back(point.x);
    cycles.push_back(point.latency_cycles);
    ns.push_back(point.latency_ns);
  }
  flush();
  return out;
}

}  // namespace gpuprobe::analysis
