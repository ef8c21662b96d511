#include "analysis/roofline_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "harness/error.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::analysis {
namespace {

std::string fmt(const char* format, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, a, b, c, d);
  return buf;
}

// One distinct intensity: its raw values of the quantity fitted and their median.
struct Group {
  double x = 0;
  std::vector<double> values;        // of the quantity fitted (bytes/s or FLOP/clk or FLOP/s)
  std::vector<double> clocks;        // MHz, parallel to values (empty without clocks)
  double median = 0;
};

// 3-point running median of the groups' medians (2 points at the ends: their mean).
std::vector<double> smoothed(const std::vector<Group>& g) {
  std::vector<double> s(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    const std::size_t lo = i == 0 ? 0 : i - 1, hi = std::min(g.size() - 1, i + 1);
    std::vector<double> w;
    for (std::size_t j = lo; j <= hi; ++j) w.push_back(g[j].median);
    s[i] = stats::median(w);
  }
  return s;
}

struct Plateau {
  RooflineCeiling ceiling;
  std::size_t first = 0, last = 0;   // group indices of the run (valid when ceiling.found)
  double clock_median = 0, clock_min = 0, clock_max = 0;
};

// The plateau among groups [begin, end): the run around the highest smoothed value within the
// member band, its ceiling the median of the run's raw values within the estimate band.
Plateau find_plateau(const std::vector<Group>& groups, std::size_t begin, std::size_t end,
                     const RooflineFitOptions& o, const char* what, std::vector<std::string>& reasons) {
  Plateau p;
  if (begin >= end) return p;
  const std::vector<Group> part(groups.begin() + static_cast<std::ptrdiff_t>(begin),
                                groups.begin() + static_cast<std::ptrdiff_t>(end));
  const std::vector<double> s = smoothed(part);
  const std::size_t top = static_cast<std::size_t>(std::max_element(s.begin(), s.end()) - s.begin());
  const double ref = s[top];
  for (const auto& g : part)
    for (double v : g.values) p.ceiling.lower_bound = std::max(p.ceiling.lower_bound, v);
  std::size_t lo = top, hi = top;
  while (lo > 0 && s[lo - 1] >= (1 - o.member_band) * ref) --lo;
  while (hi + 1 < s.size() && s[hi + 1] >= (1 - o.member_band) * ref) ++hi;
  const double span = part[hi].x / part[lo].x;
  if (hi == lo || span < o.min_span) {
    reasons.push_back(std::string(what) + ": no plateau: the values within " +
                      fmt("%.0f%% of the highest span %.2fx in intensity (%.4g to %.4g FLOP/B), ", o.member_band * 100,
                          span, part[lo].x, part[hi].x) +
                      fmt("need %.2fx", o.min_span));
    return p;
  }
  std::vector<double> est, est_clocks, xs, ys;
  for (std::size_t i = lo; i <= hi; ++i) {
    xs.push_back(std::log2(part[i].x));
    ys.push_back(std::log(part[i].median));
    for (std::size_t k = 0; k < part[i].values.size(); ++k) {
      if (part[i].values[k] < (1 - o.estimate_band) * ref) continue;
      est.push_back(part[i].values[k]);
      if (!part[i].clocks.empty()) est_clocks.push_back(part[i].clocks[k]);
    }
  }
  if (est.empty()) {  // every raw value below the band (possible only with odd noise): the run
    for (std::size_t i = lo; i <= hi; ++i) est.insert(est.end(), part[i].values.begin(), part[i].values.end());
    for (std::size_t i = lo; i <= hi; ++i) est_clocks.insert(est_clocks.end(), part[i].clocks.begin(), part[i].clocks.end());
  }
  RooflineCeiling& c = p.ceiling;
  c.found = true;
  c.value = stats::median(est);
  c.lower_bound = 0;
  c.points = static_cast<int>(est.size());
  c.first_flop_per_byte = part[lo].x;
  c.last_flop_per_byte = part[hi].x;
  c.spread_rel = 1.4826 * stats::mad(est) / c.value;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) mx += xs[i], my += ys[i];
  mx /= static_cast<double>(xs.size());
  my /= static_cast<double>(xs.size());
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) sxy += (xs[i] - mx) * (ys[i] - my), sxx += (xs[i] - mx) * (xs[i] - mx);
  c.slope_per_octave = sxx > 0 ? sxy / sxx : 0;
  const double points_score = 1 - std::pow(2.0, -(c.points - 1) / 2.0);
  c.confidence = points_score * std::exp(-std::pow(c.spread_rel / 0.03, 2));
  if (c.slope_per_octave > 0.01) c.confidence *= 0.8;
  p.first = begin + lo;
  p.last = begin + hi;
  if (!est_clocks.empty()) {
    p.clock_median = stats::median(est_clocks);
    p.clock_min = *std::min_element(est_clocks.begin(), est_clocks.end());
    p.clock_max = *std::max_element(est_clocks.begin(), est_clocks.end());
  }
  reasons.push_back(std::string(what) + fmt(": plateau over %.4g to %.4g FLOP/B, ", c.first_flop_per_byte,
                                            c.last_flop_per_byte) +
                    fmt("median of %.0f points within %.0f%% of the highest (3-point median) value, ", c.points,
                        o.estimate_band * 100) +
                    fmt("spread %.2f%%, slope %+.2f%% per octave", c.spread_rel * 100, c.slope_per_octave * 100));
  return p;
}

