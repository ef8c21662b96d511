#include "cli/run_commands.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/machine_model.hpp"
#include "cli/plot_runner.hpp"
#include "cli/report.hpp"
#include "cli/run_plan.hpp"
#include "harness/error.hpp"
#include "harness/interrupt.hpp"
#include "harness/lock.hpp"
#include "harness/probe.hpp"
#include "harness/results.hpp"
#include "harness/sim/sim_device.hpp"
#include "harness/wait_timeout.hpp"

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
  const auto named = [&](const PlannedRun& run, const std::string& name) {
    return run.probe == name || run.probe.substr(0, run.probe.find('/')) == name;
  };
  for (const auto& name : only)
    if (std::none_of(plan.begin(), plan.end(), [&](const PlannedRun& run) { return named(run, name); }))
      throw Error("--only " + name + ": run-all has no such probe or family (see gpuprobe list)");
  std::vector<PlannedRun> chosen;
  for (const auto& run : plan)
    if (std::any_of(only.begin(), only.end(), [&](const std::string& name) { return named(run, name); }))
      chosen.push_back(run);
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

// A JSON value as a command line or a message gives it: a string as it is, else its JSON.
std::string value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// "--a 1 --b 2": the parameters `names` as `params` (a record's "params") has them.
std::string params_text(const nlohmann::json& params, const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names)
    text += (text.empty() ? "--" : " --") + name + " " +
            (params.is_object() && params.contains(name) ? value_text(params[name]) : std::string("(none)"));
  return text;
}

// The names of the parameters in which two records' "params" differ.
std::vector<std::string> differing_params(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<std::string> names;
  for (const auto* side : {&a, &b})
    if (side->is_object())
      for (const auto& [name, value] : side->items())
        if (std::find(names.begin(), names.end(), name) == names.end() &&
            a.value(name, nlohmann::json()) != b.value(name, nlohmann::json()))
          names.push_back(name);
  return names;
}

// Why `record` (read from `path`) cannot be continued by a run of `probe` with `params` on this
// device, or "" if it can: the parameters that differ, or what of the device does (its name, else
// the preset, uuid or PCI bus id: two devices may share a name).
std::string resume_mismatch(const nlohmann::json& record, const std::string& path,
                            const ProbeSpec& probe, const Params& params, const DeviceInfo& info) {
  if (record.value("schema", "") != kRunSchema || record.value("probe", "") != probe.id)
    return path + " is not a run record of " + probe.id;
  const nlohmann::json had = record.value("params", nlohmann::json()), want = params.to_json();
  if (had != want) {
    if (!had.is_object()) return path + " was measured with other parameters";
    const auto names = differing_params(had, want);
    return path + " was measured with " + params_text(had, names) + ", this run measures " +
           params_text(want, names);
  }
  const nlohmann::json here = to_json(info);
  const nlohmann::json there = record.value("device", nlohmann::json::object());
  if (there.value("name", nlohmann::json()) != here["name"])
    return path + " was measured on " + there.value("name", std::string("another device")) + ", not on " +
           info.name;
  for (const char* key : {"simulated", "sim_preset", "uuid", "pci_bus_id"})
    if (there.value(key, nlohmann::json()) != here[key])
      return path + " was measured on " + info.name + " with " + key + " " +
             value_text(there.value(key, nlohmann::json())) + ", not " + value_text(here[key]) +
             " as this run";
  return "";
}

bool complete(const nlohmann::json& record) {
  const std::string status = record.value("status", "");
  return status == "ok" || status == "skipped";
}

// Fails in one line, before anything is measured, if nothing can be written in `dir`: it makes
// the folder and writes and removes a file there (permission bits do not stop root). `what` names
// the output in the message ("cannot write WHAT: why").
void require_writable_dir(const std::string& dir, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    // A link to nothing on the way says "File exists": name the link instead.
    for (fs::path p = dir; !p.empty() && p != p.parent_path(); p = p.parent_path()) {
      std::error_code link_ec;
      if (fs::is_symlink(fs::symlink_status(p, link_ec)) && !fs::exists(p, link_ec))
        throw Error("cannot write " + what + ": " + p.string() + " is a link to " +
                    fs::read_symlink(p, link_ec).string() + ", which does not exist");
    }
    throw Error("cannot write " + what + ": " + (ec ? ec.message() : dir + " is not a folder"));
  }
  const std::string trial = (fs::path(dir) / (".gpuprobe-write-test-" + std::to_string(::getpid()))).string();
  const int fd = ::open(trial.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0 || ::write(fd, "x", 1) != 1) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    ::unlink(trial.c_str());
    throw Error("cannot write " + what + ": " + std::strerror(e));
  }
  ::close(fd);
  ::unlink(trial.c_str());
}

// The folders create_directories(`dir`) would make, deepest first: those to remove again when the
// command fails before it wrote anything there.
std::vector<std::filesystem::path> missing_folders(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> missing;
  std::error_code ec;
  for (auto p = dir; !p.empty() && !std::filesystem::exists(std::filesystem::symlink_status(p, ec));
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  return missing;
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "signal " + std::to_string(sig);
  }
}

// The record at `path`, or null when there is none or it cannot be read.
nlohmann::json record_at(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return nullptr;
  try {
    return read_json_file(path);
  } catch (const Error&) {
    return nullptr;
  }
}

std::size_t points_in(const std::string& path) {
  const nlohmann::json record = record_at(path);
  return record.is_object() ? record.value("series", nlohmann::json::array()).size() : 0;
}

