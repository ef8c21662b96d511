#include "analysis/launch_model.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "analysis/metric_fields.hpp"
#include "analysis/record_fields.hpp"
#include "analysis/input_file.hpp"
#include "harness/error.hpp"

namespace gpuprobe::analysis {
namespace {

using json = nlohmann::json;

// t(0.975, dof): the Cornish-Fisher expansion of Student's t around the normal quantile 1.96,
// within 0.5% of the exact value from 3 degrees of freedom on (12.71 for 1, 4.30 for 2: exact).
double t975(double dof) {
  if (dof <= 1) return 12.706;
  if (dof <= 2) return 4.303;
  const double z = 1.959964, z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * dof) + (5 * z5 + 16 * z3 + 3 * z) / (96 * dof * dof) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * dof * dof * dof);
}

// 1 for an interval of zero width, falling linearly to 0 at a half-width as large as the value.
double confidence_of(double value, double lo, double hi) {
  if (!(std::fabs(value) > 0)) return 0;
  return std::clamp(1.0 - 0.5 * (hi - lo) / std::fabs(value), 0.0, 1.0);
}

json measured(const json& p, const std::string& where) {
  json m = {{"ns", record_number(p, "ns", where)}};
  if (p.contains("ci95_ns")) m["ci95_ns"] = p["ci95_ns"];
  if (p.contains("repeats")) m["repeats"] = p["repeats"];
  return m;
}

}  // namespace

LinearFit fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw Error("line fit: x and y differ in length");
  const std::size_t n = x.size();
  if (n < 2) throw Error("line fit needs at least 2 points, got " + std::to_string(n));
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) throw Error("line fit: a value is not finite");
  if (std::all_of(x.begin(), x.end(), [&](double v) { return v == x.front(); }))
    throw Error("line fit: every point has the same x (" + std::to_string(x.front()) + ")");
  Eigen::MatrixXd A(n, 2);
  Eigen::VectorXd Y(n);
  for (std::size_t i = 0; i < n; ++i) {
    A(i, 0) = 1.0;
    A(i, 1) = x[i];
    Y(i) = y[i];
  }
  const Eigen::Vector2d c = A.colPivHouseholderQr().solve(Y);
  LinearFit f;
  f.a = c(0);
  f.b = c(1);
  f.points = n;
  const Eigen::VectorXd r = Y - A * c;
  const double ss_res = r.squaredNorm();
  const double mean = Y.mean();
  const double ss_tot = (Y.array() - mean).square().sum();
  f.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : (ss_res == 0 ? 1.0 : 0.0);
  if (n == 2) {
    f.a_lo = f.a_hi = f.a;
    f.b_lo = f.b_hi = f.b;
    f.confidence = 0.5;
    return f;
  }
  const double sigma2 = ss_res / double(n - 2);
  const Eigen::Matrix2d cov = sigma2 * (A.transpose() * A).inverse();
  const double t = t975(double(n - 2));
  const double ha = t * std::sqrt(std::max(0.0, cov(0, 0)));
  const double hb = t * std::sqrt(std::max(0.0, cov(1, 1)));
  f.a_lo = f.a - ha;
  f.a_hi = f.a + ha;
  f.b_lo = f.b - hb;
  f.b_hi = f.b + hb;
  f.confidence = std::min(confidence_of(f.a, f.a_lo, f.a_hi), confidence_of(f.b, f.b_lo, f.b_hi));
  return f;
}

