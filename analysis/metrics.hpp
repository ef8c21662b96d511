// The machine model's flat metric table (`metrics[]`, docs/SCHEMA.md, model schema_version 2):
// every number of the model's sections as one entry with its unit, method, probe, sample count,
// confidence, SM clock, source (measured / simulated), the checks behind its probe
// (analysis/provenance.hpp), and the derived figures: per SM per clock, % of the datasheet
// (analysis/datasheet.hpp), ridge points and the bytes in flight each level needs. compare,
// aggregate and the report read this table, not the sections.
#pragma once
#include <nlohmann/json.hpp>

namespace gpuprobe::analysis {

// The table for `model` (its device, simulated and sections memory, bandwidth, compute, sync,
// atomics, async_copy, launch, roofline and goodput; any may be absent). Fields a section does not
// hold are null, never 0 or guessed.
nlohmann::json build_metrics(const nlohmann::json& model);

}  // namespace gpuprobe::analysis
