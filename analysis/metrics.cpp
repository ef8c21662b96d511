#include "analysis/metrics.hpp"

#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "analysis/datasheet.hpp"
#include "analysis/provenance.hpp"
#include "harness/error.hpp"
#include "harness/results.hpp"
#include "analysis/roofline.hpp"

namespace gpuprobe::analysis {
namespace {

using json = nlohmann::json;

// The instruction paths of the tensor probes (their ops share the compute section).
bool tensor_path(const std::string& path) { return path == "mma.sync" || path == "wgmma" || path == "tcgen05"; }

std::string tensor_probe(const std::string& path) {
  return path == "mma.sync" ? "tensor/mma" : "tensor/" + path;
}

// doc[k0][k1]... when every step is an object holding the key, else nullptr.
const json* at(const json& doc, std::initializer_list<std::string> keys) {
  const json* j = &doc;
  for (const auto& k : keys) {
    if (!j->is_object() || !j->contains(k)) return nullptr;
    j = &(*j)[k];
  }
  return j;
}

// A finite number at obj[key] as JSON, else null (absent, null, text, NaN: unknown).
json num(const json* obj, const std::string& key) {
  if (!obj || !obj->is_object() || !obj->contains(key)) return nullptr;
  const json& v = (*obj)[key];
  if (!v.is_number() || !std::isfinite(v.get<double>())) return nullptr;
  return v;
}

// A positive clock or null.
json clock_of(const json& v) { return v.is_number() && v.get<double>() > 0 ? v : json(nullptr); }

// The size of an array at obj[key], or null.
json count(const json* obj, const std::string& key) {
  if (!obj || !obj->is_object() || !obj->contains(key) || !(*obj)[key].is_array()) return nullptr;
  return (*obj)[key].size();
}

std::string text(const json* obj, const std::string& key, const std::string& fallback = "") {
  return obj && obj->is_object() && obj->contains(key) && (*obj)[key].is_string() ? (*obj)[key].get<std::string>()
                                                                                 : fallback;
}

// An id part: letters, digits, '_' and '-' kept, anything else '_' (the '.' separates parts).
std::string part(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_';
  return out;
}

// "FIGURES §1 D [HPCTECH]" -> "FIGURES.md §1 D [HPCTECH]" (the document the key is in).
std::string figures(std::string source) {
  if (source.rfind("FIGURES ", 0) == 0) source.replace(0, 7, "FIGURES.md");
  return source;
}

struct Metric {
  std::string id, family, label;
  json value;
  std::string unit, better;
  bool ceiling = false;
  std::string method;
  std::string probe;  // "" = derived, or imported: null
  json samples, confidence, clock_mhz;
};

class Table {
 public:
  explicit Table(const json& model) {
    simulated_ = model.value("simulated", false) == true;
    const json* device = at(model, {"device"});
    if (const json n = num(device, "sm_count"); n.is_number() && n.get<double>() > 0) sm_count_ = n.get<double>();
    sheet_ = datasheet_for(text(device, "name"));
    // Which probes' records all passed their self-check (model.sources[].self_check).
    if (const json* sources = at(model, {"sources"}); sources && sources->is_array())
      for (const auto& s : *sources)
        if (s.is_object() && s.value("self_check", json()) == "passed" && s.value("probe", json()).is_string())
          self_checked_.push_back(s["probe"].get<std::string>());
  }

  const std::optional<DatasheetPeak>& sheet() const { return sheet_; }
  double sm_count() const { return sm_count_; }

  // The probe's source entry said its records passed the on-GPU self-check.
  bool self_checked(const std::string& probe) const {
    for (const auto& p : self_checked_)
      if (p == probe) return true;
    return false;
  }

