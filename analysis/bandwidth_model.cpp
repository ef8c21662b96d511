#include "analysis/bandwidth_model.hpp"

#include "analysis/metric_fields.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analysis/bandwidth_fit.hpp"
#include "analysis/datasheet.hpp"
#include "harness/error.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::analysis {
namespace {

using nlohmann::json;

double number(const json& p, const char* key) {
  return p.contains(key) && p[key].is_number() ? p[key].get<double>() : NAN;
}

// The SM clock of the run: the median of its points' clock readings.
double clock_mhz_of(const std::vector<const json*>& points) {
  std::vector<double> mhz;
  for (const json* p : points)
    if (double c = number(*p, "region_sm_clock_mhz"); c > 0) mhz.push_back(c);
  return mhz.empty() ? 0.0 : stats::median(mhz);
}

std::vector<const json*> sweep(const json& run, const std::string& name,
                               const std::string& kind = "") {
  std::vector<const json*> out;
  for (const auto& p : run.at("series")) {
    if (p.value("sweep", "") != name) continue;
    if (!kind.empty() && p.value("kind", "") != kind) continue;
    if (!(number(p, "bandwidth_bytes_per_s") > 0)) continue;
    out.push_back(&p);
  }
  return out;
}

json with_per_clk(double bytes_per_s, double clock_mhz, double sms) {
  if (!(clock_mhz > 0) || !(sms > 0)) return nullptr;
  return bytes_per_s / (clock_mhz * 1e6) / sms;
}

// The concurrency sweep: points with the same bytes in flight (different shapes) become their
// median, then fit_concurrency_sweep.
json concurrency_json(const std::vector<ConcurrencyPoint>& points, int sm_count, double clock_mhz) {
  std::map<double, std::vector<double>> by_in_flight;
  for (const auto& p : points) by_in_flight[p.bytes_in_flight_per_sm].push_back(p.bandwidth_bytes_per_s);
  std::vector<ConcurrencyPoint> curve;
  json raw = json::array();
  for (const auto& [x, bws] : by_in_flight) {
    if (!(x > 0)) continue;
    curve.push_back({x, stats::median(bws)});
    raw.push_back({{"bytes_in_flight_per_sm", x}, {"bandwidth_bytes_per_s", stats::median(bws)},
                   {"configurations", bws.size()}});
  }
  if (curve.size() < 3)
    throw Error("the concurrency sweep has " + std::to_string(curve.size()) +
                " distinct bytes-in-flight values; a fit needs 3");
  ConcurrencyFitOptions o;
  o.sm_count = sm_count;
  const ConcurrencyFit f = fit_concurrency_sweep(curve, o);
  // One fact, one number: the level's peak is what the sweep measured, the median of its top band
  // (the measured top), whatever the model says. The loaded-latency model's asymptote, where the
  // model reproduces the measured curve (run forwards, as the sweep ran: bytes in flight ->
  // bandwidth, rms within 3%), its peak is identified and lies within 25% above the measured top,
  // is kept as what it is, `asymptote_bytes_per_s`: an extrapolation, never the peak. The bytes in
  // flight for 90% of the peak come from that model at 0.9 x the measured top (Little's law), else
  // from the measured curve's crossing of it.
  const double model_rms = f.model.points > 0 ? f.model_rms_rel_bandwidth_residual : INFINITY;
  const bool use_model = model_rms <= 0.03 && f.model.peak_identified &&
                         f.model.peak_bandwidth_bytes_per_s >= f.peak_bandwidth_bytes_per_s &&
                         f.model.peak_bandwidth_bytes_per_s <= 1.25 * f.peak_bandwidth_bytes_per_s;
  json model = nullptr;
  if (f.model.points > 0)
    model = {{"unloaded_latency_ns", f.model.unloaded_latency_ns},
             {"queue_ns", f.model.queue_ns},
             {"peak_bandwidth_bytes_per_s", f.model.peak_bandwidth_bytes_per_s},
             {"peak_identified", f.model.peak_identified},
             {"rms_rel_residual", f.model.rms_rel_residual},
             {"bandwidth_rms_rel", std::isfinite(model_rms) ? json(model_rms) : json(nullptr)},
             {"confidence", f.model.confidence},
             {"formula", "latency(B) = unloaded + queue x B / (peak - B); B x latency = bytes in "
                         "flight (all SMs)"}};
  const double peak = f.peak_bandwidth_bytes_per_s;
  const double in_flight =
      use_model ? littles_law::bytes_in_flight_for(to_littles_law_ns(f.model),
                                                    o.fraction * peak / f.model.peak_bandwidth_bytes_per_s) /
                      sm_count
                : f.bytes_in_flight_per_sm;
  return {{"peak_bytes_per_s", peak},
          {"peak_bytes_per_clk_per_sm", with_per_clk(peak, clock_mhz, sm_count)},
          {"peak_from", "measured top"},
          {"asymptote_bytes_per_s", use_model ? json(f.model.peak_bandwidth_bytes_per_s) : json(nullptr)},
          {"bytes_in_flight_from", use_model ? "loaded-latency model" : "measured crossing"},
          {"measured_top_bytes_per_s", f.peak_bandwidth_bytes_per_s},
          {"measured_top_interval_bytes_per_s", {f.peak_lo_bytes_per_s, f.peak_hi_bytes_per_s}},
          {"still_rising", f.still_rising},
          {"bytes_in_flight_per_sm_for_90pct", in_flight},
          {"measured_crossing_bytes_in_flight_per_sm", f.bytes_in_flight_per_sm},
          {"measured_crossing_interval_per_sm",
           {f.bytes_in_flight_lo_per_sm, f.bytes_in_flight_hi_per_sm}},
          {"crossing_measured", f.crossing_measured},
          {"unloaded_latency_ns", f.unloaded_latency_ns > 0 ? json(f.unloaded_latency_ns) : json(nullptr)},
          {"loaded_latency", model},
          {"confidence", f.confidence},
          {"reasons", f.reasons},
          {"points", raw},
          {"clock_mhz", clock_mhz > 0 ? json(clock_mhz) : json(nullptr)}};
}

json concurrency_json(const std::vector<const json*>& points, int sm_count, double clock_mhz) {
  std::vector<ConcurrencyPoint> curve;
  for (const json* p : points)
    curve.push_back({number(*p, "bytes_in_flight_per_sm"), number(*p, "bandwidth_bytes_per_s")});
  return concurrency_json(curve, sm_count, clock_mhz);
}

// The footprint sweep, sorted by footprint, fitted by fit_footprint_sweep.
json footprint_json(std::vector<FootprintPoint> curve, const char* x_key,
                    const std::vector<std::string>& names, double clock_mhz, double sms) {
  std::sort(curve.begin(), curve.end(), [](const FootprintPoint& a, const FootprintPoint& b) {
    return a.footprint_bytes < b.footprint_bytes;
  });
  FootprintFitOptions o;
  o.level_names = names;
  const FootprintFit f = fit_footprint_sweep(curve, o);
  json levels = json::array();
  for (const auto& l : f.levels)
    levels.push_back({{"name", l.name},
                      {"bandwidth_bytes_per_s", l.bandwidth_bytes_per_s},
                      {"bandwidth_interval_bytes_per_s", {l.bandwidth_lo_bytes_per_s, l.bandwidth_hi_bytes_per_s}},
                      {"bytes_per_clk_per_sm", with_per_clk(l.bandwidth_bytes_per_s, clock_mhz, sms)},
                      {"ends_at_bytes", l.end_bytes > 0 ? json(l.end_bytes) : json(nullptr)},
                      {"ends_interval_bytes", {l.end_lo_bytes, l.end_hi_bytes}},
                      {"points", l.points},
                      {"confidence", l.confidence}});
  json xs = json::array(), ys = json::array();
  for (const auto& c : curve) {
    xs.push_back(c.footprint_bytes);
    ys.push_back(c.bandwidth_bytes_per_s);
  }
  return {{"x_name", x_key}, {"levels", levels}, {"reasons", f.reasons},
          {"x", xs}, {"bandwidth_bytes_per_s", ys},
          {"clock_mhz", clock_mhz > 0 ? json(clock_mhz) : json(nullptr)}};
}

json footprint_json(const std::vector<const json*>& points, const char* x_key,
                    const std::vector<std::string>& names, double clock_mhz, double sms) {
  std::vector<FootprintPoint> curve;
  for (const json* p : points) curve.push_back({number(*p, x_key), number(*p, "bandwidth_bytes_per_s")});
  return footprint_json(std::move(curve), x_key, names, clock_mhz, sms);
}

// Runs one fit: its JSON, or {"error": message} so that one failed fit keeps the others.
template <class F>
json fit_or_error(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return {{"error", e.what()}};
  }
}

