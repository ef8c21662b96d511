#include "cli/run_commands.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <sstream>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/machine_model.hpp"
#include "cli/report.hpp"
#include "cli/run_plan.hpp"
#include "harness/error.hpp"
#include "harness/interrupt.hpp"
#include "harness/lock.hpp"
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

// The runs of `plan` that `only` names (a probe id, or a family: the part before the slash);
// all of them when `only` is empty. A name that matches nothing is an error.
std::vector<PlannedRun> select_runs(const std::vector<PlannedRun>& plan,
                                    const std::vector<std::string>& only) {
  if (only.empty()) return plan;
  for (const auto& name : only) {
    bool found = false;
    for (const auto& run : plan)
      found = found || run.probe == name || run.probe.substr(0, run.probe.find('/')) == name;
    if (!found) throw Error("--only " + name + ": run-all has no such probe or family (see gpuprobe list)");
  }
  std::vector<PlannedRun> chosen;
  for (const auto& run : plan)
    for (const auto& name : only)
      if (run.probe == name || run.probe.substr(0, run.probe.find('/')) == name) {
        chosen.push_back(run);
        break;
      }
  return chosen;
}

RepeatPolicy repeat_policy(double max_seconds_per_point) {
  RepeatPolicy p;
  p.max_seconds = max_seconds_per_point;
  return p;
}

void check_max_seconds(double seconds) {
  if (!(seconds > 0) || !(seconds <= kMaxSecondsPerPoint)) {
    std::ostringstream got;
    got << seconds;
    throw Error("--max-seconds-per-point must be a positive number of seconds, at most " +
                std::to_string(static_cast<int>(kMaxSecondsPerPoint)) + " (got " + got.str() + ")");
  }
}

// Why `record` (read from `path`) cannot be continued by a run of `probe` with `params` on this
// device, or "" if it can.
std::string resume_mismatch(const nlohmann::json& record, const std::string& path,
                            const ProbeSpec& probe, const Params& params, const DeviceInfo& info) {
  if (record.value("schema", "") != kRunSchema || record.value("probe", "") != probe.id)
    return path + " is not a run record of " + probe.id;
  if (record.value("params", nlohmann::json()) != params.to_json())
    return path + " was measured with other parameters";
  const nlohmann::json here = to_json(info);
  const nlohmann::json& there = record.value("device", nlohmann::json::object());
  for (const char* key : {"name", "simulated", "sim_preset", "uuid", "pci_bus_id"})
    if (there.value(key, nlohmann::json()) != here[key])
      return path + " was measured on " + there.value("name", std::string("another device")) +
             ", not on " + info.name;
  return "";
}

bool complete(const nlohmann::json& record) {
  const std::string status = record.value("status", "");
  return status == "ok" || status == "skipped";
}

// Fails in one line, before anything is measured, if nothing can be written in `dir`: it makes
// the folder and writes and removes a file there (permission bits do not stop root).
void require_writable_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw Error("cannot write results to " + dir + ": " +
                (ec ? ec.message() : std::string("not a folder")));
  const std::string trial = (fs::path(dir) / (".gpuprobe-write-test-" + std::to_string(::getpid()))).string();
  const int fd = ::open(trial.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0 || ::write(fd, "x", 1) != 1) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    ::unlink(trial.c_str());
    throw Error("cannot write results to " + dir + ": " + std::strerror(e));
  }
  ::close(fd);
  ::unlink(trial.c_str());
}

std::string signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal"; }

std::size_t points_in(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return 0;
  try {
    return read_json_file(path).value("series", nlohmann::json::array()).size();
  } catch (const Error&) {
    return 0;
  }
}