  // `datasheet`: {value, unit, source} of the published figure, or null; add() puts the percent.
  void add(Metric m, json datasheet_figure = nullptr) {
    json per = nullptr;
    const char* per_unit = m.unit == "bytes/s" ? "bytes/clk/SM" : m.unit == "flop/s" ? "flop/clk/SM"
                           : m.unit == "ops/s" ? "ops/clk/SM" : nullptr;
    if (per_unit && m.value.is_number() && m.clock_mhz.is_number() && sm_count_ > 0)
      per = {{"value", m.value.get<double>() / (m.clock_mhz.get<double>() * 1e6) / sm_count_}, {"unit", per_unit}};
    json datasheet = nullptr;
    if (datasheet_figure.is_object() && datasheet_figure["value"].is_number() &&
        datasheet_figure["value"].get<double>() > 0) {
      datasheet = datasheet_figure;
      datasheet["percent"] = m.value.is_number()
                                 ? json(100.0 * m.value.get<double>() / datasheet_figure["value"].get<double>())
                                 : json(nullptr);
    }
    json checks = json::array();
    const bool measured = !simulated_;
    if (!m.probe.empty())
      for (const auto& c : checks_for(m.probe))
        if (c != "gpu-self-check" || (measured && self_checked(m.probe))) checks.push_back(c);
    out_.push_back({{"id", m.id},
                    {"family", m.family},
                    {"label", m.label},
                    {"value", m.value},
                    {"unit", m.unit},
                    {"better", m.better},
                    {"ceiling", m.ceiling},
                    {"method", m.method},
                    {"probe", m.probe.empty() ? json(nullptr) : json(m.probe)},
                    {"samples", m.samples},
                    {"confidence", m.confidence},
                    {"clock_mhz", m.clock_mhz},
                    {"source", simulated_ ? "simulated" : "measured"},
                    {"checks", checks},
                    {"citation", nullptr},
                    {"per_sm_per_clock", per},
                    {"datasheet", datasheet}});
  }

  json take() { return std::move(out_); }

