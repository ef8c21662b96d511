// fit_hierarchy(): piecewise-constant segmentation of log(latency) over log2(footprint).
// See docs/ANALYSIS.md for the method and the reasons behind each threshold.
#include "analysis/hierarchy_fit.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
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
// Far L2: the plateau right after the near L2 ends at the whole L2, twice the near partition on
// every split-L2 GPU; the window is half an octave wide around 2 (soft knees move both ends).
constexpr double kFarL2MinRatio = 1.4;
constexpr double kFarL2MaxRatio = 2.8;
// A new cache level ends at this multiple of the capacity of the level before it, or more (the
// smallest real ratio is 16x, L2 -> Infinity Cache on RDNA; L1 -> L2 is 24x or more).
constexpr double kNewCacheMinRatio = 4.0;
// A plateau's band: +- max(ln(1 + merge_rel_tol), kBandSigmas x noise) around its median.
constexpr double kBandSigmas = 3.0;
// Runs: a segment joins the run next to it when the step between them is at most kJoinMaxT
// standard errors, the scatter taken as at least merge_rel_tol / kJoinToleranceSigmas.
constexpr double kJoinMaxT = 3.0;
constexpr double kJoinToleranceSigmas = 3.0;
// The stable part of a plateau: its ends are trimmed while farther than this many robust
// spreads from the median.
constexpr double kStableSigmas = 3.0;
// Spreads below this are print resolution (0.1 cycle on ~100-600 cycles), not noise.
constexpr double kSpreadFloorRel = 0.001;
// Confidence: spread_score = exp(-(spread / (kSpreadStepFraction x step))^2).
constexpr double kSpreadStepFraction = 0.25;
// Resampling: each resampled fit drops a point with probability 1/kResampleDropOneIn.
constexpr std::uint64_t kResampleDropOneIn = 4;
constexpr std::uint64_t kResampleSeed = 0x6770757072;  // fixed: the confidence is reproducible
// A resampled level matches when its capacity interval, widened by this many octaves, holds the
// full fit's capacity.
constexpr double kResampleCapacityOctaves = 0.25;
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
  std::vector<std::size_t> plateau_indices;  // points of the level (glitches left out)
  std::vector<std::size_t> stable;           // its stable part: the latency's median
  double latency_cycles = 0;
  double spread_rel = 0;
};

// Sizes in reasons use the binary units of every other size the tool prints (MiB = 2^20 bytes).
std::string format_mib(double bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(bytes >= 10 * kMiB ? 1 : 2);
  s << bytes / kMiB << " MiB";
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
  const double mean = y.mean();  // centred: keeps the prefix sums small
  std::vector<double> s1(static_cast<std::size_t>(n + 1), 0.0), s2(s1.size(), 0.0);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double v = y[i] - mean;
    s1[static_cast<std::size_t>(i + 1)] = s1[static_cast<std::size_t>(i)] + v;
    s2[static_cast<std::size_t>(i + 1)] = s2[static_cast<std::size_t>(i)] + v * v;
  }
  std::vector<double> best(static_cast<std::size_t>(n + 1), 0.0);
  std::vector<Eigen::Index> prev(static_cast<std::size_t>(n + 1), 0);
  best[0] = -beta;
  std::vector<std::size_t> candidates{0}, kept;
  std::vector<double> totals;
  for (std::size_t b = 1; b <= static_cast<std::size_t>(n); ++b) {
    double best_b = std::numeric_limits<double>::infinity();
    std::size_t arg = 0;
    totals.resize(candidates.size());
    const double s1b = s1[b], s2b = s2[b];
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      const std::size_t a = candidates[k];
      // cost of points [a, b) around their mean
      const double sum = s1b - s1[a];
      const double c = std::max((s2b - s2[a]) - sum * sum / static_cast<double>(b - a), 0.0);
      totals[k] = best[a] + c;
      if (totals[k] + beta < best_b) {
        best_b = totals[k] + beta;
        arg = a;
      }
    }
    best[b] = best_b;
    prev[b] = static_cast<Eigen::Index>(arg);
    // PELT: a start that is already worse than the optimum without its penalty never wins later.
    kept.clear();
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

