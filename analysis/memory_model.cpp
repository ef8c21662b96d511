#include "analysis/memory_model.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <string>
#include <utility>

#include "analysis/metric_fields.hpp"
#include "analysis/record_fields.hpp"
#include "harness/error.hpp"
#include "harness/stats.hpp"
#include "ptx/load_variants.hpp"

namespace gpuprobe::analysis {
namespace {

using json = nlohmann::json;

// obj[key] as a number; `where` names obj in the record ("series[0]").
double required_number(const nlohmann::json& obj, const char* key, const std::string& where) {
  if (!obj.is_object()) wrong_type(where, obj, "an object");
  if (!obj.contains(key)) throw Error(where + " has no " + key);
  const auto& v = obj[key];
  if (!v.is_number()) wrong_type(where + "." + key, v, "a number");
  return v.get<double>();
}

std::string point_name(std::size_t i) { return "series[" + std::to_string(i) + "]"; }

// An SM number: a whole number from 0 to 999999.
int sm_number(const nlohmann::json& v, const std::string& name) {
  if (!v.is_number()) wrong_type(name, v, "a number");
  const double x = v.get<double>();
  if (!(x >= 0 && x < 1e6 && x == std::floor(x)))
    throw Error(name + " is " + std::to_string(x) + ", not an SM number");
  return static_cast<int>(x);
}

double run_clock_mhz(const nlohmann::json& run) {
  // The clock the timed regions themselves saw, else the clock read before the sweep.
  if (run.contains("median_region_sm_clock_mhz") && run["median_region_sm_clock_mhz"].is_number())
    return run["median_region_sm_clock_mhz"].get<double>();
  if (run.contains("sm_clock_mhz") && run["sm_clock_mhz"].is_object() &&
      run["sm_clock_mhz"].contains("before")) {
    const auto& v = run["sm_clock_mhz"]["before"];
    if (v.is_null()) return 0;  // not measured
    if (!v.is_number()) wrong_type("sm_clock_mhz.before", v, "a number");
    return v.get<double>();
  }
  return 0;
}

// The points holding a numeric latency and `x_key` (and `group_key`, if given); a point whose x
// or group is not a number is an Error naming it.
std::vector<const nlohmann::json*> points_of(const nlohmann::json& run, const char* x_key,
                                             const char* group_key = nullptr) {
  std::vector<const nlohmann::json*> out;
  const auto& series = run.at("series");
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& p = series[i];
    if (!p.is_object() || !p.contains(x_key) || !p.contains("latency_cycles") ||
        !p["latency_cycles"].is_number())
      continue;
    if (group_key && !p.contains(group_key)) continue;
    if (!p[x_key].is_number()) wrong_type(point_name(i) + "." + x_key, p[x_key], "a number");
    if (group_key && !p[group_key].is_number())
      wrong_type(point_name(i) + "." + group_key, p[group_key], "a number");
    out.push_back(&p);
  }
  return out;
}

Curve curve_from_points(const std::vector<const nlohmann::json*>& pts, const char* x_key,
                        double clock_mhz) {
  Curve c;
  c.x_name = x_key;
  c.clock_mhz = clock_mhz;
  for (const auto* p : pts)
    c.points.push_back({(*p)[x_key].get<double>(), (*p)["latency_cycles"].get<double>(),
                        p->contains("latency_ns") && (*p)["latency_ns"].is_number()
                            ? (*p)["latency_ns"].get<double>()
                            : 0.0});
  std::sort(c.points.begin(), c.points.end(),
            [](const CurvePoint& a, const CurvePoint& b) { return a.x < b.x; });
  return c;
}

nlohmann::json curve_json(const Curve& c) {
  nlohmann::json xs = nlohmann::json::array(), ys = nlohmann::json::array();
  for (const auto& p : c.points) {
    xs.push_back(p.x);
    ys.push_back(p.latency_cycles);
  }
  return {{"x_name", c.x_name}, {"x", xs}, {"latency_cycles", ys}, {"clock_mhz", c.clock_mhz}};
}

// Runs `f`, returning its JSON, or {"error": message} if it throws.
template <class F>
json guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return {{"error", e.what()}};
  }
}

}  // namespace

