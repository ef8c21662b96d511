// The machine model's `bandwidth` section from the bandwidth probes' run records
// (bandwidth/l1, l2, dram, shared): per level the peak (bytes/s and bytes/clk/SM), the bytes in
// flight per SM that reach 90% of it with the Little's-law fit and its raw points, the levels a
// footprint sweep crosses, the bank conflicts of shared memory and, for DRAM, the % of the
// datasheet peak. Schema: docs/SCHEMA.md "bandwidth".
#pragma once
#include <nlohmann/json.hpp>

namespace gpuprobe::analysis {

// Adds what the run measured to `bandwidth` (an object keyed by level: "L1", "shared", "L2",
// "DRAM"). Throws gpuprobe::Error (one line) when the record has too few points to fit.
void add_bandwidth_from_run(const nlohmann::json& run, nlohmann::json& bandwidth);

}  // namespace gpuprobe::analysis
