// The machine model's flat metric table (`metrics[]`, docs/SCHEMA.md, model schema_version 2):
// every number of the model's sections as one entry with its unit, method, probe, sample count,
// confidence, SM clock, source (measured / simulated), the checks behind its probe
// (analysis/provenance.hpp), and the derived figures: per SM per clock, % of the datasheet
// (analysis/datasheet.hpp), ridge points and the bytes in flight each level needs. compare,
// aggregate and the report read this table, not the sections.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace gpuprobe::analysis {

// The table for `model` (its device, simulated and sections memory, bandwidth, compute, sync,
// atomics, async_copy, launch, roofline and goodput; any may be absent). Fields a section does not
// hold are null, never 0 or guessed.
nlohmann::json build_metrics(const nlohmann::json& model);

// The machine model version that brought metrics[].
inline constexpr int kFirstMetricsModelVersion = 2;

// What compare and aggregate need of an input: a machine model (schema gpuprobe.machine_model)
// with an array metrics[], of a version from kFirstMetricsModelVersion to this build's. Throws a
// one-line gpuprobe::Error naming `file` and what `command` reads otherwise.
void check_metrics_model(const nlohmann::json& model, const std::string& file, const std::string& command);

}  // namespace gpuprobe::analysis
