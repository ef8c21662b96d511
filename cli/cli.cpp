#include "cli/cli.hpp"

#include <cmath>
#include <exception>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analysis/csv_import.hpp"
#include "analysis/machine_model.hpp"
#include "cli/report.hpp"
#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/results.hpp"

namespace gpuprobe {
namespace {

constexpr const char* kFallbackPreset = "sim:h100";

void print_sim_banner(std::ostream& err, const DeviceInfo& info) {
  const std::string line(78, '#');
  err << line << "\n"
      << "##  SIMULATED DEVICE: " << info.name << "\n"
      << "##  Every number below comes from a model of the machine (preset '" << info.sim_preset
      << "'),\n"
      << "##  not from a measurement of real hardware. Results are marked \"simulated\": true.\n"
      << line << "\n";
}

// Opens the device; "auto" means the first CUDA GPU, else the simulated H100 with a banner.
std::unique_ptr<Device> open_for_run(const std::string& spec, std::ostream& err) {
  std::unique_ptr<Device> dev;
  if (spec == "auto") {
    try {
      dev = open_device("cuda:0");
    } catch (const DeviceUnavailable& e) {
      err << "gpuprobe: no usable GPU (" << e.what() << "); falling back to " << kFallbackPreset
          << "\n";
      dev = open_device(kFallbackPreset);
    }
  } else {
    dev = open_device(spec);
  }
  if (dev->info().simulated) print_sim_banner(err, dev->info());
  return dev;
}

// Turns the extras CLI11 left ("--name value" or "--name=value") into parameter overrides.
std::map<std::string, std::string> parse_overrides(const std::vector<std::string>& extras) {
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < extras.size(); ++i) {
    const std::string& a = extras[i];
    if (a.rfind("--", 0) != 0 || a.size() < 3)
      throw Error("unexpected argument '" + a + "': parameters are given as --name value");
    std::string name = a.substr(2), value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    } else {
      if (i + 1 >= extras.size()) throw Error("parameter --" + name + " needs a value");
      value = extras[++i];
    }
    if (out.count(name)) throw Error("parameter --" + name + " given twice");
    out[name] = value;
  }
  return out;
}

std::string slug(const std::string& text) {
  std::string s;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) s += static_cast<char>(std::tolower(c));
    else if (!s.empty() && s.back() != '-') s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s.empty() ? "device" : s;
}

struct PlannedRun {
  std::string probe;
  std::map<std::string, std::string> params;
  std::string file;  // under raw/
};

// The memory-latency slice of run-all. Later probe families append their runs here.
std::vector<PlannedRun> run_all_plan() {
  return {{"memory/chase", {{"cache-op", "default"}}, "memory_chase_default.json"},
          {"memory/chase", {{"cache-op", "ca"}}, "memory_chase_ca.json"},
          {"memory/chase", {{"cache-op", "cg"}}, "memory_chase_cg.json"},
          {"memory/chase", {{"cache-op", "nc"}}, "memory_chase_nc.json"},
          {"memory/chase_shared", {}, "memory_chase_shared.json"},
          {"memory/stride", {}, "memory_stride.json"},
          {"memory/tlb", {}, "memory_tlb.json"}};
}

RepeatPolicy repeat_policy(double max_seconds_per_point) {
  RepeatPolicy p;
  p.max_seconds = max_seconds_per_point;
  return p;
}

int cmd_list(std::ostream& out) {
  for (const auto& p : probe_registry()) {
    out << p.id << "  " << p.summary << "\n";
    for (const auto& prm : p.params)
      out << "    --" << prm.name << " (default " << prm.default_value << "): " << prm.help << "\n";
  }
  return 0;
}

int cmd_probe(const std::string& id, const std::string& device_spec, const std::string& out_path,
              double max_seconds, const std::vector<std::string>& extras, std::ostream& out,
              std::ostream& err) {
  const ProbeSpec& probe = find_probe(id);
  const Params params = Params::parse(probe.params, parse_overrides(extras));
  if (out_path.empty()) throw Error("probe needs --out FILE for its JSON record");
  auto dev = open_for_run(device_spec, err);
  err << "gpuprobe: " << id << " on " << dev->info().name << "\n";
  const auto record = run_probe(*dev, probe, params, repeat_policy(max_seconds), out_path, err);
  out << "wrote " << out_path << "\n";
  if (record["status"] == "skipped")
    throw Error(id + " skipped: " + record["skip_reason"].get<std::string>());
  return 0;
}

int cmd_run_all(const std::string& device_spec, std::string out_dir, double max_seconds,
                std::ostream& out, std::ostream& err) {
  auto dev = open_for_run(device_spec, err);
  const DeviceInfo& info = dev->info();
  if (out_dir.empty()) out_dir = "results/" + (info.simulated ? "sim-" + info.sim_preset : slug(info.name));
  namespace fs = std::filesystem;
  std::vector<nlohmann::json> runs;
  std::vector<std::string> paths;
  int failures = 0;
  for (const auto& planned : run_all_plan()) {
    const std::string path = (fs::path(out_dir) / "raw" / planned.file).string();
    err << "gpuprobe: " << planned.probe;
    for (const auto& [k, v] : planned.params) err << " --" << k << " " << v;
    err << "\n";
    try {
      const ProbeSpec& probe = find_probe(planned.probe);
      runs.push_back(run_probe(*dev, probe, Params::parse(probe.params, planned.params),
                               repeat_policy(max_seconds), path, err));
      paths.push_back(path);
    } catch (const DeviceUnavailable&) {
      throw;  // nothing else can run either
    } catch (const std::exception& e) {
      ++failures;
      err << "gpuprobe: error: " << planned.probe << " failed: " << e.what()
          << " (partial results kept in " << path << ")\n";
    }
  }
  if (!runs.empty()) {
    const auto model = analysis::build_machine_model(runs, paths);
    const std::string model_path = (fs::path(out_dir) / "machine_model.json").string();
    write_json_atomically(model_path, model);
    print_levels(out, model);
    out << "wrote " << model_path << "\n";
  }
  if (info.simulated) print_sim_banner(err, info);
  if (failures > 0) {
    err << "gpuprobe: error: " << failures << " probe run(s) failed; see the messages above\n";
    return 1;
  }
  return 0;
}

