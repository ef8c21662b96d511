// fit_hierarchy(): piecewise-constant segmentation of log(latency) over log2(footprint).
// See docs/ANALYSIS.md for the method and the reasons behind each threshold.
#include "analysis/hierarchy_fit.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "harness/error.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::analysis {
namespace {

constexpr int kMinPoints = 6;
// Relative noise never assumed below this: real sweeps print latencies with 0.1-cycle resolution
// and creep by a few tenths of a percent inside one level.
constexpr double kNoiseFloorRel = 0.004;
// BIC: each segment costs a mean and a change point, ln(n) each.
constexpr double kBicParamsPerSegment = 2.0;
// Capacity = where the curve has climbed this fraction of the step to the next level...
constexpr double kCapacityStepFraction = 0.10;
// ...inside [last point at or below kIntervalLoFraction, first point at or above kIntervalHiFraction].
constexpr double kIntervalLoFraction = 0.05;
constexpr double kIntervalHiFraction = 0.50;
// Far-L2: the plateau after L2 ends at this multiple of the L2 capacity.
constexpr double kFarL2MinRatio = 1.3;
constexpr double kFarL2MaxRatio = 4.0;
// Slope allowance of the flatness test, in standard errors. More lets short noisy plateaus pass
// and also short stairs of a soft knee; 1 balanced both over seeded synthetic sweeps.
constexpr double kFlatSlackSe = 1.0;

struct Segment {
  std::size_t first = 0;  // index of the first point
  std::size_t last = 0;   // index of the last point (inclusive)
  std::size_t size() const { return last - first + 1; }
};

// A merged level before naming: a run of points [first, last] whose plateau points give the median.
struct Group {
  std::size_t first = 0;
  std::size_t last = 0;
  std::vector<std::size_t> plateau_indices;  // points the latency statistic is taken over
  double latency_cycles = 0;
};

std::string format_mb(double bytes) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(bytes >= 10e6 ? 1 : 2);
  s << bytes / 1e6 << " MB";
  return s.str();
}

std::string format_fixed(double v, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

void validate(const Curve& curve) {
  const auto& p = curve.points;
  if (p.size() < static_cast<std::size_t>(kMinPoints)) {
    throw Error("fit_hierarchy: the curve has " + std::to_string(p.size()) +
                " points; at least " + std::to_string(kMinPoints) + " are needed");
  }
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!(std::isfinite(p[i].x) && p[i].x > 0)) {
      throw Error("fit_hierarchy: point " + std::to_string(i) + " has " + curve.x_name + " " +
                  std::to_string(p[i].x) + "; it must be positive and finite");
    }
    if (!(std::isfinite(p[i].latency_cycles) && p[i].latency_cycles > 0)) {
      throw Error("fit_hierarchy: point " + std::to_string(i) + " has latency_cycles " +
                  std::to_string(p[i].latency_cycles) + "; it must be positive and finite");
    }
    if (!(std::isfinite(p[i].latency_ns) && p[i].latency_ns >= 0)) {
      throw Error("fit_hierarchy: point " + std::to_string(i) + " has latency_ns " +
                  std::to_string(p[i].latency_ns) + "; it must be finite and not negative");
    }
    if (i > 0 && !(p[i].x > p[i - 1].x)) {
      throw Error("fit_hierarchy: " + curve.x_name + " is not strictly increasing at point " +
                  std::to_string(i) + " (" + std::to_string(p[i - 1].x) + " then " +
                  std::to_string(p[i].x) + ")");
    }
  }
  if (!(curve.clock_mhz >= 0) || !std::isfinite(curve.clock_mhz)) {
    throw Error("fit_hierarchy: clock_mhz " + std::to_string(curve.clock_mhz) +
                " must be finite and not negative");
  }
}

// Robust per-point sigma of log(latency): MAD of first differences, scaled to a normal sigma and
// divided by sqrt(2) because a difference carries the noise of two points.
double estimate_noise(const Eigen::VectorXd& y) {
  std::vector<double> diffs(static_cast<std::size_t>(y.size() - 1));
  for (Eigen::Index i = 0; i + 1 < y.size(); ++i) diffs[static_cast<std::size_t>(i)] = y[i + 1] - y[i];
  const double mad = stats::mad(diffs);
  return std::isfinite(mad) ? 1.4826 * mad / std::sqrt(2.0) : 0.0;
}

