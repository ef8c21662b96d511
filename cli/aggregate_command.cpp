#include "cli/aggregate_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "analysis/metrics.hpp"
#include "cli/command_files.hpp"
#include "cli/format.hpp"
#include "harness/error.hpp"
#include "harness/results.hpp"
#include "harness/stats.hpp"

namespace gpuprobe {
namespace {

using json = nlohmann::json;

constexpr const char* kAggregateSchema = "gpuprobe.aggregate";
constexpr int kAggregateSchemaVersion = 1;

// One metric of one machine model, as aggregate reads it (docs/SCHEMA.md, metrics[]).
struct Metric {
  std::string id, label, family, unit, source;
  std::string better;  // "higher", "lower", or "" when the metric has no direction
  bool ceiling = false;
  std::optional<double> value;  // absent: null in the model
};

struct Input {
  std::string file;
  json device;
  std::vector<Metric> metrics;
  std::vector<std::string> warnings;  // the model's own: a record interrupted, failed, ...
};

// One metric over every input: what the first input that has it says it is, and each input's value.
struct Row {
  Metric first;
  std::vector<std::optional<double>> values;  // per input; absent where the input lacks it
  std::vector<std::string> sources;           // per input, "" where it lacks it
};

std::string text_or(const json& o, const char* key, const std::string& fallback) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : fallback;
}

Metric read_metric(const json& m, const std::string& where, const std::string& default_source) {
  if (!m.is_object() || !m.contains("id") || !m["id"].is_string() || m["id"].get<std::string>().empty())
    throw Error(where + " has no id");
  Metric r;
  r.id = m["id"].get<std::string>();
  const std::string at = where + " (" + r.id + ")";
  const json value = m.value("value", json());
  if (value.is_number())
    r.value = value.get<double>();
  else if (!value.is_null())
    throw Error(at + ": value is " + value.dump() + ", not a number or null");
  if (!m.contains("unit") || !m["unit"].is_string()) throw Error(at + " has no unit");
  r.unit = m["unit"].get<std::string>();
  const json better = m.value("better", json());
  if (better == "higher" || better == "lower")
    r.better = better.get<std::string>();
  else if (!better.is_null())
    throw Error(at + ": better is " + better.dump() + ", not \"higher\", \"lower\" or null");
  const json ceiling = m.value("ceiling", json(false));
  if (!ceiling.is_boolean()) throw Error(at + ": ceiling is " + ceiling.dump() + ", not true or false");
  r.ceiling = ceiling.get<bool>();
  r.label = text_or(m, "label", "");
  r.family = text_or(m, "family", "");
  r.source = text_or(m, "source", default_source);
  return r;
}

Input read_input(const json& model, const std::string& file) {
  analysis::check_metrics_model(model, file, "aggregate");
  const json device = model.value("device", json());
  if (!device.is_object() || !device.contains("name") || !device["name"].is_string())
    throw Error(file + " has no device.name");
  const bool simulated = model.contains("simulated") && model["simulated"] == true;
  const std::string source = text_or(model, "source", simulated ? "simulated" : "measured");
  Input in{file, device, {}, {}};
  if (model.contains("warnings") && model["warnings"].is_array())
    for (const auto& w : model["warnings"])
      if (w.is_string()) in.warnings.push_back(w.get<std::string>());
  std::set<std::string> seen;
  for (std::size_t i = 0; i < model["metrics"].size(); ++i) {
    Metric m = read_metric(model["metrics"][i], file + ": metrics[" + std::to_string(i) + "]", source);
    if (!seen.insert(m.id).second) throw Error(file + ": metric " + m.id + " appears twice");
    in.metrics.push_back(std::move(m));
  }
  return in;
}

// The metrics of every input, in the order they first appear; a metric must mean the same in each.
std::vector<Row> collect_rows(const std::vector<Input>& inputs) {
  std::vector<Row> rows;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    for (const Metric& m : inputs[i].metrics) {
      auto [it, added] = index.emplace(m.id, rows.size());
      if (added) rows.push_back({m, std::vector<std::optional<double>>(inputs.size()),
                                 std::vector<std::string>(inputs.size())});
      Row& row = rows[it->second];
      const auto differs = [&](const char* what, const std::string& here, const std::string& there) {
        if (here != there)
          throw Error(inputs[i].file + ": metric " + m.id + " has " + what + " '" + here + "' but '" + there +
                      "' in an input before it: these are not the same metric");
      };
      differs("unit", m.unit, row.first.unit);
      differs("better", m.better, row.first.better);
      differs("ceiling", m.ceiling ? "true" : "false", row.first.ceiling ? "true" : "false");
      row.values[i] = m.value;
      row.sources[i] = m.source;
    }
  return rows;
}

// x as a % of |median|; null when the median is 0.
json percent_of(double x, double median) { return median != 0 ? json(100 * x / std::fabs(median)) : json(); }

// How much worse than the median `value` is, in % of it (negative: better); null without a
// direction or with a median of 0.
json percent_worse(const Metric& m, double value, double median) {
  if (m.better.empty()) return json();
  return percent_of(m.better == "higher" ? median - value : value - median, median);
}

// Every name and source the inputs mix, refused unless the arguments allow it; notes for those allowed.
std::vector<std::string> check_mixing(const std::vector<Input>& inputs, const std::vector<Row>& rows,
                                      const AggregateArgs& args) {
  std::vector<std::string> notes;
  const std::string& name0 = inputs[0].device["name"].get_ref<const std::string&>();
  for (const Input& in : inputs) {
    const std::string& name = in.device["name"].get_ref<const std::string&>();
    if (name == name0) continue;
    const std::string what = "different GPU models: " + inputs[0].file + " is '" + name0 + "', " + in.file +
                             " is '" + name + "'";
    if (!args.allow_mixed) throw Error("inputs are " + what + " (--allow-mixed to aggregate them anyway)");
    notes.push_back("--allow-mixed: the inputs are " + what);
    break;
  }
  for (const Row& row : rows) {
    std::size_t a = inputs.size();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (row.sources[i].empty()) continue;
      if (a == inputs.size()) a = i;
      if (row.sources[i] == row.sources[a]) continue;
      const std::string what = "metric " + row.first.id + " is " + row.sources[a] + " in " + inputs[a].file +
                               " but " + row.sources[i] + " in " + inputs[i].file;
      if (!args.allow_mixed_sources)
        throw Error(what + ": refusing to mix sources (--allow-mixed-sources to aggregate them anyway)");
      notes.push_back("--allow-mixed-sources: sources are mixed, e.g. " + what);
      return notes;
    }
  }
  return notes;
}

