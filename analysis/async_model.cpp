#include "analysis/async_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/bandwidth_fit.hpp"
#include "analysis/bandwidth_model.hpp"
#include "analysis/curve.hpp"
#include "analysis/hierarchy_fit.hpp"
#include "analysis/machine_model.hpp"
#include "analysis/metric_fields.hpp"
#include "analysis/record_fields.hpp"
#include "harness/error.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::analysis {
namespace {

using json = nlohmann::json;

// latency = a + b x KiB by least squares over the size sweep; confidence = points score (as the
// other fits: 1 - 2^(-(n - 1) / 2)) x exp(-(rms relative residual / 0.1)^2).
json fit_size_sweep(json& latency) {
  json points = latency["points"];
  std::sort(points.begin(), points.end(), [](const json& a, const json& b) {
    return a["copy_bytes"].get<double>() < b["copy_bytes"].get<double>();
  });
  latency["points"] = points;
  const double n = double(points.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& p : points) {
    const double x = p["copy_bytes"].get<double>() / 1024, y = p["latency_cycles"].get<double>();
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  const double den = n * sxx - sx * sx;
  const double b = den > 0 ? (n * sxy - sx * sy) / den : 0;
  const double a = (sy - b * sx) / n;
  double rms = 0;
  for (const auto& p : points) {
    const double y = p["latency_cycles"].get<double>();
    const double r = (a + b * p["copy_bytes"].get<double>() / 1024 - y) / y;
    rms += r * r;
  }
  rms = std::sqrt(rms / n);
  const double points_score = 1 - std::pow(2.0, -(n - 1) / 2);
  return {{"model", "latency = a + b x KiB"},
          {"a_cycles", a},
          {"b_cycles_per_kib", b},
          {"bytes_per_clk_marginal", b > 0 ? json(1024 / b) : json(nullptr)},
          {"rms_rel_residual", rms},
          {"confidence", points_score * std::exp(-std::pow(rms / 0.1, 2))}};
}

}  // namespace

std::string async_sass_per_copy(const std::string& op, int sm) {
  const bool hopper = sm >= 90;
  if (op.rfind("ld_st_", 0) == 0) {
    const std::string w = op == "ld_st_4" ? "" : op == "ld_st_8" ? ".64" : ".128";
    return "1 LDG.E" + w + " + 1 STS" + w + " per thread";
  }
  if (op.rfind("cp_async_", 0) == 0) {
    if (sm < 80) return "none: cp.async needs sm_80+";
    const std::string w = op == "cp_async_ca_4" ? "" : op == "cp_async_ca_8" ? ".64" : ".128";
    return std::string("1 LDGSTS.E") + (op == "cp_async_cg_16" ? ".BYPASS" : "") + w +
           " + 1 LDGDEPBAR (commit) per thread; DEPBAR.LE SB0 (wait_group)";
  }
  if (!hopper) return "none: bulk and TMA copies need sm_90+";
  const std::string sync = " + SYNCS.ARRIVE.TRANS64 (expect_tx) + SYNCS.PHASECHK.TRANS64.TRYWAIT (retried)";
  if (op == "bulk") return "1 UBLKCP.S.G" + sync;
  if (op == "tma_1d") return "1 UTMALDG.1D" + sync;
  if (op == "tma_2d") return "1 UTMALDG.2D" + sync + "; multicast: 1 UTMALDG.2D.MULTICAST (sm_90a)";
  return "unknown";
}

void add_async_copy_from_run(const json& run, json& section) {
  const json& device = run.contains("device") ? run["device"] : json::object();
  const int sm = record_sm(device);
  const int sm_count = device.is_object() && device.contains("sm_count") && device["sm_count"].is_number()
                           ? device["sm_count"].get<int>()
                           : 0;
  if (!section.contains("ops")) section["ops"] = json::object();
  if (!run.contains("series") || !run["series"].is_array())
    throw Error("async/copy record has no series");
  const json& series = run["series"];
  std::vector<double> clocks;
  Curve chase;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const json& p = series[i];
    const std::string where = "series[" + std::to_string(i) + "]";
    const std::string op = record_text(p, "op", where);
    if (p.contains("skipped")) {
      section["skipped"][op] = record_skip_reason(p);
      continue;
    }
    const std::string kind = record_text(p, "kind", where);
    const double clock = p.contains("region_sm_clock_mhz") && p["region_sm_clock_mhz"].is_number()
                             ? p["region_sm_clock_mhz"].get<double>()
                             : 0;
    if (clock > 0) clocks.push_back(clock);
    if (kind == "chase") {
      const double cycles = record_number(p, "latency_cycles", where);
      chase.points.push_back({record_number(p, "footprint_bytes", where), cycles,
                              clock > 0 ? cycles / clock * 1000 : 0});
      continue;
    }
    json& o = section["ops"][op];
    o["ptx"] = record_text(p, "ptx", where);
    o["synchronous"] = p.value("synchronous", false);
    o["sass_per_copy"] = async_sass_per_copy(op, sm);
    if (kind == "latency") {
      o["latency"]["points"].push_back({{"copy_bytes", record_number(p, "copy_bytes", where)},
                                        {"latency_cycles", record_number(p, "latency_cycles", where)},
                                        {"latency_ns", p.contains("latency_ns") ? p["latency_ns"] : json(nullptr)}});
    } else if (kind == "multicast") {
      o["multicast"]["points"].push_back(
          {{"cluster_size", record_number(p, "cluster_size", where)},
           {"latency_cycles", record_number(p, "latency_cycles", where)},
           {"latency_ns", p.contains("latency_ns") ? p["latency_ns"] : json(nullptr)},
           {"bytes_per_s", record_number(p, "bytes_per_s", where)},
           {"bytes_per_clk_per_sm", record_number(p, "bytes_per_clk_per_sm", where)}});
    } else if (kind == "throughput") {
      o["throughput"]["points"].push_back(
          {{"bytes_in_flight_per_sm", record_number(p, "bytes_in_flight_per_sm", where)},
           {"bytes_per_s", record_number(p, "bytes_per_s", where)},
           {"bytes_per_clk_per_sm", record_number(p, "bytes_per_clk_per_sm", where)},
           {"depth", record_number(p, "depth", where)},
           {"ctas_per_sm", record_number(p, "ctas_per_sm", where)}});
    } else {
      throw Error(where + ".kind is '" + kind + "', not latency, throughput, chase or multicast");
    }
  }
  const double clock_mhz = clocks.empty() ? 0 : stats::median(clocks);
  for (auto& [op, o] : section["ops"].items()) {
    if (o.contains("latency")) {
      json& lat = o["latency"];
      if (lat["points"].size() > 1) lat["fit"] = fit_size_sweep(lat);
      const json& first = lat["points"][0];
      lat["latency_cycles"] = first["latency_cycles"];
      lat["latency_ns"] = first["latency_ns"];
      lat["copy_bytes"] = first["copy_bytes"];
    }
    if (o.contains("throughput")) {
      json& thr = o["throughput"];
      std::vector<ConcurrencyPoint> curve;
      for (const auto& p : thr["points"])
        curve.push_back({p["bytes_in_flight_per_sm"].get<double>(), p["bytes_per_s"].get<double>()});
      std::sort(curve.begin(), curve.end(), [](const ConcurrencyPoint& a, const ConcurrencyPoint& b) {
        return a.bytes_in_flight_per_sm < b.bytes_in_flight_per_sm;
      });
      try {
        thr["fit"] = imported_concurrency_sweep(curve, sm_count, clock_mhz);
      } catch (const std::exception& e) {
        thr["fit"] = {{"error", e.what()}};
      }
    }
  }
  if (!chase.points.empty()) {
    std::sort(chase.points.begin(), chase.points.end(),
              [](const CurvePoint& a, const CurvePoint& b) { return a.x < b.x; });
    chase.clock_mhz = clock_mhz;
    json& c = section["tma_chase"];
    try {
      HierarchyFitOptions o;
      o.first_level = "L2";  // TMA reads through the L2, never the L1
      c = to_json(fit_hierarchy(chase, o), chase);
    } catch (const std::exception& e) {
      c = {{"error", e.what()}};
    }
  }
}