 private:
  bool simulated_ = false;
  double sm_count_ = 0;
  std::optional<DatasheetPeak> sheet_;
  std::vector<std::string> self_checked_;
  json out_ = json::array();
};

json sheet_entry(double value, const char* unit, const std::string& source) {
  if (!(value > 0)) return nullptr;
  return {{"value", value}, {"unit", unit}, {"source", figures(source)}};
}

// --- memory -----------------------------------------------------------------------------------

void memory_metrics(const json& model, Table& t) {
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
      t.add({"memory." + part(name) + ".latency_cycles", "memory", name + " load-to-use latency",
             num(&l, "latency_cycles"), "cycles", "lower", false,
             how + ": hierarchy fit, median of the plateau's stable part", probe, samples, conf, clock});
      t.add({"memory." + part(name) + ".latency_ns", "memory", name + " load-to-use latency",
             num(&l, "latency_ns"), "ns", "lower", false,
             how + ": the level's cycles at the curve's SM clock (null when no clock is known)", probe, samples,
             conf, clock});
      if (l.contains("capacity_bytes") && l["capacity_bytes"].is_number())
        t.add({"memory." + part(name) + ".capacity_bytes", "memory", name + " capacity", num(&l, "capacity_bytes"),
               "bytes", "higher", false, how + ": hierarchy fit, where the level's plateau ends", probe, samples,
               conf, clock});
    }
  }
  if (const json* s = at(*mem, {"shared"}); s && !s->contains("error")) {
    const json clock_s = clock_of(s->value("clock_mhz", json()));
    t.add({"memory.shared.latency_cycles", "memory", "shared-memory load-to-use latency",
           num(s, "latency_cycles"), "cycles", "lower", false,
           "memory/chase_shared: median over the footprints of the ld.shared chase", "memory/chase_shared",
           num(s, "points"), nullptr, clock_s});
    t.add({"memory.shared.latency_ns", "memory", "shared-memory load-to-use latency",
           num(s, "latency_ns"), "ns", "lower", false,
           "memory/chase_shared: the cycles at the run's SM clock (null when no clock is known)",
           "memory/chase_shared", num(s, "points"), nullptr, clock_s});
  }
  if (const json* tlb = at(*mem, {"tlb"}); tlb && tlb->contains("levels") && (*tlb)["levels"].is_array()) {
    const json clock_t = clock_of(tlb->contains("curve") ? (*tlb)["curve"].value("clock_mhz", json()) : json());
    for (const auto& l : (*tlb)["levels"]) {
      const std::string name = text(&l, "name");
      if (name.empty()) continue;
      t.add({"memory." + part(name) + ".reach_bytes", "memory", name + " reach", num(&l, "reach_bytes"), "bytes",
             "higher", false, "memory/tlb: latency against span, one hop per page; where the step begins",
             "memory/tlb", nullptr, num(&l, "confidence"), clock_t});
      t.add({"memory." + part(name) + ".miss_cost_cycles", "memory", name + " miss cost",
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
      t.add({"memory." + name + ".sm_spread_cycles", "memory", name + " latency spread over the SMs",
             num(s, "spread_cycles"), "cycles", "lower", false,
             "memory/chase --sm all: slowest minus fastest SM's " + name + " latency", "memory/chase",
             count(map, "sms"), nullptr, nullptr});
    }
  }
}

// --- bandwidth --------------------------------------------------------------------------------

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

// The samples behind a fitted bandwidth: a concurrency fit's distinct bytes-in-flight points, a
// footprint level's points.
json fit_samples(const json* o) {
  if (!o) return nullptr;
  if (o->contains("points") && (*o)["points"].is_array()) return (*o)["points"].size();
  return num(o, "points");
}

void bandwidth_metrics(const json& model, const json& roofline, Table& t) {
  const json* bw = at(model, {"bandwidth"});
  // Cache levels and shared: the roofline's ceilings (concurrency peak, else a footprint plateau).
  for (const std::string level : {"L1", "shared", "L2", "L2-far"}) {
    const json* m = at(roofline, {"memory", level});
    if (!m) continue;
    const std::string source = text(m, "source");
    json clock;
    const json* o = source_object(model, source, clock);
    const std::string probe = bandwidth_probe(source);
    t.add({"bandwidth." + level + ".bytes_per_s", "bandwidth", level + " bandwidth", num(m, "bytes_per_s"),
           "bytes/s", "higher", true, "the roofline's " + level + " ceiling, from " + source, probe,
           fit_samples(o), num(o, "confidence"), clock});
  }
  // DRAM per kind: the base point (difference of n and 4n passes, median over repeats), else the
  // concurrency fit's peak.
  const json* dram = bw ? at(*bw, {"DRAM"}) : nullptr;
  const json* sheet_dram = dram ? at(*dram, {"datasheet"}) : nullptr;
  json sheet = nullptr;
  if (sheet_dram) sheet = sheet_entry(num(sheet_dram, "bytes_per_s").is_number() ? (*sheet_dram)["bytes_per_s"].get<double>() : 0,
                                      "bytes/s", text(sheet_dram, "source"));
  else if (t.sheet()) sheet = sheet_entry(t.sheet()->dram_bytes_per_s, "bytes/s", t.sheet()->source);
  bool any_dram = false;
  for (const std::string kind : {"read", "write", "copy"}) {
    const json* k = dram ? at(*dram, {kind}) : nullptr;
    if (!k) continue;
    const json* conc = at(*k, {"concurrency"});
    if (conc && conc->contains("error")) conc = nullptr;
    if (const json base = num(k, "bandwidth_bytes_per_s"); base.is_number()) {
      t.add({"bandwidth.DRAM." + kind + "_bytes_per_s", "bandwidth", "DRAM " + kind + " bandwidth", base, "bytes/s",
             "higher", true, "bandwidth/dram " + kind + " base point: difference of n and 4n passes, median over repeats",
             "bandwidth/dram", num(k, "repeats"), nullptr, clock_of(k->value("clock_mhz", json()))}, sheet);
    } else if (conc) {
      t.add({"bandwidth.DRAM." + kind + "_bytes_per_s", "bandwidth", "DRAM " + kind + " bandwidth",
             num(conc, "peak_bytes_per_s"), "bytes/s", "higher", true,
             "bandwidth/dram " + kind + " concurrency sweep: peak (" + text(conc, "peak_from", "measured top") + ")",
             "bandwidth/dram", fit_samples(conc), num(conc, "confidence"),
             clock_of(conc->value("clock_mhz", json()))},
            sheet);
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
      t.add({"bandwidth.DRAM.read_bytes_per_s", "bandwidth", "DRAM read bandwidth", num(m, "bytes_per_s"), "bytes/s",
             "higher", true, "the roofline's DRAM ceiling, from " + source, bandwidth_probe(source), fit_samples(o),
             num(o, "confidence"), clock}, sheet);
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
    const bool model_fit = text(c, "peak_from") == "loaded-latency model";
    t.add({"bandwidth." + level + ".bytes_in_flight_per_sm_for_90pct_bytes", "bandwidth",
           level + " bytes in flight per SM for 90% of the peak", num(c, "bytes_in_flight_per_sm_for_90pct"), "bytes",
           "lower", false,
           std::string(probe) + " concurrency sweep: " +
               (model_fit ? "Little's law on the fitted loaded-latency model at 90% of its peak"
                          : "where the measured curve crosses 90% of its top"),
           probe, fit_samples(c), num(c, "confidence"), clock_of(c->value("clock_mhz", json()))});
  }
}

// Little's law per level: the unloaded chase latency x the level's bandwidth ceiling / SMs.
void littles_law_metrics(const json& model, const json& roofline, Table& t) {
  if (!(t.sm_count() > 0)) return;
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
    t.add({"bandwidth." + level + ".littles_law_bytes_in_flight_per_sm_bytes", "bandwidth",
           level + " bytes in flight per SM to sustain its bandwidth at the unloaded latency",
           ns.get<double>() * 1e-9 * bw.get<double>() / t.sm_count(), "bytes", "lower", false,
           "derived, Little's law: " + latency_from + " (unloaded chase) x the roofline's " + level +
               " ceiling (" + text(m, "source") + ") / device.sm_count",
           "", nullptr, nullptr, nullptr});
  }
}

// --- compute and tensor -----------------------------------------------------------------------

// The published peak an op's FLOP/s compares with: FP32/FP64 FMA, or the dense tensor-core peak of
// a native tensor form.
json op_datasheet(const json& o, const std::optional<DatasheetPeak>& sheet, bool tensor) {
  if (!sheet) return nullptr;
  const std::string precision = text(&o, "precision");
  if (tensor) {
    if (text(&o, "implementation", "native").rfind("native", 0) != 0) return nullptr;
    return sheet_entry(tensor_peak_flops_per_s(*sheet, precision), "flop/s", sheet->tensor_source);
  }
  if (precision == "f32" || precision == "f32x2") return sheet_entry(sheet->fp32_flops_per_s, "flop/s", sheet->compute_source);
  if (precision == "f64") return sheet_entry(sheet->fp64_flops_per_s, "flop/s", sheet->compute_source);
  return nullptr;
}

void compute_metrics(const json& model, const json& roofline, Table& t) {
  const json* ops = at(model, {"compute", "ops"});
  if (ops && ops->is_object()) {
    for (auto it = ops->begin(); it != ops->end(); ++it) {
      const json& o = it.value();
      if (!o.is_object()) continue;
      const std::string path = text(&o, "path");
      const bool tensor = tensor_path(path);
      const std::string family = tensor ? "tensor" : "compute";
      const std::string probe = tensor ? tensor_probe(path) : "compute/alu";
      const std::string op = it.key(), id = family + "." + part(op);
      const std::string impl = text(&o, "implementation", "native");
      const std::string what = probe + " " + op + " (" + text(&o, "ptx", path) + ", " + impl + ")";
      const json clock = clock_of(o.value("clock_mhz", json()));
      const json lat_repeats = num(&o, "latency_repeats"), thr_repeats = num(&o, "throughput_repeats");
      if (o.contains("latency_cycles"))
        t.add({id + ".latency_cycles", family, op + " latency", num(&o, "latency_cycles"), "cycles", "lower", false,
               what + ": one dependent chain, median over repeats of the median warp's cycles per op", probe,
               lat_repeats, nullptr, clock_of(o.value("latency_clock_mhz", json()))});
      if (!tensor && o.contains("ops_per_s"))
        t.add({id + ".ops_per_s", family, op + " throughput", num(&o, "ops_per_s"), "ops/s", "higher", true,
               what + ": independent chains on every SM, median SM's ops per clock x SMs x clock", probe,
               thr_repeats, nullptr, clock});
      if (o.contains("flops_per_s"))
        t.add({id + ".flops_per_s", family, op + " FLOP rate", num(&o, "flops_per_s"), "flop/s", "higher", !tensor,
               what + (tensor ? ": random operands, independent accumulators on every SM, median SM x SMs x clock"
                              : ": FMA = 2 FLOP, independent chains on every SM, median SM x SMs x clock"),
               probe, thr_repeats, nullptr, clock}, op_datasheet(o, t.sheet(), tensor));
    }
  }
  // tensor.<precision>: the best native tensor path per precision (the roofline's ceiling when a
  // tensor path is the best one).
  const json* compute = at(roofline, {"compute"});
  if (!compute || !compute->is_object()) return;
  for (auto it = compute->begin(); it != compute->end(); ++it) {
    const json* paths = at(it.value(), {"paths"});
    if (!paths || !paths->is_object()) continue;
    std::string best_path;
    double best = 0;
    for (auto p = paths->begin(); p != paths->end(); ++p)
      if (tensor_path(p.key()) && num(&p.value(), "flops_per_s").is_number() &&
          p.value()["flops_per_s"].get<double>() > best) {
        best = p.value()["flops_per_s"].get<double>();
        best_path = p.key();
      }
    if (best_path.empty()) continue;
    const std::string op = text(&(*paths)[best_path], "op");
    const json* o = ops ? at(*ops, {op}) : nullptr;
    const std::string precision = it.key();
    t.add({"tensor." + part(precision) + ".flops_per_s", "tensor", precision + " tensor-core peak", best, "flop/s",
           "higher", true,
           "the best native tensor op of " + precision + ": " + op + " (" + best_path + "), random operands",
           tensor_probe(best_path), o ? num(o, "throughput_repeats") : json(nullptr), nullptr,
           o ? clock_of(o->value("clock_mhz", json())) : json(nullptr)},
          t.sheet() ? sheet_entry(tensor_peak_flops_per_s(*t.sheet(), precision), "flop/s", t.sheet()->tensor_source)
                     : json(nullptr));
  }
}

// Ridge points: each precision's compute ceiling / each memory level's ceiling.
void ridge_metrics(const json& roofline, Table& t) {
  const json* compute = at(roofline, {"compute"});
  if (!compute || !compute->is_object()) return;
  for (auto it = compute->begin(); it != compute->end(); ++it) {
    const json* ridges = at(it.value(), {"ridge_points"});
    if (!ridges || !ridges->is_object()) continue;
    for (auto r = ridges->begin(); r != ridges->end(); ++r)
      t.add({"roofline." + part(it.key()) + ".ridge_" + part(r.key()) + "_flop_per_byte", "roofline",
             it.key() + " ridge point against " + r.key(), num(&r.value(), "flop_per_byte"), "flop/byte", "lower",
             false,
             "derived: the roofline's " + it.key() + " ceiling (" + text(&it.value(), "op", "imported") + ", " +
                 text(&it.value(), "path") + ") / its " + r.key() + " ceiling",
             "", nullptr, nullptr, nullptr});
  }
}

// --- sync, atomics, async, launch, goodput ----------------------------------------------------

void sync_metrics(const json& model, Table& t) {
  const json* ops = at(model, {"sync", "ops"});
  if (!ops || !ops->is_object()) return;
  for (auto it = ops->begin(); it != ops->end(); ++it) {
    const json& o = it.value();
    const std::string op = it.key(), id = "sync." + part(op);
    const std::string what = "sync/primitives " + op + " (" + text(&o, "ptx") + ", per " + text(&o, "unit") + ")";
    if (o.contains("latency_cycles"))
      t.add({id + ".latency_cycles", "sync", op + " latency", num(&o, "latency_cycles"), "cycles", "lower", false,
             what + ": median over repeats of the median warp's cycles per op" +
                 (o.contains("latency_at") ? " at its smallest launch " + o["latency_at"].dump() : std::string()),
             "sync/primitives", num(&o, "latency_repeats"), nullptr, clock_of(o.value("latency_clock_mhz", json()))});
    const json clock = clock_of(o.value("clock_mhz", json())), repeats = num(&o, "throughput_repeats");
    if (o.contains("ops_per_s"))
      t.add({id + ".ops_per_s", "sync", op + " throughput", num(&o, "ops_per_s"), "ops/s", "higher", true,
             what + ": median SM's ops per clock x SMs x clock", "sync/primitives", repeats, nullptr, clock});
    if (o.contains("bytes_per_s"))
      t.add({id + ".bytes_per_s", "sync", op + " bandwidth", num(&o, "bytes_per_s"), "bytes/s", "higher", true,
             what + ": 8 bytes per load, median SM x SMs x clock", "sync/primitives", repeats, nullptr, clock});
  }
}

void atomics_metrics(const json& model, Table& t) {
  const json* ops = at(model, {"atomics", "ops"});
  if (!ops || !ops->is_object()) return;
  for (auto it = ops->begin(); it != ops->end(); ++it) {
    const json* patterns = at(it.value(), {"patterns"});
    if (!patterns || !patterns->is_object()) continue;
    const std::string op = it.key();
    const std::string what = "atomics/ops " + op + " (" + text(&it.value(), "ptx") + ", " +
                             text(&it.value(), "lowering") + ")";
    for (auto p = patterns->begin(); p != patterns->end(); ++p) {
      const json& a = p.value();
      const std::string id = "atomics." + part(op) + "." + part(p.key());
      if (a.contains("latency_cycles"))
        t.add({id + ".latency_cycles", "atomics", op + " " + p.key() + " latency", num(&a, "latency_cycles"),
               "cycles", "lower", false, what + ", lanes " + p.key() + ": one dependent chain, median over repeats",
               "atomics/ops", num(&a, "latency_repeats"), nullptr, clock_of(a.value("latency_clock_mhz", json()))});
      if (a.contains("ops_per_s"))
        t.add({id + ".ops_per_s", "atomics", op + " " + p.key() + " throughput", num(&a, "ops_per_s"), "ops/s",
               "higher", true, what + ", lanes " + p.key() + ": thread-level atomics, median SM x SMs x clock",
               "atomics/ops", num(&a, "throughput_repeats"), nullptr, clock_of(a.value("clock_mhz", json()))});
    }
  }
}

void async_metrics(const json& model, Table& t) {
  const json* ops = at(model, {"async_copy", "ops"});
  if (!ops || !ops->is_object()) return;
  for (auto it = ops->begin(); it != ops->end(); ++it) {
    const json& o = it.value();
    const std::string op = it.key(), id = "async." + part(op);
    const std::string what = "async/copy " + op + " (" + text(&o, "ptx") + ")";
    if (const json* lat = at(o, {"latency"}))
      t.add({id + ".latency_cycles", "async", op + " copy latency", num(lat, "latency_cycles"), "cycles", "lower",
             false,
             what + ": one copy at a time, the smallest copy (" +
                 (num(lat, "copy_bytes").is_number() ? (*lat)["copy_bytes"].dump() : std::string("?")) +
                 " bytes), median over repeats",
             "async/copy", nullptr, nullptr, nullptr});
    const json* fit = at(o, {"throughput", "fit"});
    if (!fit || fit->contains("error")) continue;
    const json clock = clock_of(fit->value("clock_mhz", json()));
    t.add({id + ".bytes_per_s", "async", op + " copy bandwidth", num(fit, "peak_bytes_per_s"), "bytes/s", "higher",
           true, what + ": copies in flight on every SM, concurrency fit's peak (" + text(fit, "peak_from") + ")",
           "async/copy", fit_samples(fit), num(fit, "confidence"), clock});
    t.add({id + ".bytes_in_flight_per_sm_for_90pct_bytes", "async", op + " bytes in flight per SM for 90% of the peak",
           num(fit, "bytes_in_flight_per_sm_for_90pct"), "bytes", "lower", false,
           what + ": concurrency fit of the throughput points", "async/copy", fit_samples(fit), num(fit, "confidence"),
           clock});
  }
}

void launch_metrics(const json& model, Table& t) {
  const json* launch = at(model, {"launch"});
  if (!launch) return;
  const bool imported = launch->contains("source");
  if (const json* overhead = at(*launch, {"overhead"}); overhead && overhead->is_object())
    for (auto it = overhead->begin(); it != overhead->end(); ++it)
      t.add({"launch.overhead." + part(it.key()) + "_ns", "launch", "launch " + it.key(), num(&it.value(), "ns"), "ns",
             "lower", false, "launch/overhead " + it.key() + ": median over repeats of one sample's cost per launch",
             "launch/overhead", num(&it.value(), "repeats"), nullptr, nullptr});
  if (const json* graph = at(*launch, {"graph"}); graph && graph->is_object())
    for (auto it = graph->begin(); it != graph->end(); ++it) {
      const json& g = it.value();
      if (g.contains("error")) continue;
      if (it.key() == "device_launch") {
        t.add({"launch.graph.device_launch_ns", "launch", "device-side graph launch", num(&g, "ns"), "ns", "lower", false,
               "launch/graph device_launch: a kernel's cudaGraphLaunch to the child graph's start, median over repeats",
               "launch/graph", num(&g, "repeats"), nullptr, nullptr});
        continue;
      }
      for (const char* q : {"per_node_ns", "per_graph_ns"})
        t.add({"launch.graph." + part(it.key()) + "." + q, "launch", "graph " + it.key() + " " + q, num(&g, q), "ns",
               "lower", false, "launch/graph " + it.key() + ": line fit t = a + b x nodes over the chain lengths",
               "launch/graph", num(&g, "points"), num(&g, "confidence"), nullptr});
    }
  if (const json* small = at(*launch, {"small_kernels"}); small && small->is_object())
    for (auto it = small->begin(); it != small->end(); ++it) {
      if (it.value().contains("error")) continue;
      t.add({"launch.small_kernels." + part(it.key()) + ".overhead_ns", "launch", it.key() + " overhead per pass",
             num(&it.value(), "overhead_ns"), "ns", "lower", false,
             std::string(imported ? "imported small-kernel curve" : "launch/small_kernels") + " " + it.key() +
                 ": fit T = a + V/b over the smallest volumes",
             imported ? "" : "launch/small_kernels", num(&it.value(), "points"), num(&it.value(), "confidence"),
             nullptr});
    }
}

void goodput_metrics(const json& model, Table& t) {
  const json* goodput = at(model, {"goodput"});
  if (!goodput) return;
  if (const json* kernels = at(*goodput, {"kernels"}); kernels && kernels->is_array())
    for (const auto& k : *kernels) {
      const std::string name = text(&k, "name");
      if (name.empty()) continue;
      t.add({"goodput." + part(name) + ".prediction_error_percent", "goodput", name + " prediction error",
             num(&k, "error_percent"), "percent", "lower", false,
             "100 |predicted - measured| / measured time of the reference kernel; predicted: " +
                 text(&k, "method", "(no method given)"),
             text(&k, "probe"), num(&k, "samples"), nullptr, clock_of(k.value("clock_mhz", json()))});
    }
  // cuBLAS GEMM against the measured tensor peak: is all that throughput goodput?
  if (const json* c = at(*goodput, {"cublas"}); c && c->is_object() && !c->contains("skipped")) {
    const std::string what = "goodput/reference cuBLAS GEMM " + text(c, "precision") + " " +
                             std::to_string(c->value("m", 0)) + "x" + std::to_string(c->value("n", 0)) + "x" +
                             std::to_string(c->value("k", 0));
    t.add({"goodput.cublas_gemm.flops_per_s", "goodput", "cuBLAS GEMM FLOP rate", num(c, "flops_per_s"), "flop/s",
           "higher", false, what + ", median over repeats", "goodput/reference", num(c, "samples"), nullptr, nullptr});
    t.add({"goodput.cublas_gemm.tensor_peak_share_percent", "goodput", "cuBLAS GEMM as % of the measured tensor peak",
           num(c, "percent_of_tensor_peak"), "percent", "higher", false,
           what + " / the measured tensor peak (" + text(c, "tensor_peak_from", "unknown") + ")", "goodput/reference",
           num(c, "samples"), nullptr, nullptr});
  }
}

}  // namespace

json build_metrics(const json& model) {
  Table t(model);
  const json roofline = model.contains("roofline") && model["roofline"].is_object() ? model["roofline"] : json::object();
  memory_metrics(model, t);
  bandwidth_metrics(model, roofline, t);
  littles_law_metrics(model, roofline, t);
  compute_metrics(model, roofline, t);
  ridge_metrics(roofline, t);
  sync_metrics(model, t);
  atomics_metrics(model, t);
  async_metrics(model, t);
  launch_metrics(model, t);
  goodput_metrics(model, t);
  return t.take();
}

void check_metrics_model(const json& model, const std::string& file, const std::string& command) {
  if (!model.is_object() || model.value("schema", json()) != kModelSchema)
    throw Error(file + " is not a gpuprobe machine model (schema \"" + kModelSchema + "\")");
  const json version = model.value("schema_version", json());
  if (!model.contains("metrics"))
    throw Error(file + " has no metrics[] (machine model schema_version " + version.dump() +
                "): fit it again with this gpuprobe (gpuprobe analyze DIR/raw/*.json --out MODEL.json)");
  if (!version.is_number_integer() || version.get<int>() < kFirstMetricsModelVersion ||
      version.get<int>() > kModelSchemaVersion)
    throw Error(file + " has machine model schema_version " + version.dump() + "; " + command + " reads " +
                (kFirstMetricsModelVersion == kModelSchemaVersion
                     ? "version " + std::to_string(kModelSchemaVersion)
                     : "versions " + std::to_string(kFirstMetricsModelVersion) + " to " +
                           std::to_string(kModelSchemaVersion)));
  if (!model["metrics"].is_array()) throw Error(file + ": metrics is not an array");
}

}  // namespace gpuprobe::analysis
