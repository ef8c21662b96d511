#include "cli/compare_command.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "cli/command_files.hpp"
#include "cli/format.hpp"
#include "cli/plot_runner.hpp"
#include "analysis/metrics.hpp"
#include "harness/error.hpp"
#include "harness/family.hpp"
#include "harness/results.hpp"

namespace gpuprobe {
namespace {

using json = nlohmann::json;

// The levels a latency curve steps through, nearest first (shared memory is not on the curve).
const std::vector<std::string> kCurveLevels = {"L1", "L2", "L2-far", "DRAM"};

std::string input_label(std::size_t i) { return std::string(1, static_cast<char>('A' + i)); }

std::string g(double v, int digits = 3) { return format_g(v, digits); }

// "4.00x", "0.0424x" (cli/format.hpp's plain number).
std::string ratio_text(double r) { return format_value(r, "") + "x"; }

std::string format_ratio(const json& r) { return r.is_number() ? ratio_text(r.get<double>()) : "-"; }

std::string family_of(const json& m, const std::string& id) {
  if (m.contains("family") && m["family"].is_string()) return m["family"].get<std::string>();
  return id.substr(0, id.find('.'));
}

// One input, checked: its source, its device, its metrics by id (in its order).
struct Input {
  std::string file, label, source;
  json device;
  std::vector<std::string> ids;
  std::map<std::string, json> metrics;
};

std::string input_source(const json& model) {
  if (model.contains("source") && model["source"].is_string()) return model["source"].get<std::string>();
  if (model.value("simulated", false)) return "simulated";
  std::set<std::string> sources;
  for (const auto& m : model["metrics"])
    if (m.contains("source") && m["source"].is_string()) sources.insert(m["source"].get<std::string>());
  return sources.size() == 1 ? *sources.begin() : "measured";
}

Input read_input(const json& model, const std::string& file, std::size_t index,
                 const std::set<std::string>& families) {
  analysis::check_metrics_model(model, file, "compare");
  Input in;
  in.file = file;
  in.label = input_label(index);
  in.source = input_source(model);
  in.device = model.contains("device") && model["device"].is_object() ? model["device"] : json::object();
  const json& metrics = model["metrics"];
  std::set<std::string> all_ids;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const json& m = metrics[i];
    const std::string where = file + ": metrics[" + std::to_string(i) + "]";
    if (!m.is_object() || !m.contains("id") || !m["id"].is_string() || m["id"].get<std::string>().empty())
      throw Error(where + " has no id");
    const std::string id = m["id"].get<std::string>();
    if (!m.contains("value") || !(m["value"].is_number() || m["value"].is_null()))
      throw Error(where + " (" + id + "): value is neither a number nor null");
    if (!m.contains("unit") || !m["unit"].is_string())
      throw Error(where + " (" + id + ") has no unit");
    if (m["value"].is_number() && !std::isfinite(m["value"].get<double>()))
      throw Error(where + " (" + id + "): value is not finite");
    if (!all_ids.insert(id).second) throw Error(file + " lists the metric " + id + " twice");
    if (!families.empty() && !families.count(family_of(m, id))) continue;  // not asked for (--family)
    in.ids.push_back(id);
    in.metrics[id] = m;
  }
  return in;
}

// Families in the order they register (harness/family.hpp); an unknown family comes after them.
std::size_t family_rank(const std::string& family) {
  const auto& all = families();
  const auto it = std::find_if(all.begin(), all.end(), [&](const FamilySpec& f) { return f.name == family; });
  return static_cast<std::size_t>(it - all.begin());
}

const json* per_sm_per_clock(const json& m) {
  if (!m.contains("per_sm_per_clock") || !m["per_sm_per_clock"].is_object()) return nullptr;
  const json& p = m["per_sm_per_clock"];
  if (!p.contains("value") || !p["value"].is_number() || !p.contains("unit") || !p["unit"].is_string())
    return nullptr;
  return &p;
}

json ratio_of(double value, double base) {
  if (!(base > 0) || !(value > 0)) return nullptr;
  return value / base;
}

// The one row of metric `id`: each input's value, and each input's ratio to the first.
json make_row(const std::string& id, const std::vector<Input>& inputs) {
  const json* first = nullptr;
  for (const auto& in : inputs)
    if (in.metrics.count(id)) {
      first = &in.metrics.at(id);
      break;
    }
  json row = {{"id", id},
              {"family", family_of(*first, id)},
              {"label", first->value("label", json())},
              {"better", first->value("better", json())},
              {"ceiling", first->value("ceiling", json(false)) == true},
              {"unit", (*first)["unit"]},
              {"values", json::array()},
              {"ratios", json::array()},
              {"notes", json::array()}};
  const json* base = inputs[0].metrics.count(id) ? &inputs[0].metrics.at(id) : nullptr;
  std::vector<std::string> units;
  for (const auto& in : inputs) {
    if (!in.metrics.count(id)) {
      row["values"].push_back(nullptr);
      row["ratios"].push_back(row["ratios"].empty() ? json(nullptr)
                                                    : json{{"absolute", nullptr}, {"per_sm_per_clock", nullptr}});
      continue;
    }
    const json& m = in.metrics.at(id);
    const json* pspc = per_sm_per_clock(m);
    row["values"].push_back({{"value", m["value"]},
                             {"unit", m["unit"]},
                             {"source", m.value("source", json(in.source))},
                             {"per_sm_per_clock", pspc ? *pspc : json(nullptr)}});
    units.push_back(in.label + " " + m["unit"].get<std::string>());
    if (row["ratios"].empty()) {  // the first input: the base of every ratio
      row["ratios"].push_back(nullptr);
      continue;
    }
    json r = {{"absolute", nullptr}, {"per_sm_per_clock", nullptr}};
    if (base && base->at("unit") == m["unit"]) {
      if (base->at("value").is_number() && m["value"].is_number())
        r["absolute"] = ratio_of(m["value"].get<double>(), base->at("value").get<double>());
      const json* base_pspc = per_sm_per_clock(*base);
      if (base_pspc && pspc && base_pspc->at("unit") == pspc->at("unit"))
        r["per_sm_per_clock"] = ratio_of(pspc->at("value").get<double>(), base_pspc->at("value").get<double>());
    }
    row["ratios"].push_back(r);
  }
  bool mixed = false;
  for (const auto& in : inputs)
    if (in.metrics.count(id) && in.metrics.at(id)["unit"] != (*first)["unit"]) mixed = true;
  if (mixed) {
    std::string list;
    for (const auto& u : units) list += (list.empty() ? "" : ", ") + u;
    row["notes"].push_back("units differ (" + list + "): no ratio");
  }
  return row;
}

// Who is ahead when input `i` has `ratio` times the first input's value.
std::string ahead(const json& row, double ratio, const std::string& other, const std::string& base) {
  const json& better = row["better"];
  if (!better.is_string() || ratio == 1) return "";
  const bool other_ahead = (better == "higher") == (ratio > 1);
  const std::string unit = row["unit"].get<std::string>();
  const std::string word = unit == "bytes" ? " larger" : unit == "percent" ? " better" : " faster";
  return " (" + (other_ahead ? other : base) + word + ")";
}

std::string describe_input(const json& in) {
  std::string s = in["label"].get<std::string>() + " (";
  const json& d = in["device"];
  if (d.contains("name") && d["name"].is_string()) s += d["name"].get<std::string>() + ", ";
  return s + in["source"].get<std::string>() + ")";
}

// Whether the summary ranks a row: a hardware ceiling (`ceiling` true), a latency or cost (cycles,
// ns) or a capacity. Derived figures (ridge points, goodput prediction errors, bytes in flight)
// are in the table, never ranked: a ratio of two prediction errors says nothing about the GPUs.
bool ranked(const json& row) {
  const std::string unit = row["unit"].get<std::string>(), id = row["id"].get<std::string>();
  const std::string capacity = ".capacity_bytes";
  return row.value("ceiling", false) || unit == "cycles" || unit == "ns" ||
         (id.size() > capacity.size() &&
          id.compare(id.size() - capacity.size(), capacity.size(), capacity) == 0);
}

// The largest differences of every input against the first, in one paragraph.
std::string summary(const json& doc) {
  const json& inputs = doc["inputs"];
  const json& rows = doc["rows"];
  const std::string base = inputs[0]["label"].get<std::string>();
  std::string text;
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const std::string other = inputs[i]["label"].get<std::string>();
    std::vector<std::pair<double, std::size_t>> absolute, per_clock, derived;
    std::size_t common = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const json& ratio = rows[r]["ratios"][i];
      if (ratio.is_null()) continue;
      if (ratio["absolute"].is_number()) ++common;
      if (!ranked(rows[r])) {
        if (ratio["absolute"].is_number()) derived.push_back({ratio["absolute"].get<double>(), r});
        continue;
      }
      if (ratio["absolute"].is_number()) absolute.push_back({ratio["absolute"].get<double>(), r});
      if (ratio["per_sm_per_clock"].is_number()) per_clock.push_back({ratio["per_sm_per_clock"].get<double>(), r});
    }
    // Largest |log ratio| first; ties in table order. A ratio of exactly 1 is no difference.
    const auto order = [](std::vector<std::pair<double, std::size_t>>& v) {
      v.erase(std::remove_if(v.begin(), v.end(), [](const auto& p) { return p.first == 1; }), v.end());
      std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
        return std::fabs(std::log(a.first)) > std::fabs(std::log(b.first));
      });
    };
    order(absolute);
    order(per_clock);
    order(derived);
    if (!text.empty()) text += " ";
    text += describe_input(inputs[i]) + " against " + describe_input(inputs[0]) + ", " + std::to_string(common) +
            " metric" + (common == 1 ? "" : "s") + " compared";
    if (common == 0) {
      text += ".";
      continue;
    }
    if (absolute.empty()) {
      if (derived.empty()) {
        text += ": no difference in a ceiling, latency or capacity.";
      } else {
        // Only derived figures (--family roofline or goodput, say): not ranked, but not "no difference".
        const json& row = rows[derived[0].second];
        text += ": none of them is a ceiling, latency or capacity, which the summary ranks; of the derived "
                "figures (ridge points, prediction errors: the table lists them) the largest difference is " +
                row["id"].get<std::string>() + " " + ratio_text(derived[0].first) + ".";
      }
      continue;
    }
    text += ": the largest differences in ceilings, latencies and capacities are ";
    for (std::size_t k = 0; k < std::min<std::size_t>(3, absolute.size()); ++k) {
      const json& row = rows[absolute[k].second];
      text += std::string(k == 0 ? "" : ", ") + row["id"].get<std::string>() + " " +
              ratio_text(absolute[k].first) + ahead(row, absolute[k].first, other, base);
    }
    if (!per_clock.empty()) {
      const json& row = rows[per_clock[0].second];
      text += "; per SM per clock, " + row["id"].get<std::string>() + " " + ratio_text(per_clock[0].first) +
              ahead(row, per_clock[0].first, other, base);
    }
    text += ".";
  }
  std::size_t lonely = 0;
  for (const auto& row : rows) {
    std::size_t present = 0;
    for (const auto& v : row["values"]) present += v.is_null() ? 0 : 1;
    if (present == 1) ++lonely;
  }
  if (lonely > 0) text += " " + std::to_string(lonely) + " metric" + (lonely == 1 ? " is" : "s are") + " in one input only.";
  std::string published, simulated;
  for (const auto& in : inputs) {
    if (in["source"] == "published") published += (published.empty() ? "" : ", ") + in["label"].get<std::string>();
    if (in["source"] == "simulated") simulated += (simulated.empty() ? "" : ", ") + in["label"].get<std::string>();
  }
  if (!published.empty()) text += " " + published + ": published figures (docs/FIGURES.md), not measured by gpuprobe.";
  if (!simulated.empty()) text += " " + simulated + ": the simulator, not a GPU.";
  return text;
}