// The per-SM L2 map of memory/chase --sm all: each SM's near- and far-L2 latency, and how far
// the SMs spread.
nlohmann::json sm_map_from_run(const nlohmann::json& run) {
  std::map<int, nlohmann::json> by_sm;
  const auto& series = run.at("series");
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& p = series[i];
    if (!p.is_object() || !p.contains("pinned_sm") || !p.contains("map_level") ||
        !p.contains("latency_cycles") || !p["latency_cycles"].is_number())
      continue;
    const int sm = sm_number(p["pinned_sm"], point_name(i) + ".pinned_sm");
    const std::string key = p["map_level"] == "L2" ? "l2_cycles" : "l2_far_cycles";
    by_sm[sm]["sm"] = sm;
    by_sm[sm][key] = p["latency_cycles"];
    if (p.contains("sm") && p["sm"].is_number()) {
      const int ran_on = sm_number(p["sm"], point_name(i) + ".sm");
      if (ran_on != sm)
        throw Error("map point pinned to SM " + std::to_string(sm) + " ran on SM " +
                    std::to_string(ran_on));
    }
  }
  if (by_sm.empty()) throw Error("memory/chase --sm all has no map points");
  nlohmann::json sms = nlohmann::json::array();
  std::vector<double> near, far;
  for (auto& [sm, entry] : by_sm) {
    if (entry.contains("l2_cycles")) near.push_back(entry["l2_cycles"]);
    if (entry.contains("l2_far_cycles")) far.push_back(entry["l2_far_cycles"]);
    sms.push_back(entry);
  }
  auto summary = [](std::vector<double> v) -> nlohmann::json {
    if (v.empty()) return nullptr;
    std::sort(v.begin(), v.end());
    return {{"min_cycles", v.front()}, {"median_cycles", stats::median(v)},
            {"max_cycles", v.back()}, {"spread_cycles", v.back() - v.front()}};
  };
  nlohmann::json out = {{"sms", sms}, {"l2", summary(near)}, {"l2_far", summary(far)}};
  if (!near.empty()) {
    const auto& fastest = *std::min_element(by_sm.begin(), by_sm.end(), [](auto& a, auto& b) {
      return a.second.value("l2_cycles", 1e30) < b.second.value("l2_cycles", 1e30);
    });
    const auto& slowest = *std::max_element(by_sm.begin(), by_sm.end(), [](auto& a, auto& b) {
      return a.second.value("l2_cycles", -1.0) < b.second.value("l2_cycles", -1.0);
    });
    out["fastest_sm"] = fastest.first;
    out["slowest_sm"] = slowest.first;
  }
  out["footprints_bytes"] = run.value("sm_map", nlohmann::json::object());
  return out;
}

// Main-memory latency depends on how many pages a sweep touches and which TLB level still holds
// them: the DRAM level says both, so that DRAM latencies compare like for like across GPUs whose
// L2 sizes (and so DRAM plateaus) differ.
void annotate_dram(nlohmann::json& mem) {
  if (!mem.contains("levels") || !mem["levels"].is_array() || mem["levels"].empty()) return;
  nlohmann::json& last = mem["levels"].back();
  if (last.value("name", "") != "DRAM" || !last.contains("plateau_bytes")) return;
  constexpr double kPageBytes = 2.0 * 1024 * 1024;   // cudaMalloc's large-allocation pages
  const double lo = last["plateau_bytes"][0].get<double>();
  const double hi = last["plateau_bytes"][1].get<double>();
  last["pages_touched"] = {std::ceil(lo / kPageBytes), std::ceil(hi / kPageBytes)};
  last["page_bytes_assumed"] = kPageBytes;
  if (!mem.contains("tlb") || !mem["tlb"].contains("levels")) {
    last["tlb_level"] = nullptr;
    last["tlb_note"] = "no TLB sweep in this model";
    return;
  }
  std::string level = "beyond every TLB level measured";
  for (const auto& t : mem["tlb"]["levels"])
    if (t.contains("reach_bytes") && t["reach_bytes"].is_number() &&
        hi <= t["reach_bytes"].get<double>()) {
      level = t.value("name", "TLB");
      break;
    }
  if (mem["tlb"]["levels"].empty()) level = "within the first TLB level (no TLB step found)";
  last["tlb_level"] = level;
}

