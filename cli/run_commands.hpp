// The commands that measure: `probe` (one probe into one record) and `run-all` (every probe into
// a results folder, then the machine model). Called by run_cli (cli/cli.cpp).
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/run_plan.hpp"

namespace gpuprobe {

// The largest --max-seconds-per-point (it must be positive and finite).
inline constexpr double kMaxSecondsPerPoint = 3600;

// The largest --watchdog-seconds of run-all (a day).
inline constexpr double kMaxWatchdogSeconds = 86400;

// `probe`'s exit code when the device's context was lost to a sticky error (DeviceLost,
// harness/error.hpp): what it measured is saved, and the same command with --resume, in a new
// process, continues. run-all retries such a probe that way, again while each new process
// measured a point more (a wait that timed out, harness/wait_timeout.hpp, is kept failed and
// passed over), up to kDeviceLostRetries times. (EX_TEMPFAIL of sysexits.h.)
inline constexpr int kExitDeviceLost = 75;
inline constexpr int kDeviceLostRetries = 8;

// Every parameter is checked before anything is written; the output is locked against a second
// run; --resume continues an interrupted record. A SIGINT or SIGTERM ends the run with one line
// saying what was kept and how to resume, and exit code 128 + the signal's number; a lost device
// context (a sticky CUDA error) exits kExitDeviceLost.
// Test hooks, read here and only for the tests: GPUPROBE_TEST_FAIL_PROBE=<id> makes probe <id>
// fail once its points are measured, GPUPROBE_TEST_HANG_PROBE=<id> makes it hang there (until a
// signal stops it, as an interrupt, or run-all's watchdog kills it), and
// GPUPROBE_TEST_STICKY_PROBE=<id> makes a run of it that does not --resume end there as after a
// sticky CUDA error, and GPUPROBE_TEST_FAIL_SELF_CHECK=<id>:<op>[:<how>] makes the simulator give
// op <op> of probe <id> a wrong result (sim::SimDevice::plant_wrong_result), which its self-check
// fails: that point fails, the others are measured, the probe exits 1; and
// GPUPROBE_TEST_WAIT_TIMEOUT=<id>:<op> makes each point of op <op> lose the context as after
// a device-side wait timed out (a made-up kernel record): the point fails with it, the probe exits
// kExitDeviceLost, and a --resume passes over it. They act only when
// GPUPROBE_TEST_HOOKS=1 is set too, so that one left set in a shell changes no measurement; either
// way a hook naming the probe is told in a warning line.
// A probe into a folder that a run-all holds (its DIR/.gpuprobe.lock, for DIR or DIR/raw) is
// refused, unless that run-all started it.
int cmd_probe(const std::string& id, const std::string& device_spec, const std::string& out_path,
              double max_seconds, bool resume, const std::vector<std::string>& extras,
              std::ostream& out, std::ostream& err);

struct RunAllOptions {
  std::string device_spec = "cuda";
  std::string out_dir;  // empty: results/<device>
  double max_seconds_per_point = 2.0;
  bool resume = false, force = false;
  RunProfile profile = RunProfile::full;
  std::vector<std::string> only;  // probe ids or families to run; empty: all
  // A probe whose record has not changed (and which printed nothing) for this long is killed and
  // its record marked failed (0 < s <= kMaxWatchdogSeconds); none: max(60 s, 10 x
  // max_seconds_per_point, the plan's estimate).
  std::optional<double> watchdog_seconds;
  // The gpuprobe executable that runs each probe (`probe ... --resume`); empty: this process's
  // own (/proc/self/exe). A program that embeds cmd_run_all must name gpuprobe here.
  std::string probe_executable;
  // After the model: its plots, roofline and report next to it (write_model_outputs in
  // cli/plot_runner.hpp). false: the model only (`--no-plot`).
  bool plots = true;
};

// A folder holding results is refused unless `resume` (complete records are kept byte for byte,
// interrupted ones continued from their last point) or `force` (everything measured again).
// Each probe runs in a process of its own (`gpuprobe probe`), so that one that crashes, hangs
// (the watchdog) or loses the device context cannot take the others down: its record says
// `failed` with the `error`, and the run goes on; one that lost the context is retried once in a
// new process, keeping its points. Progress: one redrawn line on a terminal, else one line per
// probe, with the count, the elapsed time and an ETA, cut to the terminal's width. The machine
// model is fitted at the end from the whole folder: every record of the plan this run measured,
// complete or cut with points, and every complete record of the plan from before (--only,
// --resume, --force) measured as the plan measures it on this device; the summary says which, and
// names each record left out. It is then plotted and reported unless `plots` is false. Exit 1 when
// a probe failed or the model, a plot or the report could not be written; after a failure and
// after an interrupt the command that continues the run (shell-quoted, with every option given) is
// printed. Only this command's own temporaries (FILE.tmp-<host>-<pid> of the files it writes, of a
// pid gone from this host) are removed.
int cmd_run_all(const RunAllOptions& options, std::ostream& out, std::ostream& err);

}  // namespace gpuprobe