// The level's loaded-latency curve (bandwidth.<level>.loaded_latency) comes from one of two
// sources: the contention probe's measured points, or, only when a level has none, the model the
// concurrency sweep derives (latency = bytes in flight x SMs / bandwidth). `source` says which.
constexpr const char* kMeasuredLoadedLatency = "bandwidth/loaded_latency";
constexpr const char* kDerivedLoadedLatency = "concurrency sweep";

void set_loaded_latency(json& level, json entry) {
  const bool measured = entry.value("source", "") == kMeasuredLoadedLatency;
  if (!measured && level.contains("loaded_latency") &&
      level["loaded_latency"].value("source", "") == kMeasuredLoadedLatency)
    return;   // measured points win, whichever run came first
  level["loaded_latency"] = std::move(entry);
}

// The derived curve: the concurrency fit's loaded-latency model, when it has one.
void derive_loaded_latency(json& level, const json& concurrency) {
  if (!concurrency.contains("loaded_latency") || concurrency["loaded_latency"].is_null()) return;
  json entry = concurrency["loaded_latency"];
  entry["source"] = kDerivedLoadedLatency;
  entry["method"] = "derived: latency = bytes in flight x SMs / bandwidth of the concurrency "
                    "sweep (no contention points for this level)";
  set_loaded_latency(level, std::move(entry));
}