// Optimal partition of y into constant segments minimising RSS + beta * segments, by dynamic
// programming over prefix sums with PELT pruning (exact: the RSS cost is superadditive).
std::vector<Segment> segment_optimal(const Eigen::VectorXd& y, double beta) {
  const Eigen::Index n = y.size();
  const Eigen::VectorXd yc = y.array() - y.mean();  // centred: keeps the prefix sums small
  Eigen::VectorXd s1 = Eigen::VectorXd::Zero(n + 1);
  Eigen::VectorXd s2 = Eigen::VectorXd::Zero(n + 1);
  for (Eigen::Index i = 0; i < n; ++i) {
    s1[i + 1] = s1[i] + yc[i];
    s2[i + 1] = s2[i] + yc[i] * yc[i];
  }
  // cost of points [a, b) around their mean
  const auto cost = [&](Eigen::Index a, Eigen::Index b) {
    const double sum = s1[b] - s1[a];
    const double c = (s2[b] - s2[a]) - sum * sum / static_cast<double>(b - a);
    return std::max(c, 0.0);
  };
  std::vector<double> best(static_cast<std::size_t>(n + 1), 0.0);
  std::vector<Eigen::Index> prev(static_cast<std::size_t>(n + 1), 0);
  best[0] = -beta;
  std::vector<Eigen::Index> candidates{0};
  std::vector<double> totals;
  for (Eigen::Index b = 1; b <= n; ++b) {
    double best_b = std::numeric_limits<double>::infinity();
    Eigen::Index arg = 0;
    totals.resize(candidates.size());
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      const Eigen::Index a = candidates[k];
      totals[k] = best[static_cast<std::size_t>(a)] + cost(a, b);
      if (totals[k] + beta < best_b) {
        best_b = totals[k] + beta;
        arg = a;
      }
    }
    best[static_cast<std::size_t>(b)] = best_b;
    prev[static_cast<std::size_t>(b)] = arg;
    // PELT: a start that is already worse than the optimum without its penalty never wins later.
    std::vector<Eigen::Index> kept;
    kept.reserve(candidates.size() + 1);
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      if (totals[k] <= best_b) kept.push_back(candidates[k]);
    }
    kept.push_back(b);
    candidates.swap(kept);
  }
  std::vector<Segment> segments;
  for (Eigen::Index b = n; b > 0;) {
    const Eigen::Index a = prev[static_cast<std::size_t>(b)];
    segments.push_back({static_cast<std::size_t>(a), static_cast<std::size_t>(b - 1)});
    b = a;
  }
  std::reverse(segments.begin(), segments.end());
  return segments;
}

// Change of log(latency) across the segment according to its least-squares line, less
// kFlatSlackSe standard errors of that change (noise sigma per point): a short noisy plateau is
// not "sloped".
double fitted_change(const Eigen::VectorXd& u, const Eigen::VectorXd& y, const Segment& s,
                     double sigma) {
  const auto m = static_cast<Eigen::Index>(s.size());
  if (m < 3) return 0.0;
  const auto first = static_cast<Eigen::Index>(s.first);
  Eigen::MatrixXd design(m, 2);
  design.col(0).setOnes();
  design.col(1) = u.segment(first, m).array() - u.segment(first, m).mean();
  const Eigen::VectorXd coef = design.colPivHouseholderQr().solve(y.segment(first, m));
  const double width = u[static_cast<Eigen::Index>(s.last)] - u[first];
  const double slope_se = sigma / design.col(1).norm();
  return std::max(0.0, (std::abs(coef[1]) - kFlatSlackSe * slope_se) * width);
}

double median_of(const std::vector<double>& values) { return stats::median(values); }