void async_metrics(const json& model, const MetricSink& add) {
  const json* ops = at(model, {"async_copy", "ops"});
  if (!ops || !ops->is_object()) return;
  for (auto it = ops->begin(); it != ops->end(); ++it) {
    const json& o = it.value();
    const std::string op = it.key(), id = "async." + part(op);
    const std::string what = "async/copy " + op + " (" + text(&o, "ptx") + ")";
    if (const json* lat = at(o, {"latency"}))
      add({id + ".latency_cycles", op + " copy latency", num(lat, "latency_cycles"), "cycles", "lower",
             false,
             what + ": one copy at a time, the smallest copy (" +
                 (num(lat, "copy_bytes").is_number() ? (*lat)["copy_bytes"].dump() : std::string("?")) +
                 " bytes), median over repeats",
             "async/copy", nullptr, nullptr, nullptr});
    const json* fit = at(o, {"throughput", "fit"});
    if (!fit || fit->contains("error")) continue;
    const json clock = clock_of(fit->value("clock_mhz", json()));
    add({id + ".bytes_per_s", op + " copy bandwidth", num(fit, "peak_bytes_per_s"), "bytes/s", "higher",
           true, what + ": copies in flight on every SM, concurrency fit's peak (" + text(fit, "peak_from") + ")",
           "async/copy", fit_samples(fit), num(fit, "confidence"), clock});
    add({id + ".bytes_in_flight_per_sm_for_90pct_bytes", op + " bytes in flight per SM for 90% of the peak",
           num(fit, "bytes_in_flight_per_sm_for_90pct"), "bytes", "lower", false,
           what + ": concurrency fit of the throughput points", "async/copy", fit_samples(fit), num(fit, "confidence"),
           clock});
  }
}

}  // namespace gpuprobe::analysis