// The measured curve of a bandwidth/loaded_latency run: its points with a bandwidth (the idle
// point is the chaser alone: reported, not fitted, as B = 0 has no place on a log grid of the
// peak) fitted by fit_loaded_latency; cycles through the run's SM clock.
json measured_loaded_latency(const std::vector<const json*>& points, double clock_mhz) {
  std::vector<LoadedLatencyPoint> curve;
  json raw = json::array();
  double idle_ns = NAN, idle_cycles = NAN;
  for (const json* p : points) {
    const double b = number(*p, "achieved_bandwidth_bytes_per_s");
    const double ns = number(*p, "latency_ns");
    raw.push_back({{"offered", p->value("offered", "")},
                   {"throttle_cycles", p->contains("throttle_cycles") ? (*p)["throttle_cycles"] : json(nullptr)},
                   {"achieved_bandwidth_bytes_per_s", std::isfinite(b) ? json(b) : json(nullptr)},
                   {"latency_ns", std::isfinite(ns) ? json(ns) : json(nullptr)},
                   {"latency_cycles", p->contains("latency_cycles") ? (*p)["latency_cycles"] : json(nullptr)},
                   {"streaming_sms", p->value("streaming_sms", 0)}});
    if (p->value("offered", "") == "idle") {
      idle_ns = ns;
      idle_cycles = number(*p, "latency_cycles");
    } else if (b > 0 && ns > 0) {
      curve.push_back({b, ns});
    }
  }
  std::sort(curve.begin(), curve.end(), [](const LoadedLatencyPoint& a, const LoadedLatencyPoint& b) {
    return a.bandwidth_bytes_per_s < b.bandwidth_bytes_per_s;
  });
  const LoadedLatencyFit f = fit_loaded_latency(curve);
  const auto cycles = [clock_mhz](double ns) {
    return clock_mhz > 0 ? json(ns * clock_mhz * 1e-3) : json(nullptr);
  };
  return {{"source", kMeasuredLoadedLatency},
          {"method", "a chase pinned to one SM while the other SMs stream at throttled rates"},
          {"unloaded_latency_ns", f.unloaded_latency_ns},
          {"unloaded_latency_cycles", cycles(f.unloaded_latency_ns)},
          {"queue_ns", f.queue_ns},
          {"queue_cycles", cycles(f.queue_ns)},
          {"peak_bandwidth_bytes_per_s", f.peak_bandwidth_bytes_per_s},
          {"peak_identified", f.peak_identified},
          {"rms_rel_residual", f.rms_rel_residual},
          {"confidence", f.confidence},
          {"idle_latency_ns", std::isfinite(idle_ns) ? json(idle_ns) : json(nullptr)},
          {"idle_latency_cycles", std::isfinite(idle_cycles) ? json(idle_cycles) : json(nullptr)},
          {"formula", "latency(B) = unloaded + queue x B / (peak - B), B the achieved bandwidth"},
          {"reasons", f.reasons},
          {"points", raw}};
}

}  // namespace