Curve latency_curve_from_run(const nlohmann::json& run) {
  return curve_from_points(points_of(run, "footprint_bytes"), "footprint_bytes", run_clock_mhz(run));
}

std::vector<StrideCurve> stride_curves_from_run(const nlohmann::json& run) {
  std::map<double, std::vector<const nlohmann::json*>> by_stride;
  for (const auto* p : points_of(run, "footprint_bytes", "stride_bytes"))
    by_stride[(*p)["stride_bytes"].get<double>()].push_back(p);
  std::vector<StrideCurve> out;
  for (const auto& [stride, pts] : by_stride)
    out.push_back({stride, curve_from_points(pts, "footprint_bytes", run_clock_mhz(run))});
  return out;
}

Curve tlb_curve_from_run(const nlohmann::json& run) {
  return curve_from_points(points_of(run, "span_bytes"), "span_bytes", run_clock_mhz(run));
}

nlohmann::json to_json(const HierarchyFit& fit, const Curve& curve) {
  nlohmann::json levels = nlohmann::json::array();
  for (const auto& l : fit.levels) {
    nlohmann::json j = {{"name", l.name},
                        {"latency_cycles", l.latency_cycles},
                        // null: no clock and no ns in the points, so ns are unknown
                        {"latency_ns", l.latency_ns ? nlohmann::json(*l.latency_ns) : nlohmann::json()},
                        {"confidence", l.confidence},
                        {"confidence_parts", {{"points", l.points_score},
                                              {"spread", l.spread_score},
                                              {"stability", l.stability},
                                              {"spread_rel", l.spread_rel}}},
                        {"plateau_bytes", {l.plateau_first_x, l.plateau_last_x}},
                        {"points", l.points}};
    if (l.capacity_bytes > 0) {
      j["capacity_bytes"] = l.capacity_bytes;
      j["capacity_interval_bytes"] = {l.capacity_lo_bytes, l.capacity_hi_bytes};
    } else {
      j["capacity_bytes"] = nullptr;  // the last level: not bounded by the sweep
    }
    levels.push_back(j);
  }
  nlohmann::json rejected = nlohmann::json::array();
  for (const auto& r : fit.rejected)
    rejected.push_back({{"latency_cycles", r.latency_cycles},
                        {"plateau_bytes", {r.plateau_first_x, r.plateau_last_x}},
                        {"points", r.points},
                        {"rule", r.rule},
                        {"reason", r.reason}});
  return {{"levels", levels},
          {"far_l2", {{"detected", fit.far_l2.detected}, {"reason", fit.far_l2.reason}}},
          {"rules", fit.rules},
          {"rejected", rejected},
          {"noise_rel", fit.noise_rel},
          {"curve", curve_json(curve)}};
}

