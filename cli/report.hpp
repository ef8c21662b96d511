// What the command line prints about a machine model: per family of the model (its families[]),
// its metrics[] rows (label, value, per SM per clock, % of the datasheet) and what its section
// could not measure; only structure a metric cannot hold gets a printer of its own (the per-SM L2
// map, the fit notes of the memory hierarchy, the bandwidth plateaus and bank conflicts, an
// imported intensity sweep). Only formatting; the model is built in analysis/.
#pragma once
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/format.hpp"
#include "harness/probe.hpp"

namespace gpuprobe {

// Everything the model holds, family by family. What run-all and analyze print.
void print_model(std::ostream& out, const nlohmann::json& model);

// One line per parameter of the probe: "    --name (default value): help".
void print_probe_params(std::ostream& out, const ProbeSpec& probe);

// The per-SM L2 map (memory/chase --sm all): each level's spread over the SMs, the fastest and
// slowest SM.
void print_sm_map(std::ostream& out, const nlohmann::json& map);

}  // namespace gpuprobe