// What the overlay plots draw, per input: the latency levels (and the measured curve when the
// model has one), and the roofline ceilings among the metrics.
json plot_data(const Input& in, const json& model, const std::set<std::string>& families) {
  json levels = json::array();
  for (const auto& level : kCurveLevels) {
    json l = {{"name", level}, {"latency_cycles", nullptr}, {"latency_ns", nullptr}, {"capacity_bytes", nullptr}};
    bool any = false;
    for (const char* q : {"latency_cycles", "latency_ns", "capacity_bytes"}) {
      const auto it = in.metrics.find("memory." + level + "." + q);
      if (it != in.metrics.end() && it->second["value"].is_number()) {
        l[q] = it->second["value"];
        any = true;
      }
    }
    if (any) levels.push_back(l);
  }
  json curve = nullptr;
  const json memory = families.empty() || families.count("memory") ? model.value("memory", json::object())
                                                                   : json();
  if (memory.is_object() && memory.contains("levels_from") && memory["levels_from"].is_string() &&
      memory.contains("paths") && memory["paths"].is_object()) {
    const std::string from = memory["levels_from"].get<std::string>();
    const auto at = from.find("cache-op=");
    const std::string op = at == std::string::npos ? "" : from.substr(at + 9);
    if (memory["paths"].contains(op) && memory["paths"][op].is_object() && memory["paths"][op].contains("curve")) {
      const json& c = memory["paths"][op]["curve"];
      if (c.is_object() && c.value("x_name", "") == "footprint_bytes" && c.contains("x") && c["x"].is_array() &&
          c.contains("latency_cycles") && c["latency_cycles"].is_array() && c["x"].size() == c["latency_cycles"].size())
        curve = {{"footprint_bytes", c["x"]}, {"latency_cycles", c["latency_cycles"]},
                 {"clock_mhz", c.value("clock_mhz", json())}};
    }
  }
  json mem = json::object(), compute = json::object();
  for (const auto& id : in.ids) {
    const json& m = in.metrics.at(id);
    if (!m.value("ceiling", false) || !m["value"].is_number() || !(m["value"].get<double>() > 0)) continue;
    const std::string family = family_of(m, id);
    const std::string subject = id.substr(id.find('.') + 1, id.find('.', id.find('.') + 1) - id.find('.') - 1);
    const double v = m["value"].get<double>();
    if (family == "bandwidth" && m["unit"] == "bytes/s") {
      if (!mem.contains(subject) || mem[subject].get<double>() < v) mem[subject] = v;
    } else if ((family == "compute" || family == "tensor") && (m["unit"] == "flop/s" || m["unit"] == "op/s")) {
      const std::string name = family + " " + subject;
      if (!compute.contains(name) || compute[name].get<double>() < v) compute[name] = v;
    }
  }
  return {{"label", in.label}, {"levels", levels}, {"curve", curve},
          {"roofline", {{"memory", mem}, {"compute", compute}}}};
}