// After an interrupt the machine model, if there is one, must not describe records that are gone
// (a complete record measured again and cut): it is fitted again from the records now in
// `record_paths`, a cut one with a warning. None is not started. Returns what became of it, for
// the interrupt's one line.
std::string refit_model_after_interrupt(const std::string& model_path,
                                        const std::vector<std::string>& record_paths) {
  std::error_code ec;
  if (!std::filesystem::exists(model_path, ec)) return "no machine model written";
  std::vector<nlohmann::json> runs;
  std::vector<std::string> paths;
  for (const auto& p : record_paths) {
    if (!std::filesystem::exists(p, ec)) continue;
    try {
      runs.push_back(read_json_file(p));
      paths.push_back(p);
    } catch (const Error&) {
    }
  }
  try {
    if (runs.empty()) throw Error("no record to fit");
    write_json_atomically(model_path, analysis::build_machine_model(runs, paths));
    return "machine model " + model_path + " fitted again from them";
  } catch (const std::exception& e) {
    std::string why = e.what();
    if (const auto nl = why.find('\n'); nl != std::string::npos) why.resize(nl);
    return "machine model not updated: " + why;
  }
}

}  // namespace

int cmd_probe(const std::string& id, const std::string& device_spec, const std::string& out_path,
              double max_seconds, bool resume, const std::vector<std::string>& extras,
              std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  check_max_seconds(max_seconds);
  const ProbeSpec& probe = find_probe(id);
  const Params params = Params::parse(probe.params, parse_overrides(extras));
  if (out_path.empty()) throw Error("probe needs --out FILE for its JSON record");
  check_output_path(out_path);
  auto dev = open_for_run(device_spec, err);
  const fs::path real(resolve_output_path(out_path));
  if (real.has_parent_path()) require_writable_dir(real.parent_path().string());
  const OutputLock lock(lock_path_for_file(out_path), out_path);
  remove_stale_temporaries(real.has_parent_path() ? real.parent_path().string() : ".");
  nlohmann::json resume_from;
  std::error_code ec;
  if (resume && fs::exists(real, ec)) {
    nlohmann::json earlier = read_json_file(out_path);
    if (const std::string why = resume_mismatch(earlier, out_path, probe, params, dev->info());
        !why.empty())
      throw Error("cannot resume: " + why);
    if (complete(earlier)) {
      out << out_path << " is complete (status " << earlier["status"].get<std::string>()
          << "): kept as it is\n";
      return 0;
    }
    resume_from = std::move(earlier);
  }
  install_interrupt_handlers();
  err << "gpuprobe: " << id << " on " << dev->info().name << "\n";
  nlohmann::json record;
  try {
    record = run_probe(*dev, probe, params, repeat_policy(max_seconds), out_path, err, resume_from);
  } catch (const Interrupted& e) {
    const std::size_t kept = points_in(out_path);
    err << "gpuprobe: interrupted by " << signal_name(e.signal_number()) << ": "
        << (kept > 0 ? std::to_string(kept) + " measured points kept in " + out_path
                     : std::string("nothing measured, nothing written"))
        << "; continue with the same command and --resume\n";
    return 128 + e.signal_number();
  }
  out << "wrote " << out_path << "\n";
  if (record["status"] == "skipped")
    throw Error(id + " skipped: " + record["skip_reason"].get<std::string>());
  return 0;
}