SmallKernelFit fit_small_kernels(std::vector<SmallKernelPoint> points, double window) {
  if (!(window >= 1) || !std::isfinite(window))
    throw Error("small-kernel fit: the window must be at least 1, got " + std::to_string(window));
  for (const auto& p : points)
    if (!(p.bytes > 0) || !(p.time_s > 0) || !std::isfinite(p.bytes) || !std::isfinite(p.time_s))
      throw Error("small-kernel fit: bytes and time must be positive and finite");
  std::stable_sort(points.begin(), points.end(),
                   [](const SmallKernelPoint& a, const SmallKernelPoint& b) { return a.bytes < b.bytes; });
  SmallKernelFit f;
  f.window = window;
  f.input_points = points.size();
  if (points.size() < 3)
    throw Error("small-kernel fit needs at least 3 points, got " + std::to_string(points.size()));
  f.smallest_bytes = points.front().bytes;
  f.smallest_time_s = points.front().time_s;
  std::vector<double> v, t;
  for (const auto& p : points) {
    if (p.bytes > window * f.smallest_bytes) break;
    v.push_back(p.bytes);
    t.push_back(p.time_s);
  }
  if (v.size() < 3)
    throw Error("small-kernel fit: " + std::to_string(v.size()) + " points up to " +
                std::to_string(window) + " x the smallest volume (" +
                std::to_string(f.smallest_bytes) + " bytes); it needs 3");
  const LinearFit line = fit_line(v, t);
  f.points = line.points;
  f.r2 = line.r2;
  f.overhead_s = line.a;
  f.overhead_lo_s = line.a_lo;
  f.overhead_hi_s = line.a_hi;
  f.confidence = confidence_of(line.a, line.a_lo, line.a_hi);
  // b only where the slope is positive beyond its interval: a slope within noise of 0 means the
  // work time does not show in the window, and 1/slope would be any number.
  if (line.b > 0 && line.b_lo > 0) {
    f.bytes_per_s = 1.0 / line.b;
    f.bytes_per_s_lo = 1.0 / line.b_hi;
    f.bytes_per_s_hi = 1.0 / line.b_lo;
  }
  if (!(f.overhead_s > 0)) {
    f.confidence = 0;
  }
  return f;
}

json to_json(const SmallKernelFit& f) {
  json j = {{"model", "T = a + V/b"},
            {"overhead_ns", f.overhead_s * 1e9},
            {"ci95_overhead_ns", {f.overhead_lo_s * 1e9, f.overhead_hi_s * 1e9}},
            {"bytes_per_s", f.bytes_per_s > 0 ? json(f.bytes_per_s) : json(nullptr)},
            {"ci95_bytes_per_s",
             {f.bytes_per_s_lo > 0 ? json(f.bytes_per_s_lo) : json(nullptr),
              f.bytes_per_s_hi > 0 ? json(f.bytes_per_s_hi) : json(nullptr)}},
            {"smallest_bytes", f.smallest_bytes},
            {"smallest_time_ns", f.smallest_time_s * 1e9},
            {"window", f.window},
            {"points", f.points},
            {"input_points", f.input_points},
            {"r2", f.r2},
            {"confidence", f.confidence}};
  if (f.bytes_per_s == 0)
    j["note"] = "the time does not grow with the volume within the window (the slope's 95% interval "
                "reaches 0): b unresolved";
  return j;
}

json to_json(const LinearFit& f, const char* a_name, const char* b_name, double scale) {
  return {{"model", "t = a + b*n"},
          {a_name, f.a * scale},
          {std::string("ci95_") + a_name, {f.a_lo * scale, f.a_hi * scale}},
          {b_name, f.b * scale},
          {std::string("ci95_") + b_name, {f.b_lo * scale, f.b_hi * scale}},
          {"r2", f.r2},
          {"points", f.points},
          {"confidence", f.confidence}};
}

std::string small_kernel_method_of_file(const std::string& path) {
  const std::string stem = std::filesystem::path(path).stem().string();
  for (const char* m : {"graph", "gsync", "pt"}) {
    const std::string suffix = std::string("_") + m;
    if (stem.size() > suffix.size() && stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0)
      return m;
  }
  return "stream";
}