std::string md_cell(std::string s) {
  for (std::size_t at = 0; (at = s.find('|', at)) != std::string::npos; at += 2) s.replace(at, 1, "\\|");
  return s;
}

}  // namespace

json compare_models(const std::vector<json>& models, const std::vector<std::string>& files,
                    const std::vector<std::string>& family_list) {
  if (models.size() < 2) throw Error("compare needs two or more machine models (A.json B.json ...)");
  if (models.size() > 26) throw Error("compare takes at most 26 machine models (A to Z)");
  const std::set<std::string> families(family_list.begin(), family_list.end());
  std::vector<Input> inputs;
  for (std::size_t i = 0; i < models.size(); ++i)
    inputs.push_back(read_input(models[i], files[i], i, families));
  if (!families.empty()) {
    // Every family asked for is one the registry or an input knows; and some input has one.
    std::set<std::string> known;
    for (const auto& f : gpuprobe::families()) known.insert(f.name);
    for (std::size_t i = 0; i < models.size(); ++i)
      for (const auto& m : models[i]["metrics"])
        if (m.is_object() && m.contains("id") && m["id"].is_string())
          known.insert(family_of(m, m["id"].get<std::string>()));
    for (const auto& f : families)
      if (!known.count(f)) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        throw Error("--family: no family '" + f + "' (the families: " + list + ")");
      }
    if (std::all_of(inputs.begin(), inputs.end(), [](const Input& in) { return in.ids.empty(); }))
      throw Error("--family: no input has a metric of the families asked for");
  }

  // Every id once: by family (families() order), then in the order the inputs first list them.
  std::vector<std::string> ids;
  std::set<std::string> seen;
  for (const auto& in : inputs)
    for (const auto& id : in.ids)
      if (seen.insert(id).second) ids.push_back(id);
  std::map<std::string, std::size_t> rank;
  for (const auto& in : inputs)
    for (const auto& id : in.ids)
      if (!rank.count(id)) rank[id] = family_rank(family_of(in.metrics.at(id), id));
  std::stable_sort(ids.begin(), ids.end(), [&](const auto& a, const auto& b) { return rank[a] < rank[b]; });

  json doc = {{"schema", "gpuprobe.compare"}, {"schema_version", 1}, {"gpuprobe_version", GPUPROBE_VERSION},
              {"created_utc", utc_timestamp()}, {"inputs", json::array()}, {"rows", json::array()},
              {"plots", {{"inputs", json::array()}}}};
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Input& in = inputs[i];
    json device = json::object();
    for (const char* k : {"name", "sm_count", "rated_sm_clock_mhz", "compute_capability"})
      device[k] = in.device.contains(k) ? in.device[k] : json(nullptr);
    doc["inputs"].push_back({{"label", in.label}, {"file", in.file}, {"source", in.source}, {"device", device},
                             {"metrics", in.ids.size()}});
    doc["plots"]["inputs"].push_back(plot_data(in, models[i], families));
  }
  for (const auto& id : ids) doc["rows"].push_back(make_row(id, inputs));
  doc["families"] = family_list.empty() ? json(nullptr)
                                        : json(std::vector<std::string>(families.begin(), families.end()));
  doc["summary"] = summary(doc);
  return doc;
}