json stats_of(const Row& row, const std::vector<Input>& inputs) {
  std::vector<double> present;
  json values = json::array(), missing = json::array();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    values.push_back(row.values[i] ? json(*row.values[i]) : json());
    if (row.values[i])
      present.push_back(*row.values[i]);
    else
      missing.push_back(inputs[i].file);
  }
  json s = {{"id", row.first.id}, {"label", row.first.label}, {"family", row.first.family},
            {"unit", row.first.unit}, {"better", row.first.better.empty() ? json() : json(row.first.better)},
            {"ceiling", row.first.ceiling}, {"n", present.size()}};
  std::set<std::string> sources;
  for (const auto& src : row.sources)
    if (!src.empty()) sources.insert(src);
  s["sources"] = sources;
  if (present.empty()) {
    for (const char* key : {"median", "min", "max", "mad", "mad_percent", "range_percent"}) s[key] = nullptr;
  } else {
    const double median = stats::median(present);  // even n: the mean of the middle two
    const auto [lo, hi] = std::minmax_element(present.begin(), present.end());
    const double mad = stats::mad(present);
    s.update({{"median", median}, {"min", *lo}, {"max", *hi}, {"mad", mad},
              {"mad_percent", percent_of(mad, median)}, {"range_percent", percent_of(*hi - *lo, median)}});
  }
  s["values"] = values;
  s["missing"] = missing;
  s["outliers"] = 0;
  return s;
}

json optional_text(const json& device, const char* key) {
  const std::string t = text_or(device, key, "");
  return t.empty() ? json() : json(t);
}


