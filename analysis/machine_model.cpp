#include "analysis/machine_model.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include "analysis/bandwidth_model.hpp"
#include "analysis/compute_model.hpp"
#include "analysis/goodput_model.hpp"
#include "analysis/launch_model.hpp"
#include "analysis/metrics.hpp"
#include "analysis/async_model.hpp"
#include "analysis/atomics_model.hpp"
#include "analysis/sync_model.hpp"
#include "analysis/roofline.hpp"
#include "harness/error.hpp"
#include "harness/results.hpp"
#include "harness/stats.hpp"
#include "ptx/load_variants.hpp"

namespace gpuprobe::analysis {
namespace {

// Checked reads. A run record is a file anyone can edit: a field the model reads that is missing
// or of the wrong type is a one-line Error naming the field, never undefined behaviour (const
// operator[] on a missing key) or a bare nlohmann exception.

const char* kind_of(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: return "a number";
    default: return "not a JSON value";
  }
}

[[noreturn]] void wrong_type(const std::string& name, const nlohmann::json& v, const char* wanted) {
  throw Error(name + " is " + kind_of(v) + ", not " + wanted);
}

// A record's text in a message: control characters (a line break) as '?', at most 60 characters.
std::string printable(std::string s) {
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s;
}

// obj[key] as a string (`name` is its path in the record), or `fallback` if obj has no `key`.
std::string optional_string(const nlohmann::json& obj, const char* key, const std::string& name,
                            const std::string& fallback) {
  if (!obj.is_object() || !obj.contains(key)) return fallback;
  const auto& v = obj[key];
  if (!v.is_string()) wrong_type(name, v, "a string");
  return v.get<std::string>();
}

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

// What the model reads of every record before its series, checked.
struct RecordHead {
  std::string probe, status;
  nlohmann::json params;  // an object
  const nlohmann::json* device = nullptr;  // an object
};

RecordHead read_head(const nlohmann::json& run) {
  RecordHead h;
  if (!run.contains("device")) throw Error("device is missing");
  h.device = &run["device"];
  if (!h.device->is_object()) wrong_type("device", *h.device, "an object");
  if (h.device->contains("simulated") && !(*h.device)["simulated"].is_boolean())
    wrong_type("device.simulated", (*h.device)["simulated"], "a boolean");
  h.probe = optional_string(run, "probe", "probe", "");
  h.status = optional_string(run, "status", "status", "");
  h.params = run.contains("params") ? run["params"] : nlohmann::json::object();
  if (!h.params.is_object()) wrong_type("params", h.params, "an object");
  return h;
}

// The warning for a record fitted although it is not complete.
std::string status_warning(const std::string& path, const RecordHead& h, const nlohmann::json& run) {
  std::string state = h.status.empty()         ? "has no status"
                      : h.status == "running" ? "is running (its run was killed, or still goes on)"
                                              : "is " + printable(h.status);
  if (h.status == "failed" && run.contains("error") && run["error"].is_string())
    state += " (" + printable(run["error"].get<std::string>()) + ")";
  return path + ": this " + printable(h.probe) + " record " + state + ", not ok: fitted from the " +
         std::to_string(run["series"].size()) + " points it holds, which may not cover its sweep";
}

// "PATH: the GPU reported throttling (REASONS) before/after this PROBE run ..." when the NVML
// telemetry recorded around the run says so (docs/SCHEMA.md `telemetry`), else "". A throttled run
// is fitted, never hidden: the warning goes into the model and onto the command line.
std::string throttle_warning(const std::string& path, const RecordHead& h, const nlohmann::json& run) {
  if (!run.contains("telemetry") || !run["telemetry"].is_object()) return "";
  std::string when, reasons;
  for (const char* side : {"before", "after"}) {
    const auto& t = run["telemetry"];
    if (!t.contains(side) || !t[side].is_object()) continue;
    const auto& s = t[side];
    if (!(s.contains("throttled") && s["throttled"] == true)) continue;
    when += (when.empty() ? "" : " and ") + std::string(side);
    if (s.contains("clock_event_reasons") && s["clock_event_reasons"].is_array())
      for (const auto& r : s["clock_event_reasons"])
        if (r.is_string() && reasons.find(r.get<std::string>()) == std::string::npos)
          reasons += (reasons.empty() ? "" : "+") + printable(r.get<std::string>());
  }
  if (when.empty()) return "";
  return path + ": the GPU reported throttling (" + (reasons.empty() ? "reason not given" : reasons) +
         ") " + when + " this " + printable(h.probe) +
         " run: its clocks may have moved during the sweep (points off the median clock are "
         "flagged per point)";
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

// "passed" when every point of the record that carries a self_check passed it (the text "passed",
// or the tensor probes' {"passed": true}) and at least one does; "failed" when one did not; null
// (nothing said) when no point carries one.
const char* self_check_of(const nlohmann::json& run) {
  if (!run.contains("series") || !run["series"].is_array()) return nullptr;
  bool any = false;
  for (const auto& p : run["series"]) {
    if (!p.is_object() || !p.contains("self_check")) continue;
    const auto& c = p["self_check"];
    const bool passed = c == "passed" || (c.is_object() && c.value("passed", nlohmann::json()) == true);
    if (!passed) return "failed";
    any = true;
  }
  return any ? "passed" : nullptr;
}

nlohmann::json model_skeleton() {
  return {{"schema", kModelSchema},
          {"schema_version", kModelSchemaVersion},
          {"gpuprobe_version", GPUPROBE_VERSION},
          {"created_utc", utc_timestamp()},
          {"warnings", nlohmann::json::array()},
          {"memory", nlohmann::json::object()}};
}

// Runs `f`, returning its JSON, or {"error": message} if it throws.
template <class F>
nlohmann::json guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return {{"error", e.what()}};
  }
}