// Asymptotic p-value of the two-sample Kolmogorov-Smirnov statistic (Kolmogorov distribution with
// Stephens' small-sample correction of the effective size).
double ks_two_sample_p(std::vector<double> a, std::vector<double> b) {
  if (a.empty() || b.empty()) return 1.0;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const double na = static_cast<double>(a.size());
  const double nb = static_cast<double>(b.size());
  std::size_t i = 0, j = 0;
  double d = 0;
  while (i < a.size() && j < b.size()) {
    const double v = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= v) ++i;
    while (j < b.size() && b[j] <= v) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) / na - static_cast<double>(j) / nb));
  }
  const double ne = std::sqrt(na * nb / (na + nb));
  const double lambda = (ne + 0.12 + 0.11 / ne) * d;
  if (lambda < 1e-3) return 1.0;
  double q = 0;
  for (int k = 1; k <= 100; ++k) {
    const double term = 2.0 * ((k % 2) ? 1.0 : -1.0) * std::exp(-2.0 * k * k * lambda * lambda);
    q += term;
    if (std::abs(term) < 1e-12) break;
  }
  return std::clamp(q, 0.0, 1.0);
}

// Next cache name after `name` ("L1" -> "L2"); names that do not end in a number get "-2".
std::string next_cache_name(const std::string& name) {
  std::size_t digits = name.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
  if (digits == name.size()) return name + "-2";
  return name.substr(0, digits) + std::to_string(std::stoi(name.substr(digits)) + 1);
}

struct Capacity {
  double bytes = 0, lo_bytes = 0, hi_bytes = 0;
};

// Where the curve leaves level `from` for level `to`: crossing of 10% of the step, interpolated in
// log2(x), with the interval of the last point still at the plateau (<= 5% of the step) and the
// first point past half the step.
Capacity boundary_capacity(const Curve& curve, const Eigen::VectorXd& u, const Group& from,
                           const Group& to) {
  const auto& p = curve.points;
  const double step = to.latency_cycles - from.latency_cycles;
  const auto frac = [&](std::size_t i) { return (p[i].latency_cycles - from.latency_cycles) / step; };
  const std::size_t end = to.first;
  // First upward crossing after the plateau's last point.
  std::size_t cross = end;  // index of the first point at or above the threshold
  for (std::size_t i = from.last; i <= end; ++i) {
    if (frac(i) >= kCapacityStepFraction) {
      cross = i;
      break;
    }
  }
  Capacity c;
  if (cross == from.last || cross == 0) {
    c.bytes = p[cross].x;
  } else {
    const std::size_t a = cross - 1;
    const double fa = frac(a), fb = frac(cross);
    const double t = fb > fa ? std::clamp((kCapacityStepFraction - fa) / (fb - fa), 0.0, 1.0) : 1.0;
    const double u_cross = u[static_cast<Eigen::Index>(a)] +
                           t * (u[static_cast<Eigen::Index>(cross)] - u[static_cast<Eigen::Index>(a)]);
    c.bytes = std::exp2(u_cross);
  }
  // Interval: last point before the crossing still on the plateau...
  c.lo_bytes = p[from.first].x;
  for (std::size_t i = cross; i-- > from.first;) {
    if (frac(i) <= kIntervalLoFraction) {
      c.lo_bytes = p[i].x;
      break;
    }
  }
  // ...and first point at or after the crossing past half the step.
  c.hi_bytes = p[to.first].x;
  for (std::size_t i = cross; i <= to.last; ++i) {
    if (frac(i) >= kIntervalHiFraction) {
      c.hi_bytes = p[i].x;
      break;
    }
  }
  c.lo_bytes = std::min(c.lo_bytes, c.bytes);
  c.hi_bytes = std::max(c.hi_bytes, c.bytes);
  return c;
}

}  // namespace