SmallKernelFile read_gpubenches_small_kernels(const std::string& path) {
  std::ifstream in = open_or_fail(path);
  SmallKernelFile file;
  file.method = small_kernel_method_of_file(path);
  std::string raw;
  std::size_t line = 0, columns = 0;
  while (std::getline(in, raw)) {
    ++line;
    std::istringstream s(raw);
    std::vector<std::string> t;
    for (std::string w; s >> w;) t.push_back(w);
    if (t.empty()) continue;
    // A run cut off mid-row leaves a last line without its newline and with fewer columns: it
    // is not a measurement (several of the 2024 files end so).
    if (in.eof() && !raw.empty() && t.size() < (columns ? columns : 8)) break;
    // doubles, "<n>kB", then one GB/s per block size: 6 (2024 layout) or 9 (the older one).
    if (t.size() != 8 && t.size() != 11)
      fail_at_line(
          path, line,
          "expected doubles, kB and 6 or 9 bandwidths, got " + std::to_string(t.size()) + " columns");
    if (columns != 0 && t.size() != columns)
      fail_at_line(path, line,
                   std::to_string(t.size()) + " columns after rows of " + std::to_string(columns) +
                       ": one file holds one layout");
    columns = t.size();
    if (t[1].size() < 3 || t[1].compare(t[1].size() - 2, 2, "kB") != 0)
      fail_at_line(path, line, "column 2: '" + t[1] + "' is not a size in kB");
    double values[11];
    for (std::size_t c = 0; c < t.size(); ++c) {
      if (c == 1) continue;
      double v = 0;
      const auto [end, ec] = std::from_chars(t[c].data(), t[c].data() + t[c].size(), v);
      if (ec != std::errc() || end != t[c].data() + t[c].size() || !std::isfinite(v))
        fail_at_line(path, line, "column " + std::to_string(c + 1) + ": '" + t[c] + "' is not a number");
      if (!(v > 0))
        fail_at_line(path, line, "column " + std::to_string(c + 1) + ": " + t[c] + " must be positive");
      values[c] = v;
    }
    const double best_gbps = *std::max_element(values + 2, values + t.size());
    const double bytes = 16.0 * values[0];
    file.points.push_back({bytes, bytes / (best_gbps * 1e9)});
  }
  if (file.points.size() < 3)
    fail_at_line(path, std::max<std::size_t>(line, 1),
                 "too few rows: " + std::to_string(file.points.size()) + " (need at least 3)");
  return file;
}

void add_launch_from_run(const json& run, json& launch) {
  const std::string probe = run.value("probe", "");
  if (!run.contains("series") || !run["series"].is_array()) throw Error(probe + " record has no series");
  const json& series = run["series"];
  // Points by measure (graph: by node count; small kernels: by method and volume).
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> graph;
  std::map<std::string, std::vector<SmallKernelPoint>> small;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const json& p = series[i];
    const std::string where = "series[" + std::to_string(i) + "]";
    if (probe == "launch/small_kernels") {
      const std::string method = record_text(p, "method", where);
      if (p.contains("skipped")) {
        launch["skipped"]["small_kernels " + method] = record_skip_reason(p);
        continue;
      }
      small[method].push_back({record_number(p, "bytes", where), record_number(p, "ns", where) * 1e-9});
      continue;
    }
    const std::string measure = record_text(p, "measure", where);
    if (p.contains("skipped")) {
      launch["skipped"][measure] = record_skip_reason(p);
      continue;
    }
    if (probe == "launch/overhead") {
      launch["overhead"][measure] = measured(p, where);
    } else if (probe == "launch/graph") {
      if (measure == "device_launch") {
        launch["graph"]["device_launch"] = measured(p, where);
        continue;
      }
      auto& xy = graph[measure];
      xy.first.push_back(record_number(p, "nodes", where));
      xy.second.push_back(record_number(p, "ns", where));
    } else {
      throw Error("gpuprobe has no launch analysis for probe '" + probe + "'");
    }
  }
  for (const auto& [measure, xy] : graph) {
    try {
      launch["graph"][measure] = to_json(fit_line(xy.first, xy.second), "per_graph_ns", "per_node_ns");
    } catch (const Error& e) {
      launch["graph"][measure] = {{"error", e.what()}};
    }
  }
  for (const auto& [method, points] : small) {
    try {
      launch["small_kernels"][method] = to_json(fit_small_kernels(points));
    } catch (const Error& e) {
      launch["small_kernels"][method] = {{"error", e.what()}};
    }
  }
}