void check_points(const std::vector<IntensityPoint>& points, const RooflineFitOptions& o) {
  if (points.size() < 4)
    throw Error("intensity sweep: too few points: " + std::to_string(points.size()) + " (need at least 4)");
  if (!(o.clock_mhz >= 0) || !std::isfinite(o.clock_mhz))
    throw Error("intensity sweep: clock " + std::to_string(o.clock_mhz) + " MHz must be finite and not negative");
  std::size_t clocked = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    const std::string at = "intensity sweep: point " + std::to_string(i + 1) + ": ";
    for (double v : {p.flop_per_byte, p.flop_per_s, p.bytes_per_s, p.sm_clock_mhz, p.power_w})
      if (!std::isfinite(v)) throw Error(at + "not finite");
    if (!(p.flop_per_byte > 0) || !(p.flop_per_s > 0)) throw Error(at + "flop_per_byte and flop_per_s must be positive");
    if (p.bytes_per_s < 0 || p.sm_clock_mhz < 0 || p.power_w < 0)
      throw Error(at + "bytes_per_s, sm_clock_mhz and power_w must not be negative");
    clocked += p.sm_clock_mhz > 0;
  }
  if (clocked != 0 && clocked != points.size())
    throw Error("intensity sweep: " + std::to_string(clocked) + " of " + std::to_string(points.size()) +
                " points carry an SM clock: give it on every point or on none");
}

}  // namespace