std::string add_memory_from_run(const json& run, json& mem) {
  const std::string probe = run.value("probe", std::string());
  std::string sm, op;
  if (probe == "memory/chase") {
    const json params = run.contains("params") ? run["params"] : json::object();
    try {
      if (params.contains("sm") && !params["sm"].is_string()) wrong_type("params.sm", params["sm"], "a string");
      if (params.contains("cache-op") && !params["cache-op"].is_string())
        wrong_type("params.cache-op", params["cache-op"], "a string");
    } catch (const Error& e) {
      throw RecordError(e.what());
    }
    sm = params.value("sm", "");
    op = params.value("cache-op", "ca");
  }
  const auto error_of = [](const json& result) {
    return result.contains("error") ? result["error"].get<std::string>() : std::string();
  };
  std::string failed;
  if (probe == "memory/chase" && sm == "all") {
    mem["sm_map"] = guarded([&] { return sm_map_from_run(run); });
    failed = error_of(mem["sm_map"]);
  } else if (probe == "memory/chase") {
    mem["paths"][op] = guarded([&] {
      const auto variant = ptx::parse_load_variant(op);
      if (!variant) {
        std::string known;
        for (const auto& v : ptx::kLoadVariants) known += (known.empty() ? "" : ", ") + std::string(v.name);
        throw Error("unknown cache operator '" + printable(op) + "' in params.cache-op (known: " +
                    known + ")");
      }
      const Curve c = latency_curve_from_run(run);
      HierarchyFitOptions o;
      o.first_level = ptx::info(*variant).first_level == ptx::CacheLevel::L2 ? "L2" : "L1";
      return to_json(fit_hierarchy(c, o), c);
    });
    failed = error_of(mem["paths"][op]);
  } else if (probe == "memory/chase_shared") {
    mem["shared"] = guarded([&] {
      std::vector<double> lat, p50, p95;
      const auto& series = run["series"];
      for (std::size_t j = 0; j < series.size(); ++j) {
        const auto& p = series[j];
        if (!p.is_object() || !p.contains("latency_cycles")) continue;
        lat.push_back(required_number(p, "latency_cycles", point_name(j)));
        for (auto [key, into] : {std::pair{"p50_cycles", &p50}, std::pair{"p95_cycles", &p95}})
          if (p.contains(key)) into->push_back(required_number(p, key, point_name(j)));
      }
      if (lat.empty()) throw Error("memory/chase_shared has no points");
      const double clock = run_clock_mhz(run);
      const double cycles = stats::median(lat);
      return nlohmann::json{{"latency_cycles", cycles},
                            {"latency_ns", clock > 0 ? nlohmann::json(cycles / clock * 1000) : nlohmann::json()},
                            {"clock_mhz", clock > 0 ? nlohmann::json(clock) : nlohmann::json()},
                            {"p50_cycles", stats::median(p50)},
                            {"p95_cycles", stats::median(p95)},
                            {"points", lat.size()}};
    });
    failed = error_of(mem["shared"]);
  } else if (probe == "memory/stride") {
    mem["line_sector"] = guarded([&] {
      const auto f = fit_line_and_sector(stride_curves_from_run(run));
      return nlohmann::json{{"line_bytes", f.line_bytes}, {"sector_bytes", f.sector_bytes},
                            {"confidence", f.confidence}, {"note", f.note}};
    });
    failed = error_of(mem["line_sector"]);
  } else if (probe == "memory/tlb") {
    mem["tlb"] = guarded([&] {
      const Curve c = tlb_curve_from_run(run);
      if (run["series"].empty()) throw Error("memory/tlb has no points");
      const double span_bytes = required_number(run["series"][0], "span_bytes", point_name(0));
      const double pages = required_number(run["series"][0], "pages", point_name(0));
      if (!(pages > 0)) throw Error(point_name(0) + ".pages must be positive");
      const TlbFit f = fit_tlb(c, span_bytes / pages);
      nlohmann::json levels = nlohmann::json::array();
      for (const auto& l : f.levels)
        levels.push_back({{"name", l.name}, {"reach_bytes", l.reach_bytes},
                          {"reach_interval_bytes", {l.reach_lo_bytes, l.reach_hi_bytes}},
                          {"miss_cost_cycles", l.miss_cost_cycles}, {"confidence", l.confidence}});
      return nlohmann::json{{"page_bytes", f.page_bytes},
                            {"base_latency_cycles", f.base_latency_cycles},
                            {"levels", levels}, {"note", f.note}, {"curve", curve_json(c)}};
    });
    failed = error_of(mem["tlb"]);  } else {
    failed = "gpuprobe has no analysis for probe '" + printable(probe) + "'";
  }
  return failed;
}

void finish_memory(json& model) {
  json& mem = model["memory"];
  // The hierarchy: from the L1-allocating chase if there is one, else the first chase run.
  if (mem.contains("paths")) {
    for (const char* op : {"default", "ca", "nc", "cs", "lu", "cg", "cv", "L1_no_allocate"}) {
      if (mem["paths"].contains(op) && !mem["paths"][op].contains("error")) {
        mem["levels"] = mem["paths"][op]["levels"];
        mem["far_l2"] = mem["paths"][op]["far_l2"];
        mem["rejected"] = mem["paths"][op]["rejected"];
        mem["levels_from"] = std::string("memory/chase cache-op=") + op;
        break;
      }
    }
  }
  annotate_dram(mem);
}