void add_bandwidth_from_run(const json& run, json& bandwidth) {
  const std::string probe = run.value("probe", "");
  const json& device = run.at("device");
  const int sms = device.value("sm_count", 0);
  std::vector<const json*> all;
  for (const auto& p : run.at("series")) all.push_back(&p);
  const double clock = clock_mhz_of(all);

  if (probe == "bandwidth/l1") {
    json& l1 = bandwidth["L1"];
    if (auto pts = sweep(run, "footprint"); !pts.empty())
      l1["footprint_sweep"] = fit_or_error([&] {
        return footprint_json(pts, "window_bytes_per_sm", {"L1", "L2", "DRAM"}, clock, sms);
      });
    if (auto pts = sweep(run, "concurrency"); !pts.empty())
      l1["concurrency"] = fit_or_error([&] { return concurrency_json(pts, sms, clock); });
  } else if (probe == "bandwidth/l2") {
    json& l2 = bandwidth["L2"];
    if (auto pts = sweep(run, "footprint"); !pts.empty()) {
      l2["footprint_sweep"] = fit_or_error([&] {
        // A split L2 shows three levels (near, far, DRAM), a whole one two.
        json fit = footprint_json(pts, "footprint_bytes", {"L2", "L2-far", "DRAM"}, clock, sms);
        if (fit["levels"].size() == 2) fit["levels"][1]["name"] = "DRAM";
        return fit;
      });
    }
    if (auto pts = sweep(run, "concurrency"); !pts.empty()) {
      l2["concurrency"] = fit_or_error([&] { return concurrency_json(pts, sms, clock); });
      derive_loaded_latency(l2, l2["concurrency"]);
    }
  } else if (probe == "bandwidth/dram") {
    json& dram = bandwidth["DRAM"];
    const auto sheet = datasheet_for(device.value("name", ""));
    for (const char* kind : {"read", "write", "copy"}) {
      json k = json::object();
      if (auto base = sweep(run, "base", kind); !base.empty()) {
        k["bandwidth_bytes_per_s"] = number(*base.front(), "bandwidth_bytes_per_s");
        // The base point's repeats and SM clock (null when the record has none).
        const json& b = *base.front();
        const double mhz = number(b, "region_sm_clock_mhz");
        k["repeats"] = b.contains("repeats") && b["repeats"].is_number_integer() ? b["repeats"] : json(nullptr);
        k["clock_mhz"] = mhz > 0 ? json(mhz) : json(nullptr);
      }
      if (auto pts = sweep(run, "concurrency", kind); !pts.empty()) {
        k["concurrency"] = fit_or_error([&] { return concurrency_json(pts, sms, clock); });
        if (sheet && sheet->dram_bytes_per_s > 0 && k["concurrency"].contains("measured_top_bytes_per_s"))
          k["percent_of_datasheet"] =
              100.0 * k["concurrency"]["measured_top_bytes_per_s"].get<double>() /
              sheet->dram_bytes_per_s;
      }
      if (!k.empty()) dram[kind] = k;
      if (std::string(kind) == "read" && k.contains("concurrency"))
        derive_loaded_latency(dram, k["concurrency"]);
    }
    if (sheet && sheet->dram_bytes_per_s > 0)
      dram["datasheet"] = {{"gpu", sheet->gpu}, {"bytes_per_s", sheet->dram_bytes_per_s},
                           {"source", sheet->source}};
  } else if (probe == "bandwidth/shared") {
    json& shared = bandwidth["shared"];
    if (auto pts = sweep(run, "stride"); !pts.empty()) shared["bank_conflicts"] = fit_or_error([&] {
      std::vector<StridePoint> strides;
      int word_bytes = 4;
      for (const json* p : pts) {
        strides.push_back({p->value("stride_elems", 0), number(*p, "bytes_per_clk_per_sm")});
        word_bytes = p->value("vec_bytes", 4);
      }
      std::sort(strides.begin(), strides.end(), [](const StridePoint& a, const StridePoint& b) {
        return a.stride_elements < b.stride_elements;
      });
      BankConflictOptions o;
      o.word_bytes = word_bytes;
      const BankConflictFit f = fit_bank_conflicts(strides, o);
      json per = json::array();
      for (const auto& s : f.strides)
        per.push_back({{"stride_elems", s.stride_elements}, {"slowdown", s.measured_slowdown},
                       {"degree", s.degree}, {"wavefronts", s.wavefronts}, {"verdict", s.verdict}});
      return json{{"word_bytes", word_bytes},
                                  {"peak_bytes_per_clk_per_sm", f.peak_bytes_per_cycle_per_sm},
                                  {"strides", per},
                                  {"confidence", f.confidence},
                                  {"reasons", f.reasons}};
    });
    if (auto pts = sweep(run, "concurrency"); !pts.empty())
      shared["concurrency"] = fit_or_error([&] { return concurrency_json(pts, sms, clock); });
  } else if (probe == "bandwidth/loaded_latency") {
    std::map<std::string, std::vector<const json*>> by_level;
    for (const auto& p : run.at("series"))
      if (p.value("sweep", "") == "loaded_latency") by_level[p.value("level", "")].push_back(&p);
    if (by_level.empty()) throw Error("bandwidth/loaded_latency: the run has no points");
    for (const auto& [level, pts] : by_level) {
      json entry = fit_or_error([&] { return measured_loaded_latency(pts, clock); });
      if (entry.contains("error")) entry["source"] = kMeasuredLoadedLatency;
      set_loaded_latency(bandwidth[level], std::move(entry));
    }
  } else {
    throw Error("not a bandwidth probe: " + probe);
  }
}

