#include "cli/roofline_command.hpp"

#include "cli/format.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <numeric>

#include "analysis/compute_model.hpp"
#include "analysis/roofline.hpp"
#include "analysis/roofline_kernels.hpp"
#include "cli/command_files.hpp"
#include "cli/plot_runner.hpp"
#include "harness/error.hpp"
#include "harness/results.hpp"

namespace gpuprobe {
namespace {

using json = nlohmann::json;

// "51.2 TFLOP/s", "1.64 POP/s", "1.94 TB/s" (cli/format.hpp); "?" for an unknown or zero rate.
// `unit` is the JSON's: "bytes/s", "flop/s" or "op/s" (an integer precision counts OP).
std::string format_rate(double v, const std::string& unit) {
  if (!(v > 0)) return "?";
  return format_value(v, unit);
}

// The unit of a compute ceiling or kernel of the roofline JSON (version 1 files have none).
std::string rate_unit(const json& j) { return j.is_object() ? j.value("unit", "flop/s") : "flop/s"; }

// A plain number, a percent: cli/format.hpp's rules ("2770%", never "2.77e+03%").
std::string plain(double v) { return format_value(v, ""); }
std::string percent(double v) { return format_value(v, "percent"); }

// At most this many kernels are printed (those with the most time); the JSON holds every one.
constexpr std::size_t kMaxPrintedKernels = 50;

// What bounds a kernel, in words: "DRAM", "compute f32 fma".
std::string bound_words(const json& bound) {
  if (!bound.is_object()) return "nothing (no ceiling applies)";
  if (bound["kind"] == "memory") return bound["level"].get<std::string>() + " bandwidth";
  return "compute " + bound["name"].get<std::string>();
}

void print_section(std::ostream& out, const json& r) {
  out << "memory ceilings:\n";
  if (r["memory"].empty()) out << "  none (the model has no bandwidth)\n";
  for (const auto& level : analysis::kRooflineLevels) {
    if (!r["memory"].contains(level)) continue;
    const auto& m = r["memory"][level];
    char line[200];
    std::snprintf(line, sizeof line, "  %-8s %12s  (%s)\n", level.c_str(),
                  format_rate(m["bytes_per_s"].get<double>(), "bytes/s").c_str(),
                  m["source"].get<std::string>().c_str());
    out << line;
  }
  out << "compute ceilings (ridge points: FLOP/byte, OP/byte for an integer precision, where each "
         "memory ceiling meets it):\n";
  if (r["compute"].empty()) out << "  none (the model has no FLOP rate)\n";
  for (auto it = r["compute"].begin(); it != r["compute"].end(); ++it) {
    const auto& c = it.value();
    const std::string unit = rate_unit(c);
    if (c["flops_per_s"].is_number()) {
      std::string op = c["op"].is_string() ? c["op"].get<std::string>() : "imported";
      const std::string name = it.key() + (unit == "op/s" ? " (int)" : "");
      char line[200];
      std::snprintf(line, sizeof line, "  %-8s %12s  %s (%s)", name.c_str(),
                    format_rate(c["flops_per_s"].get<double>(), unit).c_str(),
                    c["path"].get<std::string>().c_str(), op.c_str());
      out << line;
      std::string ridges;
      for (const auto& level : analysis::kRooflineLevels)
        if (c["ridge_points"].contains(level))
          ridges += (ridges.empty() ? "" : ", ") + level + " " +
                    plain(c["ridge_points"][level]["flop_per_byte"].get<double>());
      if (!ridges.empty()) out << "  ridge: " << ridges;
      out << "\n";
      for (auto p = c["paths"].begin(); p != c["paths"].end(); ++p)
        if (p.key() != c["path"])
          out << "           " << format_rate(p.value()["flops_per_s"].get<double>(), unit) << "  "
              << p.key() << " (another path of " << it.key() << ")\n";
    }
    if (c.contains("emulated"))
      for (auto e = c["emulated"].begin(); e != c["emulated"].end(); ++e)
        out << "  " << it.key() << (analysis::integer_precision(it.key()) ? " (int)" : "") << " " << e.key() << ": "
            << format_rate(e.value()["flops_per_s"].get<double>(),
                           analysis::integer_precision(it.key()) ? "op/s" : "flop/s")
            << ", "
            << e.value()["implementation"].get<std::string>() << ": not a ceiling\n";
  }
  for (const auto& m : r["missing"]) out << "missing: " << m.get<std::string>() << "\n";
}

// `kernels` are the classified kernels to print, `total` how many there are in all.
void print_kernels(std::ostream& out, const std::vector<json>& kernels, std::size_t total,
                   const std::string& precision, const std::string& json_path) {
  if (kernels.empty()) return;
  out << "kernels (precision " << precision << " unless named";
  if (kernels.size() < total)
    out << "; the " << kernels.size() << " of " << total << " with the most time, every one is in "
        << json_path;
  out << "):\n";
  for (const auto& k : kernels) {
    out << "  " << k["name"].get<std::string>() << " [" << k["precision"].get<std::string>() << "]";
    if (k["launches"].get<std::size_t>() > 1)
      out << " (" << k["launches"].get<std::size_t>() << " launches, "
          << format_value(k["time_s"].get<double>() * 1e9, "ns") << " in all, "
          << format_value(k["min_time_s"].get<double>() * 1e9, "ns") << " to "
          << format_value(k["max_time_s"].get<double>() * 1e9, "ns") << " each)";
    out << ": achieved " << format_rate(k["achieved_flops_per_s"].get<double>(), rate_unit(k));
    if (k["attainable_flops_per_s"].is_number())
      out << ", attainable " << format_rate(k["attainable_flops_per_s"].get<double>(), rate_unit(k))
          << ", bound by " << bound_words(k["bound"]) << ", "
          << percent(k["percent_of_attainable"].get<double>()) << " of attainable";
    else
      out << ", nothing to compare it with";
    out << "\n";
    std::string headroom;
    for (const auto& level : analysis::kRooflineLevels)
      if (k.contains("headroom") && k["headroom"].contains(level)) {
        const auto& h = k["headroom"][level];
        headroom += (headroom.empty() ? "" : "; ") + level + " " +
                    format_rate(h["achieved_bytes_per_s"].get<double>(), "bytes/s") + " = " +
                    percent(h["percent_of_bandwidth"].get<double>()) + " of its bandwidth (x" +
                    plain(h["speedup_until_bound"].get<double>()) + " until it bounds)";
      }
    if (!headroom.empty()) out << "      headroom: " << headroom << "\n";
    for (const auto& n : k["notes"]) out << "      " << n.get<std::string>() << "\n";
  }
}

// The known precisions, and those the model has, for a message.
std::string precisions_text(const json& section) {
  std::string known;
  for (const auto& p : analysis::kKnownPrecisions) known += (known.empty() ? "" : ", ") + p;
  std::string model;
  for (auto it = section["compute"].begin(); it != section["compute"].end(); ++it)
    model += (model.empty() ? "" : ", ") + it.key();
  return "known: " + known + (model.empty() ? "; the model has none" : "; the model has " + model);
}

// PREFIX.roofline.json, written as it is made: the document's keys in order, one kernel per line
// (classified again here: a kernel's JSON is never held longer than it takes to write it).
void write_roofline_json(const std::string& path, const json& head, const json& section,
                         const std::vector<analysis::RooflineKernel>& kernels, const std::string& precision) {
  write_stream_atomically(path, [&](std::ostream& os) {
    os << "{";
    bool first = true;
    for (auto it = head.begin(); it != head.end(); ++it) {
      os << (first ? "\n  " : ",\n  ") << json(it.key()).dump() << ": ";
      first = false;
      if (it.key() != "kernels") {
        std::string value = it.value().dump(2);
        for (std::size_t at = 0; (at = value.find('\n', at)) != std::string::npos; at += 3)
          value.insert(at + 1, "  ");
        os << value;
        continue;
      }
      os << "[";
      // Serialized straight into the stream: a string of each kernel's JSON (over 1 KiB) would
      // make glibc consolidate its heap of 10^5 kernels every time, ten times slower.
      for (std::size_t i = 0; i < kernels.size(); ++i)
        os << (i ? ",\n    " : "\n    ") << analysis::classify_kernel(section, kernels[i], precision);
      os << (kernels.empty() ? "]" : "\n  ]");
    }
    os << "\n}\n";
  });
}

std::string plot_script() {
  if (const char* s = std::getenv("GPUPROBE_PLOT_ROOFLINE"); s && *s) return s;
  return analysis_script("plot_roofline.py");
}

}  // namespace

CLI::App* add_roofline_subcommand(CLI::App& app, RooflineArgs& a) {
  auto* sub = app.add_subcommand(
      "roofline", "the model's hierarchical roofline, kernels placed on it, and its plot");
  sub->add_option("--model", a.model, "machine model JSON (run-all or analyze wrote it), or a run-all folder")
      ->required();
  sub->add_option("--kernel", a.kernels,
                  "NAME:flops=F,time_s=T[,bytes_hbm=B][,bytes_l2=B][,bytes_l2_far=B][,bytes_l1=B]"
                  "[,bytes_shared=B][,precision=P][,path=P] (repeatable)");
  sub->add_option("--kernels-csv", a.kernels_csv,
                  "CSV with header name,flops,time_s[,bytes_hbm,bytes_l2,bytes_l1,...]");
  sub->add_option("--ncu-csv", a.ncu_csv,
                  "Nsight Compute export: ncu --csv --page raw --metrics <docs/ANALYSIS.md list>");
  sub->add_option("--precision", a.precision,
                  "precision of kernels that name none (default f32; for --ncu-csv: which FLOPs to "
                  "count, default the precision with the most)");
  sub->add_option("--out", a.out_prefix,
                  "write PREFIX.roofline.json, .png, .svg (a folder: DIR/MODEL...; default: the model's path "
                  "without .json, or MODEL in the current folder for a published profile)");
  sub->add_flag("--no-plot", a.no_plot, "write the JSON only, draw nothing");
  return sub;
}

int cmd_roofline(const RooflineArgs& a, std::ostream& out, std::ostream& err) {
  const std::string model_path = model_file(a.model);
  const json model = read_model_file(model_path);
  if (!model.is_object() || model.value("schema", json()) != kModelSchema)
    throw Error(model_path + " is not a gpuprobe machine model (schema \"" + kModelSchema + "\")");
  // Version 1 (before metrics[]) has the same sections the roofline reads.
  const json version = model.value("schema_version", json());
  if (version != kModelSchemaVersion && version != 1)
    throw Error(model_path + " has model schema version " + version.dump() +
                "; this gpuprobe reads versions 1 to " + std::to_string(kModelSchemaVersion));
  const json section = analysis::roofline_section(model);
  const std::string precision = analysis::normalize_precision(a.precision.empty() ? "f32" : a.precision);
  if (!analysis::known_precision(precision, section))
    throw Error("--precision " + a.precision + ": no such precision (" + precisions_text(section) + ")");

  // Every input is read, and every kernel classified, before anything is written.
  std::vector<analysis::RooflineKernel> kernels;
  std::vector<std::string> notes;
  for (const auto& spec : a.kernels) kernels.push_back(analysis::parse_kernel_spec(spec));
  if (!a.kernels_csv.empty())
    for (auto& k : analysis::read_kernels_csv(a.kernels_csv)) kernels.push_back(std::move(k));
  if (!a.ncu_csv.empty())
    for (auto& k : analysis::read_ncu_csv(a.ncu_csv, a.precision.empty() ? "" : precision, notes))
      kernels.push_back(std::move(k));
  kernels = analysis::aggregate_launches(std::move(kernels));
  for (const auto& k : kernels)
    if (!k.precision.empty() && !analysis::known_precision(k.precision, section))
      throw Error(k.source + " (" + k.name + "): precision " + k.precision + ": no such precision (" +
                  precisions_text(section) + ")");

  // Beside the model, unless the model is a published profile: results/reference/ holds profiles only.
  const std::string stem = std::filesystem::path(without_json(model_path)).filename().string();
  const std::string prefix = output_prefix(a.out_prefix, stem,
                                           published_model(model) ? stem : without_json(model_path));
  const std::string json_path = prefix + ".roofline.json";
  if (same_file(json_path, model_path))
    throw Error("--out " + prefix + " would write " + json_path + " over the model; give another --out");
  check_output_path(json_path);

  // The kernels printed: all, or those with the most time.
  std::vector<std::size_t> shown(kernels.size());
  std::iota(shown.begin(), shown.end(), 0);
  if (shown.size() > kMaxPrintedKernels) {
    std::stable_sort(shown.begin(), shown.end(),
                     [&](std::size_t x, std::size_t y) { return kernels[x].time_s > kernels[y].time_s; });
    shown.resize(kMaxPrintedKernels);
  }
  std::vector<bool> printed(kernels.size(), false);
  for (std::size_t i : shown) printed[i] = true;
  std::map<std::size_t, json> top;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    json c = analysis::classify_kernel(section, kernels[i], precision);  // throws on a non-finite value
    if (printed[i]) top[i] = std::move(c);
  }
  std::vector<json> to_print;
  for (std::size_t i : shown) to_print.push_back(std::move(top[i]));

