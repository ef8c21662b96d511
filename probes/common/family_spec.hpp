// What a family's registration (its <family>_family.cpp) shares with the others' (harness/family.hpp).
#pragma once
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace gpuprobe::probes {

// FamilySpec::add_run for a family whose section builder records its own reasons (returns none).
inline std::function<std::string(const nlohmann::json&, nlohmann::json&)> add_run_by(
    void (*add)(const nlohmann::json& run, nlohmann::json& section)) {
  return [add](const nlohmann::json& run, nlohmann::json& section) {
    add(run, section);
    return std::string();
  };
}

}  // namespace gpuprobe::probes
