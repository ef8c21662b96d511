// The commands that measure: `probe` (one probe into one record) and `run-all` (every probe into
// a results folder, then the machine model). Called by run_cli (cli/cli.cpp).
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "cli/run_plan.hpp"

namespace gpuprobe {

// The largest --max-seconds-per-point (it must be positive and finite).
inline constexpr double kMaxSecondsPerPoint = 3600;

// Every parameter is checked before anything is written; the output is locked against a second
// run; --resume continues an interrupted record. A SIGINT or SIGTERM ends the run with one line
// saying what was kept and how to resume, and exit code 128 + the signal's number.
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
};

// A folder holding results is refused unless `resume` (complete records are kept byte for byte,
// interrupted ones continued from their last point) or `force` (everything measured again).
int cmd_run_all(const RunAllOptions& options, std::ostream& out, std::ostream& err);

}  // namespace gpuprobe