// --- imported curves (gpuprobe analyze --import-csv) ------------------------------------------

namespace {

// A curve of more than kMaxFootprintFitPoints points is kept as its bins (bin_log_x), so that the
// model stays small and the fit's cost does not grow with the row count; as
// memory.paths.imported.curve does for latency (docs/ANALYSIS.md, "CSV format").
template <class P>
std::vector<P> binned(const std::vector<P>& points, double P::*x_of, json& entry) {
  std::vector<P> sorted = points;
  std::stable_sort(sorted.begin(), sorted.end(), [&](const P& a, const P& b) { return a.*x_of < b.*x_of; });
  std::vector<double> x, y;
  for (const P& p : sorted) {
    x.push_back(p.*x_of);
    y.push_back(p.bandwidth_bytes_per_s);
  }
  const double octaves = bin_log_x(x, y, kMaxFootprintFitPoints);
  entry["input_points"] = points.size();
  entry["binned"] = nullptr;
  if (octaves == 0) return sorted;
  entry["binned"] = {{"bin_octaves", octaves}, {"statistic", "median"}, {"points", x.size()}};
  std::vector<P> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    out[i].*x_of = x[i];
    out[i].bandwidth_bytes_per_s = y[i];
  }
  return out;
}

}  // namespace

json imported_footprint_sweep(const std::vector<FootprintPoint>& points, const std::string& first_level,
                              bool last_is_memory, int sm_count, double clock_mhz) {
  if (first_level != "L1" && first_level != "L2")
    throw Error("the first level of a footprint sweep is L1 or L2, not '" + first_level + "'");
  json extra = json::object();
  const auto curve = binned(points, &FootprintPoint::footprint_bytes, extra);
  // The caches in order from the first level; the last level is main memory unless the sweep
  // stopped inside a cache (--ends-in cache), as for an imported latency curve.
  const std::vector<std::string> names = first_level == "L2" ? std::vector<std::string>{"L2", "L2-far", "L3"}
                                                             : std::vector<std::string>{"L1", "L2", "L2-far", "L3"};
  json fit = footprint_json(curve, "footprint_bytes", names, clock_mhz, sm_count);
  if (last_is_memory && fit["levels"].size() >= 2) fit["levels"].back()["name"] = "DRAM";
  fit.update(extra);
  return fit;
}

json imported_concurrency_sweep(const std::vector<ConcurrencyPoint>& points, int sm_count, double clock_mhz) {
  json extra = json::object();
  const auto curve = binned(points, &ConcurrencyPoint::bytes_in_flight_per_sm, extra);
  json fit = concurrency_json(curve, sm_count, clock_mhz);
  fit.update(extra);
  return fit;
}

