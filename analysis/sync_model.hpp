// The machine model's `sync` section from sync/primitives run records: per op its latency (cycles
// per dependent op, ns at the run's SM clock) at the smallest launch, the latency curve against the
// op's swept variable (warps per block, cluster size, grid blocks) with a two-parameter fit, its
// rate (ops per clock per SM in the op's unit, ops/s; bytes for the DSMEM loads) and the SASS one
// op becomes on the device's SM. Schema: docs/SCHEMA.md "sync".
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "harness/family.hpp"

namespace gpuprobe::analysis {

// Adds what the run measured to `sync` (an object: {"ops": {op: ...}, "skipped": {op: why}}).
// Throws gpuprobe::Error (one line) when a point lacks what the section needs.
void add_sync_from_run(const nlohmann::json& run, nlohmann::json& sync);

// The SASS one op (as named by probes/sync/sync.cuh) becomes on SM number `sm`: what
// tests/probes/test_sass_sync.py asserts per target.
std::string sync_sass_per_op(const std::string& op, int sm);


// metrics[] of the model's sync section.
void sync_metrics(const nlohmann::json& model, const MetricSink& add);

}  // namespace gpuprobe::analysis
