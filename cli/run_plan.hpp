// What run-all measures: the probes, their parameters and output files, per profile. One place
// for the plan, so run-all (cli/run_commands.cpp), its progress bar and the benchmark agree.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace gpuprobe {

// --quick: a minute or less on an H100, every ceiling within 3% of --full; --full: ten minutes or
// less (run-all's default).
enum class RunProfile { quick, full };

struct PlannedRun {
  std::string probe;
  std::map<std::string, std::string> params;
  std::string file;  // under raw/
};

// Every run of run-all in `profile`, family by family.
std::vector<PlannedRun> run_all_plan(RunProfile profile);

}  // namespace gpuprobe