// Where the curve leaves level `from` for level `to`: crossing of 10% of the step (or of the
// highest point of the plateau's stable part, if a noisy plateau reaches higher), interpolated in
// log2(x), with the interval of the last point still at the plateau (<= 5% of the step, or that
// highest point) and the first point past half the step.
Capacity boundary_capacity(const Curve& curve, const Eigen::VectorXd& u, const Group& from,
                           const Group& to) {
  const auto& p = curve.points;
  const double step = to.latency_cycles - from.latency_cycles;
  const auto frac = [&](std::size_t i) { return (p[i].latency_cycles - from.latency_cycles) / step; };
  double top = 0;  // the stable part's highest point, as a fraction of the step
  for (std::size_t i : from.stable) top = std::max(top, frac(i));
  const double threshold = std::max(kCapacityStepFraction, std::nextafter(top, 2.0));
  const double lo_threshold = std::max(kIntervalLoFraction, top);
  const std::size_t end = to.first;
  // First upward crossing after the plateau's last point below the threshold (a plateau's band
  // may hold the first points of a soft knee when the step is small).
  std::size_t start = from.first;
  for (std::size_t i = from.last + 1; i-- > from.first;) {
    if (frac(i) < threshold) {
      start = i;
      break;
    }
  }
  std::size_t cross = end;  // index of the first point at or above the threshold
  for (std::size_t i = start; i <= end; ++i) {
    if (frac(i) >= threshold) {
      cross = i;
      break;
    }
  }
  Capacity c;
  if (cross == start || cross == 0) {
    c.bytes = p[cross].x;
  } else {
    const std::size_t a = cross - 1;
    const double fa = frac(a), fb = frac(cross);
    const double t = fb > fa ? std::clamp((threshold - fa) / (fb - fa), 0.0, 1.0) : 1.0;
    const double u_cross = u[static_cast<Eigen::Index>(a)] +
                           t * (u[static_cast<Eigen::Index>(cross)] - u[static_cast<Eigen::Index>(a)]);
    c.bytes = std::exp2(u_cross);
  }
  // Interval: last point before the crossing still on the plateau...
  c.lo_bytes = p[from.first].x;
  for (std::size_t i = cross; i-- > from.first;) {
    if (frac(i) <= lo_threshold) {
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

double median_of(const std::vector<double>& values) { return stats::median(values); }

// Change of log(latency) across the points `idx` according to their least-squares line, less
// kFlatSlackSe standard errors of that change (per-point noise: sigma, or the points' scatter
// around the line if larger): a short noisy plateau is not "sloped".
double fitted_change(const Eigen::VectorXd& u, const Eigen::VectorXd& y,
                     const std::vector<std::size_t>& idx, double sigma) {
  const auto m = static_cast<Eigen::Index>(idx.size());
  if (m < 3) return 0.0;
  Eigen::MatrixXd design(m, 2);
  Eigen::VectorXd rhs(m);
  for (Eigen::Index r = 0; r < m; ++r) {
    design(r, 0) = 1.0;
    design(r, 1) = u[static_cast<Eigen::Index>(idx[static_cast<std::size_t>(r)])];
    rhs[r] = y[static_cast<Eigen::Index>(idx[static_cast<std::size_t>(r)])];
  }
  design.col(1).array() -= design.col(1).mean();
  const Eigen::VectorXd coef = design.colPivHouseholderQr().solve(rhs);
  const double width = u[static_cast<Eigen::Index>(idx.back())] - u[static_cast<Eigen::Index>(idx.front())];
  // The points' own scatter around the line, if larger than the curve's noise: a wobbling
  // plateau (A100's far L2, +-3%) is flat within its own noise; a ramp has little scatter.
  const double scatter =
      m > 2 ? std::sqrt((rhs - design * coef).squaredNorm() / static_cast<double>(m - 2)) : 0.0;
  const double slope_se = std::max(sigma, scatter) / design.col(1).norm();
  return std::max(0.0, (std::abs(coef[1]) - kFlatSlackSe * slope_se) * width);
}

double median_y(const Eigen::VectorXd& y, const std::vector<std::size_t>& idx) {
  std::vector<double> v;
  v.reserve(idx.size());
  for (std::size_t i : idx) v.push_back(y[static_cast<Eigen::Index>(i)]);
  return median_of(v);
}

// Highest minus lowest y of the points `idx`.
double range_of(const Eigen::VectorXd& y, const std::vector<std::size_t>& idx) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t i : idx) {
    lo = std::min(lo, y[static_cast<Eigen::Index>(i)]);
    hi = std::max(hi, y[static_cast<Eigen::Index>(i)]);
  }
  return hi - lo;
}

// The stable part of a level: the longest unbroken stretch of its points within kStableSigmas
// robust spreads (at least the curve's noise) of its median, i.e. without the shoulders, knee
// points and creep at its ends; the level's latency is the median of the stable part.
void settle(Group& g, const std::vector<CurvePoint>& p, const Eigen::VectorXd& y, double sigma) {
  const std::vector<std::size_t>& all = g.plateau_indices;
  const double m = median_y(y, all);
  std::vector<double> dev;
  dev.reserve(all.size());
  for (std::size_t i : all) dev.push_back(std::abs(y[static_cast<Eigen::Index>(i)] - m));
  const double spread = std::max(1.4826 * median_of(dev), kSpreadFloorRel);
  const double limit = kStableSigmas * std::max(spread, sigma);
  std::size_t best_begin = 0, best_size = 0;
  for (std::size_t a = 0; a < all.size();) {
    if (dev[a] > limit) {
      ++a;
      continue;
    }
    std::size_t b = a;
    while (b < all.size() && dev[b] <= limit) ++b;
    if (b - a > best_size) {
      best_begin = a;
      best_size = b - a;
    }
    a = b;
  }
  if (best_size == 0) {  // cannot happen (the median's neighbours are within any limit >= 0)
    best_begin = 0;
    best_size = all.size();
  }
  g.stable.assign(all.begin() + static_cast<std::ptrdiff_t>(best_begin),
                  all.begin() + static_cast<std::ptrdiff_t>(best_begin + best_size));
  std::vector<double> v, dv;
  for (std::size_t i : g.stable) v.push_back(p[i].latency_cycles);
  g.latency_cycles = median_of(v);
  const double ms = std::log(g.latency_cycles);
  for (std::size_t i : g.stable) dv.push_back(std::abs(y[static_cast<Eigen::Index>(i)] - ms));
  g.spread_rel = std::max(1.4826 * median_of(dv), kSpreadFloorRel);
}

std::vector<std::size_t> concat(std::vector<std::size_t> a, const Segment& s) {
  for (std::size_t i = s.first; i <= s.last; ++i) a.push_back(i);
  return a;
}

// Plain names in order: first_level, then caches counting up, the last "DRAM" if memory.
std::vector<std::string> plain_names(std::size_t count, bool has_memory, const std::string& first) {
  std::vector<std::string> names;
  std::string name = first;
  for (std::size_t k = 0; k < count; ++k) {
    if (k > 0) name = next_cache_name(name);
    names.push_back(name);
  }
  if (has_memory && count > 0) names.back() = "DRAM";
  return names;
}

std::string ratio_range(double lo, double hi) {
  return format_fixed(lo, 1) + "-" + format_fixed(hi, 1) + "x";
}

// One fit without confidences: segmentation, plateaus, GPU rules, capacities, names.
struct CoreFit {
  std::vector<Group> levels;
  std::vector<Capacity> capacities;  // per level; bytes 0 where none
  std::vector<std::string> names;
  std::vector<RejectedCandidate> rejected;
  FarL2 far_l2;
  bool ended_in_rise = false;
  double noise_rel = 0;
  double sigma = 0;
  double band = 0;
};

RejectedCandidate rejected_from(const Curve& curve, const Group& g, std::string rule,
                                std::string reason, double capacity = 0, double ratio = 0) {
  RejectedCandidate r;
  r.latency_cycles = g.latency_cycles;
  r.plateau_first_x = curve.points[g.first].x;
  r.plateau_last_x = curve.points[g.last].x;
  r.points = static_cast<int>(g.stable.size());
  r.capacity_bytes = capacity;
  r.capacity_ratio = ratio;
  r.rule = std::move(rule);
  r.reason = std::move(reason);
  return r;
}

CoreFit fit_core(const Curve& curve, const HierarchyFitOptions& options) {
  const auto& p = curve.points;
  const auto n = static_cast<Eigen::Index>(p.size());
  Eigen::VectorXd u(n), y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    u[i] = std::log2(p[static_cast<std::size_t>(i)].x);
    y[i] = std::log(p[static_cast<std::size_t>(i)].latency_cycles);
  }
  CoreFit fit;
  fit.noise_rel = estimate_noise(y);
  const double sigma = std::max(fit.noise_rel, kNoiseFloorRel);
  fit.sigma = sigma;
  const double beta = kBicParamsPerSegment * std::log(static_cast<double>(n)) * sigma * sigma;
  const std::vector<Segment> segments = segment_optimal(y, beta);
  const double log_tol = std::log1p(options.merge_rel_tol);
  const double band = std::max(log_tol, kBandSigmas * sigma);
  fit.band = band;

  // Runs: neighbouring segments with no significant step between them and all their points within
  // a range of 2 x band are one candidate (a level that wobbles, like A100's far L2, is cut into
  // pieces by a noise estimate taken from the curve's flattest parts; a staircase of shoulders,
  // 507 -> 545 cycles on A100's rise to DRAM, is a significant step). Runs grow from the largest
  // segments outwards, so that a knee point never seeds the run of the plateau next to it. One
  // point between the run and a segment that joins it, that would not join itself, is a glitch:
  // left out.
  struct Run {
    std::size_t lo = 0, hi = 0;    // segments [lo, hi]
    std::vector<std::size_t> idx;  // their points, without glitches
  };
  const auto joins = [&](const std::vector<std::size_t>& run, const Segment& s) {
    if (range_of(y, concat(run, s)) > 2.0 * band) return false;
    // No step between the run and the segment: Welch-free two-sample t on log latency with the
    // pooled scatter, at least a third of the merge tolerance (the variation one level shows).
    double sum_r = 0, sq_r = 0, sum_s = 0, sq_s = 0;
    for (std::size_t i : run) {
      sum_r += y[static_cast<Eigen::Index>(i)];
      sq_r += y[static_cast<Eigen::Index>(i)] * y[static_cast<Eigen::Index>(i)];
    }
    for (std::size_t i = s.first; i <= s.last; ++i) {
      sum_s += y[static_cast<Eigen::Index>(i)];
      sq_s += y[static_cast<Eigen::Index>(i)] * y[static_cast<Eigen::Index>(i)];
    }
    const double nr = static_cast<double>(run.size()), ns = static_cast<double>(s.size());
    const double ss = std::max(0.0, sq_r - sum_r * sum_r / nr) + std::max(0.0, sq_s - sum_s * sum_s / ns);
    const double pooled = nr + ns > 2 ? std::sqrt(ss / (nr + ns - 2)) : 0.0;
    const double scale = std::max({pooled, sigma, log_tol / kJoinToleranceSigmas});
    const double t = std::abs(sum_s / ns - sum_r / nr) / (scale * std::sqrt(1 / nr + 1 / ns));
    return t <= kJoinMaxT;
  };
  const std::size_t n_segments = segments.size();
  std::vector<std::size_t> order(n_segments);
  for (std::size_t k = 0; k < n_segments; ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return segments[a].size() > segments[b].size();
  });
  std::vector<bool> taken(n_segments, false);
  std::vector<Run> runs;
  for (std::size_t seed : order) {
    if (taken[seed]) continue;
    Run r{seed, seed, concat({}, segments[seed])};
    taken[seed] = true;
    for (;;) {
      const double m = median_y(y, r.idx);
      // Neighbours that join; the one closer to the run's median first.
      int best = 0;  // -1 left, +1 right
      double best_distance = std::numeric_limits<double>::infinity();
      for (int side : {-1, 1}) {
        if (side < 0 ? r.lo == 0 : r.hi + 1 >= n_segments) continue;
        const std::size_t k = side < 0 ? r.lo - 1 : r.hi + 1;
        if (taken[k] || !joins(r.idx, segments[k])) continue;
        const double d = std::abs(median_y(y, concat({}, segments[k])) - m);
        if (d < best_distance) {
          best_distance = d;
          best = side;
        }
      }
      if (best != 0) {
        const std::size_t k = best < 0 ? --r.lo : ++r.hi;
        taken[k] = true;
        r.idx = concat(r.idx, segments[k]);
        std::sort(r.idx.begin(), r.idx.end());
        continue;
      }
      // A glitch: a single point, then a segment that joins.
      bool glitch = false;
      for (int side : {-1, 1}) {
        if (glitch || r.idx.size() < 2) break;
        if (side < 0 ? r.lo < 2 : r.hi + 2 >= n_segments) continue;
        const std::size_t g = side < 0 ? r.lo - 1 : r.hi + 1;
        const std::size_t k = side < 0 ? r.lo - 2 : r.hi + 2;
        if (taken[g] || taken[k] || segments[g].size() != 1 || !joins(r.idx, segments[k])) continue;
        taken[g] = taken[k] = true;
        if (side < 0) {
          r.lo = k;
        } else {
          r.hi = k;
        }
        r.idx = concat(r.idx, segments[k]);
        std::sort(r.idx.begin(), r.idx.end());
        glitch = true;
      }
      if (!glitch) break;
    }
    runs.push_back(std::move(r));
  }
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.lo < b.lo; });

  // Plateaus: enough points, wide enough in footprint (in a dense sweep a few points on a soft
  // knee look flat over their tiny width) and flat (the fitted line changes by less than half the
  // merge tolerance or three sigmas across the run, beyond one standard error). Other runs are
  // transitions.
  const double flat_limit = std::max(0.5 * log_tol, 3.0 * sigma);
  const auto min_points = static_cast<std::size_t>(options.min_plateau_points);
  std::vector<Group> plateaus;
  for (Run& r : runs) {
    std::vector<std::size_t>& idx = r.idx;
    // A run that holds a plateau plus a transition point or two at its ends is sloped; drop the
    // end farther from the run's median while that keeps enough points. A true ramp stays sloped.
    while (idx.size() > min_points && fitted_change(u, y, idx, sigma) > flat_limit) {
      const double mid = median_y(y, idx);
      if (std::abs(y[static_cast<Eigen::Index>(idx.front())] - mid) >
          std::abs(y[static_cast<Eigen::Index>(idx.back())] - mid)) {
        idx.erase(idx.begin());
      } else {
        idx.pop_back();
      }
    }
    const double width = u[static_cast<Eigen::Index>(idx.back())] - u[static_cast<Eigen::Index>(idx.front())];
    // Two points may stand for a level when they agree within a quarter of the merge band (or
    // within the difference two points of the curve's noise show, 2 sqrt(2) sigma) and lie a
    // quarter octave or more apart: a coarse sweep's view of a short plateau (a far L2 at 2-3
    // points per octave). Two points of a knee are neither that flat nor, in a dense sweep, that
    // far apart; the GPU rules and the resampled stability judge the rest.
    const bool flat_pair =
        idx.size() == 2 && min_points > 2 &&
        std::abs(y[static_cast<Eigen::Index>(idx.back())] - y[static_cast<Eigen::Index>(idx.front())]) <=
            std::max(0.25 * log_tol, 2.0 * std::sqrt(2.0) * sigma) &&
        width >= 0.25 - 1e-9;
    if (idx.size() < min_points && !flat_pair) continue;
    if (width < options.min_plateau_octaves - 1e-9) continue;
    if (fitted_change(u, y, idx, sigma) > flat_limit) continue;
    Group g;
    g.first = idx.front();
    g.last = idx.back();
    g.plateau_indices = idx;
    settle(g, p, y, sigma);
    plateaus.push_back(std::move(g));
  }

  // Merge neighbours when all the plateaus merged into one level lie within merge_rel_tol of each
  // other and every point between them lies in the same band (a level that creeps, or is split
  // by a noisy point, stays one level; a staircase of shoulders does not become one).
  std::vector<Group> levels;
  std::vector<std::pair<double, double>> merged_range;  // lowest and highest plateau merged
  for (Group& g : plateaus) {
    if (!levels.empty()) {
      Group& cur = levels.back();
      const double lowest = std::min(merged_range.back().first, g.latency_cycles);
      const double highest = std::max(merged_range.back().second, g.latency_cycles);
      const double lo = std::log(std::min(cur.latency_cycles, g.latency_cycles)) - log_tol;
      const double hi = std::log(std::max(cur.latency_cycles, g.latency_cycles)) + log_tol;
      bool mergeable = std::log(highest / lowest) <= log_tol;
      for (std::size_t i = cur.last + 1; mergeable && i < g.first; ++i) {
        mergeable = y[static_cast<Eigen::Index>(i)] >= lo && y[static_cast<Eigen::Index>(i)] <= hi;
      }
      if (mergeable) {
        for (std::size_t i = cur.last + 1; i < g.first; ++i) cur.plateau_indices.push_back(i);
        cur.plateau_indices.insert(cur.plateau_indices.end(), g.plateau_indices.begin(),
                                   g.plateau_indices.end());
        cur.last = g.last;
        settle(cur, p, y, sigma);
        merged_range.back() = {lowest, highest};
        continue;
      }
    }
    merged_range.emplace_back(g.latency_cycles, g.latency_cycles);
    levels.push_back(std::move(g));
  }

  // The end of the sweep. A coarse sweep may leave its last level (main memory, typically) fewer
  // points than a plateau needs: if the curve ends clearly above the last plateau on a flat final
  // run of two or more points, that run is a level of its own (its confidence shows how little it
  // rests on). If it ends mid-rise, the sweep stopped before the next level began, and the last
  // plateau must not be named as memory.
  if (!levels.empty() && !runs.empty()) {
    const Run& tail = runs.back();
    const Group& last = levels.back();
    // Clearly above: beyond the merge band by two noise sigmas (a noisy last point is no rise).
    const double band_top = std::log(last.latency_cycles) + log_tol + 2.0 * sigma;
    if (tail.idx.front() > last.last && y[n - 1] > band_top) {
      const bool above = std::all_of(tail.idx.begin(), tail.idx.end(), [&](std::size_t i) {
        return y[static_cast<Eigen::Index>(i)] > band_top;
      });
      if (tail.idx.size() >= 2 && above && fitted_change(u, y, tail.idx, sigma) <= flat_limit) {
        Group g;
        g.first = tail.idx.front();
        g.last = tail.idx.back();
        g.plateau_indices = tail.idx;
        settle(g, p, y, sigma);
        levels.push_back(std::move(g));
      } else {
        fit.ended_in_rise = true;
      }
    }
  }
  const bool ended_in_rise = fit.ended_in_rise;
  fit.capacities.clear();

  // Capacities: each level's boundary towards the next; the last level's towards the final point
  // when the sweep ends rising past it (a lower bound of the next level's latency).
  const auto compute_capacities = [&] {
    std::vector<Capacity> caps(levels.size());
    for (std::size_t k = 0; k + 1 < levels.size(); ++k)
      caps[k] = boundary_capacity(curve, u, levels[k], levels[k + 1]);
    if (ended_in_rise && !levels.empty()) {
      Group final_point;
      final_point.first = final_point.last = p.size() - 1;
      final_point.plateau_indices = {p.size() - 1};
      final_point.latency_cycles = p.back().latency_cycles;
      caps.back() = boundary_capacity(curve, u, levels.back(), final_point);
    }
    return caps;
  };
  const auto memory_follows = [&] {
    return options.last_is_memory && levels.size() >= 2 && !ended_in_rise;
  };

  // GPU rules: a candidate that contradicts one is a transition, reported in `rejected`.
  if (options.gpu_rules) {
    for (bool changed = true; changed;) {
      changed = false;
      // Latencies rise level by level: of two levels less than the merge tolerance apart (not
      // merged: something lies between them), the one whose points spread more (the wandering
      // shoulder), else the one with fewer points, is a shoulder of the other.
      for (std::size_t k = 1; k < levels.size() && !changed; ++k) {
        const Group& a = levels[k - 1];
        const Group& b = levels[k];
        if (std::log(b.latency_cycles / a.latency_cycles) > log_tol) continue;
        const bool b_worse = b.spread_rel != a.spread_rel ? b.spread_rel > a.spread_rel
                                                          : b.stable.size() < a.stable.size();
        const std::size_t victim = b_worse ? k : k - 1;
        const Group& other = victim == k ? a : b;
        fit.rejected.push_back(rejected_from(
            curve, levels[victim], "rise",
            "plateau at " + format_fixed(levels[victim].latency_cycles, 1) + " cycles is within " +
                format_fixed(100 * options.merge_rel_tol, 0) + "% of, or below, the " +
                format_fixed(other.latency_cycles, 1) + "-cycle level " +
                (victim == k ? "before" : "after") + " it: a shoulder of that level, not a level"));
        levels.erase(levels.begin() + static_cast<std::ptrdiff_t>(victim));
        changed = true;
      }
      if (changed) continue;
      // Capacities grow: the far L2 ends at about twice the near L2, a new cache level at
      // kNewCacheMinRatio times the level before it or more.
      const std::vector<Capacity> caps = compute_capacities();
      const bool memory = memory_follows();
      const std::size_t caches = memory ? levels.size() - 1 : levels.size();
      const std::vector<std::string> names = plain_names(levels.size(), memory, options.first_level);
      for (std::size_t k = 1; k < caches && !changed; ++k) {
        if (caps[k].bytes <= 0 || caps[k - 1].bytes <= 0) continue;
        const double ratio = caps[k].bytes / caps[k - 1].bytes;
        const std::string what = "plateau at " + format_fixed(levels[k].latency_cycles, 1) +
                                 " cycles ending at " + format_mib(caps[k].bytes) + " = " +
                                 format_fixed(ratio, 2) + "x the ";
        if (names[k - 1] == "L2") {
          if ((ratio >= kFarL2MinRatio && ratio <= kFarL2MaxRatio) || ratio >= kNewCacheMinRatio) continue;
          fit.rejected.push_back(rejected_from(
              curve, levels[k], "far-l2",
              what + "L2 capacity (" + format_mib(caps[k - 1].bytes) + "): neither the far L2 (" +
                  ratio_range(kFarL2MinRatio, kFarL2MaxRatio) + ") nor a new cache level (>= " +
                  format_fixed(kNewCacheMinRatio, 0) + "x)",
              caps[k].bytes, ratio));
        } else {
          const bool after_far = k >= 2 && names[k - 2] == "L2" && ratio > 0 &&
                                 caps[k - 1].bytes / caps[k - 2].bytes >= kFarL2MinRatio &&
                                 caps[k - 1].bytes / caps[k - 2].bytes <= kFarL2MaxRatio;
          if (ratio >= kNewCacheMinRatio) continue;
          fit.rejected.push_back(rejected_from(
              curve, levels[k], "growth",
              what + "capacity of the level before it (" +
                  (after_far ? std::string("L2-far") : names[k - 1]) + ", " +
                  format_mib(caps[k - 1].bytes) + "): a new cache level ends at >= " +
                  format_fixed(kNewCacheMinRatio, 0) + "x, so this is a shoulder of the rise",
              caps[k].bytes, ratio));
        }
        levels.erase(levels.begin() + static_cast<std::ptrdiff_t>(k));
        changed = true;
      }
    }
  }
  fit.capacities = compute_capacities();

  // Names, and the far L2: the plateau right after L2, before memory, ending at about twice the
  // L2 capacity.
  const bool has_memory = memory_follows();
  const std::size_t caches = has_memory ? levels.size() - 1 : levels.size();
  fit.names = plain_names(levels.size(), has_memory, options.first_level);
  std::size_t l2 = levels.size();
  for (std::size_t k = 0; k < caches; ++k)
    if (fit.names[k] == "L2") l2 = k;
  std::string rejected_note;
  for (const auto& r : fit.rejected)
    if (r.rule == "far-l2") rejected_note = "; rejected: " + r.reason;
  const auto& caps = fit.capacities;
  if (l2 >= levels.size()) {
    fit.far_l2.reason = "no L2 plateau in the curve";
  } else if (l2 + 1 >= caches) {
    fit.far_l2.reason =
        caps[l2].bytes > 0
            ? "no plateau between L2 (" + format_mib(caps[l2].bytes) + ") and " +
                  (has_memory ? "DRAM" : "the end of the sweep") + rejected_note
            : "the sweep ends inside L2: no far L2 can be seen";
  } else {
    const Group& candidate = levels[l2 + 1];
    const double ratio = caps[l2 + 1].bytes > 0 ? caps[l2 + 1].bytes / caps[l2].bytes
                                                : std::numeric_limits<double>::infinity();
    const std::string what = "plateau at " + format_fixed(candidate.latency_cycles, 1) +
                             " cycles ending at " + format_mib(caps[l2 + 1].bytes) + " = " +
                             format_fixed(ratio, 2) + "x the L2 capacity (" +
                             format_mib(caps[l2].bytes) + ")";
    if (ratio < kFarL2MinRatio || ratio > kFarL2MaxRatio) {
      fit.far_l2.reason = what + ", outside " + ratio_range(kFarL2MinRatio, kFarL2MaxRatio) +
                          ": another cache level";
    } else {
      fit.far_l2.detected = true;
      fit.far_l2.reason = what + ": the far L2 partition";
      fit.names[l2 + 1] = "L2-far";
      // Caches after the far L2 continue from L3.
      std::string next = "L2";
      for (std::size_t k = l2 + 2; k < caches; ++k) {
        next = next_cache_name(next);
        fit.names[k] = next;
      }
    }
  }
  fit.levels = std::move(levels);
  return fit;
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Stability of each level: the fraction of `resamples` fits, each on the curve with about one
// point in kResampleDropOneIn dropped (a fixed, seeded choice), that find a level with the same
// latency (within the band), an overlapping plateau and, where both have one, a capacity interval
// that holds the full fit's capacity (within kResampleCapacityOctaves).
std::vector<double> stability(const Curve& curve, const HierarchyFitOptions& options,
                              const CoreFit& full) {
  std::vector<double> found(full.levels.size(), 0.0);
  const int resamples = options.resamples;
  if (resamples <= 0) return std::vector<double>(full.levels.size(), 1.0);
  const auto& p = curve.points;
  for (int b = 0; b < resamples; ++b) {
    Curve sub = curve;
    sub.points.clear();
    for (std::size_t i = 0; i < p.size(); ++i) {
      const std::uint64_t h = splitmix64(kResampleSeed ^ (static_cast<std::uint64_t>(b) << 32) ^ i);
      if (h % kResampleDropOneIn != 0) sub.points.push_back(p[i]);
    }
    if (sub.points.size() < static_cast<std::size_t>(kMinPoints)) continue;
    const CoreFit r = fit_core(sub, options);
    for (std::size_t k = 0; k < full.levels.size(); ++k) {
      const Group& g = full.levels[k];
      const double first_x = p[g.first].x, last_x = p[g.last].x;
      for (std::size_t j = 0; j < r.levels.size(); ++j) {
        const Group& h = r.levels[j];
        if (std::abs(std::log(h.latency_cycles / g.latency_cycles)) > full.band) continue;
        if (sub.points[h.last].x < first_x || sub.points[h.first].x > last_x) continue;
        // The boundary agrees when the full fit's capacity lies in the resampled fit's interval
        // (widened by kResampleCapacityOctaves): a dropped knee point widens the interval.
        const double c = full.capacities[k].bytes;
        const Capacity& d = r.capacities[j];
        if (c > 0 && d.bytes > 0 &&
            (c < d.lo_bytes * std::exp2(-kResampleCapacityOctaves) ||
             c > d.hi_bytes * std::exp2(kResampleCapacityOctaves)))
          continue;
        found[k] += 1.0;
        break;
      }
    }
  }
  for (double& f : found) f /= resamples;
  return found;
}

}  // namespace