// Numbers in the tables: 4 significant digits, "-" for null.
std::string number(const json& v) {
  if (!v.is_number()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v.get<double>());
  return buf;
}

std::string percent(const json& v, const char* format) {
  if (!v.is_number()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v.get<double>());
  return buf;
}

// A table cell: '|' escaped, empty or null as "-".
std::string cell(const json& v) {
  if (v.is_number()) return number(v);
  std::string t = v.is_string() ? v.get<std::string>() : "";
  if (t.empty()) return "-";
  std::string escaped;
  for (char c : t) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
  return escaped;
}

std::string table_row(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const auto& c : cells) line += " " + c + " |";
  return line + "\n";
}

std::string table_head(const std::vector<std::string>& names) {
  std::string rule = "|";
  for (std::size_t i = 0; i < names.size(); ++i) rule += "---|";
  return table_row(names) + rule + "\n";
}

std::string runs_table(const json& doc) {
  std::string md = "## Runs\n\n" + table_head({"#", "file", "uuid", "pci_bus_id", "ceilings", "worst ceiling",
                                                 "off median", "outliers"});
  int number_of_run = 0;
  for (const auto& run : doc["inputs"]) {
    const json& worst = run["worst_ceiling"];
    md += table_row({std::to_string(++number_of_run), cell(run["file"]), cell(run["device"].value("uuid", json())),
                     cell(run["device"].value("pci_bus_id", json())), std::to_string(run["ceilings"].get<int>()),
                     worst.is_null() ? "-" : cell(worst["metric"]),
                     worst.is_null() ? "-" : percent(worst["percent_off"], "%+.1f%%"),
                     std::to_string(run["outliers"].get<int>())});
  }
  return md;
}

std::string outliers_table(const json& doc) {
  std::string md = "## Outliers\n\n";
  if (doc["outliers"].empty())
    return md + "None: every run is within " + number(doc["outlier_percent"]) +
           "% of the median on every ceiling.\n";
  md += table_head({"file", "device", "uuid", "pci_bus_id", "metric", "value", "median", "off median", "unit"});
  for (const auto& o : doc["outliers"]) {
    const std::string unit = o["unit"].get<std::string>();
    md += table_row({cell(o["file"]), cell(o["device"]), cell(o["uuid"]), cell(o["pci_bus_id"]),
                     cell(o["metric"]), format_value(o["value"], unit), format_value(o["median"], unit),
                     percent(o["percent_off"], "%+.1f%%"), cell(o["unit"])});
  }
  return md;
}

std::string metrics_table(const json& doc) {
  std::string md = "## Metrics\n\n" + table_head({"metric", "unit", "better", "ceiling", "n", "median", "min", "max",
                                                    "MAD", "range", "outliers"});
  std::string missing;
  for (const auto& m : doc["metrics"]) {
    const std::string unit = m["unit"].get<std::string>();
    md += table_row({cell(m["id"]), cell(m["unit"]), cell(m["better"]),
                     m["ceiling"].get<bool>() ? "yes" : "no", std::to_string(m["n"].get<int>()),
                     format_value(m["median"], unit), format_value(m["min"], unit),
                     format_value(m["max"], unit), percent(m["mad_percent"], "%.2f%%"),
                     percent(m["range_percent"], "%.1f%%"), std::to_string(m["outliers"].get<int>())});
    if (m["missing"].empty()) continue;
    std::string files;
    for (const auto& f : m["missing"]) files += (files.empty() ? "" : ", ") + f.get<std::string>();
    missing += "- " + m["id"].get<std::string>() + ": " + files + "\n";
  }
  if (doc["metrics"].empty()) md += "\nThe inputs hold no metric.\n";
  if (!missing.empty()) md += "\nNo value (metric absent or null) in:\n\n" + missing;
  return md;
}

}  // namespace

