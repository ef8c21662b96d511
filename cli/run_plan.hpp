// What run-all measures: the probes, their parameters and output files, per profile. One place
// for the plan, so run-all (cli/run_commands.cpp), its progress bar and the benchmark agree.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace gpuprobe {

struct PlannedRun {
  std::string probe;
  std::map<std::string, std::string> params;
  std::string file;  // under raw/
};

// Every run of run-all, family by family.
std::vector<PlannedRun> run_all_plan();

}  // namespace gpuprobe
