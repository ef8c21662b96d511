// What run-all measures: every family's runs (harness/family.hpp: its probes, their parameters and
// output files, per profile), with each run's estimated time on an H100. One place that assembles
// the plan, so run-all (cli/run_commands.cpp), its progress bar and ETA, and the benchmark
// (bench/bench_run_all.cpp) agree.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "harness/family.hpp"

namespace gpuprobe {

// Every family's runs in `profile`, family by family (in their order), with estimates.
std::vector<PlannedRun> run_all_plan(RunProfile profile);

// The estimated H100 time of `probe` with `params` (the probe's defaults for the rest), from its
// family's estimate; throws gpuprobe::Error for an unknown probe or parameter.
double estimated_h100_seconds(const std::string& probe, const std::map<std::string, std::string>& params);

// The sum of the plan's estimates (seconds).
double estimated_h100_seconds(const std::vector<PlannedRun>& plan);

}  // namespace gpuprobe