HierarchyFit fit_hierarchy(const Curve& curve, const HierarchyFitOptions& options) {
  validate(curve);
  if (!(options.merge_rel_tol >= 0) || options.min_plateau_points < 1 ||
      !(options.min_plateau_octaves >= 0) || options.resamples < 0) {
    throw Error("fit_hierarchy: merge_rel_tol, min_plateau_octaves and resamples must be >= 0 "
                "and min_plateau_points >= 1");
  }
  const auto& p = curve.points;
  const CoreFit core = fit_core(curve, options);
  const std::vector<double> stable = stability(curve, options, core);

  HierarchyFit fit;
  fit.noise_rel = core.noise_rel;
  fit.ended_in_rise = core.ended_in_rise;
  fit.far_l2 = core.far_l2;
  fit.rejected = core.rejected;
  const auto& levels = core.levels;
  for (std::size_t k = 0; k < levels.size(); ++k) {
    const Group& g = levels[k];
    Level level;
    level.name = core.names[k];
    level.latency_cycles = g.latency_cycles;
    std::vector<double> ns;
    for (std::size_t i : g.stable)
      if (p[i].latency_ns > 0) ns.push_back(p[i].latency_ns);
    if (!ns.empty() && ns.size() == g.stable.size()) {
      level.latency_ns = median_of(ns);
    } else if (curve.clock_mhz > 0) {
      level.latency_ns = g.latency_cycles / curve.clock_mhz * 1000.0;
    }
    level.capacity_bytes = core.capacities[k].bytes;
    level.capacity_lo_bytes = core.capacities[k].lo_bytes;
    level.capacity_hi_bytes = core.capacities[k].hi_bytes;
    // Confidence from the data: how many points the latency rests on, how tight they are
    // against the step to the nearest level, and how often resampled fits find the level again.
    const double n_points = static_cast<double>(g.stable.size());
    double step = std::numeric_limits<double>::infinity();
    if (k > 0) step = std::min(step, std::abs(std::log(g.latency_cycles / levels[k - 1].latency_cycles)));
    if (k + 1 < levels.size())
      step = std::min(step, std::abs(std::log(levels[k + 1].latency_cycles / g.latency_cycles)));
    level.spread_rel = g.spread_rel;
    level.points_score = 1.0 - std::exp2(-(n_points - 1.0) / 2.0);
    const double z = std::isfinite(step) ? g.spread_rel / (kSpreadStepFraction * step) : 0.0;
    level.spread_score = std::exp(-z * z);
    level.stability = stable[k];
    level.confidence = levels.size() == 1 ? 0.0  // nothing to tell the level apart from
                                          : level.points_score * level.spread_score * level.stability;
    level.plateau_first_x = p[g.first].x;
    level.plateau_last_x = p[g.last].x;
    level.points = static_cast<int>(g.stable.size());
    fit.levels.push_back(std::move(level));
  }
  if (options.gpu_rules) {
    fit.rules = {
        "levels rise: each level is more than " + format_fixed(100 * options.merge_rel_tol, 0) +
            "% above the one before; a plateau that is not is a shoulder (a transition)",
        "far L2: the plateau right after L2 ends at " + ratio_range(kFarL2MinRatio, kFarL2MaxRatio) +
            " the L2 capacity (the whole L2, twice the near partition)",
        "new cache level: ends at >= " + format_fixed(kNewCacheMinRatio, 0) +
            "x the capacity of the level before it; a plateau between that is not the far L2 is a "
            "shoulder (a transition)",
    };
  }
  fit.rules.push_back("confidence: points x spread x stability over " +
                      std::to_string(options.resamples) + " resampled fits (1 point in " +
                      std::to_string(kResampleDropOneIn) + " dropped, fixed seed)");
  return fit;
}

}  // namespace gpuprobe::analysis
