// fit_tlb(): TLB levels from a latency-against-span curve with one hop per page. The segmentation
// is fit_hierarchy's; the first plateau is every translation hitting, each later plateau one more
// TLB level missing.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>

#include "analysis/hierarchy_fit.hpp"
#include "harness/error.hpp"

namespace gpuprobe::analysis {
namespace {
constexpr double kTlbMergeRelTol = 0.015;
}  // namespace

TlbFit fit_tlb(const Curve& latency_against_span, double page_bytes) {
  if (!(page_bytes > 0) || !std::isfinite(page_bytes)) {
    throw Error("fit_tlb: page size " + std::to_string(page_bytes) + " bytes must be positive");
  }
  HierarchyFitOptions options;
  options.first_level = "TLB1";
  options.last_is_memory = false;
  options.gpu_rules = false;  // TLB reach is not a cache hierarchy (far L2, growth rules)
  // A TLB miss adds a few percent to a hop that already misses the caches (10 cycles on 266 in
  // the H100 preset): merge only what is closer than that.
  options.merge_rel_tol = kTlbMergeRelTol;
  const HierarchyFit fit = fit_hierarchy(latency_against_span, options);

  TlbFit out;
  out.page_bytes = page_bytes;
  const double max_span_bytes = latency_against_span.points.back().x;
  if (fit.levels.empty()) {
    out.note = "no flat plateau in the curve: no TLB level can be read from it";
    return out;
  }
  out.base_latency_cycles = fit.levels.front().latency_cycles;
  for (std::size_t k = 0; k + 1 < fit.levels.size(); ++k) {
    const Level& covered = fit.levels[k];
    const Level& missing = fit.levels[k + 1];
    TlbLevel level;
    level.name = "TLB" + std::to_string(k + 1);
    level.reach_bytes = covered.capacity_bytes;
    level.reach_lo_bytes = covered.capacity_lo_bytes;
    level.reach_hi_bytes = covered.capacity_hi_bytes;
    level.miss_cost_cycles = missing.latency_cycles - covered.latency_cycles;
    level.confidence = std::min(covered.confidence, missing.confidence);
    out.levels.push_back(level);
  }
  std::ostringstream note;
  if (out.levels.empty()) {
    note << "no step within the sweep: reach > " << max_span_bytes / (1024.0 * 1024.0) << " MiB ("
         << max_span_bytes / page_bytes << " pages of " << page_bytes << " B)";
  } else {
    // The fitted reach is between two measured spans: printed to the nearest whole page.
    note << out.levels.size() << " TLB level(s); reach in pages (fitted, to the nearest page):";
    for (const TlbLevel& l : out.levels) note << " " << l.name << " " << std::llround(l.reach_bytes / page_bytes);
  }
  out.note = note.str();
  return out;
}

}  // namespace gpuprobe::analysis