json aggregate_models(const std::vector<json>& models, const std::vector<std::string>& files,
                      const AggregateArgs& args) {
  if (models.empty()) throw Error("aggregate needs machine models: MODEL.json files or result folders");
  if (!(args.outlier_percent > 0) || !std::isfinite(args.outlier_percent))
    throw Error("--outlier-percent must be a positive number (default 5)");
  std::vector<Input> inputs;
  for (std::size_t i = 0; i < models.size(); ++i) inputs.push_back(read_input(models[i], files.at(i)));
  const std::vector<Row> rows = collect_rows(inputs);
  std::vector<std::string> notes = check_mixing(inputs, rows, args);
  // A model fitted from an interrupted or failed record holds what it measured, not all of it.
  for (const Input& in : inputs)
    if (!in.warnings.empty())
      notes.push_back(in.file + " was fitted with " + std::to_string(in.warnings.size()) + " warning" +
                      (in.warnings.size() == 1 ? "" : "s") + " (" + in.warnings.front() +
                      "): its metrics may be partial");
  // The same measurement in two units is judged once: an FMA's op/s beside its FLOP/s (2 per
  // FMA) would flag one slow FMA twice.
  std::set<std::string> ceiling_ids;
  for (const Row& row : rows)
    if (row.first.ceiling) ceiling_ids.insert(row.first.id);
  const auto same_as_flops = [&](const std::string& id) {
    const std::string ops = ".ops_per_s";
    return id.size() > ops.size() && id.compare(id.size() - ops.size(), ops.size(), ops) == 0 &&
           ceiling_ids.count(id.substr(0, id.size() - ops.size()) + ".flops_per_s");
  };

  json metrics = json::array(), outliers = json::array(), runs = json::array();
  for (const Input& in : inputs)
    runs.push_back({{"file", in.file}, {"device", in.device}, {"metrics", in.metrics.size()}, {"ceilings", 0},
                    {"outliers", 0}, {"worst_ceiling", nullptr}});
  for (const Row& row : rows) {
    json s = stats_of(row, inputs);
    const bool judged = row.first.ceiling && !row.first.better.empty() && s["median"].is_number() &&
                        s["median"].get<double>() != 0 && !same_as_flops(row.first.id);
    for (std::size_t i = 0; judged && i < inputs.size(); ++i) {
      if (!row.values[i]) continue;
      const double v = *row.values[i], median = s["median"].get<double>();
      const double worse = percent_worse(row.first, v, median).get<double>();
      json& run = runs[i];
      run["ceilings"] = run["ceilings"].get<int>() + 1;
      const json off = {{"metric", row.first.id}, {"value", v}, {"median", median},
                        {"percent_off", percent_of(v - median, median)}, {"percent_worse", worse}};
      if (run["worst_ceiling"].is_null() || worse > run["worst_ceiling"]["percent_worse"].get<double>())
        run["worst_ceiling"] = off;
      if (!(worse > args.outlier_percent)) continue;
      run["outliers"] = run["outliers"].get<int>() + 1;
      s["outliers"] = s["outliers"].get<int>() + 1;
      json o = {{"file", inputs[i].file}, {"device", inputs[i].device["name"]},
                {"uuid", optional_text(inputs[i].device, "uuid")},
                {"pci_bus_id", optional_text(inputs[i].device, "pci_bus_id")}, {"label", row.first.label},
                {"unit", row.first.unit}, {"better", row.first.better}};
      o.update(off);
      outliers.push_back(o);
    }
    metrics.push_back(s);
  }
  std::vector<std::string> names;
  std::set<std::string> sources;
  for (const Input& in : inputs) {
    const std::string& name = in.device["name"].get_ref<const std::string&>();
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    for (const Metric& m : in.metrics) sources.insert(m.source);
  }
  return {{"schema", kAggregateSchema},     {"schema_version", kAggregateSchemaVersion},
          {"gpuprobe_version", GPUPROBE_VERSION}, {"outlier_percent", args.outlier_percent},
          {"models", names},                {"sources", sources},
          {"inputs", runs},                 {"metrics", metrics},
          {"outliers", outliers},           {"notes", notes}};
}


