#include "cli/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>

#include "cli/format.hpp"

namespace gpuprobe {

void print_probe_params(std::ostream& out, const ProbeSpec& probe) {
  for (const auto& prm : probe.params) {
    const bool list = prm.kind == ParamSpec::Kind::list;
    std::string bounds;
    if (prm.max > 0) bounds += ", at most " + std::to_string(prm.max) + (list ? " entries" : "");
    if (prm.min > 0) bounds += std::string(list ? ", each" : ",") + " at least " + std::to_string(prm.min);
    if (prm.multiple > 1)
      bounds += std::string(list && prm.min == 0 ? ", each" : ",") + " a multiple of " +
                std::to_string(prm.multiple);
    out << "    --" << prm.name << " (default " << prm.default_value << bounds << "): " << prm.help << "\n";
  }
}

void print_sm_map(std::ostream& out, const nlohmann::json& map) {
  if (map.contains("error")) {
    out << "per-SM L2 map: " << map["error"].get<std::string>() << "\n";
    return;
  }
  char buf[240];
  for (const char* key : {"l2", "l2_far"}) {
    if (!map.contains(key) || map[key].is_null()) continue;
    const auto& s = map[key];
    std::snprintf(buf, sizeof buf,
                  "per-SM %-6s %7.1f to %7.1f cycles (median %.1f, spread %.1f) over %zu SMs\n",
                  std::string(key) == "l2" ? "L2" : "L2-far", s["min_cycles"].get<double>(),
                  s["max_cycles"].get<double>(), s["median_cycles"].get<double>(),
                  s["spread_cycles"].get<double>(), map["sms"].size());
    out << buf;
  }
  if (map.contains("fastest_sm"))
    out << "  fastest SM " << map["fastest_sm"] << ", slowest SM " << map["slowest_sm"] << "\n";
}

namespace {

// compute.imported: the roofline fit of an intensity sweep (analysis/roofline_fit.hpp).
void print_imported_compute(std::ostream& out, const nlohmann::json& im) {
  const auto num = [&](const char* key) { return im.contains(key) && im[key].is_number() ? im[key].get<double>() : NAN; };
  char buf[320];
  out << "compute ceilings from an intensity sweep (" << im.value("file", "?") << "):\n";
  const double bw = num("bandwidth_bytes_per_s"), flops = num("flops_per_s");
  std::snprintf(buf, sizeof buf, "  bandwidth    %s\n",
                std::isnan(bw) ? "not reached (the sweep never was memory-bound)" : (format_value(bw, "bytes/s")).c_str());
  out << buf;
  if (std::isnan(flops)) {
    out << "  compute      not reached (the sweep never was compute-bound)\n";
  } else {
    std::string clk;
    if (im.contains("clock_mhz") && im["clock_mhz"].is_object()) {
      clk = " at " + format_value(im["clock_mhz"].value("stated", 0.0), "MHz") + " (" +
            format_value(num("flops_per_clk"), "FLOP/clk");
      if (!std::isnan(num("flops_per_clk_per_sm")))
        clk += ", " + format_value(num("flops_per_clk_per_sm"), "per SM");
      clk += ")";
    }
    out << "  compute      " << format_value(flops, "flop/s") << clk << "\n";
  }
  if (!std::isnan(num("ridge_flop_per_byte"))) {
    std::snprintf(buf, sizeof buf, "  ridge        %.1f FLOP/B  (confidence %.2f)\n", num("ridge_flop_per_byte"),
                  num("confidence"));
    out << buf;
  }
  for (const auto& n : im.value("notes", nlohmann::json::array()))
    if (n.is_string()) out << "  note: " << n.get<std::string>() << "\n";
}


std::string text_of(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// The structure of the memory section a metric cannot hold: why each chase curve could not be
// fitted, the far-L2 verdict, the plateaus that are not levels, the per-SM L2 map, and the notes
// of the line/sector and TLB fits.
void print_memory_structure(std::ostream& out, const nlohmann::json& mem) {
  if (mem.contains("sm_map")) print_sm_map(out, mem["sm_map"]);
  if (!mem.contains("levels") && mem.contains("paths"))
    for (const auto& [op, path] : mem["paths"].items())
      if (path.contains("error")) out << "  memory hierarchy (cache-op " << op << "): " << text_of(path["error"]) << "\n";
  if (mem.contains("levels_from")) out << "  hierarchy from " << text_of(mem["levels_from"]) << "\n";
  if (mem.contains("paths") && mem["paths"].contains("imported")) {
    const auto& curve = mem["paths"]["imported"].value("curve", nlohmann::json::object());
    if (curve.contains("binned") && curve["binned"].is_object())
      out << "  fitted from " << curve["binned"].value("points", 0) << " bins (the median of each) of "
          << curve.value("input_points", 0) << " rows\n";
  }
  if (mem.contains("far_l2")) out << "  far L2: " << mem["far_l2"].value("reason", "") << "\n";
  if (mem.contains("rejected"))
    for (const auto& r : mem["rejected"]) out << "  not a level: " << r.value("reason", "") << "\n";
  for (const char* part : {"shared", "line_sector", "tlb"}) {
    if (!mem.contains(part) || !mem[part].is_object()) continue;
    const auto& p = mem[part];
    if (p.contains("error")) out << "  " << part << ": " << text_of(p["error"]) << "\n";
    else if (std::string(part) == "line_sector" && p.contains("line_bytes"))
      out << "  cache line " << format_bytes(p.value("line_bytes", 0.0)) << ", sector "
          << format_bytes(p.value("sector_bytes", 0.0)) << " (confidence " << format_value(p.value("confidence", 0.0), "") << ")\n";
    if (!p.value("note", "").empty()) out << "  " << p["note"].get<std::string>() << "\n";
  }
}

// The structure of the bandwidth section a metric cannot hold: the footprint plateaus, the
// shared-memory bank-conflict slowdowns, the loaded-latency model, a concurrency sweep still rising.
void print_bandwidth_structure(std::ostream& out, const nlohmann::json& bandwidth) {
  for (const auto& [level, l] : bandwidth.items()) {
    if (!l.is_object()) continue;
    if (l.contains("error")) out << "  " << level << ": " << text_of(l["error"]) << "\n";
    if (l.contains("footprint_sweep") && l["footprint_sweep"].contains("levels"))
      for (const auto& f : l["footprint_sweep"]["levels"])
        out << "  " << level << " footprint plateau " << f.value("name", "?") << ": "
            << format_value(f.value("bandwidth_bytes_per_s", NAN), "bytes/s") << " "
            << (f.contains("ends_at_bytes") && f["ends_at_bytes"].is_number()
                    ? "up to " + format_bytes(f["ends_at_bytes"].get<double>())
                    : std::string("to the end of the sweep"))
            << "\n";
    if (l.contains("bank_conflicts") && l["bank_conflicts"].contains("strides")) {
      out << "  " << level << " bank conflicts (" << l["bank_conflicts"].value("word_bytes", 0)
          << "-byte words), slowdown by stride:";
      for (const auto& st : l["bank_conflicts"]["strides"])
        out << " " << st.value("stride_elems", 0u) << ": " << format_value(st.value("slowdown", NAN), "") << "x";
      out << "\n";
    }
    if (l.contains("loaded_latency") && l["loaded_latency"].is_object()) {
      const auto& ll = l["loaded_latency"];
      if (ll.contains("error"))
        out << "  " << level << " loaded latency: " << text_of(ll["error"]) << "\n";
      else
        out << "  " << level << " loaded latency (" << ll.value("source", "?") << "): "
            << format_value(ll.value("unloaded_latency_ns", NAN), "ns") << " unloaded + "
            << format_value(ll.value("queue_ns", NAN), "ns") << " x B / (asymptote "
            << format_value(ll.value("peak_bandwidth_bytes_per_s", NAN), "bytes/s") << " - B)\n";
    }
    // A concurrency fit's asymptote is an extrapolation of the loaded-latency model: said as such,
    // beside the measured top that is the level's bandwidth.
    for (const auto& [kind, c] : {std::pair<std::string, const nlohmann::json*>{"", &l},
                                  {" read", l.contains("read") ? &l["read"] : nullptr},
                                  {" write", l.contains("write") ? &l["write"] : nullptr},
                                  {" copy", l.contains("copy") ? &l["copy"] : nullptr}}) {
      if (!c || !c->is_object() || !c->contains("concurrency") || !(*c)["concurrency"].is_object()) continue;
      const auto& conc = (*c)["concurrency"];
      if (!conc.contains("asymptote_bytes_per_s") || !conc["asymptote_bytes_per_s"].is_number()) continue;
      out << "  " << level << kind << ": the loaded-latency fit's asymptote "
          << format_value(conc["asymptote_bytes_per_s"], "bytes/s") << " (an extrapolation; measured top "
          << format_value(conc.value("peak_bytes_per_s", nlohmann::json()), "bytes/s") << ")\n";
    }
    if (level == "imported" && l.contains("concurrency") && l["concurrency"].is_object() &&
        !l["concurrency"].contains("error")) {
      const auto& c = l["concurrency"];
      out << "  imported concurrency sweep: peak " << format_value(c.value("peak_bytes_per_s", NAN), "bytes/s") << " ("
          << c.value("peak_from", "?") << "), 90% of it from "
          << format_value(c.value("bytes_in_flight_per_sm_for_90pct", NAN), "bytes") << " in flight per SM\n";
    }
    for (const auto* c : {&l, l.contains("read") ? &l["read"] : nullptr})
      if (c && c->contains("concurrency") && (*c)["concurrency"].value("still_rising", false))
        out << "  " << level << ": still rising at the largest concurrency: the peak is a lower bound\n";
  }
}

// A family's rows of metrics[]: label, value, per SM per clock, % of the datasheet.
void print_metrics(std::ostream& out, const std::vector<const nlohmann::json*>& rows) {
  std::size_t width = 20;
  for (const auto* m : rows) width = std::max(width, m->value("label", m->value("id", "")).size());
  for (const auto* m : rows) {
    const std::string label = m->value("label", m->value("id", ""));
    std::string line = "  " + label + std::string(width - label.size() + 2, ' ') +
                       format_value((*m)["value"], m->value("unit", ""));
    if (m->contains("per_sm_per_clock") && (*m)["per_sm_per_clock"].is_object()) {
      const auto& p = (*m)["per_sm_per_clock"];
      line += "  (" + format_value(p.value("value", NAN), p.value("unit", "")) + ")";
    }
    // The % with the figure it is of, in that figure's unit (an FMA's FLOP rate, not its op rate).
    if (m->contains("datasheet") && (*m)["datasheet"].is_object() &&
        (*m)["datasheet"]["percent"].is_number()) {
      const auto& d = (*m)["datasheet"];
      line += "  " + format_value(d["percent"].get<double>(), "percent") + " of the datasheet's " +
              format_value(d.value("value", nlohmann::json()), d.value("unit", m->value("unit", "")));
      // A figure quoted at a clock was compared per SM per clock: say which clock it assumes.
      if (d.value("clock_mhz", nlohmann::json()).is_number())
        line += " at " + format_value(d["clock_mhz"], "MHz") +
                (d.value("clock", nlohmann::json()).is_string() ? " (its " + d["clock"].get<std::string>() + ")" : "");
    }
    out << line << "\n";
  }
}

// What a section says it could not measure: its skipped ops and its records' errors.
void print_not_measured(std::ostream& out, const nlohmann::json& section) {
  if (!section.is_object()) return;
  if (section.contains("skipped") && section["skipped"].is_object())
    for (const auto& [name, why] : section["skipped"].items())
      out << "  " << name << ": not measured: " << text_of(why) << "\n";
  if (section.contains("errors") && section["errors"].is_object())
    for (const auto& [probe, why] : section["errors"].items())
      out << "  " << probe << ": no result: " << text_of(why) << "\n";
}

// The families of the model (its families[], else the families its metrics name), in order.
std::vector<nlohmann::json> families_in(const nlohmann::json& model) {
  std::vector<nlohmann::json> out;
  if (model.contains("families") && model["families"].is_array())
    for (const auto& f : model["families"])
      if (f.is_object() && f.contains("name") && f["name"].is_string()) out.push_back(f);
  if (!out.empty() || !model.contains("metrics") || !model["metrics"].is_array()) return out;
  for (const auto& m : model["metrics"]) {
    const std::string name = m.value("family", "");
    if (name.empty() || name == "roofline") continue;
    if (std::none_of(out.begin(), out.end(), [&](const nlohmann::json& f) { return f["name"] == name; }))
      out.push_back({{"name", name}, {"title", name}, {"section", name}});
  }
  return out;
}

}  // namespace

void print_model(std::ostream& out, const nlohmann::json& model) {
  // A model of several GPUs (analyze --allow-mixed) says so before any number.
  if (model.contains("mixed_devices") && model["mixed_devices"].is_array() &&
      !model["mixed_devices"].empty()) {
    const auto& gpus = model["mixed_devices"];
    out << "WARNING: this model mixes the records of " << gpus.size()
        << " GPUs (--allow-mixed); its device, datasheet % and per-SM-per-clock values are the first "
           "one's:\n";
    for (const auto& g : gpus) {
      if (!g.is_object()) continue;
      out << "  " << text_of(g.value("name", nlohmann::json("?")));
      if (g.contains("uuid") && g["uuid"].is_string()) out << ", uuid " << g["uuid"].get<std::string>();
      if (g.contains("sim_preset") && g["sim_preset"].is_string())
        out << ", preset " << g["sim_preset"].get<std::string>();
      out << ":";
      for (const auto& f : g.value("files", nlohmann::json::array())) out << " " << text_of(f);
      out << "\n";
    }
  }
  const nlohmann::json metrics = model.value("metrics", nlohmann::json::array());
  const auto families = families_in(model);
  std::size_t printed = 0;
  bool imported_printed = false;
  for (const auto& f : families) {
    const std::string name = f["name"], section = f.value("section", name);
    std::vector<const nlohmann::json*> rows;
    for (const auto& m : metrics)
      if (m.value("family", "") == name) rows.push_back(&m);
    const nlohmann::json sec = model.value(section, nlohmann::json::object());
    // A family's title only above something: a section with nothing in it prints nothing.
    std::ostringstream body;
    if (name == section && section == "memory") print_memory_structure(body, sec);
    if (name == section && section == "bandwidth") print_bandwidth_structure(body, sec);
    if (name == section && sec.contains("imported") && sec["imported"].is_object() && section == "compute")
      print_imported_compute(body, sec["imported"]), imported_printed = true;
    print_metrics(body, rows);
    if (name == section || rows.empty()) print_not_measured(body, sec);
    if (body.str().empty()) continue;
    out << f.value("title", name) << ":\n" << body.str();
    ++printed;
  }
  // An imported intensity sweep (analyze --import-csv) whose model names no compute family.
  if (!imported_printed && model.contains("compute") && model["compute"].is_object() &&
      model["compute"].contains("imported") && model["compute"]["imported"].is_object())
    print_imported_compute(out, model["compute"]["imported"]), ++printed;
  if (printed == 0) out << "the model holds no result: no run record measured anything\n";
}

}  // namespace gpuprobe
