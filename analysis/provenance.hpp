// Which checks stand behind each probe (docs/SCHEMA.md, machine model `metrics[].checks`): the
// compile matrix, the SASS assertions, the simulator closed loop, a replay of real data and the
// on-GPU self-check. Each claim names the file that carries it and a text that file must hold;
// tests/analysis/test_metrics.cpp reads those files, so a claim without its test fails the build's
// tests instead of standing in the report.
#pragma once
#include <string>
#include <vector>

namespace gpuprobe::analysis {

// The check names, in the order the report lists them.
inline const std::vector<std::string> kCheckNames = {"compile-matrix", "sass", "sim-closed-loop",
                                                     "real-data", "gpu-self-check"};

struct CheckEvidence {
  std::string check;   // one of kCheckNames
  std::string file;    // relative to the source tree: the test (or, gpu-self-check, the probe
                       // source writing the record's self_check)
  std::string needle;  // text the file holds for this probe (a kernel source, a probe id, a data set)
};

struct ProbeProvenance {
  std::string probe;          // "compute/alu"
  std::string kernel_source;  // the CUDA source of its kernels, relative to the source tree
  std::vector<CheckEvidence> checks;
};

// Every registered probe's entry, sorted by probe id.
const std::vector<ProbeProvenance>& provenance_table();

// The check names standing behind `probe`, in kCheckNames order; empty for an unknown probe.
std::vector<std::string> checks_for(const std::string& probe);

}  // namespace gpuprobe::analysis