std::string compare_markdown(const json& doc) {
  const json& inputs = doc["inputs"];
  const std::size_t n = inputs.size();
  std::string md = "# gpuprobe compare\n\n| input | file | device | source | SMs | SM clock |\n|---|---|---|---|---|---|\n";
  for (const auto& in : inputs) {
    const json& d = in["device"];
    md += "| " + in["label"].get<std::string>() + " | " + md_cell(in["file"].get<std::string>()) + " | " +
          md_cell(d["name"].is_string() ? d["name"].get<std::string>() : "?") + " | " +
          in["source"].get<std::string>() + " | " +
          (d["sm_count"].is_number() ? g(d["sm_count"].get<double>(), 6) : "?") + " | " +
          (d["rated_sm_clock_mhz"].is_number() ? g(d["rated_sm_clock_mhz"].get<double>(), 6) + " MHz" : "?") +
          " |\n";
  }
  const std::string base = inputs[0]["label"].get<std::string>();
  md += "\n| metric |";
  std::string rule = "|---|";
  for (const auto& in : inputs) {
    md += " " + in["label"].get<std::string>() + " |";
    rule += "---|";
  }
  for (const char* kind : {"", " per SM per clock"})
    for (std::size_t i = 1; i < n; ++i) {
      md += " " + inputs[i]["label"].get<std::string>() + "/" + base + kind + " |";
      rule += "---|";
    }
  md += "\n" + rule + "\n";
  for (const auto& row : doc["rows"]) {
    md += "| " + row["id"].get<std::string>() + " |";
    for (std::size_t i = 0; i < n; ++i) {
      const json& v = row["values"][i];
      std::string cell = "-";
      if (!v.is_null()) {
        cell = v["value"].is_number() ? format_value(v["value"].get<double>(), v["unit"].get<std::string>()) : "n/a";
        if (v["source"].is_string() && v["source"] != inputs[i]["source"])
          cell += " (" + v["source"].get<std::string>() + ")";
      }
      md += " " + md_cell(cell) + " |";
    }
    for (const char* kind : {"absolute", "per_sm_per_clock"})
      for (std::size_t i = 1; i < n; ++i) {
        const json &a = row["values"][0], &v = row["values"][i];
        const bool units_differ = !a.is_null() && !v.is_null() && a["unit"] != v["unit"];
        md += " " + (units_differ ? std::string("units differ") : format_ratio(row["ratios"][i][kind])) + " |";
      }
    md += "\n";
  }
  md += "\n" + doc["summary"].get<std::string>() + "\n";
  return md;
}

