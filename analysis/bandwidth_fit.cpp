#include "analysis/bandwidth_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "harness/error.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::analysis {
namespace {

constexpr double kMadToSigma = 1.4826;

double points_score(int n) { return n < 1 ? 0.0 : 1.0 - std::pow(2.0, -(n - 1) / 2.0); }

std::string fmt(double v, int precision = 3) {
  std::ostringstream s;
  s.precision(precision);
  s << v;
  return s.str();
}

void require_curve(const std::vector<double>& x, const std::vector<double>& y, std::size_t min_n,
                   const char* what, const char* x_name, const char* y_name) {
  if (x.size() < min_n) {
    throw Error(std::string(what) + ": need at least " + std::to_string(min_n) + " points, got " +
                std::to_string(x.size()));
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || !(x[i] > 0))
      throw Error(std::string(what) + ": " + x_name + " must be finite and positive, got " +
                  fmt(x[i]) + " at point " + std::to_string(i + 1));
    if (!std::isfinite(y[i]) || !(y[i] > 0))
      throw Error(std::string(what) + ": " + y_name + " must be finite and positive, got " +
                  fmt(y[i]) + " at point " + std::to_string(i + 1));
    if (i > 0 && !(x[i] > x[i - 1]))
      throw Error(std::string(what) + ": " + x_name + " must increase strictly, point " +
                  std::to_string(i + 1) + " (" + fmt(x[i]) + ") after " + fmt(x[i - 1]));
  }
}

double median_of(const std::vector<double>& v) { return stats::median(v); }

// Least-squares slope of y against x.
double ls_slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  if (x.size() < 2) return 0;
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxx > 0 ? sxy / sxx : 0;
}

// --- footprint sweep ---------------------------------------------------------------------------

struct Plateau {
  std::vector<std::size_t> members;  // indices of the stable part, increasing
  int outliers = 0;
  double y = 0;                      // median ln(bandwidth) of the members
};

double plateau_median(const Plateau& p, const std::vector<double>& y) {
  std::vector<double> v;
  for (std::size_t i : p.members) v.push_back(y[i]);
  return median_of(v);
}

double plateau_slope(const Plateau& p, const std::vector<double>& lx, const std::vector<double>& y) {
  std::vector<double> a, b;
  for (std::size_t i : p.members) {
    a.push_back(lx[i]);
    b.push_back(y[i]);
  }
  return ls_slope(a, b);
}

// Joins plateaus first..last (inclusive) into one: the members of `keep` stay members, every
// other point in the joined span counts as an outlier.
Plateau join(const std::vector<Plateau>& ps, std::size_t first, std::size_t last,
             const std::vector<bool>& keep, const std::vector<double>& y) {
  Plateau out;
  const std::size_t lo = ps[first].members.front();
  const std::size_t hi = ps[last].members.back();
  std::vector<bool> member(hi + 1, false);
  for (std::size_t k = first; k <= last; ++k)
    if (keep[k - first])
      for (std::size_t i : ps[k].members) member[i] = true;
  for (std::size_t i = lo; i <= hi; ++i) {
    if (member[i]) out.members.push_back(i);
    else ++out.outliers;
  }
  out.y = plateau_median(out, y);
  return out;
}

}  // namespace

double bin_log_x(std::vector<double>& x, std::vector<double>& y, std::size_t max_points) {
  if (x.size() <= max_points || max_points == 0) return 0;
  const double lo = std::log2(x.front());
  const double width = (std::log2(x.back()) - lo) / static_cast<double>(max_points);
  if (!(width > 0)) return 0;   // a single x: nothing to bin by
  std::vector<double> bx, by, cx, cy;
  std::size_t bin = 0;
  const auto flush = [&] {
    if (cx.empty()) return;
    bx.push_back(median_of(cx));
    by.push_back(median_of(cy));
    cx.clear();
    cy.clear();
  };
  for (std::size_t i = 0; i < x.size(); ++i) {
    const auto k = std::min(max_points - 1, static_cast<std::size_t>((std::log2(x[i]) - lo) / width));
    if (k != bin) flush();
    bin = k;
    cx.push_back(x[i]);
    cy.push_back(y[i]);
  }
  flush();
  x.swap(bx);
  y.swap(by);
  return width;
}