// `text` as one word of a POSIX shell: as it is when it holds only characters no shell treats
// specially, else in single quotes.
std::string shell_quoted(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789-_./,:=+@%") == std::string::npos)
    return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The shortest decimal that reads back as `x` ("100", not "1e+02").
std::string number_text(double x) {
  char buf[32];
  if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", x);
    return buf;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

// Test hooks (run_commands.hpp): each variable, what it makes its probe do, and whether they act.
struct TestHook {
  const char* variable;
  const char* effect;
};
constexpr TestHook kTestHooks[] = {
    {"GPUPROBE_TEST_FAIL_PROBE", "fail once its points are measured"},
    {"GPUPROBE_TEST_HANG_PROBE", "hang once its points are measured, until a signal or run-all's watchdog"},
    {"GPUPROBE_TEST_STICKY_PROBE", "end as after a sticky CUDA error unless it resumes"},
    {"GPUPROBE_TEST_FAIL_SELF_CHECK",
     "get a wrong simulated result of the op named after the probe (PROBE:OP[:HOW]), which its "
     "self-check fails"},
    {"GPUPROBE_TEST_WAIT_TIMEOUT",
     "lose its context at each point of op OP (PROBE:OP) as after a device-side wait timed out, "
     "with a made-up kernel record"},
};

bool test_hooks_enabled() {
  const char* on = std::getenv("GPUPROBE_TEST_HOOKS");
  return on != nullptr && std::string(on) == "1";
}

// The probe a hook's value names: all of it, or what comes before a ':' (PROBE:OP[:HOW]).
std::string hook_probe(const std::string& value) { return value.substr(0, value.find(':')); }

// Whether the hook `variable` acts on probe `id`.
bool test_hook(const char* variable, const std::string& id) {
  const char* value = std::getenv(variable);
  return test_hooks_enabled() && value != nullptr && id == hook_probe(value);
}

// GPUPROBE_TEST_FAIL_SELF_CHECK=PROBE:OP[:HOW] on a simulated device: OP's result is made wrong
// (sim::SimDevice::plant_wrong_result), so that its self-check fails; a real GPU is left alone.
void plant_wrong_result(Device& device, const std::string& id) {
  if (!test_hook("GPUPROBE_TEST_FAIL_SELF_CHECK", id)) return;
  auto* sim = dynamic_cast<sim::SimDevice*>(&device);
  if (sim == nullptr) return;
  const std::string value = std::getenv("GPUPROBE_TEST_FAIL_SELF_CHECK");
  const std::string rest = value.size() > id.size() ? value.substr(id.size() + 1) : "";
  const auto colon = rest.find(':');
  sim->plant_wrong_result({rest.substr(0, colon), colon == std::string::npos ? "" : rest.substr(colon + 1)});
}

// One warning line per hook variable that is set and names probe `id` (any probe when `id` is
// empty): what it does, or that it is ignored without GPUPROBE_TEST_HOOKS=1.
std::vector<std::string> test_hook_warnings(const std::string& id) {
  std::vector<std::string> lines;
  for (const TestHook& hook : kTestHooks) {
    const char* value = std::getenv(hook.variable);
    if (value == nullptr || *value == '\0' || (!id.empty() && id != hook_probe(value))) continue;
    const std::string set = std::string(hook.variable) + "=" + value;
    lines.push_back(test_hooks_enabled() ? "gpuprobe: warning: the test hook " + set +
                                               " is on (GPUPROBE_TEST_HOOKS=1): " + value + " will " +
                                               hook.effect + "; unset both for a real measurement"
                                         : "gpuprobe: warning: " + set +
                                               " is set and ignored: the test hooks act only "
                                               "with GPUPROBE_TEST_HOOKS=1");
  }
  return lines;
}

// `probe` as the test hooks want it: unchanged unless one acts on it.
ProbeSpec with_test_hooks(const ProbeSpec& probe, bool resuming) {
  const bool fail = test_hook("GPUPROBE_TEST_FAIL_PROBE", probe.id);
  const bool hang = test_hook("GPUPROBE_TEST_HANG_PROBE", probe.id);
  const bool lose = test_hook("GPUPROBE_TEST_STICKY_PROBE", probe.id) && !resuming;
  std::string wait_op;  // GPUPROBE_TEST_WAIT_TIMEOUT=PROBE:OP
  if (test_hook("GPUPROBE_TEST_WAIT_TIMEOUT", probe.id)) {
    const std::string value = std::getenv("GPUPROBE_TEST_WAIT_TIMEOUT");
    wait_op = value.find(':') == std::string::npos ? "" : value.substr(value.find(':') + 1);
  }
  if (!fail && !hang && !lose && wait_op.empty()) return probe;
  ProbeSpec hooked = probe;
  hooked.run = [run = probe.run, fail, hang, lose, wait_op](ProbeContext& ctx) {
    if (!wait_op.empty())
      ctx.set_point_hook([wait_op](const nlohmann::json& axes) {
        if (!axes.contains("op") || axes["op"] != wait_op) return;
        const cuda::WaitTimeout r = example_wait_timeout();  // as a kernel writes it
        const std::string reason = describe_wait_timeout(r);
        throw WaitTimedOut("the test hook GPUPROBE_TEST_WAIT_TIMEOUT: " + reason, reason,
                           wait_timeout_evidence(r, "gpuprobe_test_hook_kernel"));
      });
    run(ctx);
    if (fail) throw Error("forced to fail by the test hook GPUPROBE_TEST_FAIL_PROBE");
    if (lose)
      throw DeviceLost("the test hook GPUPROBE_TEST_STICKY_PROBE: as after a sticky CUDA error");
    // As a stuck kernel, but a signal stops it (the record is saved as interrupted).
    while (hang) {
      throw_if_interrupted();
      ::usleep(20000);
    }
  };
  return hooked;
}

// ---- run-all's supervisor: every probe in a process of its own ----

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// "0:07", "12:31", "1:02:03".
std::string clock_text(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

std::string seconds_text(double seconds) { return number_text(seconds); }

// head + label + tail in fewer than `columns` characters (none: as it is): the label is cut first
// (ending in "..."), then the line. A line as wide as the terminal would wrap, and "\r\033[K"
// clears only the last row, so each redraw would leave a stale row above.
std::string fit_line(const std::string& head, const std::string& label, const std::string& tail,
                     std::size_t columns) {
  std::string line = head + label + tail;
  if (columns == 0 || line.size() < columns) return line;
  const std::size_t room = columns - 1;
  if (head.size() + tail.size() + 3 < room)
    return head + label.substr(0, room - head.size() - tail.size() - 3) + "..." + tail;
  return line.substr(0, room);
}

// The bar, the count, the current probe, the elapsed time and the ETA. The ETA weighs each run
// still to measure by its estimated device time (equal weights where the plan has none), scaled
// by how the runs done so far kept to their weights.
class Progress {
 public:
  Progress(std::ostream& err, bool tty, std::size_t total, double total_weight)
      : err_(err), tty_(tty), total_(total), remaining_weight_(total_weight) {}

  void start(std::size_t index, const std::string& label, double weight) {
    index_ = index;
    label_ = label;
    weight_ = weight;
    current_start_ = Clock::now();
    if (tty_) {
      draw();
    } else {
      err_ << "gpuprobe: [" << index + 1 << "/" << total_ << "] " << label_ << "  " << times()
           << "\n";
    }
  }
  // The current run is done: `measured` when it ran (a kept record costs no time).
  void finish(bool measured) {
    remaining_weight_ -= weight_;
    if (measured) {
      done_weight_ += weight_;
      measured_seconds_ += seconds_since(current_start_);
    }
    weight_ = 0;
  }
  // A line of its own (above the bar on a terminal).
  void note(const std::string& line) {
    if (tty_ && drawn_) err_ << "\r\033[K";
    err_ << line << "\n";
    if (tty_ && drawn_) draw();
  }
  // Redraws the bar at most twice a second (a terminal only).
  void tick() {
    if (tty_ && seconds_since(last_draw_) >= 0.5) draw();
  }
  void end() {
    if (tty_ && drawn_) err_ << "\r\033[K" << std::flush;
    drawn_ = false;
  }

 private:
  std::string times() const {
    std::string eta = "--:--";
    const double rate = done_weight_ > 0 ? measured_seconds_ / done_weight_ : 0;
    if (rate > 0)
      eta = clock_text(std::max(0.0, rate * remaining_weight_ - seconds_since(current_start_)));
    return "elapsed " + clock_text(seconds_since(started_)) + "  ETA " + eta;
  }
  void draw() {
    constexpr std::size_t kWidth = 10;
    const std::size_t filled = total_ == 0 ? kWidth : kWidth * index_ / total_;
    const std::string head = "[" + std::string(filled, '#') + std::string(kWidth - filled, '.') + "] " +
                             std::to_string(index_ + 1) + "/" + std::to_string(total_) + " ";
    err_ << "\r\033[K" << fit_line(head, label_, "  " + times(), terminal_columns()) << std::flush;
    drawn_ = true;
    last_draw_ = Clock::now();
  }
  // The terminal's width (asked at each redraw: it may change), 0 when unknown.
  static std::size_t terminal_columns() {
    winsize ws{};
    return ::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
  }

  std::ostream& err_;
  bool tty_;
  std::size_t total_, index_ = 0;
  std::string label_;
  double weight_ = 0, remaining_weight_, done_weight_ = 0, measured_seconds_ = 0;
  Clock::time_point started_ = Clock::now(), current_start_ = started_, last_draw_ = started_;
  bool drawn_ = false;
};

// A file's identity and state, to tell whether it was rewritten.
struct FileStamp {
  bool exists = false;
  ino_t inode = 0;
  off_t size = 0;
  long long mtime_ns = 0;
  bool operator==(const FileStamp& o) const {
    return exists == o.exists && inode == o.inode && size == o.size && mtime_ns == o.mtime_ns;
  }
  bool operator!=(const FileStamp& o) const { return !(*this == o); }
};

FileStamp stamp_of(const std::string& path) {
  struct stat st {};
  FileStamp f;
  if (::stat(path.c_str(), &st) != 0) return f;
  f.exists = true;
  f.inode = st.st_ino;
  f.size = st.st_size;
  f.mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  return f;
}

// How a probe's process ended.
struct ChildEnd {
  pid_t pid = 0;
  bool exited = false;      // else killed by `signal_number`
  int code = 0;             // exit status
  int signal_number = 0;
  bool watchdog = false;    // killed by the watchdog
  int forwarded = 0;        // the SIGINT or SIGTERM passed on to it, or 0
  std::string error;        // its last "gpuprobe: error: ..." line, without the prefix
};

// Which of a probe's lines a log (not a terminal) gets: its own "gpuprobe: ..." lines (warnings)
// but for what run-all says itself (errors, interrupts, skips, the probe's first line). Its
// per-point lines are not: the log keeps one line per probe, and what is worth reading.
bool worth_forwarding(const std::string& line, const std::string& probe_id) {
  if (line.rfind("gpuprobe: ", 0) != 0) return false;
  for (const char* own : {"gpuprobe: error:", "gpuprobe: interrupted"})
    if (line.rfind(own, 0) == 0) return false;
  for (const char* own : {" on ", " skipped: "})
    if (line.rfind("gpuprobe: " + probe_id + own, 0) == 0) return false;
  return true;
}

// How long a probe's process killed after a third signal is waited for.
constexpr double kKilledWaitSeconds = 10;

// Runs `argv` (argv[0]: the executable) in its own process group, its output read through a pipe,
// until it ends. No change of `record` and no output for `watchdog_seconds`: its group is killed.
// A SIGINT or SIGTERM to run-all is passed on to it, and it is waited for.
ChildEnd run_child(const std::vector<std::string>& argv, const std::string& probe_id,
                   const std::string& record, double watchdog_seconds, Progress& progress,
                   bool forward_lines) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(std::string("cannot make a pipe: ") + std::strerror(errno));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(std::string("cannot start a process: ") + std::strerror(e));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // run-all killed: its probe goes with it
    if (::getppid() != parent) ::_exit(127);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    ::execv(args[0], args.data());
    const std::string msg = std::string("gpuprobe: error: cannot run ") + args[0] + ": " +
                            std::strerror(errno) + "\n";
    if (::write(STDERR_FILENO, msg.data(), msg.size()) < 0) {
    }
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // both sides, whichever runs first
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  ChildEnd end;
  end.pid = pid;
  std::string pending;
  bool open = true, reaped = false;
  bool status_known = false;  // waitpid reported the exit (not ECHILD, not given up on)
  int status = 0;
  Clock::time_point killed_at{};  // when it was sent SIGKILL (the watchdog, a third signal)
  int passed_on = 0;              // signals to run-all passed on to it
  FileStamp seen = stamp_of(record);
  Clock::time_point last_progress = Clock::now();
  const auto take_line = [&](const std::string& line) {
    if (line.rfind("gpuprobe: error: ", 0) == 0) end.error = line.substr(17);
    if (forward_lines && worth_forwarding(line, probe_id)) progress.note(line);
  };
  while (!reaped || open) {
    if (open) {
      pollfd p{fds[0], POLLIN, 0};
      ::poll(&p, 1, reaped ? 0 : 100);
      char buf[4096];
      for (;;) {
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n > 0) {
          pending.append(buf, static_cast<std::size_t>(n));
          last_progress = Clock::now();
          continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EINTR)) open = false;
        else if (reaped) open = false;  // a grandchild holds the pipe: not waited for
        break;
      }
      for (auto nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n')) {
        take_line(pending.substr(0, nl));
        pending.erase(0, nl + 1);
      }
    } else if (!reaped) {
      ::usleep(100000);
    }
    if (!reaped) {
      const pid_t r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid || (r < 0 && errno != EINTR)) {
        reaped = true;
        status_known = r == pid;
        continue;  // drain what is left in the pipe
      }
      // A process SIGKILL does not end (stuck in the driver) is left behind after a second
      // watchdog period, so that the run goes on.
      if (killed_at != Clock::time_point{} &&
          seconds_since(killed_at) > (end.watchdog ? watchdog_seconds : kKilledWaitSeconds)) {
        reaped = true;
        open = false;
        break;
      }
    }
    if (reaped) continue;
    if (const FileStamp now = stamp_of(record); now != seen) {
      seen = now;
      last_progress = Clock::now();
    }
    // Each signal to run-all is passed on: the first asks the probe to save and stop, the
    // second ends it at once (it leaves its lock and a record saying running, which run-all then
    // tidies); from the third on it is killed.
    if (const int count = interrupt_count(); count > passed_on) {
      passed_on = count;
      if (end.forwarded == 0) end.forwarded = interrupt_signal();
      if (passed_on <= 2) {
        ::kill(-pid, end.forwarded);
      } else if (killed_at == Clock::time_point{}) {
        killed_at = Clock::now();
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);
      }
      last_progress = Clock::now();  // it gets a watchdog's time to save and stop
    }
    if (!end.watchdog && seconds_since(last_progress) > watchdog_seconds) {
      end.watchdog = true;
      killed_at = Clock::now();
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
    }
    progress.tick();
  }
  ::close(fds[0]);
  if (!pending.empty()) take_line(pending);
  // An exit waitpid could not report counts as a kill, never as a success.
  end.exited = status_known && WIFEXITED(status);
  end.code = end.exited ? WEXITSTATUS(status) : 0;
  end.signal_number = !status_known ? SIGKILL : WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  ::kill(-pid, SIGKILL);  // anything it left in its group
  return end;
}

