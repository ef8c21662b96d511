// fit_line_and_sector(): line size from where the first-level knee starts to scale with the stride,
// sector size from where the post-knee latency reaches the full miss latency.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/hierarchy_fit.hpp"
#include "harness/error.hpp"

namespace gpuprobe::analysis {
namespace {

constexpr std::size_t kMinStrides = 3;
// A knee up to this multiple of the small-stride knee is "the same capacity" (a doubled stride
// past the line size doubles it).
constexpr double kSameKneeRatio = 1.4;
// The post-knee excess counts as the full miss latency within this fraction.
constexpr double kFullMissTolerance = 0.10;
// A curve agrees with the fitted model when knee and excess are within this fraction of the
// model's prediction.
constexpr double kModelTolerance = 0.25;

struct StrideResult {
  double stride_bytes = 0;
  double knee_bytes = std::numeric_limits<double>::quiet_NaN();  // NaN: no knee in the sweep
  double base_cycles = 0;     // first plateau (hits)
  double post_knee_cycles = 0;  // plateau after the knee
  double confidence = 0;
};

// Footprint where the curve first climbs half-way from the first plateau to the next one,
// interpolated in log2(footprint) between the bracketing points. The half-step point (not the
// 10% point the hierarchy fit reports) is used because stride rings with random in-block offsets
// load the cache sets unevenly: the first sets overflow well before the tags run out, but half of
// the accesses miss only when about 90% of the tags are in use (4 ways, Poisson loads), so the
// half-step knee tracks the tag capacity and scales with the stride past the line size.
double half_step_knee(const Curve& curve, const Level& below, const Level& above) {
  const double half = below.latency_cycles + 0.5 * (above.latency_cycles - below.latency_cycles);
  const auto& pts = curve.points;
  for (std::size_t i = 1; i < pts.size(); ++i) {
    if (pts[i].x <= below.plateau_last_x || pts[i].latency_cycles < half) continue;
    const double y0 = pts[i - 1].latency_cycles, y1 = pts[i].latency_cycles;
    const double t = y1 > y0 ? std::clamp((half - y0) / (y1 - y0), 0.0, 1.0) : 1.0;
    return std::exp2(std::log2(pts[i - 1].x) + t * (std::log2(pts[i].x) - std::log2(pts[i - 1].x)));
  }
  return below.capacity_bytes;
}

}  // namespace

LineSectorFit fit_line_and_sector(const std::vector<StrideCurve>& curves) {
  if (curves.size() < kMinStrides) {
    throw Error("fit_line_and_sector: " + std::to_string(curves.size()) +
                " stride curves given; at least " + std::to_string(kMinStrides) + " are needed");
  }
  std::vector<StrideResult> results;
  for (const StrideCurve& sc : curves) {
    if (!(sc.stride_bytes > 0) || !std::isfinite(sc.stride_bytes)) {
      throw Error("fit_line_and_sector: stride " + std::to_string(sc.stride_bytes) +
                  " bytes must be positive and finite");
    }
    HierarchyFitOptions options;
    options.last_is_memory = false;
    const HierarchyFit fit = fit_hierarchy(sc.curve, options);
    StrideResult r;
    r.stride_bytes = sc.stride_bytes;
    if (!fit.levels.empty()) {
      r.base_cycles = fit.levels.front().latency_cycles;
      r.post_knee_cycles = r.base_cycles;
      r.confidence = fit.levels.front().confidence;
    }
    if (fit.levels.size() >= 2) {
      r.knee_bytes = half_step_knee(sc.curve, fit.levels[0], fit.levels[1]);
      r.post_knee_cycles = fit.levels[1].latency_cycles;
    }
    results.push_back(r);
  }
  std::sort(results.begin(), results.end(),
            [](const StrideResult& a, const StrideResult& b) { return a.stride_bytes < b.stride_bytes; });
  for (std::size_t i = 1; i < results.size(); ++i) {
    if (results[i].stride_bytes == results[i - 1].stride_bytes) {
      throw Error("fit_line_and_sector: stride " + std::to_string(results[i].stride_bytes) +
                  " bytes appears twice");
    }
  }

  LineSectorFit out;
  std::ostringstream note;
  const StrideResult& smallest = results.front();
  if (std::isnan(smallest.knee_bytes)) {
    out.note = "no first-level knee in the smallest-stride curve: cannot tell the line size";
    return out;
  }

  // Line: the largest stride of the leading run whose knee stays at the small-stride knee.
  const double ref_knee = smallest.knee_bytes;
  std::size_t line_index = 0;
  for (std::size_t i = 1; i < results.size(); ++i) {
    const double k = results[i].knee_bytes;
    if (std::isnan(k) || k > kSameKneeRatio * ref_knee) break;
    line_index = i;
  }
  out.line_bytes = results[line_index].stride_bytes;
  if (line_index + 1 == results.size()) {
    note << "the knee never grows with the stride: line >= " << out.line_bytes << " B (largest stride); ";
  }

  // Sector: the smallest stride whose post-knee excess reaches the full miss excess.
  double full_excess = 0;
  for (const StrideResult& r : results) {
    if (!std::isnan(r.knee_bytes)) full_excess = std::max(full_excess, r.post_knee_cycles - r.base_cycles);
  }
  std::size_t sector_index = results.size();
  if (full_excess > 0) {
    for (std::size_t i = 0; i < results.size(); ++i) {
      const StrideResult& r = results[i];
      if (std::isnan(r.knee_bytes)) continue;
      if (r.post_knee_cycles - r.base_cycles >= (1.0 - kFullMissTolerance) * full_excess) {
        sector_index = i;
        break;
      }
    }
  }
  if (sector_index == results.size()) {
    note << "no post-knee plateau reaches the miss latency: sector unknown; ";
  } else {
    out.sector_bytes = results[sector_index].stride_bytes;
    if (sector_index == 0) {
      note << "the smallest stride already misses fully: sector <= " << out.sector_bytes << " B; ";
    }
    if (out.sector_bytes > out.line_bytes) {
      note << "sector (" << out.sector_bytes << " B) larger than line (" << out.line_bytes
           << " B): inconsistent curves; ";
    }
  }

  // Confidence: fraction of the curves the model (knee = ref * max(1, s/line), excess = full *
  // min(1, s/sector)) explains, times the weakest first-level confidence.
  std::size_t agreeing = 0;
  double weakest = 1.0;
  for (const StrideResult& r : results) {
    if (std::isnan(r.knee_bytes)) continue;  // no knee within the sweep: says nothing
    weakest = std::min(weakest, r.confidence);
    const double knee_model = ref_knee * std::max(1.0, r.stride_bytes / out.line_bytes);
    bool ok = std::abs(r.knee_bytes / knee_model - 1.0) <= kModelTolerance;
    if (out.sector_bytes > 0 && full_excess > 0) {
      const double excess_model = full_excess * std::min(1.0, r.stride_bytes / out.sector_bytes);
      ok = ok && std::abs((r.post_knee_cycles - r.base_cycles) / excess_model - 1.0) <= kModelTolerance;
    }
    if (ok) ++agreeing;
  }
  out.confidence = weakest * static_cast<double>(agreeing) / static_cast<double>(results.size());
  note << agreeing << " of " << results.size() << " stride curves agree with line " << out.line_bytes
       << " B, sector " << out.sector_bytes << " B (first-level knee " << ref_knee << " B)";
  out.note = note.str();
  return out;
}

}  // namespace gpuprobe::analysis