FootprintFit fit_footprint_sweep(const std::vector<FootprintPoint>& points,
                                 const FootprintFitOptions& o) {
  std::vector<double> x, b;
  for (const auto& p : points) {
    x.push_back(p.footprint_bytes);
    b.push_back(p.bandwidth_bytes_per_s);
  }
  require_curve(x, b, 3, "footprint sweep", "footprint_bytes", "bandwidth_bytes_per_s");
  FootprintFit fit;
  if (x.size() > kMaxFootprintFitPoints) {
    bin_log_x(x, b, kMaxFootprintFitPoints);
    fit.reasons.push_back(std::to_string(points.size()) + " points binned to " + std::to_string(x.size()) +
                          " (medians over equal widths of log2 footprint)");
  }
  if (o.min_plateau_points < 2 || o.max_excursion_points < 0 || !(o.min_band > 0) ||
      !(o.max_band >= o.min_band))
    throw Error("footprint sweep: invalid options");
  const std::size_t n = x.size();
  std::vector<double> y(n), lx(n);
  for (std::size_t i = 0; i < n; ++i) {
    y[i] = std::log(b[i]);
    lx[i] = std::log2(x[i]);
  }
  {
    std::vector<double> d;
    for (std::size_t i = 1; i < n; ++i) d.push_back(y[i] - y[i - 1]);
    fit.noise_rel = kMadToSigma * stats::mad(d) / std::sqrt(2.0);
  }
  const double band = std::clamp(3.0 * fit.noise_rel, o.min_band, o.max_band);
  fit.band_rel = band;
  fit.reasons.push_back("band: +-" + fmt(band) + " in ln(bandwidth) = clamp(3 x noise " +
                        fmt(fit.noise_rel) + ", " + fmt(o.min_band) + ", " + fmt(o.max_band) + ")");

  // 1. Candidate plateaus, left to right. A plateau starts where min_plateau_points consecutive
  //    points lie within the band of their median, and grows while each point is within the band
  //    of the median of the last three members and within band + max_slope x octaves of where it
  //    started; up to max_excursion_points consecutive points outside may be skipped as outliers
  //    if the curve comes back.
  const auto m = static_cast<std::size_t>(o.min_plateau_points);
  std::vector<Plateau> plateaus;
  std::size_t last_rejected_end = 0;
  bool any_rejected = false;
  std::size_t i = 0;
  while (i + m <= n) {
    std::vector<double> window(y.begin() + static_cast<std::ptrdiff_t>(i),
                               y.begin() + static_cast<std::ptrdiff_t>(i + m));
    const double wmed = median_of(window);
    bool flat = true;
    for (double v : window) flat = flat && std::abs(v - wmed) <= band;
    if (!flat) {
      ++i;
      continue;
    }
    Plateau p;
    for (std::size_t k = i; k < i + m; ++k) p.members.push_back(k);
    const double anchor_y = wmed;
    const double anchor_lx = lx[i + m / 2];
    const auto fits = [&](std::size_t j) {
      const std::size_t c = p.members.size();
      const double ref =
          median_of({y[p.members[c - 1]], y[p.members[c - 2]], y[p.members[c >= 3 ? c - 3 : 0]]});
      return std::abs(y[j] - ref) <= band &&
             std::abs(y[j] - anchor_y) <= band + o.max_slope_per_octave * std::abs(lx[j] - anchor_lx);
    };
    std::size_t j = i + m;
    while (j < n) {
      if (fits(j)) {
        p.members.push_back(j++);
        continue;
      }
      std::size_t back = 0;
      for (std::size_t k = 1; k <= static_cast<std::size_t>(o.max_excursion_points); ++k) {
        if (j + k < n && fits(j + k)) {
          back = j + k;
          break;
        }
      }
      if (back == 0) break;
      p.outliers += static_cast<int>(back - j);
      p.members.push_back(back);
      j = back + 1;
    }
    p.y = plateau_median(p, y);
    const double octaves = lx[p.members.back()] - lx[p.members.front()];
    const double slope = plateau_slope(p, lx, y);
    if (octaves < o.min_plateau_octaves) {
      ++i;
      continue;
    }
    if (std::abs(slope) > o.max_slope_per_octave) {
      if (!any_rejected || p.members.front() > last_rejected_end) {
        RejectedPlateau r;
        r.bandwidth_bytes_per_s = std::exp(p.y);
        r.first_bytes = x[p.members.front()];
        r.last_bytes = x[p.members.back()];
        r.points = static_cast<int>(p.members.size());
        r.rule = "slope";
        r.reason = "slope " + fmt(slope) + " ln(bandwidth)/octave over " + fmt(octaves) +
                   " octaves exceeds " + fmt(o.max_slope_per_octave) + ": a knee, not a level";
        fit.rejected.push_back(r);
        any_rejected = true;
        last_rejected_end = p.members.back();
      }
      ++i;
      continue;
    }
    plateaus.push_back(p);
    i = p.members.back() + 1;
  }

  // 2. Rules between neighbours, until none applies: a plateau below two neighbours that agree
  //    is a dip inside one level (joined); neighbours within the band are one level (joined);
  //    bandwidth rising with footprint contradicts a hierarchy (the smaller plateau is rejected).
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t k = 1; k + 1 < plateaus.size() && !changed; ++k) {
      const double a = plateaus[k - 1].y, d = plateaus[k].y, c = plateaus[k + 1].y;
      if (std::abs(a - c) <= band && d < std::min(a, c) - band) {
        fit.reasons.push_back("dip: " + fmt(std::exp(d)) + " B/s at " +
                              fmt(x[plateaus[k].members.front()]) + ".." +
                              fmt(x[plateaus[k].members.back()]) +
                              " bytes lies between two plateaus within the band: one level");
        Plateau joined = join(plateaus, k - 1, k + 1, {true, false, true}, y);
        plateaus.erase(plateaus.begin() + static_cast<std::ptrdiff_t>(k - 1),
                       plateaus.begin() + static_cast<std::ptrdiff_t>(k + 2));
        plateaus.insert(plateaus.begin() + static_cast<std::ptrdiff_t>(k - 1), joined);
        changed = true;
      }
    }
    for (std::size_t k = 0; k + 1 < plateaus.size() && !changed; ++k) {
      const double a = plateaus[k].y, c = plateaus[k + 1].y;
      if (std::abs(a - c) <= band) {
        fit.reasons.push_back("join: plateaus at " + fmt(std::exp(a)) + " and " + fmt(std::exp(c)) +
                              " B/s are within the band: one level");
        Plateau joined = join(plateaus, k, k + 1, {true, true}, y);
        plateaus[k] = joined;
        plateaus.erase(plateaus.begin() + static_cast<std::ptrdiff_t>(k + 1));
        changed = true;
      } else if (c > a + band) {
        const std::size_t drop = plateaus[k + 1].members.size() <= plateaus[k].members.size() ? k + 1 : k;
        const Plateau& p = plateaus[drop];
        RejectedPlateau r;
        r.bandwidth_bytes_per_s = std::exp(p.y);
        r.first_bytes = x[p.members.front()];
        r.last_bytes = x[p.members.back()];
        r.points = static_cast<int>(p.members.size());
        r.rule = "rise";
        r.reason = "bandwidth rises from " + fmt(std::exp(a)) + " to " + fmt(std::exp(c)) +
                   " B/s with footprint: the plateau with fewer points is dropped";
        fit.rejected.push_back(r);
        fit.reasons.push_back("rise: " + r.reason);
        plateaus.erase(plateaus.begin() + static_cast<std::ptrdiff_t>(drop));
        changed = true;
      }
    }
  }

  // 3. Levels: statistics of each plateau's stable part and where it ends.
  for (std::size_t k = 0; k < plateaus.size(); ++k) {
    const Plateau& p = plateaus[k];
    BandwidthLevel L;
    L.name = k < o.level_names.size() ? o.level_names[k] : "level " + std::to_string(k + 1);
    std::vector<double> bw, ly;
    for (std::size_t idx : p.members) {
      bw.push_back(b[idx]);
      ly.push_back(y[idx]);
    }
    L.bandwidth_bytes_per_s = median_of(bw);
    const auto ci = stats::median_ci(bw);
    L.bandwidth_lo_bytes_per_s = ci.lo;
    L.bandwidth_hi_bytes_per_s = ci.hi;
    L.plateau_first_bytes = x[p.members.front()];
    L.plateau_last_bytes = x[p.members.back()];
    L.points = static_cast<int>(p.members.size());
    L.outliers = p.outliers;
    L.spread_rel = kMadToSigma * stats::mad(ly);
    L.slope_per_octave = plateau_slope(p, lx, y);

    // Where it ends: 10% of the log step to the next level (or, past the last level, to the
    // lowest point after it when the curve falls out of the band there).
    const std::size_t after = p.members.back() + 1;
    double next_y = std::numeric_limits<double>::quiet_NaN();
    if (k + 1 < plateaus.size()) {
      next_y = plateaus[k + 1].y;
    } else if (after < n) {
      const double lowest = *std::min_element(y.begin() + static_cast<std::ptrdiff_t>(after), y.end());
      const auto below = std::count_if(y.begin() + static_cast<std::ptrdiff_t>(after), y.end(),
                                       [&](double v) { return v < p.y - band; });
      if (below >= 2) {
        next_y = lowest;
        fit.reasons.push_back("the sweep ends falling past " + L.name +
                              ": its end is taken against the lowest point after it");
      }
    }
    if (std::isnan(next_y)) {
      fit.reasons.push_back("the sweep ends on " + L.name + ": no end measured");
    } else {
      const double thr = p.y - 0.1 * (p.y - next_y);
      std::size_t q = p.members.back();
      std::size_t r = q + 1;
      while (r < n && y[r] >= thr) q = r++;
      if (r < n) {
        const double t = (y[q] - thr) / (y[q] - y[r]);
        L.end_bytes = std::exp2(lx[q] + t * (lx[r] - lx[q]));
        L.end_lo_bytes = x[q];
        L.end_hi_bytes = x[r];
      }
    }
    fit.levels.push_back(L);
  }
  for (std::size_t k = 0; k < fit.levels.size(); ++k) {
    BandwidthLevel& L = fit.levels[k];
    double step = std::log(2.0);
    if (fit.levels.size() > 1) {
      step = std::numeric_limits<double>::infinity();
      if (k > 0) step = std::min(step, std::abs(plateaus[k].y - plateaus[k - 1].y));
      if (k + 1 < plateaus.size()) step = std::min(step, std::abs(plateaus[k].y - plateaus[k + 1].y));
    }
    const double spread_score = std::exp(-std::pow(L.spread_rel / (0.25 * step), 2));
    const double inliers = static_cast<double>(L.points) / (L.points + L.outliers);
    L.confidence = points_score(L.points) * spread_score * inliers;
  }
  return fit;
}