namespace {

// The probe behind a model key ("bandwidth.L2.concurrency.peak_bytes_per_s" -> bandwidth/l2).
std::string bandwidth_probe(const std::string& source) {
  for (const auto& [key, probe] : std::initializer_list<std::pair<const char*, const char*>>{
           {"bandwidth.L1.", "bandwidth/l1"}, {"bandwidth.L2.", "bandwidth/l2"},
           {"bandwidth.DRAM.", "bandwidth/dram"}, {"bandwidth.shared.", "bandwidth/shared"}})
    if (source.rfind(key, 0) == 0) return probe;
  return "";  // imported
}

// The object a roofline memory source names: a concurrency fit ("...concurrency.peak_bytes_per_s"),
// a footprint level ("...footprint_sweep.levels[L2]") or a DRAM kind; nullptr if it cannot be found.
// `clock` becomes the SM clock of the fit (a footprint level's: its sweep's), or null.
const json* source_object(const json& model, const std::string& source, json& clock) {
  clock = nullptr;
  std::string path = source.substr(0, source.find(' '));
  std::string level;
  if (const auto b = path.find(".levels["); b != std::string::npos) {
    level = path.substr(b + 8, path.size() - b - 9);
    path = path.substr(0, b);
  } else if (const auto dot = path.rfind('.'); dot != std::string::npos) {
    path = path.substr(0, dot);  // the key holding the number
  }
  const json* j = &model;
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto end = path.find('.', start);
    const std::string k = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!j->is_object() || !j->contains(k)) return nullptr;
    j = &(*j)[k];
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (j->is_object()) clock = clock_of(j->value("clock_mhz", json()));
  if (level.empty()) return j;
  if (!j->contains("levels") || !(*j)["levels"].is_array()) return nullptr;
  for (const auto& l : (*j)["levels"])
    if (l.is_object() && l.value("name", json()) == level) return &l;
  return nullptr;
}

void level_metrics(const json& model, const json& roofline, const MetricSink& add) {
  const auto t_sheet = model_datasheet(model);
  const json* bw = at(model, {"bandwidth"});
  // Cache levels and shared: the roofline's ceilings (concurrency peak, else a footprint plateau).
  for (const std::string level : {"L1", "shared", "L2", "L2-far"}) {
    const json* m = at(roofline, {"memory", level});
    if (!m) continue;
    const std::string source = text(m, "source");
    json clock;
    const json* o = source_object(model, source, clock);
    const std::string probe = bandwidth_probe(source);
    add({"bandwidth." + level + ".bytes_per_s", level + " bandwidth", num(m, "bytes_per_s"),
           "bytes/s", "higher", true, "the roofline's " + level + " ceiling, from " + source, probe,
           fit_samples(o), num(o, "confidence"), clock});
  }
  // DRAM per kind: the concurrency sweep's peak, its measured top (the roofline's DRAM ceiling
  // for read), else the base point (difference of n and 4n passes, median over repeats).
  const json* dram = bw ? at(*bw, {"DRAM"}) : nullptr;
  const json* sheet_dram = dram ? at(*dram, {"datasheet"}) : nullptr;
  json sheet = nullptr;
  if (sheet_dram) sheet = sheet_entry(num(sheet_dram, "bytes_per_s").is_number() ? (*sheet_dram)["bytes_per_s"].get<double>() : 0,
                                      "bytes/s", text(sheet_dram, "source"));
  else if (t_sheet) sheet = sheet_entry(t_sheet->dram_bytes_per_s, "bytes/s", t_sheet->source);
  bool any_dram = false;
  for (const std::string kind : {"read", "write", "copy"}) {
    const json* k = dram ? at(*dram, {kind}) : nullptr;
    if (!k) continue;
    const json* conc = at(*k, {"concurrency"});
    if (conc && conc->contains("error")) conc = nullptr;
    if (conc && num(conc, "peak_bytes_per_s").is_number()) {
      add({"bandwidth.DRAM." + kind + "_bytes_per_s", "DRAM " + kind + " bandwidth",
           num(conc, "peak_bytes_per_s"), "bytes/s", "higher", true,
           "bandwidth/dram " + kind + " concurrency sweep: measured top (median of its top band)",
           "bandwidth/dram", fit_samples(conc), num(conc, "confidence"),
           clock_of(conc->value("clock_mhz", json())), sheet});
    } else if (const json base = num(k, "bandwidth_bytes_per_s"); base.is_number()) {
      add({"bandwidth.DRAM." + kind + "_bytes_per_s", "DRAM " + kind + " bandwidth", base, "bytes/s",
             "higher", true, "bandwidth/dram " + kind + " base point: difference of n and 4n passes, median over repeats",
             "bandwidth/dram", num(k, "repeats"), nullptr, clock_of(k->value("clock_mhz", json())), sheet});
    } else {
      continue;
    }
    any_dram = true;
  }
  // An imported curve's DRAM plateau: the roofline's DRAM ceiling.
  if (!any_dram)
    if (const json* m = at(roofline, {"memory", "DRAM"})) {
      const std::string source = text(m, "source");
      json clock;
      const json* o = source_object(model, source, clock);
      add({"bandwidth.DRAM.read_bytes_per_s", "DRAM read bandwidth", num(m, "bytes_per_s"), "bytes/s",
             "higher", true, "the roofline's DRAM ceiling, from " + source, bandwidth_probe(source), fit_samples(o),
             num(o, "confidence"), clock, sheet});
    }
  // Bytes in flight per SM for 90% of the peak, from each level's concurrency fit (DRAM: read).
  if (!bw) return;
  for (const auto& [level, keys, probe] : std::initializer_list<std::tuple<std::string, std::vector<std::string>, std::string>>{
           {"L1", {"L1", "concurrency"}, "bandwidth/l1"},
           {"shared", {"shared", "concurrency"}, "bandwidth/shared"},
           {"L2", {"L2", "concurrency"}, "bandwidth/l2"},
           {"DRAM", {"DRAM", "read", "concurrency"}, "bandwidth/dram"}}) {
    const json* c = bw;
    for (const auto& k : keys) c = c ? at(*c, {k}) : nullptr;
    if (!c || c->contains("error")) continue;
    const bool model_fit = text(c, "bytes_in_flight_from") == "loaded-latency model" ||
                           text(c, "peak_from") == "loaded-latency model";  // a model written before
    add({"bandwidth." + level + ".bytes_in_flight_per_sm_for_90pct_bytes",
           level + " bytes in flight per SM for 90% of the peak", num(c, "bytes_in_flight_per_sm_for_90pct"), "bytes",
           "lower", false,
           std::string(probe) + " concurrency sweep: " +
               (model_fit ? "Little's law on the fitted loaded-latency model at 90% of the measured top"
                          : "where the measured curve crosses 90% of its top"),
           probe, fit_samples(c), num(c, "confidence"), clock_of(c->value("clock_mhz", json()))});
  }
}

