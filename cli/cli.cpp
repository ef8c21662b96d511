#include "cli/cli.hpp"

#include <cmath>
#include <exception>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analysis/bandwidth_model.hpp"
#include "analysis/csv_import.hpp"
#include "analysis/machine_model.hpp"
#include "analysis/roofline_fit.hpp"
#include "cli/aggregate_command.hpp"
#include "cli/compare_command.hpp"
#include "cli/report.hpp"
#include "cli/roofline_command.hpp"
#include "cli/run_commands.hpp"
#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/results.hpp"
#include "harness/sim/preset.hpp"

namespace gpuprobe {
namespace {

int cmd_list(std::ostream& out) {
  for (const auto& p : probe_registry()) {
    out << p.id << "  " << p.summary << "\n";
    print_probe_params(out, p);
  }
  return 0;
}

// The model's inputs by outcome, from its sources: those with a result, those that gave none (a
// fit that failed, a probe the analysis does not read) and those skipped, each reason one line.
struct InputOutcomes {
  std::size_t with_result = 0;
  std::vector<std::string> failed, skipped;
};

InputOutcomes input_outcomes(const nlohmann::json& model) {
  InputOutcomes o;
  for (const auto& s : model.value("sources", nlohmann::json::array())) {
    const std::string head = s.value("file", "") + ": " + s.value("probe", "");
    if (s.contains("error"))
      o.failed.push_back(head + " gave no result: " + s["error"].get<std::string>());
    else if (s.value("status", "") == "skipped" || s.contains("skip_reason"))
      o.skipped.push_back(head + " was skipped: " + s.value("skip_reason", "no reason given"));
    else
      ++o.with_result;
  }
  return o;
}

// An imported curve's model with the warnings its units call for (analysis/csv_import.hpp
// implausible_units): kept in the model's warnings, printed by analyze.
nlohmann::json with_unit_warnings(nlohmann::json model, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) model["warnings"].push_back(w);
  return model;
}

// An intensity sweep: the roofline fit (analysis/roofline_fit.hpp) as compute.imported.
nlohmann::json import_intensity_sweep(const std::string& csv, double clock_mhz, bool csv_options_given, int sm_count) {
  if (csv_options_given)
    throw Error("--first-level and --ends-in name the levels of a latency curve or a footprint sweep; " + csv +
                " holds an intensity sweep");
  const auto points = analysis::read_intensity_csv(csv);
  if (sm_count > 0 && clock_mhz == 0 && points.front().sm_clock_mhz == 0)
    throw Error("--sm-count with an intensity sweep is for FLOP/clk/SM: give --clock-mhz or an sm_clock_mhz column");
  analysis::RooflineFitOptions options;
  options.clock_mhz = clock_mhz;
  options.sm_count = sm_count;
  analysis::RooflineFit fit;
  try {
    fit = analysis::fit_roofline(points, options);
  } catch (const Error& e) {
    throw Error(csv + ": " + e.what());
  }
  return with_unit_warnings(
      analysis::build_machine_model_from_intensity(analysis::to_json(fit, csv), csv, sm_count),
      analysis::implausible_units(csv, points));
}

// An imported curve (analysis/csv_import.hpp), its kind told by its header: a latency curve, a
// footprint sweep, a concurrency sweep or an intensity sweep.
nlohmann::json import_csv(const std::string& csv, double clock_mhz,
                          const analysis::HierarchyFitOptions& csv_options, bool csv_options_given,
                          int sm_count) {
  const analysis::CsvCurveKind kind = analysis::csv_curve_kind(csv);
  if (kind == analysis::CsvCurveKind::small_kernels) {
    // Per method T = a + V/b (analysis/launch_model.hpp): no clock, SM count or levels.
    if (clock_mhz > 0 || sm_count > 0 || csv_options_given)
      throw Error("--clock-mhz, --sm-count, --first-level and --ends-in do not apply to small-kernel curves (" +
                  csv + ")");
    const auto methods = analysis::read_small_kernels_csv(csv);
    return with_unit_warnings(analysis::build_machine_model_from_small_kernels(methods, csv),
                              analysis::implausible_units(csv, methods));
  }
  if (kind == analysis::CsvCurveKind::latency) {
    if (sm_count > 0) throw Error("--sm-count applies to bandwidth curves; " + csv + " holds a latency curve");
    const auto curve = analysis::read_latency_csv(csv, clock_mhz);
    return with_unit_warnings(analysis::build_machine_model_from_curve(curve, csv, csv_options),
                              analysis::implausible_units(csv, curve));
  }
  if (kind == analysis::CsvCurveKind::intensity_sweep) return import_intensity_sweep(csv, clock_mhz, csv_options_given, sm_count);
  if (clock_mhz > 0 && sm_count == 0)
    throw Error("--clock-mhz with a bandwidth curve is for bytes/clk/SM: give --sm-count N as well");
  if (kind == analysis::CsvCurveKind::concurrency_sweep && csv_options_given)
    throw Error("--first-level and --ends-in name the levels of a latency curve or a footprint sweep; " + csv +
                " holds a concurrency sweep");
  // The readers' errors name the file and line; a fit's gets the file's name here.
  const auto fitted = [&](auto&& fit) {
    try {
      return fit();
    } catch (const Error& e) {
      throw Error(csv + ": " + e.what());
    }
  };
  if (kind == analysis::CsvCurveKind::footprint_sweep) {
    const auto points = analysis::read_footprint_csv(csv);
    const auto sweep = fitted([&] {
      return analysis::imported_footprint_sweep(points, csv_options.first_level, csv_options.last_is_memory,
                                                sm_count, clock_mhz);
    });
    return with_unit_warnings(
        analysis::build_machine_model_from_bandwidth(sweep, "footprint_sweep", csv, sm_count),
        analysis::implausible_units(csv, points));
  }
  const auto points = analysis::read_concurrency_csv(csv);
  const auto sweep = fitted([&] { return analysis::imported_concurrency_sweep(points, sm_count, clock_mhz); });
  return with_unit_warnings(analysis::build_machine_model_from_bandwidth(sweep, "concurrency", csv, sm_count),
                            analysis::implausible_units(csv, points));
}

int cmd_analyze(const std::vector<std::string>& run_files, const std::string& csv, double clock_mhz,
                const analysis::HierarchyFitOptions& csv_options, bool csv_options_given, int sm_count,
                bool allow_mixed, const std::string& out_path, std::ostream& out, std::ostream& err) {
  if (out_path.empty()) throw Error("analyze needs --out MODEL.json");
  // The model never replaces one of its inputs: by name, hard link, symbolic link or spelling.
  std::vector<std::string> inputs = run_files;
  if (!csv.empty()) inputs.push_back(csv);
  for (const auto& in : inputs)
    if (same_file(in, out_path))
      throw Error("--out " + out_path + " is the input " + in +
                  ": refusing to write the model over it; give another --out");
  if (clock_mhz < 0 || !std::isfinite(clock_mhz))
    throw Error("--clock-mhz must be a positive number");
  nlohmann::json model;
  if (!csv.empty()) {
    if (!run_files.empty()) throw Error("give either --import-csv or run records, not both");
    if (allow_mixed) throw Error("--allow-mixed applies to run records, not to --import-csv");
    model = import_csv(csv, clock_mhz, csv_options, csv_options_given, sm_count);
  } else {
    if (run_files.empty()) throw Error("analyze needs run records (RUN.json ...) or --import-csv FILE");
    if (clock_mhz > 0 || csv_options_given || sm_count > 0)
      throw Error("--clock-mhz, --sm-count, --first-level and --ends-in apply to --import-csv only; "
                  "run records carry their clock, SM count and cache operator");
    std::vector<nlohmann::json> runs;
    for (const auto& f : run_files) runs.push_back(read_json_file(f));
    analysis::ModelOptions options;
    options.allow_mixed = allow_mixed;
    model = analysis::build_machine_model(runs, run_files, options);
  }
  for (const auto& w : model["warnings"]) err << "gpuprobe: warning: " << w.get<std::string>() << "\n";
  // Exit codes tell the truth. No result at all: each reason in one line, nothing written (an
  // earlier model stays). Some inputs without a result (a skipped record is not a failure): the
  // model holds what the others gave, and each failure is named.
  const InputOutcomes outcomes = input_outcomes(model);
  if (outcomes.with_result == 0 && !run_files.empty()) {
    std::vector<std::string> why = outcomes.failed;
    why.insert(why.end(), outcomes.skipped.begin(), outcomes.skipped.end());
    for (std::size_t i = 0; i + 1 < why.size(); ++i) err << "gpuprobe: error: " << why[i] << "\n";
    throw Error(why.empty() ? std::string("no input gave a result") : why.back());
  }
  write_json_atomically(out_path, model);
  print_model(out, model);
  out << "wrote " << out_path << "\n";
  for (const auto& f : outcomes.failed) err << "gpuprobe: error: " << f << "\n";
  return outcomes.failed.empty() ? 0 : 1;
}

}  // namespace

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"gpuprobe: measure a GPU's microarchitecture and fit a machine model"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("gpuprobe ") + GPUPROBE_VERSION);
  std::string preset_names;  // from the preset list itself, so that the help cannot fall behind
  for (const auto& preset : sim::presets()) preset_names += (preset_names.empty() ? "" : ", ") + preset.name;
  const std::string device_help =
      "cuda, cuda:N, sim:<preset>[,slowdown=F] (" + preset_names +
      "; slowdown: an injected slow device) or auto (GPU, else sim:h100)";

  auto* list = app.add_subcommand("list", "list the probes and their parameters");

  auto* probe = app.add_subcommand("probe", "run one probe: probe <id> [--param value ...] --out FILE");
  std::string probe_id, probe_out, probe_device = "cuda";
  double max_seconds = 2.0;
  probe->add_option("id", probe_id, "probe id (see `gpuprobe list`)")->required();
  probe->add_option("--out", probe_out, "JSON run record to write");
  probe->add_option("--device", probe_device, device_help);
  probe->add_option("--max-seconds-per-point", max_seconds,
                    "time bound per point, calibration and repeats (0 < s <= 3600; default 2)");
  bool probe_resume = false;
  probe->add_flag("--resume", probe_resume,
                  "continue the interrupted record at --out: keep its points, measure the rest");
  probe->allow_extras();

  auto* run_all = app.add_subcommand("run-all", "run every probe and fit the machine model");
  std::string run_device = "cuda", run_out;
  run_all->add_option("--device", run_device, device_help);
  auto* run_out_opt = run_all->add_option("--out", run_out, "output directory (default results/<device>)");
  run_all->add_option("--max-seconds-per-point", max_seconds,
                      "time bound per point, calibration and repeats (0 < s <= 3600; default 2)");
  bool run_resume = false, run_force = false, run_quick = false, run_full = false;
  run_all->add_flag("--resume", run_resume,
                    "keep the complete records in --out byte for byte, continue the interrupted");
  run_all->add_flag("--force", run_force, "measure everything again over the results in --out");
  auto* quick_flag = run_all->add_flag("--quick", run_quick,
                                       "the quick profile: a minute or less on an H100, every ceiling "
                                       "within 3% of --full");
  run_all->add_flag("--full", run_full, "the full profile (the default): ten minutes or less")
      ->excludes(quick_flag);
  std::vector<std::string> run_only;
  run_all->add_option("--only", run_only,
                      "run only these probes or families (memory, bandwidth/dram, ...; comma-separated)")
      ->delimiter(',');
  bool run_no_plot = false;
  run_all->add_flag("--no-plot", run_no_plot,
                    "write the records and the machine model only: no plots, roofline or report");
  double run_watchdog = 0;
  auto* run_watchdog_opt = run_all->add_option(
      "--watchdog-seconds", run_watchdog,
      "kill a probe whose record has not changed for this long, mark it failed "
      "and go on (0 < s <= 86400; default: max(60, 10 x --max-seconds-per-point, "
      "its estimate))");

  auto* analyze = app.add_subcommand("analyze", "fit a machine model from run records or a CSV curve");
  std::vector<std::string> run_files;
  std::string csv, model_out;
  double clock_mhz = 0;
  analyze->add_option("runs", run_files, "run records (JSON) written by probe or run-all");
  analyze->add_option("--import-csv", csv,
                      "curve from any tool, its kind told by the header: footprint_bytes,latency_cycles"
                      "[,latency_ns] or footprint_bytes,bandwidth_bytes_per_s or "
                      "bytes_in_flight_per_sm,bandwidth_bytes_per_s or flop_per_byte,flop_per_s[,sm_clock_mhz] "
                      "or bytes,time_s,method (small kernels: T = a + V/b per method)");
  analyze->add_option("--clock-mhz", clock_mhz,
                      "SM clock of the imported curve (latency: for ns; bandwidth, with --sm-count: "
                      "for bytes/clk/SM; intensity sweep without a clock column: for FLOP/clk)");
  int sm_count = 0;
  analyze->add_option("--sm-count", sm_count,
                      "imported bandwidth curve or intensity sweep: the device's SM count (for "
                      "bytes/clk/SM, FLOP/clk/SM and a concurrency sweep's loaded-latency model)")
      ->check(CLI::Range(1, 65536));
  analyze->add_option("--out", model_out, "machine model JSON to write");
  bool allow_mixed = false;
  analyze->add_flag("--allow-mixed", allow_mixed,
                    "fit records of different GPUs (device uuid, name or simulator preset) into one "
                    "model, labelled as mixed; refused without it");
  std::string first_level = "L1", ends_in = "memory";
  auto* first_opt = analyze->add_option("--first-level", first_level,
                                        "imported curve: name of its first level (L1, or L2 for a "
                                        "chase that bypasses L1)")
                        ->check(CLI::IsMember({"L1", "L2"}));
  auto* ends_opt = analyze->add_option("--ends-in", ends_in,
                                       "imported curve: whether its last plateau is main memory "
                                       "(memory) or the sweep stopped inside a cache (cache)")
                       ->check(CLI::IsMember({"memory", "cache"}));

  RooflineArgs roofline_args;
  auto* roofline = add_roofline_subcommand(app, roofline_args);
  AggregateArgs aggregate_args;
  auto* aggregate = add_aggregate_subcommand(app, aggregate_args);
  CompareArgs compare_args;
  auto* compare = add_compare_subcommand(app, compare_args);

  // A mistyped command ("lst") is named; CLI11 would say a command is missing.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      err << "gpuprobe: error: unknown command '" << argv[1] << "' (commands: " << names
          << "; see gpuprobe --help)\n";
      return 2;
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    // Help of the subcommand that was asked about, or of the whole tool; `probe ID --help` adds
    // that probe's parameters.
    const CLI::App* asked = &app;
    for (const CLI::App* sub : app.get_subcommands()) asked = sub;
    const ProbeSpec* spec = nullptr;
    if (asked == probe && !probe_id.empty()) {
      try {
        spec = &find_probe(probe_id);
      } catch (const std::exception& e) {
        err << "gpuprobe: error: " << e.what() << "\n";
        return 1;
      }
    }
    out << asked->help();
    if (spec) {
      out << "\n" << spec->id << " parameters: (" << spec->summary << ")\n";
      print_probe_params(out, *spec);
    }
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "gpuprobe: error: " << e.what() << " (see gpuprobe --help)\n";
    return 2;
  }

  try {
    if (*list) return cmd_list(out);
    if (*probe)
      return cmd_probe(probe_id, probe_device, probe_out, max_seconds, probe_resume,
                       probe->remaining(), out, err);
    if (*run_all) {
      if (run_out_opt->count() > 0 && run_out.empty())
        throw Error("--out '' names no folder: give one, or leave --out out for results/<device>");
      RunAllOptions options;
      options.device_spec = run_device;
      options.out_dir = run_out;
      options.max_seconds_per_point = max_seconds;
      options.resume = run_resume;
      options.force = run_force;
      options.profile = run_quick ? RunProfile::quick : RunProfile::full;
      options.only = run_only;
      if (run_watchdog_opt->count() > 0) options.watchdog_seconds = run_watchdog;
      options.plots = !run_no_plot;
      return cmd_run_all(options, out, err);
    }
    if (*analyze) {
      analysis::HierarchyFitOptions csv_options;
      csv_options.first_level = first_level;
      csv_options.last_is_memory = ends_in == "memory";
      return cmd_analyze(run_files, csv, clock_mhz, csv_options,
                         first_opt->count() > 0 || ends_opt->count() > 0, sm_count, allow_mixed, model_out,
                         out, err);
    }
    if (*roofline) return cmd_roofline(roofline_args, out, err);
    if (*aggregate) return cmd_aggregate(aggregate_args, out, err);
    if (*compare) return cmd_compare(compare_args, out, err);
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (const auto nl = msg.find('\n'); nl != std::string::npos) msg.resize(nl);
    err << "gpuprobe: error: " << msg << "\n";
    return 1;
  }
  return 2;
}

}  // namespace gpuprobe