int cmd_analyze(const std::vector<std::string>& run_files, const std::string& csv,
                double clock_mhz, const analysis::HierarchyFitOptions& csv_options,
                bool csv_options_given, const std::string& out_path, std::ostream& out) {
  if (out_path.empty()) throw Error("analyze needs --out MODEL.json");
  if (clock_mhz < 0 || !std::isfinite(clock_mhz))
    throw Error("--clock-mhz must be a positive number");
  nlohmann::json model;
  if (!csv.empty()) {
    if (!run_files.empty()) throw Error("give either --import-csv or run records, not both");
    model = analysis::build_machine_model_from_curve(analysis::read_latency_csv(csv, clock_mhz),
                                                     csv, csv_options);
  } else {
    if (run_files.empty()) throw Error("analyze needs run records (RUN.json ...) or --import-csv FILE");
    if (clock_mhz > 0 || csv_options_given)
      throw Error("--clock-mhz, --first-level and --ends-in apply to --import-csv only; run "
                  "records carry their clock and cache operator");
    std::vector<nlohmann::json> runs;
    for (const auto& f : run_files) runs.push_back(read_json_file(f));
    model = analysis::build_machine_model(runs, run_files);
  }
  write_json_atomically(out_path, model);
  print_levels(out, model);
  out << "wrote " << out_path << "\n";
  return 0;
}

}  // namespace

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"gpuprobe: measure a GPU's microarchitecture and fit a machine model"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("gpuprobe ") + GPUPROBE_VERSION);
  const std::string device_help =
      "cuda, cuda:N, sim:<preset> (v100, a100, h100, h100-sxm, l40) or auto (GPU, else sim:h100)";

  auto* list = app.add_subcommand("list", "list the probes and their parameters");

  auto* probe = app.add_subcommand("probe", "run one probe: probe <id> [--param value ...] --out FILE");
  std::string probe_id, probe_out, probe_device = "cuda";
  double max_seconds = 2.0;
  probe->add_option("id", probe_id, "probe id (see `gpuprobe list`)")->required();
  probe->add_option("--out", probe_out, "JSON run record to write");
  probe->add_option("--device", probe_device, device_help);
  probe->add_option("--max-seconds-per-point", max_seconds, "time bound of the repeats per point");
  probe->allow_extras();

  auto* run_all = app.add_subcommand("run-all", "run every probe and fit the machine model");
  std::string run_device = "cuda", run_out;
  run_all->add_option("--device", run_device, device_help);
  run_all->add_option("--out", run_out, "output directory (default results/<device>)");
  run_all->add_option("--max-seconds-per-point", max_seconds, "time bound of the repeats per point");

  auto* analyze = app.add_subcommand("analyze", "fit a machine model from run records or a CSV curve");
  std::vector<std::string> run_files;
  std::string csv, model_out;
  double clock_mhz = 0;
  analyze->add_option("runs", run_files, "run records (JSON) written by probe or run-all");
  analyze->add_option("--import-csv", csv, "curve from any tool: footprint_bytes,latency_cycles[,latency_ns]");
  analyze->add_option("--clock-mhz", clock_mhz, "SM clock of the imported curve (for ns)");
  analyze->add_option("--out", model_out, "machine model JSON to write");
  std::string first_level = "L1", ends_in = "memory";
  auto* first_opt = analyze->add_option("--first-level", first_level,
                                        "imported curve: name of its first level (L1, or L2 for a "
                                        "chase that bypasses L1)")
                        ->check(CLI::IsMember({"L1", "L2"}));
  auto* ends_opt = analyze->add_option("--ends-in", ends_in,
                                       "imported curve: whether its last plateau is main memory "
                                       "(memory) or the sweep stopped inside a cache (cache)")
                       ->check(CLI::IsMember({"memory", "cache"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    // Help of the subcommand that was asked about, or of the whole tool.
    const CLI::App* asked = &app;
    for (const CLI::App* sub : app.get_subcommands()) asked = sub;
    out << asked->help();
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
    if (*probe) return cmd_probe(probe_id, probe_device, probe_out, max_seconds, probe->remaining(), out, err);
    if (*run_all) return cmd_run_all(run_device, run_out, max_seconds, out, err);
    if (*analyze) {
      analysis::HierarchyFitOptions csv_options;
      csv_options.first_level = first_level;
      csv_options.last_is_memory = ends_in == "memory";
      return cmd_analyze(run_files, csv, clock_mhz, csv_options,
                         first_opt->count() > 0 || ends_opt->count() > 0, model_out, out);
    }
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (const auto nl = msg.find('\n'); nl != std::string::npos) msg.resize(nl);
    err << "gpuprobe: error: " << msg << "\n";
    return 1;
  }
  return 2;
}

}  // namespace gpuprobe