int cmd_run_all(const RunAllOptions& options, std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  const std::string& device_spec = options.device_spec;
  std::string out_dir = options.out_dir;
  const double max_seconds = options.max_seconds_per_point;
  const bool resume = options.resume, force = options.force;
  check_max_seconds(max_seconds);
  if (resume && force) throw Error("--resume keeps earlier results and --force replaces them: give one");
  // Every probe and parameter is checked before anything is opened or written.
  struct Job {
    const ProbeSpec* probe;
    Params params;
    std::string label, path;
    nlohmann::json earlier;  // the record already there (--resume), or null
  };
  std::vector<Job> jobs;
  for (const auto& planned : select_runs(run_all_plan(options.profile), options.only)) {
    const ProbeSpec& probe = find_probe(planned.probe);
    std::string label = planned.probe;
    for (const auto& [k, v] : planned.params) label += " --" + k + " " + v;
    jobs.push_back({&probe, Params::parse(probe.params, planned.params), label, planned.file, {}});
  }
  const bool dir_given = !out_dir.empty();
  if (dir_given) require_writable_dir((fs::path(out_dir) / "raw").string());
  auto dev = open_for_run(device_spec, err);
  const DeviceInfo& info = dev->info();
  if (!dir_given) {
    out_dir = "results/" + (info.simulated ? "sim-" + info.sim_preset : slug(info.name));
    require_writable_dir((fs::path(out_dir) / "raw").string());
  }
  const OutputLock lock(lock_path_for_dir(out_dir), out_dir);
  remove_stale_temporaries(out_dir);
  remove_stale_temporaries((fs::path(out_dir) / "raw").string());
  const std::string model_path = (fs::path(out_dir) / "machine_model.json").string();
  check_output_path(model_path);
  std::vector<std::string> existing;
  std::error_code ec;
  for (auto& job : jobs) {
    job.path = (fs::path(out_dir) / "raw" / job.path).string();
    check_output_path(job.path);
    if (fs::exists(job.path, ec)) existing.push_back(job.path);
  }
  if (fs::exists(model_path, ec)) existing.push_back(model_path);
  if (!existing.empty() && !resume && !force)
    throw Error(out_dir + " already holds results (" + existing.front() +
                (existing.size() > 1 ? " and " + std::to_string(existing.size() - 1) + " more" : "") +
                "): add --resume to keep the complete records and continue the others, or "
                "--force to measure everything again");
  if (resume) {
    for (auto& job : jobs) {
      if (!fs::exists(job.path, ec)) continue;
      nlohmann::json earlier;
      try {
        earlier = read_json_file(job.path);
      } catch (const Error& e) {
        throw Error(std::string("cannot resume: ") + e.what() + " (--force measures it again)");
      }
      if (const std::string why = resume_mismatch(earlier, job.path, *job.probe, job.params, info);
          !why.empty())
        throw Error("cannot resume: " + why + " (--force measures everything again)");
      job.earlier = std::move(earlier);
    }
  }
  const std::string resume_hint = "gpuprobe run-all --device " + device_spec + " --out " + out_dir +
                                  " --resume";
  install_interrupt_handlers();
  std::vector<nlohmann::json> runs;
  std::vector<std::string> paths;
  int failures = 0;
  std::size_t kept_complete = 0;
  for (const auto& job : jobs) {
    err << "gpuprobe: " << job.label << "\n";
    try {
      throw_if_interrupted();
      if (job.earlier.is_object() && complete(job.earlier)) {
        err << "  complete in " << job.path << ": kept as it is\n";
        runs.push_back(job.earlier);
        paths.push_back(job.path);
        ++kept_complete;
        continue;
      }
      runs.push_back(run_probe(*dev, *job.probe, job.params, repeat_policy(max_seconds), job.path,
                               err, job.earlier));
      paths.push_back(job.path);
      ++kept_complete;
    } catch (const Interrupted& e) {
      const std::size_t points = points_in(job.path);
      std::vector<std::string> record_paths;
      for (const auto& j : jobs) record_paths.push_back(j.path);
      err << "gpuprobe: interrupted by " << signal_name(e.signal_number()) << ": kept "
          << kept_complete << " complete record(s)"
          << (points > 0 ? " and " + std::to_string(points) + " points of " + job.label : "")
          << " in " << (fs::path(out_dir) / "raw").string() << " ("
          << refit_model_after_interrupt(model_path, record_paths) << "); resume with: " << resume_hint
          << "\n";
      return 128 + e.signal_number();
    } catch (const DeviceUnavailable&) {
      throw;  // nothing else can run either
    } catch (const std::exception& e) {
      ++failures;
      err << "gpuprobe: error: " << job.label << " failed: " << e.what()
          << (points_in(job.path) > 0 ? " (what it measured is kept in " + job.path + ")"
                                      : std::string(" (nothing written)"))
          << "\n";
    }
  }
  if (!runs.empty()) {
    const auto model = analysis::build_machine_model(runs, paths);
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