// --- loaded latency ---------------------------------------------------------------------------

littles_law::LoadedLatency to_littles_law_ns(const LoadedLatencyFit& fit) {
  return {fit.unloaded_latency_ns, fit.queue_ns, fit.peak_bandwidth_bytes_per_s * 1e-9};
}

namespace {

struct LinearSolution {
  double unloaded = 0, queue = 0, cost = 0;
};

// Weighted least squares of latency = unloaded + queue x B / (peak - B), weights 1 / latency,
// with unloaded >= 0 and queue >= 0.
LinearSolution solve_for_peak(const std::vector<double>& bw, const std::vector<double>& lat,
                              double peak) {
  double s11 = 0, s1g = 0, sgg = 0, s1l = 0, sgl = 0;
  std::vector<double> g(bw.size());
  for (std::size_t i = 0; i < bw.size(); ++i) {
    g[i] = bw[i] / (peak - bw[i]);
    const double w = 1.0 / (lat[i] * lat[i]);
    s11 += w;
    s1g += w * g[i];
    sgg += w * g[i] * g[i];
    s1l += w * lat[i];
    sgl += w * g[i] * lat[i];
  }
  LinearSolution s;
  const double det = s11 * sgg - s1g * s1g;
  if (det > 1e-300 * s11 * sgg) {
    s.unloaded = (sgg * s1l - s1g * sgl) / det;
    s.queue = (s11 * sgl - s1g * s1l) / det;
  }
  if (!(det > 1e-300 * s11 * sgg) || s.queue < 0) {
    s.queue = 0;
    s.unloaded = s1l / s11;
  } else if (s.unloaded < 0) {
    s.unloaded = 0;
    s.queue = sgg > 0 ? std::max(0.0, sgl / sgg) : 0;
  }
  for (std::size_t i = 0; i < bw.size(); ++i) {
    const double r = (s.unloaded + s.queue * g[i] - lat[i]) / lat[i];
    s.cost += r * r;
  }
  return s;
}

}  // namespace