// The probe families whose records each add to one model section, by probe-name prefix.
struct SectionFamily {
  const char* prefix;   // "sync/"
  const char* section;  // the model's key
  void (*add)(const nlohmann::json& run, nlohmann::json& section);
};

constexpr SectionFamily kSectionFamilies[] = {
    {"bandwidth/", "bandwidth", add_bandwidth_from_run},
    // CUDA-core ops and tensor-core forms share the compute section (one op table).
    {"compute/", "compute", add_compute_from_run},
    {"tensor/", "compute", add_compute_from_run},
    {"async/", "async_copy", add_async_copy_from_run},
    {"sync/", "sync", add_sync_from_run},
    {"atomics/", "atomics", add_atomics_from_run},
    {"launch/", "launch", add_launch_from_run},
    // Kept as measured; predicted once the other sections are complete (add_goodput_predictions).
    {"goodput/", "goodput", add_goodput_from_run},
};

// The family of `probe`, or nullptr if no section family analyses it.
const SectionFamily* section_family(const std::string& probe) {
  for (const auto& f : kSectionFamilies)
    if (probe.rfind(f.prefix, 0) == 0) return &f;
  return nullptr;
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

void check_run_record(const nlohmann::json& run, const std::string& what) {
  if (!run.is_object() || !run.contains("schema") || run["schema"] != kRunSchema)
    throw Error(what + " is not a gpuprobe run record (schema \"" + kRunSchema + "\")");
  const nlohmann::json version = run.contains("schema_version") ? run["schema_version"] : nlohmann::json();
  if (version != kRunSchemaVersion)
    throw Error(what + " has run schema version " +
                (version.is_number() ? version.dump() : std::string(kind_of(version))) +
                "; this gpuprobe reads version " + std::to_string(kRunSchemaVersion));
  if (!run.contains("series") || !run["series"].is_array())
    throw Error(what + " has no series");
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

nlohmann::json build_machine_model(const std::vector<nlohmann::json>& runs,
                                   const std::vector<std::string>& run_paths) {
  if (runs.empty()) throw Error("no run records to analyse");
  nlohmann::json model = model_skeleton();
  auto& mem = model["memory"];
  nlohmann::json sources = nlohmann::json::array();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& run = runs[i];
    const std::string path = i < run_paths.size() ? run_paths[i] : "run " + std::to_string(i);
    check_run_record(run, path);
    RecordHead head;
    std::string sm, op;
    try {
      head = read_head(run);
      if (head.probe == "memory/chase") {
        sm = optional_string(head.params, "sm", "params.sm", "");
        op = optional_string(head.params, "cache-op", "params.cache-op", "ca");
      }
    } catch (const Error& e) {
      throw Error(path + ": " + e.what());
    }
    if (!model.contains("device")) model["device"] = *head.device;
    sources.push_back({{"file", path}, {"probe", head.probe}, {"status", head.status},
                       {"params", head.params}});
    auto& source = sources.back();
    if (const char* checked = self_check_of(run)) source["self_check"] = checked;
    if (head.status == "skipped") {  // nothing measured; listed in sources
      if (run.contains("skip_reason") && run["skip_reason"].is_string())
        source["skip_reason"] = run["skip_reason"];
      continue;
    }
    // An interrupted, failed or killed record is fitted from what it holds, and says so.
    if (head.status != "ok") model["warnings"].push_back(status_warning(path, head, run));
    if (const std::string w = throttle_warning(path, head, run); !w.empty())
      model["warnings"].push_back(w);
    const std::string& probe = head.probe;
    std::string failed;  // why this record gave no result
    const auto error_of = [](const nlohmann::json& result) {
      return result.contains("error") ? result["error"].get<std::string>() : std::string();
    };
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
      failed = error_of(mem["tlb"]);
    } else if (const SectionFamily* family = section_family(probe)) {
      // Each family adds its entries to its section; a fit that fails is recorded under its
      // probe in the section's "errors", and the other records still fit.
      if (!model.contains(family->section)) model[family->section] = nlohmann::json::object();
      try {
        family->add(run, model[family->section]);
      } catch (const std::exception& e) {
        model[family->section]["errors"][probe] = e.what();
        failed = e.what();
      }
    } else {
      failed = "gpuprobe has no analysis for probe '" + printable(probe) + "'";
    }
    if (!failed.empty()) source["error"] = failed;
  }
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
  model["simulated"] = model["device"].value("simulated", false);  // a boolean: read_head
  model["sources"] = sources;
  add_roofline(model);  // from the compute and bandwidth sections, once they are complete
  add_goodput_predictions(model);  // from every section above and the roofline
  model["metrics"] = build_metrics(model);  // the flat table of everything above
  return model;
}