CLI::App* add_compare_subcommand(CLI::App& app, CompareArgs& a) {
  auto* sub = app.add_subcommand("compare",
                                 "every metric of two or more machine models side by side, with ratios "
                                 "to the first, a summary and overlay plots");
  sub->add_option("models", a.inputs,
                  "machine models (schema_version 2: run-all or analyze wrote them, or a run-all result "
                  "folder; published ones in results/reference/); the first is the base of the ratios")
      ->required();
  sub->add_option("--out", a.out_prefix,
                  "write PREFIX.compare.md, .compare.json, .compare-latency.png/.svg, "
                  ".compare-roofline.png/.svg (a folder: DIR/NAME...; default: NAME in the current folder, "
                  "NAME being the inputs' names joined by -vs-)");
  sub->add_option("--family", a.families,
                  "compare only these families (comma-separated: memory,bandwidth,compute,tensor,...)")
      ->delimiter(',');
  sub->add_flag("--no-plot", a.no_plot, "write the table and JSON only, draw nothing");
  return sub;
}

std::string default_compare_name(const std::vector<std::string>& files) {
  namespace fs = std::filesystem;
  const auto name_of = [](const std::string& file) {
    const fs::path p(file);
    std::string name = p.stem().string();
    // A run-all folder's model is named by its folder.
    if (name == "machine_model") {
      const std::string dir = fs::absolute(p).parent_path().filename().string();
      if (!dir.empty() && dir != "." && dir != "..") name = dir;
    }
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
    return name.empty() || name[0] == '.' ? "model" + name : name;
  };
  std::string name;
  for (std::size_t i = 0; i < files.size() && i < 3; ++i) name += (i ? "-vs-" : "") + name_of(files[i]);
  if (files.size() > 3) name += "-and-" + std::to_string(files.size() - 3) + "-more";
  return name;
}

