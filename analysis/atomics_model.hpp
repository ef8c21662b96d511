// The machine model's `atomics` section from atomics/ops run records: per op (space, width, the
// lowering ptxas chose: native, warp-aggregated, CAS loop, POPC.INC) and per address pattern its
// latency (cycles per dependent op of one chain, ns at the run's SM clock) and its rate
// (thread-level atomics per clock per SM, per second). Schema: docs/SCHEMA.md "atomics".
#pragma once
#include <nlohmann/json.hpp>

#include "harness/family.hpp"

namespace gpuprobe::analysis {

// Adds what the run measured to `atomics` (an object: {"ops": {op: {..., "patterns": {pattern:
// ...}}}, "skipped": {"op pattern kind": why}}). Throws gpuprobe::Error (one line) when a point
// lacks what the section needs.
void add_atomics_from_run(const nlohmann::json& run, nlohmann::json& atomics);


// metrics[] of the model's atomics section.
void atomics_metrics(const nlohmann::json& model, const MetricSink& add);

}  // namespace gpuprobe::analysis