HierarchyFit fit_hierarchy(const Curve& curve, const HierarchyFitOptions& options) {
  validate(curve);
  if (!(options.merge_rel_tol >= 0) || options.min_plateau_points < 1 ||
      !(options.min_plateau_octaves >= 0)) {
    throw Error("fit_hierarchy: merge_rel_tol and min_plateau_octaves must be >= 0 and "
                "min_plateau_points >= 1");
  }
  const auto& p = curve.points;
  const auto n = static_cast<Eigen::Index>(p.size());
  Eigen::VectorXd u(n), y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    u[i] = std::log2(p[static_cast<std::size_t>(i)].x);
    y[i] = std::log(p[static_cast<std::size_t>(i)].latency_cycles);
  }

  HierarchyFit fit;
  fit.noise_rel = estimate_noise(y);
  const double sigma = std::max(fit.noise_rel, kNoiseFloorRel);
  const double beta = kBicParamsPerSegment * std::log(static_cast<double>(n)) * sigma * sigma;
  const std::vector<Segment> segments = segment_optimal(y, beta);

  // Plateaus: enough points, wide enough in footprint (in a dense sweep a few points on a soft
  // knee look flat over their tiny width) and flat (the fitted line changes by less than half the
  // merge tolerance or three sigmas across the segment, beyond one standard error). Other
  // segments are transitions.
  const double flat_limit = std::max(0.5 * std::log1p(options.merge_rel_tol), 3.0 * sigma);
  // Fragments (segments too short to be plateaus) that follow each other inside one band of
  // merge_rel_tol become one candidate: a short, wobbly plateau (a far L2 seen by a coarse sweep)
  // is cut into fragments when the curve's noise is estimated from its flattest parts. Full
  // segments are left as they are, so a knee's points are never pulled into a real plateau.
  const auto min_points = static_cast<std::size_t>(options.min_plateau_points);
  const double band = std::log1p(options.merge_rel_tol);
  std::vector<Segment> candidates;
  double run_lo = 0, run_hi = 0;
  bool in_run = false;
  for (const Segment& s : segments) {
    double lo = y[static_cast<Eigen::Index>(s.first)], hi = lo;
    for (std::size_t i = s.first; i <= s.last; ++i) {
      lo = std::min(lo, y[static_cast<Eigen::Index>(i)]);
      hi = std::max(hi, y[static_cast<Eigen::Index>(i)]);
    }
    const bool fragment = s.size() < min_points;
    if (fragment && in_run && std::max(hi, run_hi) - std::min(lo, run_lo) <= band) {
      candidates.back().last = s.last;
      run_lo = std::min(lo, run_lo);
      run_hi = std::max(hi, run_hi);
      continue;
    }
    candidates.push_back(s);
    in_run = fragment;
    run_lo = lo;
    run_hi = hi;
  }

  std::vector<Group> plateaus;
  for (Segment s : candidates) {
    // A segment that holds a plateau plus a transition point or two at its ends (the optimal
    // partition may keep them together on a noisy curve) is sloped; drop the end farther from
    // the segment's median while that keeps enough points. A true ramp stays sloped.
    while (s.size() > min_points && fitted_change(u, y, s, sigma) > flat_limit) {
      std::vector<double> v;
      for (std::size_t i = s.first; i <= s.last; ++i) v.push_back(y[static_cast<Eigen::Index>(i)]);
      const double mid = median_of(v);
      if (std::abs(y[static_cast<Eigen::Index>(s.first)] - mid) >
          std::abs(y[static_cast<Eigen::Index>(s.last)] - mid)) {
        ++s.first;
      } else {
        --s.last;
      }
    }
    // Two points may stand for a level on a clean curve (3 sigma within a quarter of the merge
    // band) when they agree within that quarter band and lie a quarter octave or more apart: a
    // coarse sweep's view of a short plateau (a far L2 at 2-3 points per octave). Two points of
    // a knee are neither that flat nor, in a dense sweep, that far apart.
    const bool flat_pair =
        s.size() == 2 && min_points > 2 && 3.0 * sigma <= 0.25 * band &&
        std::abs(y[static_cast<Eigen::Index>(s.last)] - y[static_cast<Eigen::Index>(s.first)]) <=
            0.25 * band &&
        u[static_cast<Eigen::Index>(s.last)] - u[static_cast<Eigen::Index>(s.first)] >= 0.25 - 1e-9;
    if (s.size() < min_points && !flat_pair) continue;
    if (u[static_cast<Eigen::Index>(s.last)] - u[static_cast<Eigen::Index>(s.first)] <
        options.min_plateau_octaves - 1e-9) {
      continue;
    }
    if (fitted_change(u, y, s, sigma) > flat_limit) continue;
    Group g;
    g.first = s.first;
    g.last = s.last;
    for (std::size_t i = s.first; i <= s.last; ++i) g.plateau_indices.push_back(i);
    plateaus.push_back(std::move(g));
  }

  const auto group_median = [&](const Group& g) {
    std::vector<double> v;
    v.reserve(g.plateau_indices.size());
    for (std::size_t i : g.plateau_indices) v.push_back(p[i].latency_cycles);
    return median_of(v);
  };
  for (Group& g : plateaus) g.latency_cycles = group_median(g);

  // Merge neighbours within merge_rel_tol when every point between them lies in the same band
  // (a level that creeps, or is split by a noisy point, stays one level).
  const double log_tol = std::log1p(options.merge_rel_tol);
  std::vector<Group> levels;
  for (Group& g : plateaus) {
    if (!levels.empty()) {
      Group& cur = levels.back();
      const double lo = std::log(std::min(cur.latency_cycles, g.latency_cycles)) - log_tol;
      const double hi = std::log(std::max(cur.latency_cycles, g.latency_cycles)) + log_tol;
      bool mergeable = std::abs(std::log(g.latency_cycles / cur.latency_cycles)) <= log_tol;
      for (std::size_t i = cur.last + 1; mergeable && i < g.first; ++i) {
        mergeable = y[static_cast<Eigen::Index>(i)] >= lo && y[static_cast<Eigen::Index>(i)] <= hi;
      }
      if (mergeable) {
        for (std::size_t i = cur.last + 1; i < g.first; ++i) cur.plateau_indices.push_back(i);
        cur.plateau_indices.insert(cur.plateau_indices.end(), g.plateau_indices.begin(),
                                   g.plateau_indices.end());
        cur.last = g.last;
        cur.latency_cycles = group_median(cur);
        continue;
      }
    }
    levels.push_back(std::move(g));
  }

  // The end of the sweep. A coarse sweep may leave its last level (main memory, typically) fewer
  // points than a plateau needs: if the curve ends clearly above the last plateau on a flat final
  // segment of two or more points, that segment is a level of its own (its confidence shows how
  // little it rests on). If it ends mid-rise, the sweep stopped before the next level began, and
  // the last plateau must not be named as memory.
  bool ended_in_rise = false;
  if (!levels.empty() && !segments.empty()) {
    const Segment& tail = segments.back();
    const Group& last = levels.back();
    const double band_top = std::log(last.latency_cycles) + log_tol;
    if (tail.first > last.last && y[n - 1] > band_top) {
      bool above = true;
      for (std::size_t i = tail.first; i <= tail.last; ++i)
        above = above && y[static_cast<Eigen::Index>(i)] > band_top;
      if (tail.size() >= 2 && above && fitted_change(u, y, tail, sigma) <= flat_limit) {
        Group g;
        g.first = tail.first;
        g.last = tail.last;
        for (std::size_t i = tail.first; i <= tail.last; ++i) g.plateau_indices.push_back(i);
        g.latency_cycles = group_median(g);
        levels.push_back(std::move(g));
      } else {
        ended_in_rise = true;
      }
    }
  }

  // Levels, capacities, latencies in ns, confidences.
  const auto values_of = [&](const Group& g) {
    std::vector<double> v;
    for (std::size_t i : g.plateau_indices) v.push_back(p[i].latency_cycles);
    return v;
  };
  for (std::size_t k = 0; k < levels.size(); ++k) {
    const Group& g = levels[k];
    Level level;
    level.latency_cycles = g.latency_cycles;
    std::vector<double> ns;
    bool all_ns = true;
    for (std::size_t i : g.plateau_indices) {
      if (p[i].latency_ns > 0) {
        ns.push_back(p[i].latency_ns);
      } else {
        all_ns = false;
      }
    }
    if (all_ns && !ns.empty()) {
      level.latency_ns = median_of(ns);
    } else if (curve.clock_mhz > 0) {
      level.latency_ns = g.latency_cycles / curve.clock_mhz * 1000.0;
    }
    // The last level has a capacity too when the sweep ends rising past it: the boundary
    // towards the final point (a lower bound of the next level's latency).
    Group final_point;
    if (k + 1 == levels.size() && ended_in_rise) {
      final_point.first = final_point.last = p.size() - 1;
      final_point.plateau_indices = {p.size() - 1};
      final_point.latency_cycles = p.back().latency_cycles;
    }
    const Group* next = k + 1 < levels.size() ? &levels[k + 1]
                        : ended_in_rise       ? &final_point
                                              : nullptr;
    if (next != nullptr) {
      const Capacity c = boundary_capacity(curve, u, g, *next);
      level.capacity_bytes = c.bytes;
      level.capacity_lo_bytes = c.lo_bytes;
      level.capacity_hi_bytes = c.hi_bytes;
    }
    double confidence = 1.0;
    if (k > 0) confidence *= 1.0 - ks_two_sample_p(values_of(g), values_of(levels[k - 1]));
    if (k + 1 < levels.size()) confidence *= 1.0 - ks_two_sample_p(values_of(g), values_of(levels[k + 1]));
    if (levels.size() == 1) confidence = 0.0;  // nothing to tell the level apart from
    level.confidence = confidence;
    level.plateau_first_x = p[g.first].x;
    level.plateau_last_x = p[g.last].x;
    level.points = static_cast<int>(g.plateau_indices.size());
    fit.levels.push_back(std::move(level));
  }

  // Names.
  const bool has_memory = options.last_is_memory && fit.levels.size() >= 2 && !ended_in_rise;
  fit.ended_in_rise = ended_in_rise;
  const std::size_t caches = has_memory ? fit.levels.size() - 1 : fit.levels.size();
  std::string name = options.first_level;
  std::size_t l2 = fit.levels.size();  // index of the L2 level, if any
  for (std::size_t k = 0; k < caches; ++k) {
    if (k > 0) name = next_cache_name(name);
    fit.levels[k].name = name;
    if (name == "L2") l2 = k;
  }
  if (has_memory) fit.levels.back().name = "DRAM";

  // Far L2: the plateau right after L2, before memory, ending at 1.3-4x the L2 capacity.
  if (l2 >= fit.levels.size()) {
    fit.far_l2.reason = "no L2 plateau in the curve";
  } else if (l2 + 1 >= caches) {
    fit.far_l2.reason =
        fit.levels[l2].capacity_bytes > 0
            ? "no plateau between L2 (" + format_mb(fit.levels[l2].capacity_bytes) + ") and " +
                  (has_memory ? "DRAM" : "the end of the sweep")
            : "the sweep ends inside L2: no far L2 can be seen";
  } else {
    Level& l2_level = fit.levels[l2];
    Level& candidate = fit.levels[l2 + 1];
    // What comes after the candidate: the next level, else the point the sweep ended rising to,
    // else nothing (a curve that ends flat on the candidate).
    const double after_cycles = l2 + 2 < fit.levels.size() ? fit.levels[l2 + 2].latency_cycles
                                : ended_in_rise ? p.back().latency_cycles
                                                : std::numeric_limits<double>::infinity();
    const double ratio = candidate.capacity_bytes > 0
                             ? candidate.capacity_bytes / l2_level.capacity_bytes
                             : std::numeric_limits<double>::infinity();
    const bool between = candidate.latency_cycles > l2_level.latency_cycles &&
                         candidate.latency_cycles < after_cycles;
    const std::string what = "plateau at " + format_fixed(candidate.latency_cycles, 1) +
                             " cycles ending at " + format_mb(candidate.capacity_bytes) + " = " +
                             format_fixed(ratio, 2) + "x the L2 capacity (" +
                             format_mb(l2_level.capacity_bytes) + ")";
    if (!between) {
      fit.far_l2.reason = what + ", but its latency is not between L2 and the next level";
    } else if (ratio < kFarL2MinRatio || ratio > kFarL2MaxRatio) {
      fit.far_l2.reason = what + ", outside 1.3-4x: another cache level";
    } else {
      fit.far_l2.detected = true;
      fit.far_l2.reason = what + ": the far L2 partition";
      candidate.name = "L2-far";
      // Caches after the far L2 continue from L3.
      std::string next = "L2";
      for (std::size_t k = l2 + 2; k < caches; ++k) {
        next = next_cache_name(next);
        fit.levels[k].name = next;
      }
    }
  }
  return fit;
}

}  // namespace gpuprobe::analysis
