// What the command line prints about a machine model: the fitted levels, the per-SM L2 map and
// every other result the model holds. Only formatting; the model is built in analysis/.
#pragma once
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/probe.hpp"

namespace gpuprobe {

// Everything the model holds, one block per result: the per-SM L2 map, the hierarchy, shared
// memory latency, line and sector, TLB reach and miss cost, bandwidth per level. What run-all
// and analyze print.
void print_model(std::ostream& out, const nlohmann::json& model);

// Sizes in binary units, as the command line reads them (K = KiB = 1024 bytes, M = MiB, G = GiB):
// "128 B", "256 KiB", "1.5 GiB"; whole numbers without decimals, else 3 significant digits.
std::string format_bytes(double bytes);

// One line per parameter of the probe: "    --name (default value): help".
void print_probe_params(std::ostream& out, const ProbeSpec& probe);

void print_sm_map(std::ostream& out, const nlohmann::json& map);
// The fitted hierarchy, or why each chase curve could not be fitted.
void print_levels(std::ostream& out, const nlohmann::json& model);
void print_shared(std::ostream& out, const nlohmann::json& shared);
void print_line_sector(std::ostream& out, const nlohmann::json& line_sector);
void print_tlb(std::ostream& out, const nlohmann::json& tlb);
// Per level: the peak, where 90% of it starts (bytes in flight per SM), % of the datasheet, the
// footprint plateaus and the shared-memory bank-conflict slowdowns.
void print_bandwidth(std::ostream& out, const nlohmann::json& bandwidth);
// Per CUDA-core op: latency, rate per SM and per second, % of the published peak, and the ops
// the device could not run, with the reason.
void print_compute(std::ostream& out, const nlohmann::json& compute);

}  // namespace gpuprobe