// With `in_flight_bytes` (one per point), the peak is chosen on the relative bandwidth residual of
// the model run forwards (littles_law::bandwidth_for), as a concurrency sweep measures bandwidth
// for given bytes in flight; without, on the relative latency residual. (unloaded, queue) come
// from the latency least squares either way.
static LoadedLatencyFit fit_loaded_latency_impl(const std::vector<LoadedLatencyPoint>& points,
                                                const std::vector<double>& in_flight_bytes) {
  std::vector<double> bw, lat;
  for (const auto& p : points) {
    bw.push_back(p.bandwidth_bytes_per_s);
    lat.push_back(p.latency_ns);
  }
  if (points.size() < 3)
    throw Error("loaded latency: need at least 3 points, got " + std::to_string(points.size()));
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!std::isfinite(bw[i]) || !(bw[i] > 0) || !std::isfinite(lat[i]) || !(lat[i] > 0))
      throw Error("loaded latency: bandwidth and latency must be finite and positive (point " +
                  std::to_string(i + 1) + ")");
  }
  const double bmax = *std::max_element(bw.begin(), bw.end());
  const double bmin = *std::min_element(bw.begin(), bw.end());
  if (!(bmax > bmin)) throw Error("loaded latency: all points have the same bandwidth");

  // Peak = bmax x (1 + e^t), t on a grid, then golden section around the best grid point.
  const double t_lo = std::log(1e-4), t_hi = std::log(10.0);
  constexpr int kGrid = 121;
  const auto cost_at = [&](double t) {
    const double peak = bmax * (1 + std::exp(t));
    const LinearSolution s = solve_for_peak(bw, lat, peak);
    if (in_flight_bytes.empty()) return s.cost;
    const littles_law::LoadedLatency m{s.unloaded, s.queue, peak * 1e-9};
    double cost = 0;
    for (std::size_t i = 0; i < bw.size(); ++i) {
      const double r = (littles_law::bandwidth_for(m, in_flight_bytes[i]) * 1e9 - bw[i]) / bw[i];
      cost += r * r;
    }
    return cost;
  };
  int best = 0;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int g = 0; g < kGrid; ++g) {
    const double t = t_lo + (t_hi - t_lo) * g / (kGrid - 1);
    const double c = cost_at(t);
    if (c < best_cost) {
      best_cost = c;
      best = g;
    }
  }
  const double step = (t_hi - t_lo) / (kGrid - 1);
  double a = t_lo + step * std::max(0, best - 1), c = t_lo + step * std::min(kGrid - 1, best + 1);
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double p1 = c - phi * (c - a), p2 = a + phi * (c - a);
  double f1 = cost_at(p1), f2 = cost_at(p2);
  for (int it = 0; it < 60; ++it) {
    if (f1 < f2) {
      c = p2;
      p2 = p1;
      f2 = f1;
      p1 = c - phi * (c - a);
      f1 = cost_at(p1);
    } else {
      a = p1;
      p1 = p2;
      f1 = f2;
      p2 = a + phi * (c - a);
      f2 = cost_at(p2);
    }
  }
  double t_best = 0.5 * (a + c);
  if (cost_at(t_best) > best_cost) t_best = t_lo + step * best;
  const double peak = bmax * (1 + std::exp(t_best));
  const LinearSolution s = solve_for_peak(bw, lat, peak);

  LoadedLatencyFit fit;
  fit.unloaded_latency_ns = s.unloaded;
  fit.queue_ns = s.queue;
  fit.peak_bandwidth_bytes_per_s = peak;
  fit.points = static_cast<int>(points.size());
  fit.rms_rel_residual = std::sqrt(s.cost / static_cast<double>(points.size()));
  fit.raw = points;
  // The queue term must matter at the largest bandwidth measured (1% of the unloaded latency),
  // and the best peak must lie inside the search range, for the data to tell the peak.
  const double queue_at_max = s.queue * bmax / (peak - bmax);
  fit.peak_identified = queue_at_max > 0.01 * s.unloaded && best < kGrid - 1;
  if (!fit.peak_identified)
    fit.reasons.push_back("no queueing seen up to " + fmt(bmax) +
                          " B/s: the peak is only known to be above it");
  fit.reasons.push_back("rms relative latency residual " + fmt(fit.rms_rel_residual));
  fit.confidence = points_score(fit.points) * std::exp(-std::pow(fit.rms_rel_residual / 0.1, 2)) *
                   (fit.peak_identified ? 1.0 : 0.3);
  return fit;
}