void launch_metrics(const json& model, const MetricSink& add) {
  const json* launch = at(model, {"launch"});
  if (!launch) return;
  const bool imported = launch->contains("source");
  if (const json* overhead = at(*launch, {"overhead"}); overhead && overhead->is_object()) {
    for (auto it = overhead->begin(); it != overhead->end(); ++it) {
      // The PDL measures are offsets from a primary's end to its secondary's start, not costs:
      // negative means the secondary started before the primary ended. A value that crosses zero
      // has no direction a ratio could rank (better: null); the gain below has one.
      const bool offset = it.key() == "pdl_overlapped";
      add({"launch.overhead." + part(it.key()) + "_ns",
           offset ? "launch " + it.key() + " (primary end to secondary start; < 0: they overlapped)"
                  : "launch " + it.key(),
           num(&it.value(), "ns"), "ns", offset ? "" : "lower", false,
           "launch/overhead " + it.key() +
               (offset ? ": median over repeats of the secondary's start minus its primary's end "
                         "(negative: the secondary started while the primary still ran)"
                       : ": median over repeats of one sample's cost per launch"),
           "launch/overhead", num(&it.value(), "repeats"), nullptr, nullptr});
    }
    const json serialized = num(at(*overhead, {"pdl_serialized"}), "ns"),
               overlapped = num(at(*overhead, {"pdl_overlapped"}), "ns");
    if (serialized.is_number() && overlapped.is_number())
      add({"launch.overhead.pdl_gain_ns", "launch PDL gain (how much earlier the secondary starts with PDL)",
           serialized.get<double>() - overlapped.get<double>(), "ns", "higher", false,
           "derived: launch/overhead pdl_serialized - pdl_overlapped (the secondary's start after its "
           "primary's end without PDL, less with it)",
           "launch/overhead", nullptr, nullptr, nullptr});
  }
  if (const json* graph = at(*launch, {"graph"}); graph && graph->is_object())
    for (auto it = graph->begin(); it != graph->end(); ++it) {
      const json& g = it.value();
      if (g.contains("error")) continue;
      if (it.key() == "device_launch") {
        add({"launch.graph.device_launch_ns", "device-side graph launch", num(&g, "ns"), "ns", "lower", false,
               "launch/graph device_launch: a kernel's cudaGraphLaunch to the child graph's start, median over repeats",
               "launch/graph", num(&g, "repeats"), nullptr, nullptr});
        continue;
      }
      for (const char* q : {"per_node_ns", "per_graph_ns"})
        add({"launch.graph." + part(it.key()) + "." + q, "graph " + it.key() + " " + q, num(&g, q), "ns",
               "lower", false, "launch/graph " + it.key() + ": line fit t = a + b x nodes over the chain lengths",
               "launch/graph", num(&g, "points"), num(&g, "confidence"), nullptr});
    }
  if (const json* small = at(*launch, {"small_kernels"}); small && small->is_object())
    for (auto it = small->begin(); it != small->end(); ++it) {
      if (it.value().contains("error")) continue;
      add({"launch.small_kernels." + part(it.key()) + ".overhead_ns", it.key() + " overhead per pass",
             num(&it.value(), "overhead_ns"), "ns", "lower", false,
             std::string(imported ? "imported small-kernel curve" : "launch/small_kernels") + " " + it.key() +
                 ": fit T = a + V/b over the smallest volumes",
             imported ? "" : "launch/small_kernels", num(&it.value(), "points"), num(&it.value(), "confidence"),
             nullptr});
      add({"launch.small_kernels." + part(it.key()) + ".bytes_per_s", it.key() + " bandwidth term (V/b)",
           num(&it.value(), "bytes_per_s"), "bytes/s", "higher", false,
           std::string(imported ? "imported small-kernel curve" : "launch/small_kernels") + " " + it.key() +
               ": fit T = a + V/b over the smallest volumes, b",
           imported ? "" : "launch/small_kernels", num(&it.value(), "points"), num(&it.value(), "confidence"),
           nullptr});
    }
}

}  // namespace gpuprobe::analysis