std::string aggregate_markdown(const json& doc) {
  const std::size_t runs = doc["inputs"].size();
  std::string models;
  for (const auto& name : doc["models"]) models += (models.empty() ? "" : ", ") + name.get<std::string>();
  std::string sources;
  for (const auto& src : doc["sources"]) sources += (sources.empty() ? "" : ", ") + src.get<std::string>();
  std::set<std::string> flagged;
  for (const auto& o : doc["outliers"]) flagged.insert(o["file"].get<std::string>());
  std::string md = "# gpuprobe aggregate: " + std::to_string(runs) + (runs == 1 ? " run of " : " runs of ") +
                   (doc["models"].size() == 1 ? models : std::to_string(doc["models"].size()) +
                                                             " GPU models (" + models + ")") + "\n\n";
  md += "Source: " + (sources.empty() ? std::string("none") : sources) + ". An outlier is a run more than " +
        number(doc["outlier_percent"]) + "% worse than the median on a ceiling (a metric with `ceiling: true`; " +
        "`better` says which way is worse).\n";
  md += runs == 1 ? std::string(
                        "Result: one run, so no outlier: a run is judged against the median "
                        "of two or more.\n")
        : doc["outliers"].empty()
            ? std::string("Result: no outlier.\n")
            : "Result: " + std::to_string(doc["outliers"].size()) + " outlier(s) in " +
                  std::to_string(flagged.size()) + " of " + std::to_string(runs) + " runs.\n";
  for (const auto& n : doc["notes"]) md += "Note: " + n.get<std::string>() + "\n";
  return md + "\n" + runs_table(doc) + "\n" + outliers_table(doc) + "\n" + metrics_table(doc);
}

CLI::App* add_aggregate_subcommand(CLI::App& app, AggregateArgs& a) {
  auto* sub = app.add_subcommand(
      "aggregate", "summarise runs of one GPU model (one per GPU): median, spread and outliers per metric");
  sub->add_option("models", a.inputs, "machine_model.json files, or run-all result folders holding one")
      ->required();
  sub->add_option("--outlier-percent", a.outlier_percent,
                  "flag a run more than this % worse than the median on a ceiling (default 5)");
  sub->add_flag("--allow-mixed", a.allow_mixed, "aggregate different GPU models (device.name) together");
  sub->add_flag("--allow-mixed-sources", a.allow_mixed_sources,
                "aggregate a metric that is measured in one input and simulated or published in another");
  sub->add_option("--out", a.out_prefix,
                  "write PREFIX.aggregate.json and PREFIX.aggregate.md (a folder: DIR/fleet.aggregate.*)");
  return sub;
}

int cmd_aggregate(const AggregateArgs& a, std::ostream& out, std::ostream& err) {
  std::vector<std::string> files;
  for (const auto& input : a.inputs) {
    files.push_back(model_file(input));  // a result folder stands for its machine_model.json
    for (std::size_t i = 0; i + 1 < files.size(); ++i)
      if (same_file(files[i], files.back()))
        throw Error(files[i] + " and " + files.back() + " are the same file: give each run once");
  }
  std::vector<json> models;
  for (const auto& f : files) models.push_back(read_model_file(f));
  json doc = aggregate_models(models, files, a);
  std::string json_path, md_path;
  if (!a.out_prefix.empty()) {
    const std::string prefix = output_prefix(a.out_prefix, "fleet", a.out_prefix);  // DIR/: DIR/fleet
    json_path = prefix + ".aggregate.json";
    md_path = prefix + ".aggregate.md";
    for (const auto& path : {json_path, md_path}) {
      check_output_path(path);
      for (const auto& f : files)
        if (same_file(path, f)) throw Error("--out " + a.out_prefix + " would write " + path + " over an input");
    }
  }
  doc["created_utc"] = utc_timestamp();
  const std::string md = aggregate_markdown(doc);
  for (const auto& n : doc["notes"]) err << "gpuprobe: warning: " << n.get<std::string>() << "\n";
  out << md;
  if (!json_path.empty()) {
    write_json_atomically(json_path, doc);
    write_text_atomically(md_path, md);
    out << "\nwrote " << json_path << ", " << md_path << "\n";
  }
  return doc["outliers"].empty() ? 0 : 3;
}

}  // namespace gpuprobe