LoadedLatencyFit fit_loaded_latency(const std::vector<LoadedLatencyPoint>& points) {
  return fit_loaded_latency_impl(points, {});
}

// --- concurrency sweep ------------------------------------------------------------------------

ConcurrencyFit fit_concurrency_sweep(const std::vector<ConcurrencyPoint>& points,
                                     const ConcurrencyFitOptions& o) {
  std::vector<double> x, b;
  for (const auto& p : points) {
    x.push_back(p.bytes_in_flight_per_sm);
    b.push_back(p.bandwidth_bytes_per_s);
  }
  require_curve(x, b, 3, "concurrency sweep", "bytes_in_flight_per_sm", "bandwidth_bytes_per_s");
  if (!(o.fraction > 0 && o.fraction < 1) || o.sm_count < 0 || !(o.min_top_band > 0) ||
      !(o.max_top_band >= o.min_top_band))
    throw Error("concurrency sweep: invalid options");
  const std::size_t n = x.size();
  ConcurrencyFit fit;

  // Top band: within band of the second-largest bandwidth (one spike cannot set the peak).
  std::vector<double> sorted = b;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  const double second = sorted[1];
  const auto top_of = [&](double band) {
    std::vector<std::size_t> t;
    for (std::size_t i = 0; i < n; ++i)
      if (b[i] >= second * (1 - band)) t.push_back(i);
    return t;
  };
  double noise = 0;
  {
    // Scatter about the top points' trend: a curve still rising is not noisy for rising.
    std::vector<double> lx0, ly0;
    for (std::size_t i : top_of(o.max_top_band)) {
      lx0.push_back(std::log2(x[i]));
      ly0.push_back(std::log(b[i]));
    }
    const double slope0 = ls_slope(lx0, ly0);
    const double mx = std::accumulate(lx0.begin(), lx0.end(), 0.0) / static_cast<double>(lx0.size());
    const double my = std::accumulate(ly0.begin(), ly0.end(), 0.0) / static_cast<double>(ly0.size());
    std::vector<double> res;
    for (std::size_t k = 0; k < lx0.size(); ++k) res.push_back(ly0[k] - my - slope0 * (lx0[k] - mx));
    noise = res.size() >= 3 ? kMadToSigma * stats::mad(res) : 0.0;
  }
  fit.top_band_rel = std::clamp(3 * noise, o.min_top_band, o.max_top_band);
  const std::vector<std::size_t> top = top_of(fit.top_band_rel);
  std::vector<double> top_b, top_lx, top_ly;
  for (std::size_t i : top) {
    top_b.push_back(b[i]);
    top_lx.push_back(std::log2(x[i]));
    top_ly.push_back(std::log(b[i]));
  }
  fit.top_points = static_cast<int>(top.size());
  fit.peak_bandwidth_bytes_per_s = median_of(top_b);
  const auto ci = stats::median_ci(top_b);
  fit.peak_lo_bytes_per_s = ci.lo;
  fit.peak_hi_bytes_per_s = ci.hi;
  fit.reasons.push_back("peak: median of the " + std::to_string(top.size()) + " points within " +
                        fmt(fit.top_band_rel) + " of the second-largest bandwidth " + fmt(second));
  const std::size_t first_top = top.front(), last_top = top.back();
  const double top_slope = ls_slope(top_lx, top_ly);
  fit.still_rising = last_top == n - 1 && top_slope > o.max_top_slope_per_octave;
  if (fit.still_rising)
    fit.reasons.push_back("still rising at the largest concurrency (" + fmt(top_slope) +
                          " ln(bandwidth)/octave over the top band): the peak is a lower bound");
  if (last_top + 1 < n) {
    std::vector<double> past(b.begin() + static_cast<std::ptrdiff_t>(last_top + 1), b.end());
    fit.sag_points = static_cast<int>(past.size());
    fit.sag_rel = 1 - median_of(past) / fit.peak_bandwidth_bytes_per_s;
    fit.reasons.push_back("sag: " + std::to_string(past.size()) +
                          " points past the top band, median " + fmt(100 * fit.sag_rel) +
                          "% below the peak, left out of the peak and the model");
  }

  // Bytes in flight for fraction x peak: the last upward crossing before the top band.
  const auto crossing = [&](double thr, std::size_t* below) -> double {
    std::size_t k = first_top;
    while (k > 0 && !(b[k - 1] < thr)) --k;
    if (k == 0) return -1;
    if (below) *below = k - 1;
    if (!(b[k] > b[k - 1])) return x[k];
    return x[k - 1] + (thr - b[k - 1]) / (b[k] - b[k - 1]) * (x[k] - x[k - 1]);
  };
  std::size_t below = 0;
  const double at = crossing(o.fraction * fit.peak_bandwidth_bytes_per_s, &below);
  if (at < 0) {
    fit.crossing_measured = false;
    fit.bytes_in_flight_per_sm = x.front();
    fit.bytes_in_flight_lo_per_sm = 0;
    fit.bytes_in_flight_hi_per_sm = x.front();
    fit.reasons.push_back("the sweep starts above " + fmt(100 * o.fraction) +
                          "% of the peak: the bytes in flight needed are at most " + fmt(x.front()));
  } else {
    fit.crossing_measured = true;
    fit.bytes_in_flight_per_sm = at;
    double lo = x[below], hi = x[below + 1];
    for (double pk : {fit.peak_lo_bytes_per_s, fit.peak_hi_bytes_per_s}) {
      const double c = crossing(o.fraction * pk, nullptr);
      if (c >= 0) {
        lo = std::min(lo, c);
        hi = std::max(hi, c);
      } else {
        lo = 0;
      }
    }
    fit.bytes_in_flight_lo_per_sm = lo;
    fit.bytes_in_flight_hi_per_sm = hi;
  }

  // Unloaded latency from the low-load slope B = (SMs / latency) x bytes in flight per SM.
  if (o.sm_count > 0) {
    double sxy = 0, sxx = 0;
    for (std::size_t i = 0; i < first_top; ++i) {
      if (b[i] < o.low_load_fraction * fit.peak_bandwidth_bytes_per_s) {
        sxy += x[i] * b[i];
        sxx += x[i] * x[i];
        ++fit.low_load_points;
      }
    }
    if (fit.low_load_points >= 2 && sxy > 0) {
      fit.unloaded_latency_ns = o.sm_count / (sxy / sxx) * 1e9;
    } else {
      fit.reasons.push_back("fewer than 2 points below " + fmt(100 * o.low_load_fraction) +
                            "% of the peak: no unloaded latency");
    }
    std::vector<LoadedLatencyPoint> ll;
    std::vector<double> in_flight;
    for (std::size_t i = 0; i <= last_top; ++i) {
      ll.push_back({b[i], x[i] * o.sm_count / b[i] * 1e9});
      in_flight.push_back(x[i] * o.sm_count);
    }
    try {
      fit.model = fit_loaded_latency_impl(ll, in_flight);
      const auto m = to_littles_law_ns(fit.model);
      double sum = 0;
      for (std::size_t i = 0; i <= last_top; ++i) {
        const double r = (littles_law::bandwidth_for(m, x[i] * o.sm_count) * 1e9 - b[i]) / b[i];
        sum += r * r;
      }
      fit.model_rms_rel_bandwidth_residual = std::sqrt(sum / static_cast<double>(last_top + 1));
    } catch (const Error& e) {
      fit.reasons.push_back(std::string("no loaded-latency model: ") + e.what());
    }
  } else {
    fit.reasons.push_back("SM count unknown: no latency and no loaded-latency model");
  }

  // A concurrency sweep rises: steps (up to the top band) that fall by more than the band
  // contradict it.
  int steps = 0, falls = 0;
  for (std::size_t i = 1; i <= last_top; ++i) {
    ++steps;
    if (b[i] < b[i - 1] * (1 - fit.top_band_rel)) ++falls;
  }
  const double rise_score = steps > 0 ? 1.0 - static_cast<double>(falls) / steps : 1.0;
  if (falls > 0)
    fit.reasons.push_back(std::to_string(falls) + " of " + std::to_string(steps) +
                          " steps fall as concurrency grows");
  fit.confidence = points_score(fit.top_points) * rise_score * (fit.still_rising ? 0.5 : 1.0) *
                   (fit.crossing_measured ? 1.0 : 0.5);
  return fit;
}

