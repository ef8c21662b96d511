// The machine model's `async_copy` section from async/copy run records (schema: docs/SCHEMA.md
// "async_copy"): per op its latency (one copy at a time from an L2-resident source: cycles and ns
// at the run's SM clock; bulk and TMA also against the copy's size, fitted latency = a + b x KiB
// with a confidence), its bandwidth against bytes in flight per SM fitted by the bandwidth
// family's concurrency fit (analysis/bandwidth_fit: peak, bytes in flight for 90% of it, the
// loaded-latency model of Little's law, confidence), the SASS one copy becomes on the device's
// SM; and the TMA chase's latency against footprint fitted by the memory hierarchy fit
// (analysis/hierarchy_fit) from the L2.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "harness/family.hpp"

namespace gpuprobe::analysis {

// Adds what the run measured to `async_copy` (an object: {"ops": {op: ...}, "tma_chase": ...,
// "skipped": {op: why}}). Throws gpuprobe::Error (one line) when a point lacks what the section
// needs.
void add_async_copy_from_run(const nlohmann::json& run, nlohmann::json& async_copy);

// The SASS one copy of an op (as named by probes/async/async.cuh) becomes on SM number `sm`: what
// tests/probes/test_sass_async.py asserts per target.
std::string async_sass_per_copy(const std::string& op, int sm);


// metrics[] of the model's async section.
void async_metrics(const nlohmann::json& model, const MetricSink& add);

}  // namespace gpuprobe::analysis
