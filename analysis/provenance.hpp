// Which checks stand behind each probe (docs/SCHEMA.md, machine model `metrics[].checks`): the
// compile matrix, the SASS assertions, the simulator closed loop, a replay of real data and the
// on-GPU self-check. Each family states them for its probes (harness/family.hpp provenance); each
// claim names the file that carries it and a text that file must hold, and
// tests/analysis/test_metrics.cpp reads those files, so a claim without its test fails the
// build's tests instead of standing in the report.
#pragma once
#include <string>
#include <vector>

#include "harness/family.hpp"

namespace gpuprobe::analysis {

// Every registered probe's entry, from its family, sorted by probe id.
const std::vector<ProbeProvenance>& provenance_table();

// The check names standing behind `probe`, in kCheckNames order; empty for an unknown probe.
std::vector<std::string> checks_for(const std::string& probe);

}  // namespace gpuprobe::analysis
