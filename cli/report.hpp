// What the command line prints about a machine model: the fitted levels, the per-SM L2 map and
// every other result the model holds. Only formatting; the model is built in analysis/.
#pragma once
#include <ostream>

#include <nlohmann/json.hpp>

namespace gpuprobe {

void print_sm_map(std::ostream& out, const nlohmann::json& map);
void print_levels(std::ostream& out, const nlohmann::json& model);

}  // namespace gpuprobe