void memory_metrics(const json& model, const MetricSink& add) {
  const json* mem = at(model, {"memory"});
  if (!mem) return;
  // The hierarchy: the curve it was fitted from gives the clock, and the probe.
  const std::string from = text(mem, "levels_from");
  const bool imported = from == "import-csv";
  const std::string op = from.rfind("memory/chase cache-op=", 0) == 0 ? from.substr(22) : "imported";
  const json* curve = at(*mem, {"paths", op, "curve"});
  const json clock = curve ? clock_of(curve->value("clock_mhz", json())) : json(nullptr);
  const std::string probe = imported ? "" : "memory/chase";
  const std::string how = imported ? "imported latency curve (analyze --import-csv)" : "memory/chase cache-op=" + op;
  if (const json* levels = at(*mem, {"levels"}); levels && levels->is_array()) {
    for (const auto& l : *levels) {
      const std::string name = text(&l, "name");
      if (name.empty()) continue;
      const json samples = num(&l, "points"), conf = num(&l, "confidence");
      add({"memory." + part(name) + ".latency_cycles", name + " load-to-use latency",
             num(&l, "latency_cycles"), "cycles", "lower", false,
             how + ": hierarchy fit, median of the plateau's stable part", probe, samples, conf, clock});
      add({"memory." + part(name) + ".latency_ns", name + " load-to-use latency",
             num(&l, "latency_ns"), "ns", "lower", false,
             how + ": the level's cycles at the curve's SM clock (null when no clock is known)", probe, samples,
             conf, clock});
      if (l.contains("capacity_bytes") && l["capacity_bytes"].is_number())
        add({"memory." + part(name) + ".capacity_bytes", name + " capacity", num(&l, "capacity_bytes"),
               "bytes", "higher", false, how + ": hierarchy fit, where the level's plateau ends", probe, samples,
               conf, clock});
    }
  }
  if (const json* s = at(*mem, {"shared"}); s && !s->contains("error")) {
    const json clock_s = clock_of(s->value("clock_mhz", json()));
    add({"memory.shared.latency_cycles", "shared-memory load-to-use latency",
           num(s, "latency_cycles"), "cycles", "lower", false,
           "memory/chase_shared: median over the footprints of the ld.shared chase", "memory/chase_shared",
           num(s, "points"), nullptr, clock_s});
    add({"memory.shared.latency_ns", "shared-memory load-to-use latency",
           num(s, "latency_ns"), "ns", "lower", false,
           "memory/chase_shared: the cycles at the run's SM clock (null when no clock is known)",
           "memory/chase_shared", num(s, "points"), nullptr, clock_s});
  }
  if (const json* tlb = at(*mem, {"tlb"}); tlb && tlb->contains("levels") && (*tlb)["levels"].is_array()) {
    const json clock_t = clock_of(tlb->contains("curve") ? (*tlb)["curve"].value("clock_mhz", json()) : json());
    for (const auto& l : (*tlb)["levels"]) {
      const std::string name = text(&l, "name");
      if (name.empty()) continue;
      add({"memory." + part(name) + ".reach_bytes", name + " reach", num(&l, "reach_bytes"), "bytes",
             "higher", false, "memory/tlb: latency against span, one hop per page; where the step begins",
             "memory/tlb", nullptr, num(&l, "confidence"), clock_t});
      add({"memory." + part(name) + ".miss_cost_cycles", name + " miss cost",
             num(&l, "miss_cost_cycles"), "cycles", "lower", false,
             "memory/tlb: the latency step past the level's reach", "memory/tlb", nullptr, num(&l, "confidence"),
             clock_t});
    }
  }
  if (const json* map = at(*mem, {"sm_map"}); map && !map->contains("error")) {
    for (const char* level : {"l2", "l2_far"}) {
      const json* s = at(*map, {level});
      if (!s || !s->is_object()) continue;
      const std::string name = std::string(level) == "l2" ? "L2" : "L2-far";
      add({"memory." + name + ".sm_spread_cycles", name + " latency spread over the SMs",
             num(s, "spread_cycles"), "cycles", "lower", false,
             "memory/chase --sm all: slowest minus fastest SM's " + name + " latency", "memory/chase",
             count(map, "sms"), nullptr, nullptr});
    }
  }
}


}  // namespace gpuprobe::analysis