  const json head = {{"schema", "gpuprobe.roofline"},
                     {"schema_version", 1},
                     {"gpuprobe_version", GPUPROBE_VERSION},
                     {"created_utc", utc_timestamp()},
                     {"model", model_path},
                     {"device", model.value("device", json::object())},
                     {"simulated", model.value("simulated", false)},
                     {"default_precision", precision},
                     {"roofline", section},
                     {"kernels", json::array()},
                     {"notes", notes}};

  const std::string device = head["device"].is_object() ? head["device"].value("name", "") : "";
  out << "roofline of " << model_path << (device.empty() ? "" : " (" + device + ")") << "\n";
  print_section(out, section);
  print_kernels(out, to_print, kernels.size(), precision, json_path);
  for (const auto& n : notes) out << "note: " << n << "\n";
  write_roofline_json(json_path, head, section, kernels, precision);
  out << "wrote " << json_path << "\n";
  if (a.no_plot) return 0;
  if (section["memory"].empty() && section["compute"].empty()) {
    out << "no plot: the model has no ceiling to draw\n";
    return 0;
  }
  const std::string python = plot_python();
  const std::string why = run_plot(python, {plot_script(), json_path});
  if (!why.empty()) {
    err << "gpuprobe: error: the roofline plot was not drawn: " << why << " (" << json_path
        << " is written)\n";
    return 1;
  }
  out << "wrote " << prefix << ".roofline.png, " << prefix << ".roofline.svg\n";
  return 0;
}

}  // namespace gpuprobe
