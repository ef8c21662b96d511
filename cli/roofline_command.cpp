#include "cli/roofline_command.hpp"

#include "cli/format.hpp"

#include <cstdio>
#include <cstdlib>

#include "analysis/roofline.hpp"
#include "analysis/roofline_kernels.hpp"
#include "cli/plot_runner.hpp"
#include "harness/error.hpp"
#include "harness/results.hpp"

namespace gpuprobe {
namespace {

using json = nlohmann::json;

// "51.2 TFLOP/s", "1.94 TB/s", "912 GB/s" (cli/format.hpp); "?" for an unknown or zero rate.
std::string format_rate(double v, const char* unit) {
  if (!(v > 0)) return "?";
  return format_value(v, std::string(unit) == "B/s" ? "bytes/s" : "flop/s");
}

std::string g3(double v) { return format_g(v, 3); }

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
                  format_rate(m["bytes_per_s"].get<double>(), "B/s").c_str(),
                  m["source"].get<std::string>().c_str());
    out << line;
  }
  out << "compute ceilings (ridge points: FLOP/byte where each memory ceiling meets it):\n";
  if (r["compute"].empty()) out << "  none (the model has no FLOP rate)\n";
  for (auto it = r["compute"].begin(); it != r["compute"].end(); ++it) {
    const auto& c = it.value();
    if (c["flops_per_s"].is_number()) {
      std::string op = c["op"].is_string() ? c["op"].get<std::string>() : "imported";
      char line[200];
      std::snprintf(line, sizeof line, "  %-8s %12s  %s (%s)", it.key().c_str(),
                    format_rate(c["flops_per_s"].get<double>(), "FLOP/s").c_str(),
                    c["path"].get<std::string>().c_str(), op.c_str());
      out << line;
      std::string ridges;
      for (const auto& level : analysis::kRooflineLevels)
        if (c["ridge_points"].contains(level))
          ridges += (ridges.empty() ? "" : ", ") + level + " " +
                    g3(c["ridge_points"][level]["flop_per_byte"].get<double>());
      if (!ridges.empty()) out << "  ridge: " << ridges;
      out << "\n";
      for (auto p = c["paths"].begin(); p != c["paths"].end(); ++p)
        if (p.key() != c["path"])
          out << "           " << format_rate(p.value()["flops_per_s"].get<double>(), "FLOP/s") << "  "
              << p.key() << " (another path of " << it.key() << ")\n";
    }
    if (c.contains("emulated"))
      for (auto e = c["emulated"].begin(); e != c["emulated"].end(); ++e)
        out << "  " << it.key() << " " << e.key() << ": "
            << format_rate(e.value()["flops_per_s"].get<double>(), "FLOP/s") << ", "
            << e.value()["implementation"].get<std::string>() << ": not a ceiling\n";
  }
  for (const auto& m : r["missing"]) out << "missing: " << m.get<std::string>() << "\n";
}

void print_kernels(std::ostream& out, const json& kernels, const std::string& precision) {
  if (kernels.empty()) return;
  out << "kernels (precision " << precision << " unless named):\n";
  for (const auto& k : kernels) {
    out << "  " << k["name"].get<std::string>() << " [" << k["precision"].get<std::string>() << "]: achieved "
        << format_rate(k["achieved_flops_per_s"].get<double>(), "FLOP/s");
    if (k["attainable_flops_per_s"].is_number())
      out << ", attainable " << format_rate(k["attainable_flops_per_s"].get<double>(), "FLOP/s") << ", bound by "
          << bound_words(k["bound"]) << ", " << g3(k["percent_of_attainable"].get<double>())
          << "% of attainable";
    else
      out << ", nothing to compare it with";
    out << "\n";
    std::string headroom;
    for (const auto& level : analysis::kRooflineLevels)
      if (k.contains("headroom") && k["headroom"].contains(level)) {
        const auto& h = k["headroom"][level];
        headroom += (headroom.empty() ? "" : "; ") + level + " " +
                    format_rate(h["achieved_bytes_per_s"].get<double>(), "B/s") + " = " +
                    g3(h["percent_of_bandwidth"].get<double>()) + "% of its bandwidth (x" +
                    g3(h["speedup_until_bound"].get<double>()) + " until it bounds)";
      }
    if (!headroom.empty()) out << "      headroom: " << headroom << "\n";
    for (const auto& n : k["notes"]) out << "      " << n.get<std::string>() << "\n";
  }
}