RooflineFit fit_roofline(const std::vector<IntensityPoint>& input, const RooflineFitOptions& o) {
  check_points(input, o);
  RooflineFit fit;
  fit.input_points = input.size();
  const bool column_clock = input.front().sm_clock_mhz > 0;
  fit.clocked = column_clock || o.clock_mhz > 0;
  fit.clock_source = column_clock ? "sm_clock_mhz column" : o.clock_mhz > 0 ? "--clock-mhz" : "";
  if (column_clock && o.clock_mhz > 0)
    fit.reasons.push_back(fmt("the points carry their clock: --clock-mhz %.0f is not used", o.clock_mhz));

  // Per distinct intensity: bytes/s, the compute quantity (FLOP/clk or FLOP/s) and the clocks.
  std::map<double, std::vector<IntensityPoint>> by_x;
  for (auto p : input) {
    if (p.bytes_per_s == 0) p.bytes_per_s = p.flop_per_s / p.flop_per_byte;
    if (p.sm_clock_mhz == 0) p.sm_clock_mhz = o.clock_mhz;
    by_x[p.flop_per_byte].push_back(p);
    if (p.power_w > 0) {
      fit.power_min_w = fit.power_min_w > 0 ? std::min(fit.power_min_w, p.power_w) : p.power_w;
      fit.power_max_w = std::max(fit.power_max_w, p.power_w);
    }
    if (p.flop_per_s > fit.max_flops_per_s) {
      fit.max_flops_per_s = p.flop_per_s;
      fit.max_flop_per_byte = p.flop_per_byte;
      fit.max_clock_mhz = p.sm_clock_mhz;
    }
  }
  std::vector<Group> bw, comp;
  std::vector<double> all_clocks;
  for (const auto& [x, ps] : by_x) {
    Group b{x, {}, {}, 0}, c{x, {}, {}, 0};
    std::vector<double> flops;
    for (const auto& p : ps) {
      b.values.push_back(p.bytes_per_s);
      flops.push_back(p.flop_per_s);
      c.values.push_back(fit.clocked ? p.flop_per_s / (p.sm_clock_mhz * 1e6) : p.flop_per_s);
      if (fit.clocked) c.clocks.push_back(p.sm_clock_mhz), all_clocks.push_back(p.sm_clock_mhz);
    }
    b.median = stats::median(b.values);
    c.median = stats::median(c.values);
    IntensityPoint m;
    m.flop_per_byte = x;
    m.flop_per_s = stats::median(flops);
    m.bytes_per_s = b.median;
    m.sm_clock_mhz = fit.clocked ? stats::median(c.clocks) : 0;
    fit.curve.push_back(m);
    bw.push_back(std::move(b));
    comp.push_back(std::move(c));
  }
  if (bw.size() < 3)
    throw Error("intensity sweep: " + std::to_string(bw.size()) + " distinct intensities (need at least 3)");
  fit.reasons.push_back(fmt("%.0f points at %.0f distinct intensities, %.4g to %.4g FLOP/B", input.size(), bw.size(),
                            bw.front().x, bw.back().x));

  // The bandwidth plateau (the memory-bound end), then the compute plateau past it.
  const Plateau b = find_plateau(bw, 0, bw.size(), o, "bandwidth", fit.reasons);
  fit.bandwidth = b.ceiling;
  // A bandwidth "plateau" must be the low-intensity end: one that starts later is not memory-bound.
  if (fit.bandwidth.found && b.first != 0) {
    fit.reasons.push_back(fmt("bandwidth: the plateau starts at %.4g FLOP/B, not at the sweep's lowest intensity: "
                              "not memory-bound",
                              fit.bandwidth.first_flop_per_byte));
    fit.bandwidth.found = false;
    fit.bandwidth.lower_bound = bw.front().median;
    for (const auto& g : bw) fit.bandwidth.lower_bound = std::max(fit.bandwidth.lower_bound, g.median);
  }
  const std::size_t compute_begin = fit.bandwidth.found ? b.last + 1 : 0;
  const char* compute_name = fit.clocked ? "compute (FLOP/clk)" : "compute (FLOP/s)";
  const Plateau c = find_plateau(comp, compute_begin, comp.size(), o, compute_name, fit.reasons);
  fit.compute = c.ceiling;
  if (!fit.compute.found && compute_begin >= comp.size()) {
    fit.reasons.push_back(std::string(compute_name) + ": no point past the bandwidth plateau");
    for (const auto& g : comp)
      for (double v : g.values) fit.compute.lower_bound = std::max(fit.compute.lower_bound, v);
  }
  if (fit.bandwidth.found) fit.bandwidth_bytes_per_s = fit.bandwidth.value;

  if (fit.clocked) {
    fit.clock_min_mhz = *std::min_element(all_clocks.begin(), all_clocks.end());
    fit.clock_max_mhz = *std::max_element(all_clocks.begin(), all_clocks.end());
  }
  if (fit.compute.found) {
    if (fit.clocked) {
      fit.flops_per_clk = fit.compute.value;
      fit.stated_clock_mhz = c.clock_median;
      fit.compute_clock_min_mhz = c.clock_min;
      fit.compute_clock_max_mhz = c.clock_max;
      fit.flops_per_s = fit.flops_per_clk * fit.stated_clock_mhz * 1e6;
      if (o.sm_count > 0) fit.flops_per_clk_per_sm = fit.flops_per_clk / o.sm_count;
      fit.throttled = fit.stated_clock_mhz < 0.98 * fit.clock_max_mhz;
      if (fit.throttled) {
        fit.notes.push_back(
            fmt("throttled: the SM clock varied %.0f-%.0f MHz over the sweep; the compute-bound lines held "
                "%.0f-%.0f MHz",
                fit.clock_min_mhz, fit.clock_max_mhz, fit.compute_clock_min_mhz, fit.compute_clock_max_mhz) +
            fmt(" (median %.0f): flops_per_s is at that clock; at the sweep's top clock (%.0f MHz) the fitted "
                "FLOP/clk would give %.4g FLOP/s; ",
                fit.stated_clock_mhz, fit.clock_max_mhz, fit.flops_per_clk * fit.clock_max_mhz * 1e6) +
            fmt("the sweep's highest measured is %.4g FLOP/s (at %.0f MHz)", fit.max_flops_per_s, fit.max_clock_mhz));
      } else if (fit.clock_max_mhz > 1.02 * fit.clock_min_mhz) {
        fit.notes.push_back(fmt("the SM clock varied %.0f-%.0f MHz over the sweep; the compute-bound lines held "
                                "%.0f-%.0f MHz",
                                fit.clock_min_mhz, fit.clock_max_mhz, fit.compute_clock_min_mhz,
                                fit.compute_clock_max_mhz));
      }
    } else {
      fit.flops_per_s = fit.compute.value;
      // Without clocks a throttled tail shows as FLOP/s falling after the plateau.
      const double tail = comp.back().median;
      if (c.last + 1 < comp.size() && tail < (1 - o.member_band) * fit.compute.value)
        fit.notes.push_back(fmt("FLOP/s falls to %.4g at %.4g FLOP/B, %.1f%% below the plateau: clock or power "
                                "throttling? An sm_clock_mhz column lets the fit divide it out",
                                tail, comp.back().x, (1 - tail / fit.compute.value) * 100));
    }
    if (fit.clocked && !fit.throttled && fit.power_max_w > 1.2 * fit.power_min_w)
      fit.notes.push_back(fmt("the power varied %.0f-%.0f W over the sweep while the recorded SM clock stayed within "
                              "%.0f-%.0f MHz: the clock column shows no throttling",
                              fit.power_min_w, fit.power_max_w, fit.clock_min_mhz, fit.clock_max_mhz));
    if (fit.compute.slope_per_octave > 0.01)
      fit.notes.push_back(fmt("the compute plateau still rises %.1f%% per octave of intensity up to the sweep's end "
                              "(%.4g FLOP/B): the ceiling may be a little higher than fitted",
                              fit.compute.slope_per_octave * 100, fit.compute.last_flop_per_byte));
  } else {
    fit.notes.push_back(fmt(fit.clocked ? "the sweep never reached the compute ceiling: it is above %.4g FLOP/clk"
                                        : "the sweep never reached the compute ceiling: it is above %.4g FLOP/s",
                            fit.compute.lower_bound));
    if (fit.clocked) fit.flops_per_clk = 0;
  }
  if (!fit.bandwidth.found)
    fit.notes.push_back(fmt("the sweep never reached the bandwidth ceiling: it is above %.4g bytes/s",
                            fit.bandwidth.lower_bound));
  if (fit.bandwidth.found && fit.compute.found) fit.ridge_flop_per_byte = fit.flops_per_s / fit.bandwidth_bytes_per_s;
  fit.confidence = std::min(fit.bandwidth.confidence, fit.compute.confidence);
  return fit;
}