int cmd_compare(const CompareArgs& a, std::ostream& out, std::ostream& err) {
  if (a.inputs.size() < 2) throw Error("compare needs two or more machine models (A.json B.json ...)");
  std::vector<std::string> files;
  for (const auto& input : a.inputs) {
    files.push_back(model_file(input));
    for (std::size_t i = 0; i + 1 < files.size(); ++i)
      if (same_file(files[i], files.back()))
        throw Error(a.inputs[i] + " and " + a.inputs[files.size() - 1] +
                    " are the same file: compare needs two different models");
  }
  std::vector<json> models;
  for (const auto& f : files) models.push_back(read_model_file(f));
  json doc = compare_models(models, files, a.families);

  // Never beside an input by default: a published profile's folder (results/reference/) or a
  // committed run's must not fill with comparisons (report.py reads every profile there).
  const std::string name = default_compare_name(files);
  const std::string prefix = output_prefix(a.out_prefix, name, name);
  const std::string json_path = prefix + ".compare.json", md_path = prefix + ".compare.md";
  for (const auto& path : {json_path, md_path}) {
    for (const auto& in : files)
      if (same_file(path, in))
        throw Error("--out " + prefix + " would write " + path + " over the input " + in + "; give another --out");
    check_output_path(path);
  }

  const std::string md = compare_markdown(doc);
  out << md;
  write_text_atomically(md_path, md);
  write_json_atomically(json_path, doc);
  out << "wrote " << md_path << ", " << json_path << "\n";
  if (a.no_plot) return 0;
  const std::string why = run_plot(plot_python(), {analysis_script("plot_compare.py"), json_path}, &out);
  if (!why.empty()) {
    err << "gpuprobe: error: the comparison plots were not drawn: " << why << " (" << json_path
        << " is written)\n";
    return 1;
  }
  return 0;
}

}  // namespace gpuprobe
