#include "cli/run_commands.hpp"

#include <cctype>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

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

}  // namespace

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
    print_model(out, model);
    out << "wrote " << model_path << "\n";
  }
  if (info.simulated) print_sim_banner(err, info);
  if (failures > 0) {
    err << "gpuprobe: error: " << failures << " probe run(s) failed; see the messages above\n";
    return 1;
  }
  return 0;
}

}  // namespace gpuprobe
