// Fit a memory hierarchy to a latency-against-footprint curve.
//
// Method (docs/ANALYSIS.md): optimal piecewise-constant segmentation of log(latency) over
// log(footprint) by dynamic programming with a BIC penalty (noise estimated from the curve
// itself), plateaus = segments that are flat and wide enough, plateaus closer than
// merge_rel_tol merged; each boundary gives a capacity (crossing of 10% of the step) with an
// interval, and each level a confidence from a two-sample Kolmogorov-Smirnov test against its
// neighbours. Eigen does the per-plateau least-squares (flatness) and the segment costs.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/curve.hpp"

namespace gpuprobe::analysis {

struct Level {
  std::string name;                 // "L1", "L2", "L2-far", "DRAM", "L3"...
  double latency_cycles = 0;        // median of the plateau
  double latency_ns = 0;            // from the curve's ns, or cycles / clock; 0 if unknown
  double capacity_bytes = 0;        // 0 for the last level (unbounded by the sweep)
  double capacity_lo_bytes = 0;     // interval the capacity lies in
  double capacity_hi_bytes = 0;
  double confidence = 0;            // 0..1
  double plateau_first_x = 0;       // footprints of the plateau's first and last points
  double plateau_last_x = 0;
  int points = 0;
};

struct HierarchyFitOptions {
  // Names given to plateaus in order. The first level is "L1" for a .ca chase, "L2" for .cg.
  std::string first_level = "L1";
  // If true, the last plateau is main memory ("DRAM") when the sweep goes past the last cache.
  bool last_is_memory = true;
  double merge_rel_tol = 0.06;      // plateaus closer than this (relative) are one level
  int min_plateau_points = 3;
  // A plateau must also span this many octaves of footprint (last/first >= 2^0.2 = 1.15): in a
  // dense sweep a few points of a soft knee look flat over their own tiny width.
  double min_plateau_octaves = 0.2;
};

struct FarL2 {
  bool detected = false;
  std::string reason;               // why it was or was not found
};

struct HierarchyFit {
  std::vector<Level> levels;
  FarL2 far_l2;
  double noise_rel = 0;             // robust relative noise of the curve
  // The curve ends rising past its last plateau without reaching another: the sweep stopped
  // before the next level, so the last plateau is named as a cache, not as memory.
  bool ended_in_rise = false;
};

// Throws gpuprobe::Error if the curve has too few points or is not sorted.
HierarchyFit fit_hierarchy(const Curve& curve, const HierarchyFitOptions& options = {});

// --- stride sweep: line and sector size -----------------------------------------------------
// One curve per stride (latency against footprint, random-free stride rings). The capacity knee
// of the first level scales with stride once the stride exceeds the line size
// (Saavedra-Barrera); beyond the knee, the miss fraction min(1, stride/sector) fixes the sector.
struct StrideCurve {
  double stride_bytes = 0;
  Curve curve;
};
struct LineSectorFit {
  double line_bytes = 0;
  double sector_bytes = 0;
  double confidence = 0;
  std::string note;
};
LineSectorFit fit_line_and_sector(const std::vector<StrideCurve>& curves);

// --- TLB sweep: one hop per page -----------------------------------------------------------
struct TlbLevel {
  std::string name;            // "TLB1", "TLB2", ...
  double reach_bytes = 0;      // span covered before the next step
  double reach_lo_bytes = 0, reach_hi_bytes = 0;
  double miss_cost_cycles = 0; // added latency once this level misses
  double confidence = 0;
};
struct TlbFit {
  double page_bytes = 0;
  double base_latency_cycles = 0;  // latency with every translation hitting
  std::vector<TlbLevel> levels;
  std::string note;                // e.g. "no step within the sweep: reach > 8 GiB"
};
TlbFit fit_tlb(const Curve& latency_against_span, double page_bytes);

}  // namespace gpuprobe::analysis