std::string plot_script() {
  if (const char* s = std::getenv("GPUPROBE_PLOT_ROOFLINE"); s && *s) return s;
  return analysis_script("plot_roofline.py");
}

}  // namespace

CLI::App* add_roofline_subcommand(CLI::App& app, RooflineArgs& a) {
  auto* sub = app.add_subcommand(
      "roofline", "the model's hierarchical roofline, kernels placed on it, and its plot");
  sub->add_option("--model", a.model, "machine model JSON (run-all or analyze wrote it)")->required();
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
                  "write PREFIX.roofline.json, .png, .svg (default: the model's path without .json)");
  sub->add_flag("--no-plot", a.no_plot, "write the JSON only, draw nothing");
  return sub;
}

int cmd_roofline(const RooflineArgs& a, std::ostream& out, std::ostream& err) {
  const json model = read_json_file(a.model);
  if (!model.is_object() || model.value("schema", json()) != kModelSchema)
    throw Error(a.model + " is not a gpuprobe machine model (schema \"" + kModelSchema + "\")");
  // Version 1 (before metrics[]) has the same sections the roofline reads.
  const json version = model.value("schema_version", json());
  if (version != kModelSchemaVersion && version != 1)
    throw Error(a.model + " has model schema version " + version.dump() + "; this gpuprobe reads versions 1 to " +
                std::to_string(kModelSchemaVersion));
  const std::string precision = analysis::normalize_precision(a.precision.empty() ? "f32" : a.precision);

  // Every input is read before anything is written.
  std::vector<analysis::RooflineKernel> kernels;
  std::vector<std::string> notes;
  for (const auto& spec : a.kernels) kernels.push_back(analysis::parse_kernel_spec(spec));
  if (!a.kernels_csv.empty())
    for (auto& k : analysis::read_kernels_csv(a.kernels_csv)) kernels.push_back(std::move(k));
  if (!a.ncu_csv.empty())
    for (auto& k : analysis::read_ncu_csv(a.ncu_csv, a.precision.empty() ? "" : precision, notes))
      kernels.push_back(std::move(k));

  std::string prefix = a.out_prefix;
  if (prefix.empty()) {
    prefix = a.model;
    if (prefix.size() > 5 && prefix.compare(prefix.size() - 5, 5, ".json") == 0) prefix.resize(prefix.size() - 5);
  }
  const std::string json_path = prefix + ".roofline.json";
  if (same_file(json_path, a.model))
    throw Error("--out " + prefix + " would write " + json_path + " over the model; give another --out");
  check_output_path(json_path);

  const json section = analysis::roofline_section(model);
  json classified = json::array();
  for (const auto& k : kernels) classified.push_back(analysis::classify_kernel(section, k, precision));
  json doc = {{"schema", "gpuprobe.roofline"},
              {"schema_version", 1},
              {"gpuprobe_version", GPUPROBE_VERSION},
              {"created_utc", utc_timestamp()},
              {"model", a.model},
              {"device", model.value("device", json::object())},
              {"simulated", model.value("simulated", false)},
              {"default_precision", precision},
              {"roofline", section},
              {"kernels", classified},
              {"notes", notes}};

  const std::string device = doc["device"].is_object() ? doc["device"].value("name", "") : "";
  out << "roofline of " << a.model << (device.empty() ? "" : " (" + device + ")") << "\n";
  print_section(out, section);
  print_kernels(out, classified, precision);
  for (const auto& n : notes) out << "note: " << n << "\n";
  write_json_atomically(json_path, doc);
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