namespace {

nlohmann::json ceiling_json(const RooflineCeiling& c, const char* unit) {
  nlohmann::json j = {{"found", c.found}, {"unit", unit}};
  if (!c.found) {
    j["lower_bound"] = c.lower_bound;
    j["confidence"] = 0.0;
    return j;
  }
  j["value"] = c.value;
  j["points"] = c.points;
  j["flop_per_byte_range"] = {c.first_flop_per_byte, c.last_flop_per_byte};
  j["spread_rel"] = c.spread_rel;
  j["slope_per_octave"] = c.slope_per_octave;
  j["confidence"] = c.confidence;
  return j;
}

nlohmann::json number_or_null(double v) { return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

nlohmann::json to_json(const RooflineFit& fit, const std::string& source) {
  nlohmann::json j;
  j["kind"] = "intensity_sweep";
  j["source"] = "imported from " + source + " (gpuprobe analyze --import-csv)";
  j["file"] = source;
  j["flops_per_s"] = number_or_null(fit.flops_per_s);
  j["flops_per_clk"] = number_or_null(fit.flops_per_clk);
  j["flops_per_clk_per_sm"] = number_or_null(fit.flops_per_clk_per_sm);
  j["bandwidth_bytes_per_s"] = number_or_null(fit.bandwidth_bytes_per_s);
  j["ridge_flop_per_byte"] = number_or_null(fit.ridge_flop_per_byte);
  if (fit.clocked) {
    j["clock_mhz"] = {{"stated", number_or_null(fit.stated_clock_mhz)},
                      {"min", fit.clock_min_mhz},
                      {"max", fit.clock_max_mhz},
                      {"compute_bound_min", number_or_null(fit.compute_clock_min_mhz)},
                      {"compute_bound_max", number_or_null(fit.compute_clock_max_mhz)}};
    j["clock_source"] = fit.clock_source;
  } else {
    j["clock_mhz"] = nullptr;
    j["clock_source"] = nullptr;
  }
  j["throttled"] = fit.throttled;
  j["power_w"] = fit.power_max_w > 0 ? nlohmann::json{{"min", fit.power_min_w}, {"max", fit.power_max_w}}
                                     : nlohmann::json(nullptr);
  j["max_measured"] = {{"flops_per_s", fit.max_flops_per_s},
                       {"flop_per_byte", fit.max_flop_per_byte},
                       {"clock_mhz", number_or_null(fit.max_clock_mhz)}};
  j["bandwidth_fit"] = ceiling_json(fit.bandwidth, "bytes_per_s");
  j["compute_fit"] = ceiling_json(fit.compute, fit.clocked ? "flops_per_clk" : "flops_per_s");
  j["confidence"] = fit.confidence;
  j["points"] = fit.input_points;
  // The per-intensity medians, for plots; bounded so a huge file does not bloat the model.
  constexpr std::size_t kMaxCurve = 4096;
  if (fit.curve.size() <= kMaxCurve) {
    nlohmann::json curve = nlohmann::json::array();
    for (const auto& p : fit.curve) {
      nlohmann::json q = {{"flop_per_byte", p.flop_per_byte}, {"flop_per_s", p.flop_per_s},
                          {"bytes_per_s", p.bytes_per_s}};
      q["sm_clock_mhz"] = number_or_null(p.sm_clock_mhz);
      curve.push_back(q);
    }
    j["curve"] = curve;
  } else {
    j["curve"] = nullptr;
  }
  j["notes"] = fit.notes;
  j["reasons"] = fit.reasons;
  return j;
}

}  // namespace gpuprobe::analysis