// The record at `path`, or null if there is none or it cannot be read.

// Marks the record at `path` with `status` (and `error`, when not empty), keeping its points; a
// probe that wrote nothing gets a record of its own, without points, so that its outcome is
// recorded. Written atomically.
void mark_record(const std::string& path, const std::string& status, const std::string& error,
                 const ProbeSpec& probe, const Params& params, const DeviceInfo& info,
                 double max_seconds) {
  nlohmann::json record = record_at(path);
  if (!record.is_object() || record.value("schema", "") != kRunSchema)
    record = new_run_record(info, probe, params, repeat_policy(max_seconds));
  record["status"] = status;
  if (!error.empty()) record["error"] = error;
  write_json_atomically(path, record);
}

// The lock a killed probe process left on its record (FILE.lock naming its pid) is removed.
void remove_lock_of(const std::string& record, pid_t pid_gone) {
  const std::string lock = lock_path_for_file(record);
  std::ifstream in(lock);
  long pid = 0;
  if (in >> pid && pid == pid_gone) ::unlink(lock.c_str());
}

// A probe into a folder a run-all is writing (DIR, or DIR/raw, with DIR/.gpuprobe.lock held) is
// refused, unless that run-all is its parent (its own probes).
void refuse_run_all_folder(const std::filesystem::path& folder, const std::string& out_path) {
  std::vector<std::filesystem::path> dirs = {folder};
  if (folder.filename() == "raw") dirs.push_back(folder.has_parent_path() ? folder.parent_path() : ".");
  for (const auto& dir : dirs) {
    const std::string lock = lock_path_for_dir(dir.string());
    const auto holder = live_lock_holder(lock);
    if (!holder || (holder->this_host && holder->pid == ::getppid())) continue;
    throw Error(out_path + " is in " + dir.string() + ", which gpuprobe run-all pid " +
                std::to_string(holder->pid) + " on " + holder->host + " is writing (lock file " + lock +
                "): wait for it to finish, or write the record elsewhere");
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
  if (probe.check) probe.check(params, max_seconds);
  if (out_path.empty()) throw Error("probe needs --out FILE for its JSON record");
  check_output_path(out_path);
  const fs::path real(resolve_output_path(out_path));
  const fs::path folder = real.has_parent_path() ? real.parent_path() : fs::path(".");
  refuse_run_all_folder(folder, out_path);
  for (const auto& line : test_hook_warnings(probe.id)) err << line << "\n";
  auto dev = open_for_run(device_spec, err);
  plant_wrong_result(*dev, probe.id);
  require_writable_dir(folder.string(), out_path);
  const OutputLock lock(lock_path_for_file(out_path), out_path);
  remove_stale_temporaries({out_path});
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
    record = run_probe(*dev, with_test_hooks(probe, resume_from.is_object()), params,
                       repeat_policy(max_seconds), out_path, err, resume_from);
  } catch (const DeviceLost& e) {
    const std::size_t kept = points_in(out_path);
    err << "gpuprobe: error: " << e.what() << " ("
        << (kept > 0 ? std::to_string(kept) + " measured points kept in " + out_path +
                           "; continue in a new process with the same command and --resume"
                     : std::string("nothing measured; run the same command again"))
        << ")\n";
    return kExitDeviceLost;
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
  if (options.watchdog_seconds &&
      (!(*options.watchdog_seconds > 0) || !(*options.watchdog_seconds <= kMaxWatchdogSeconds)))
    throw Error("--watchdog-seconds must be a positive number of seconds, at most " +
                std::to_string(static_cast<int>(kMaxWatchdogSeconds)) + " (got " +
                seconds_text(*options.watchdog_seconds) + "; leave it out for the default)");
  if (resume && force) throw Error("--resume keeps earlier results and --force replaces them: give one");
  // Every probe and parameter is checked before anything is opened or written. The plan's runs
  // that --only leaves out are kept too: the machine model is fitted from the whole folder.
  struct Job {
    const ProbeSpec* probe;
    Params params;
    std::string label, path;
    std::vector<std::string> param_args;  // "--name", "value", ... for `probe`
    double estimate;                      // the plan's device seconds, 0 if none
    bool selected;                        // measured by this run (--only names it, or there is none)
    nlohmann::json earlier;               // the record already there (--resume), or null
    bool ran = false;                     // its process was started
  };
  const std::vector<PlannedRun> whole_plan = run_all_plan(options.profile);
  const std::vector<PlannedRun> chosen = select_runs(whole_plan, options.only);
  std::vector<Job> plan;
  for (const auto& planned : whole_plan) {
    const ProbeSpec& probe = find_probe(planned.probe);
    std::string label = planned.probe;
    std::vector<std::string> args;
    for (const auto& [k, v] : planned.params) {
      label += " --" + k + " " + v;
      args.push_back("--" + k);
      args.push_back(v);
    }
    const bool selected = std::any_of(chosen.begin(), chosen.end(),
                                      [&](const PlannedRun& c) { return c.file == planned.file; });
    plan.push_back({&probe,
                    Params::parse(probe.params, planned.params),
                    label,
                    planned.file,
                    args,
                    planned.estimated_device_seconds,
                    selected,
                    {}});
  }
  std::vector<Job*> jobs;  // the runs to measure, in the plan's order
  for (auto& job : plan)
    if (job.selected) jobs.push_back(&job);
  for (const auto& line : test_hook_warnings("")) err << line << "\n";
  const bool dir_given = !out_dir.empty();
  // The folders made for the results are removed again if the device cannot be opened.
  std::vector<fs::path> made;
  if (dir_given) {
    const std::string raw = (fs::path(out_dir) / "raw").string();
    made = missing_folders(raw);
    require_writable_dir(raw, "results to " + raw);
  }
  std::unique_ptr<Device> dev;
  try {
    dev = open_for_run(device_spec, err);
  } catch (...) {
    std::error_code rm;
    for (const auto& folder : made) fs::remove(folder, rm);  // only if still empty
    throw;
  }
  const DeviceInfo info = dev->info();
  // Each probe opens the device in its own process: the same one ("auto" as it was resolved).
  const std::string child_spec =
      device_spec != "auto" ? device_spec : info.simulated ? "sim:" + info.sim_preset : "cuda:0";
  // The probes open the device themselves: this process gives its context back, so it holds no
  // GPU memory meanwhile and an exclusive-process GPU stays open to them.
  try {
    dev->release_context();
  } catch (const std::exception& e) {
    err << "gpuprobe: warning: cannot give back the device context (" << e.what()
        << "); the probes open the device beside it\n";
  }
  dev.reset();
  if (!dir_given) {
    out_dir = "results/" + (info.simulated ? "sim-" + slug(info.sim_preset) : slug(info.name));
    const std::string raw = (fs::path(out_dir) / "raw").string();
    require_writable_dir(raw, "results to " + raw);
  }
  const OutputLock lock(lock_path_for_dir(out_dir), out_dir);
  const std::string raw_dir = (fs::path(out_dir) / "raw").string();
  const std::string model_path = (fs::path(out_dir) / "machine_model.json").string();
  check_output_path(model_path);
  // What this command writes (its probes' records, the model and its roofline): a temporary of
  // one of them that a killed run of this host left is removed, nothing else.
  std::vector<std::string> own_files = {model_path,
                                        (fs::path(out_dir) / "machine_model.roofline.json").string()};
  std::vector<std::string> existing;
  std::error_code ec;
  for (auto& job : plan) {
    job.path = (fs::path(raw_dir) / job.path).string();
    if (!job.selected) continue;
    own_files.push_back(job.path);
    check_output_path(job.path);
    if (fs::exists(job.path, ec)) existing.push_back(job.path);
  }
  remove_stale_temporaries(own_files);
  if (fs::exists(model_path, ec)) existing.push_back(model_path);
  if (!existing.empty() && !resume && !force)
    throw Error(out_dir + " already holds results (" + existing.front() +
                (existing.size() > 1 ? " and " + std::to_string(existing.size() - 1) + " more" : "") +
                "): add --resume to keep the complete records and continue the others, or "
                "--force to measure everything again");
  // A record measured as the other profile plans it (--quick against --full): that is the usual
  // cause of a mismatch, so it is named with the flag to add.
  const auto other_profile_hint = [&](const Job& job, const nlohmann::json& record) -> std::string {
    const RunProfile other = options.profile == RunProfile::quick ? RunProfile::full : RunProfile::quick;
    const std::string flag = other == RunProfile::quick ? "--quick" : "--full";
    for (const auto& planned : run_all_plan(other))
      if (fs::path(job.path).filename() == planned.file &&
          record.value("params", nlohmann::json()) == Params::parse(job.probe->params, planned.params).to_json())
        return ": it is a run of run-all " + flag + ", so add " + flag;
    return "";
  };
  if (resume) {
    for (Job* job : jobs) {
      if (!fs::exists(job->path, ec)) continue;
      nlohmann::json earlier;
      try {
        earlier = read_json_file(job->path);
      } catch (const Error& e) {
        throw Error(std::string("cannot resume: ") + e.what() +
                    "; move it away and --resume measures that probe again (--force measures every "
                    "probe again)");
      }
      if (std::string why = resume_mismatch(earlier, job->path, *job->probe, job->params, info);
          !why.empty())
        throw Error("cannot resume: " + why + other_profile_hint(*job, earlier) +
                    " (--force measures every probe again)");
      job->earlier = std::move(earlier);
    }
  }
  std::string executable = options.probe_executable;
  if (executable.empty()) {
    std::error_code self_ec;
    executable = fs::read_symlink("/proc/self/exe", self_ec).string();
    if (self_ec) throw Error("cannot find the gpuprobe executable (/proc/self/exe): " + self_ec.message());
  }
  // The command that continues this run: the same options, shell-quoted, with --resume.
  std::string resume_hint = "gpuprobe run-all --device " + shell_quoted(child_spec) + " --out " +
                            shell_quoted(out_dir);
  if (options.profile == RunProfile::quick) resume_hint += " --quick";
  if (!options.only.empty()) {
    std::string only;
    for (const auto& name : options.only) only += (only.empty() ? "" : ",") + name;
    resume_hint += " --only " + shell_quoted(only);
  }
  if (max_seconds != RunAllOptions{}.max_seconds_per_point)
    resume_hint += " --max-seconds-per-point " + number_text(max_seconds);
  if (options.watchdog_seconds)
    resume_hint += " --watchdog-seconds " + number_text(*options.watchdog_seconds);
  if (!options.plots) resume_hint += " --no-plot";
  resume_hint += " --resume";
  // Weights for the ETA: the plan's estimates, equal where there are none.
  double estimated = 0;
  std::size_t with_estimate = 0;
  for (const Job* job : jobs)
    if (job->estimate > 0) estimated += job->estimate, ++with_estimate;
  const double fallback_weight = with_estimate > 0 ? estimated / with_estimate : 1.0;
  const auto weight_of = [&](const Job& job) { return job.estimate > 0 ? job.estimate : fallback_weight; };
  double total_weight = 0;
  for (const Job* job : jobs)
    if (!(job->earlier.is_object() && complete(job->earlier))) total_weight += weight_of(*job);
  const bool tty = &err == &std::cerr && ::isatty(STDERR_FILENO) == 1;
  Progress progress(err, tty, jobs.size(), total_weight);
  install_interrupt_handlers(true);
  struct Outcome {
    std::string label, why;
  };
  std::vector<Outcome> skipped, failed;
  std::size_t ok = 0, kept_complete = 0;
  // What the machine model is fitted from: every record of the folder that belongs to the plan.
  // Those this run measured, complete or cut with points (a warning in the model); the others
  // only complete, and only if measured as the plan measures them, on this device. The rest, and
  // records in raw/ that are no run of the plan, are left out and named.
  struct ModelInputs {
    std::vector<nlohmann::json> runs;
    std::vector<std::string> paths;
    std::size_t measured = 0, measured_complete = 0, from_before = 0;
    std::vector<std::string> left_out;  // why, one line each
  };
  const auto model_inputs = [&] {
    ModelInputs in;
    std::vector<std::string> planned_files;
    for (const Job& job : plan) {
      planned_files.push_back(fs::path(job.path).filename().string());
      std::error_code exists_ec;
      if (!fs::exists(job.path, exists_ec)) continue;
      nlohmann::json record = record_at(job.path);
      if (!record.is_object()) {
        in.left_out.push_back(job.path + " cannot be read as a run record");
        continue;
      }
      if (job.ran) {
        if (!complete(record) && record.value("series", nlohmann::json::array()).empty()) continue;
        ++in.measured;
        in.measured_complete += complete(record);
      } else {
        if (const std::string why = resume_mismatch(record, job.path, *job.probe, job.params, info);
            !why.empty()) {
          in.left_out.push_back(why + other_profile_hint(job, record));
          continue;
        }
        if (!complete(record)) {
          in.left_out.push_back(job.path + " is " + record.value("status", std::string("of no status")) +
                                ", not complete (--resume continues it)");
          continue;
        }
        ++in.from_before;
      }
      in.runs.push_back(std::move(record));
      in.paths.push_back(job.path);
    }
    std::error_code dir_ec;
    std::vector<std::string> strangers;
    for (fs::directory_iterator it(raw_dir, dir_ec), end; !dir_ec && it != end; it.increment(dir_ec)) {
      const std::string name = it->path().filename().string();
      if (it->path().extension() == ".json" &&
          std::find(planned_files.begin(), planned_files.end(), name) == planned_files.end())
        strangers.push_back(it->path().string());
    }
    std::sort(strangers.begin(), strangers.end());
    for (const auto& path : strangers)
      in.left_out.push_back(path + " is no run of run-all's " +
                            (options.profile == RunProfile::quick ? "--quick" : "--full") + " plan");
    return in;
  };
  // "N measured by this run, M complete from before".
  const auto origins = [](std::size_t measured, std::size_t before) {
    return std::to_string(measured) + " measured by this run, " + std::to_string(before) +
           " complete from before";
  };
  const auto interrupted = [&](int sig, const Job* job) {
    progress.end();
    const std::size_t points = job ? points_in(job->path) : 0;
    const ModelInputs in = model_inputs();
    std::string model_note = "no machine model written";
    if (fs::exists(model_path, ec)) {
      // The model must not describe records that are gone (a complete record measured again and
      // cut): it is fitted again from the folder as it is now, a cut record with a warning.
      try {
        if (in.runs.empty()) throw Error("no record to fit");
        write_json_atomically(model_path, analysis::build_machine_model(in.runs, in.paths));
        model_note = "machine model " + model_path + " fitted again from them";
      } catch (const std::exception& e) {
        std::string why = e.what();
        if (const auto nl = why.find('\n'); nl != std::string::npos) why.resize(nl);
        model_note = "machine model not updated: " + why;
      }
    }
    err << "gpuprobe: interrupted by " << signal_name(sig) << ": kept "
        << in.measured_complete + in.from_before << " complete record(s) in " << raw_dir << " ("
        << origins(in.measured_complete, in.from_before) << ")"
        << (points > 0 ? " and " + std::to_string(points) + " points of " + job->label : "") << " ("
        << model_note << "); resume with: " << resume_hint << "\n";
    return 128 + sig;
  };
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    Job& job = *jobs[i];
    if (const int sig = interrupt_signal(); sig != 0) return interrupted(sig, nullptr);
    const bool kept = job.earlier.is_object() && complete(job.earlier);
    progress.start(i, job.label, kept ? 0 : weight_of(job));
    if (kept) {
      if (!tty) progress.note("  complete in " + job.path + ": kept as it is");
      progress.finish(false);
      ++kept_complete;
      if (job.earlier["status"] == "skipped")
        skipped.push_back({job.label, job.earlier.value("skip_reason", "")});
      else
        ++ok;
      continue;
    }
    job.ran = true;
    const double watchdog = options.watchdog_seconds ? *options.watchdog_seconds
                                                     : std::max({60.0, 10 * max_seconds, job.estimate});
    // The file as it was before this run touched it: --resume continues a record only if it is
    // the earlier one kept by --resume, or one this run wrote.
    const FileStamp before = stamp_of(job.path);
    ChildEnd end;
    std::size_t points_before_attempt = points_in(job.path);
    for (int attempt = 0;; ++attempt) {
      std::vector<std::string> argv = {executable, "probe", job.probe->id, "--device", child_spec,
                                       "--out", job.path, "--max-seconds-per-point",
                                       seconds_text(max_seconds)};
      argv.insert(argv.end(), job.param_args.begin(), job.param_args.end());
      if ((resume && job.earlier.is_object()) || stamp_of(job.path) != before) argv.push_back("--resume");
      end = run_child(argv, job.probe->id, job.path, watchdog, progress, !tty);
      if (end.watchdog || !end.exited) {
        // A killed process leaves its lock and perhaps a temporary: its own, removed here.
        remove_lock_of(job.path, end.pid);
        ::unlink(temporary_path(resolve_output_path(job.path), end.pid).c_str());
      }
      // Again while a new process got further (a timed-out wait is passed over on --resume).
      const std::size_t points_now = points_in(job.path);
      const bool progressed = attempt == 0 || points_now > points_before_attempt;
      points_before_attempt = points_now;
      if (end.exited && end.code == kExitDeviceLost && end.forwarded == 0 && progressed &&
          attempt < kDeviceLostRetries) {
        std::string why = end.error;  // without probe's advice to resume: run-all does that
        if (const auto at = why.rfind(" ("); at != std::string::npos && why.find("measured", at) != std::string::npos)
          why.resize(at);
        progress.note("gpuprobe: " + job.label + ": " + why +
                      "; measuring it again in a new process, keeping its " +
                      std::to_string(points_in(job.path)) + " points");
        continue;
      }
      break;
    }
    const nlohmann::json record = record_at(job.path);
    const std::string status = record.is_object() ? record.value("status", "") : "";
    std::string error;  // why this run failed, or ""
    if (end.watchdog) {
      error = "watchdog: no progress for " + seconds_text(watchdog) + " s";
      if (end.forwarded != 0) error += " after " + signal_name(end.forwarded);
    } else if (end.forwarded != 0) {
      // Interrupted: its record says so (a process killed before it could is marked here).
      if (status == "running") mark_record(job.path, "interrupted", "", *job.probe, job.params, info, max_seconds);
      progress.finish(true);
      return interrupted(end.forwarded, &job);
    } else if (!end.exited) {
      error = "its process was killed by " + signal_name(end.signal_number);
    } else if (status == "skipped") {
      skipped.push_back({job.label, record.value("skip_reason", "")});
      progress.note("gpuprobe: " + job.label + " skipped: " + record.value("skip_reason", ""));
    } else if (end.code == 0 && status == "ok") {
      ++ok;
    } else {
      error = status == "failed" && record.contains("error") && record["error"].is_string()
                  ? record["error"].get<std::string>()
                  : !end.error.empty() ? end.error
                                       : "its process exited with " + std::to_string(end.code);
    }
    if (!error.empty()) {
      if (const auto nl = error.find('\n'); nl != std::string::npos) error.resize(nl);
      // The record says failed, with the error, and keeps its points (one with none is written).
      // A record the probe never touched (it refused to start: a lock) is left as it was.
      const bool touched = stamp_of(job.path) != before || !before.exists;
      if (end.watchdog || !end.exited || (touched && (status != "failed" || !record.contains("error"))))
        mark_record(job.path, "failed", error, *job.probe, job.params, info, max_seconds);
      failed.push_back({job.label, error});
      const std::size_t points = points_in(job.path);
      progress.note("gpuprobe: error: " + job.label + " failed: " + error +
                    (points > 0 ? " (its " + std::to_string(points) + " points are kept in " + job.path + ")"
                                : " (recorded in " + job.path + ")"));
    }
    progress.finish(true);
    if (end.forwarded != 0) return interrupted(end.forwarded, &job);
  }
  progress.end();
  if (const int sig = interrupt_signal(); sig != 0) return interrupted(sig, nullptr);
  // No probe runs from here on: a signal is no longer passed on, and a second one ends run-all.
  install_interrupt_handlers(false);
  const ModelInputs in = model_inputs();
  std::string outputs_failed;  // why the plots or the report were not all written, or ""
  std::string model_failed;    // why the machine model was not written, or ""
  if (!in.runs.empty()) {
    try {
      const auto model = analysis::build_machine_model(in.runs, in.paths);
      write_json_atomically(model_path, model);
      print_model(out, model);
      out << "wrote " << model_path << "\n";
    } catch (const std::exception& e) {
      model_failed = e.what();
      if (const auto nl = model_failed.find('\n'); nl != std::string::npos) model_failed.resize(nl);
    }
    if (model_failed.empty() && options.plots) outputs_failed = write_model_outputs(model_path, out, err);
  }
  if (info.simulated) print_sim_banner(err, info);
  err << "gpuprobe: run-all: " << ok << " ok, " << skipped.size() << " skipped, " << failed.size()
      << " failed" << (kept_complete > 0 ? " (" + std::to_string(kept_complete) + " kept from before)" : "")
      << "\n";
  for (const auto& s : skipped) err << "  skipped " << s.label << ": " << s.why << "\n";
  for (const auto& f : failed) err << "  failed " << f.label << ": " << f.why << "\n";
  if (in.runs.empty())
    err << "gpuprobe: run-all: no machine model: no record in " << raw_dir << " to fit it from\n";
  else
    err << "gpuprobe: run-all: the machine model " << (model_failed.empty() ? "is" : "was to be")
        << " fitted from " << in.runs.size() << " record(s) in " << raw_dir << ": "
        << origins(in.measured, in.from_before) << "\n";
  for (const auto& why : in.left_out) err << "  left out of the model: " << why << "\n";
  if (options.profile == RunProfile::quick && model_failed.empty() && !in.runs.empty())
    err << "gpuprobe: run-all --quick: the confidences are lower than --full's by construction (fewer "
           "points per fit); the ceilings and level latencies stay within 3% of --full's\n";
  if (!model_failed.empty())
    err << "gpuprobe: error: the machine model was not written: " << model_failed
        << " (the records are kept in " << raw_dir << "; once that is fixed, continue with: " << resume_hint
        << ")\n";
  if (!outputs_failed.empty())
    err << "gpuprobe: error: " << outputs_failed << " (the machine model and the records are written; "
        << "gpuprobe run-all --no-plot skips the plots)\n";
  if (!failed.empty())
    err << "gpuprobe: error: " << failed.size() << " probe run(s) failed; see the messages above; once the "
        << "cause is fixed, continue with: " << resume_hint << "\n";
  if (const int sig = interrupt_signal(); sig != 0) {
    err << "gpuprobe: interrupted by " << signal_name(sig)
        << " after the probes: the records and the machine "
        << "model are written, the plots and the report perhaps not all; redo them with: " << resume_hint
        << "\n";
    return 128 + sig;
  }
  return failed.empty() && outputs_failed.empty() && model_failed.empty() ? 0 : 1;
}

}  // namespace gpuprobe
