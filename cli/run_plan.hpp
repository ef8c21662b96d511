// What run-all measures: the probes, their parameters and output files, per profile, with each
// run's estimated time on an H100. One place for the plan, so run-all (cli/run_commands.cpp), its
// progress bar and ETA, and the benchmark (bench/bench_run_all.cpp) agree.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace gpuprobe {

// --quick: a minute or less on an H100, every ceiling within 3% of --full (the same runs, fewer
// points: coarser sweeps, fewer strides, throttles and operand kinds, no .ca/.cg/.nc chases);
// --full: ten minutes or less (run-all's default: every probe with its defaults).
enum class RunProfile { quick, full };

struct PlannedRun {
  std::string probe;
  std::map<std::string, std::string> params;
  std::string file;  // under raw/
  // The run's estimated time on an H100 SXM (seconds): its points x (calibration + repeats) x
  // timed region and warm-up, from its parameters (estimated_h100_seconds). For planning and the
  // ETA; a real run differs by its device and by how many repeats each point needs.
  double estimated_device_seconds = 0;
};

// Every run of run-all in `profile`, family by family, with its estimate.
std::vector<PlannedRun> run_all_plan(RunProfile profile);

// The estimated H100 time of `probe` with `params` (the probe's defaults for the rest); throws
// gpuprobe::Error for an unknown probe or parameter. Documented in run_plan.cpp.
double estimated_h100_seconds(const std::string& probe,
                              const std::map<std::string, std::string>& params);

// The sum of the plan's estimates (seconds).
double estimated_h100_seconds(const std::vector<PlannedRun>& plan);

}  // namespace gpuprobe
