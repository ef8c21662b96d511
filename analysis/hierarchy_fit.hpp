// Fit a memory hierarchy to a latency-against-footprint curve.
//
// Method (docs/ANALYSIS.md): optimal piecewise-constant segmentation of log(latency) over
// log(footprint) by dynamic programming with a BIC penalty (noise estimated from the curve
// itself); neighbouring segments that stay inside one level's band are joined into candidate
// plateaus, which must be flat and wide enough; GPU rules (latencies rise level by level, the far
// L2 ends at about twice the near partition, a new cache level at >= 4x the one before) turn
// contradicting candidates into transitions (`rejected`). Each boundary gives a capacity (crossing
// of 10% of the step) with an interval; each level a confidence from its points, their spread
// and how often resampled fits find it again. Eigen does the least-squares and segment costs.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/curve.hpp"

namespace gpuprobe::analysis {

struct Level {
  std::string name;                 // "L1", "L2", "L2-far", "DRAM", "L3"...
  double latency_cycles = 0;        // median of the plateau
  // From the points' ns, or cycles / clock; empty when neither is known (no clock).
  std::optional<double> latency_ns;
  double capacity_bytes = 0;        // 0 for the last level (unbounded by the sweep)
  double capacity_lo_bytes = 0;     // interval the capacity lies in
  double capacity_hi_bytes = 0;
  // 0..1: points_score x spread_score x stability (0 for the only level of a curve).
  double confidence = 0;
  double points_score = 0;          // 1 - 2^(-(points - 1) / 2): 3 points 0.5, 8 points 0.91
  double spread_score = 0;          // exp(-(spread / (0.25 x step to the nearest level))^2)
  double stability = 0;             // fraction of resampled fits that find the level again
  double spread_rel = 0;            // robust relative spread (1.4826 MAD) of the stable part
  double plateau_first_x = 0;       // footprints of the plateau's first and last points
  double plateau_last_x = 0;
  int points = 0;                   // points of the stable part (the latency's median)
};

// A plateau the segmentation found that a GPU rule turned into a transition.
struct RejectedCandidate {
  double latency_cycles = 0;
  double plateau_first_x = 0;
  double plateau_last_x = 0;
  int points = 0;
  double capacity_bytes = 0;        // where it ends (0: not computed)
  double capacity_ratio = 0;        // capacity / the capacity of the level before (0: none)
  std::string rule;                 // "rise", "far-l2", "growth"
  std::string reason;               // one line with the numbers
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
  // The GPU memory-hierarchy rules (docs/ANALYSIS.md). Off for curves that are not a cache
  // hierarchy (TLB reach).
  bool gpu_rules = true;
  // Resampled fits behind each level's stability (0: stability 1, no resampling).
  int resamples = 8;
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
  std::vector<std::string> rules;              // the rules applied, with their bounds
  std::vector<RejectedCandidate> rejected;     // candidates a rule made transitions, and why
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