nlohmann::json build_machine_model_from_curve(const Curve& curve, const std::string& source,
                                              const HierarchyFitOptions& options) {
  nlohmann::json model = model_skeleton();
  model["device"] = {{"name", "imported curve: " + std::filesystem::path(source).filename().string()},
                     {"simulated", false}};
  model["simulated"] = false;
  model["sources"] = {{{"file", source}, {"probe", "import-csv"}, {"rows", curve.points.size()}}};
  // The model keeps the file's name and a bounded summary of its curve, never the whole curve.
  const BinnedCurve reduced = bin_curve(curve);
  const HierarchyFit fit = fit_hierarchy(reduced.curve, options);
  auto j = to_json(fit, reduced.curve);
  j["curve"]["input_points"] = reduced.input_points;
  j["curve"]["binned"] = reduced.binned ? nlohmann::json{{"bin_octaves", reduced.bin_octaves},
                                                         {"statistic", "median"},
                                                         {"points", reduced.curve.points.size()}}
                                        : nlohmann::json(nullptr);
  model["memory"]["levels"] = j["levels"];
  model["memory"]["far_l2"] = j["far_l2"];
  model["memory"]["rejected"] = j["rejected"];
  model["memory"]["levels_from"] = "import-csv";
  model["memory"]["paths"]["imported"] = j;
  model["metrics"] = build_metrics(model);
  return model;
}

nlohmann::json build_machine_model_from_small_kernels(
    const std::vector<std::pair<std::string, std::vector<SmallKernelPoint>>>& methods,
    const std::string& source) {
  nlohmann::json model = model_skeleton();
  model["device"] = {{"name", "imported curve: " + std::filesystem::path(source).filename().string()},
                     {"simulated", false}};
  model["simulated"] = false;
  std::size_t rows = 0;
  nlohmann::json& small = model["launch"]["small_kernels"];
  for (const auto& [method, points] : methods) {
    rows += points.size();
    try {
      small[method] = to_json(fit_small_kernels(points));
    } catch (const Error& e) {
      throw Error(source + ": method '" + method + "': " + e.what());
    }
  }
  model["launch"]["source"] = "imported from " + source + " (gpuprobe analyze --import-csv)";
  model["sources"] = {{{"file", source}, {"probe", "import-csv"}, {"curve", "small_kernels"}, {"rows", rows}}};
  model["metrics"] = build_metrics(model);
  return model;
}

nlohmann::json build_machine_model_from_bandwidth(const nlohmann::json& sweep, const std::string& key,
                                                  const std::string& source, int sm_count) {
  nlohmann::json model = model_skeleton();
  model["device"] = {{"name", "imported curve: " + std::filesystem::path(source).filename().string()},
                     {"simulated", false}};
  if (sm_count > 0) model["device"]["sm_count"] = sm_count;
  model["simulated"] = false;
  model["sources"] = {{{"file", source}, {"probe", "import-csv"}, {"curve", key},
                       {"rows", sweep.value("input_points", 0)}}};
  model["bandwidth"]["imported"] = {{"source", "imported from " + source + " (gpuprobe analyze --import-csv)"},
                                    {key, sweep}};
  add_roofline(model);
  model["metrics"] = build_metrics(model);
  return model;
}

nlohmann::json build_machine_model_from_intensity(const nlohmann::json& imported, const std::string& source,
                                                  int sm_count) {
  nlohmann::json model = model_skeleton();
  model["device"] = {{"name", "imported curve: " + std::filesystem::path(source).filename().string()},
                     {"simulated", false}};
  if (sm_count > 0) model["device"]["sm_count"] = sm_count;
  model["simulated"] = false;
  model["sources"] = {{{"file", source}, {"probe", "import-csv"}, {"curve", "intensity_sweep"},
                       {"rows", imported.value("points", 0)}}};
  model["compute"] = {{"imported", imported}};
  add_roofline(model);  // the sweep's FP32 and DRAM ceilings, so `gpuprobe roofline` reads them as is
  model["metrics"] = build_metrics(model);
  return model;
}

}  // namespace gpuprobe::analysis