// Little's law per level: the unloaded chase latency x the level's bandwidth ceiling / SMs.
void littles_law_metrics(const json& model, const json& roofline, const MetricSink& add) {
  const double sm_count = model_sm_count(model);
  if (!(sm_count > 0)) return;
  for (const std::string level : {"L1", "shared", "L2", "L2-far", "DRAM"}) {
    const json* m = at(roofline, {"memory", level});
    if (!m) continue;
    json ns = nullptr;
    std::string latency_from;
    if (level == "shared") {
      const json* s = at(model, {"memory", "shared"});
      if (s) ns = num(s, "latency_ns");
      latency_from = "memory.shared.latency_ns";
    } else if (const json* levels = at(model, {"memory", "levels"}); levels && levels->is_array()) {
      for (const auto& l : *levels)
        if (l.is_object() && l.value("name", json()) == level) ns = num(&l, "latency_ns");
      latency_from = "memory.levels[" + level + "].latency_ns";
    }
    const json bw = num(m, "bytes_per_s");
    if (!ns.is_number() || !bw.is_number()) continue;
    add({"bandwidth." + level + ".littles_law_bytes_in_flight_per_sm_bytes",
           level + " bytes in flight per SM to sustain its bandwidth at the unloaded latency",
           ns.get<double>() * 1e-9 * bw.get<double>() / sm_count, "bytes", "lower", false,
           "derived, Little's law: " + latency_from + " (unloaded chase) x the roofline's " + level +
               " ceiling (" + text(m, "source") + ") / device.sm_count",
           "", nullptr, nullptr, nullptr});
  }
}


}  // namespace

void bandwidth_metrics(const json& model, const MetricSink& add) {
  const json roofline = model.contains("roofline") && model["roofline"].is_object() ? model["roofline"] : json::object();
  level_metrics(model, roofline, add);
  littles_law_metrics(model, roofline, add);
}

}  // namespace gpuprobe::analysis