// --- bank conflicts ---------------------------------------------------------------------------

int bank_wavefronts(int stride_elements, int word_bytes) {
  if (stride_elements < 0) throw Error("bank conflicts: stride must be >= 0");
  if (word_bytes != 4 && word_bytes != 8 && word_bytes != 16)
    throw Error("bank conflicts: word size must be 4, 8 or 16 bytes, got " + std::to_string(word_bytes));
  constexpr int kBanks = 32;
  const int words = word_bytes / 4;
  const int per_group = kBanks / words;
  int total = 0;
  for (int g = 0; g < words; ++g) {
    std::vector<std::vector<long long>> bank(kBanks);
    for (int t = g * per_group; t < (g + 1) * per_group; ++t) {
      for (int k = 0; k < words; ++k) {
        const long long word = static_cast<long long>(t) * stride_elements * words + k;
        auto& v = bank[static_cast<std::size_t>(word % kBanks)];
        if (std::find(v.begin(), v.end(), word) == v.end()) v.push_back(word);
      }
    }
    std::size_t most = 0;
    for (const auto& v : bank) most = std::max(most, v.size());
    total += static_cast<int>(most);
  }
  return total;
}

BankConflictFit fit_bank_conflicts(const std::vector<StridePoint>& points,
                                   const BankConflictOptions& o) {
  if (points.size() < 2)
    throw Error("bank conflicts: need at least 2 strides, got " + std::to_string(points.size()));
  double max_b = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (p.stride_elements < 0 || !std::isfinite(p.bytes_per_cycle_per_sm) || !(p.bytes_per_cycle_per_sm > 0))
      throw Error("bank conflicts: point " + std::to_string(i + 1) +
                  ": stride must be >= 0 and bytes per cycle finite and positive");
    for (std::size_t j = 0; j < i; ++j)
      if (points[j].stride_elements == p.stride_elements)
        throw Error("bank conflicts: stride " + std::to_string(p.stride_elements) + " given twice");
    max_b = std::max(max_b, p.bytes_per_cycle_per_sm);
  }
  bank_wavefronts(0, o.word_bytes);  // validates the word size (throws)
  BankConflictFit fit;
  // The peak comes from the conflict-free strides when there are any.
  const int words = o.word_bytes / 4;
  double free_max = 0;
  for (const auto& p : points)
    if (bank_wavefronts(p.stride_elements, o.word_bytes) == words) free_max = std::max(free_max, p.bytes_per_cycle_per_sm);
  if (free_max == 0)
    fit.reasons.push_back("no conflict-free stride measured: the peak is the fastest stride's");
  std::vector<double> top;
  for (const auto& p : points) {
    const bool free = bank_wavefronts(p.stride_elements, o.word_bytes) == words;
    const double ref = free_max > 0 ? free_max : max_b;
    if ((free || free_max == 0) && p.bytes_per_cycle_per_sm >= ref * (1 - o.peak_band))
      top.push_back(p.bytes_per_cycle_per_sm);
  }
  fit.peak_bytes_per_cycle_per_sm = median_of(top);
  fit.base_cycles = std::max(1, static_cast<int>(std::lround(32.0 * o.word_bytes / fit.peak_bytes_per_cycle_per_sm)));
  fit.reasons.push_back("peak " + fmt(fit.peak_bytes_per_cycle_per_sm) + " B/clk/SM: " +
                        std::to_string(fit.base_cycles) + " cycle(s) per conflict-free warp load of " +
                        std::to_string(o.word_bytes) + "-byte words");
  if (fit.base_cycles > words)
    fit.reasons.push_back("the data path is narrower than the banks: conflicts below " +
                          std::to_string(fit.base_cycles) + " wavefronts are hidden");
  if (fit.base_cycles < words)
    fit.reasons.push_back("peak above one wavefront per cycle: inconsistent with 32 banks of 4 bytes");
  for (const auto& p : points) {
    StrideConflict s;
    s.stride_elements = p.stride_elements;
    s.measured_slowdown = fit.peak_bytes_per_cycle_per_sm / p.bytes_per_cycle_per_sm;
    s.degree = static_cast<int>(std::lround(s.measured_slowdown));
    s.wavefronts = bank_wavefronts(p.stride_elements, o.word_bytes);
    s.predicted_slowdown = static_cast<double>(std::max(s.wavefronts, fit.base_cycles)) / fit.base_cycles;
    const double ratio = s.measured_slowdown / s.predicted_slowdown;
    if (ratio > 1 + o.tolerance) {
      s.verdict = "slower";
      ++fit.slower;
    } else if (ratio < 1 - o.tolerance) {
      s.verdict = "faster";
      ++fit.faster;
      fit.reasons.push_back("stride " + std::to_string(s.stride_elements) + " is faster (" +
                            fmt(s.measured_slowdown) + "x) than the banks allow (" +
                            fmt(s.predicted_slowdown) + "x)");
    } else {
      s.verdict = "banks";
      ++fit.banks;
    }
    fit.strides.push_back(s);
  }
  const double n = static_cast<double>(points.size());
  fit.confidence = points_score(static_cast<int>(points.size())) * (1 - fit.faster / n);
  return fit;
}

}  // namespace gpuprobe::analysis
