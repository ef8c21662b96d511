// The machine model's memory section (docs/SCHEMA.md `memory`), from the memory family's records
// (probes/memory: memory/chase, chase_shared, stride, tlb): the hierarchy fitted from each cache
// operator's chase, the shared-memory latency, line and sector, the TLB levels, the per-SM L2 map,
// and its metrics[].
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/curve.hpp"
#include "analysis/hierarchy_fit.hpp"
#include "harness/family.hpp"

namespace gpuprobe::analysis {

// Latency against footprint_bytes from a memory/chase or memory/chase_shared record.
Curve latency_curve_from_run(const nlohmann::json& run);
// One curve per stride from a memory/stride record.
std::vector<StrideCurve> stride_curves_from_run(const nlohmann::json& run);
// Latency against span_bytes from a memory/tlb record.
Curve tlb_curve_from_run(const nlohmann::json& run);

nlohmann::json to_json(const HierarchyFit& fit, const Curve& curve);

// memory/chase --sm all: per SM its near- and far-L2 latency, with min/median/max/spread and
// the fastest and slowest SM.
nlohmann::json sm_map_from_run(const nlohmann::json& run);

// Adds to the DRAM level (the last, if so named) the pages its plateau touched and the TLB level
// (from mem["tlb"]) whose reach holds them.
void annotate_dram(nlohmann::json& mem);

// Adds one memory record to the section: a fit that fails leaves {"error": ...} in its place and
// is returned ("" when it fitted). A malformed parameter throws RecordError.
std::string add_memory_from_run(const nlohmann::json& run, nlohmann::json& mem);
// Once every record is in: the hierarchy (levels) from the L1-allocating chase if there is one,
// else the first chase run, and the DRAM level's pages and TLB level.
void finish_memory(nlohmann::json& model);

// metrics[] of the memory section: each level's latency and capacity, shared-memory latency, the
// TLB levels, the per-SM L2 spread.
void memory_metrics(const nlohmann::json& model, const MetricSink& add);

}  // namespace gpuprobe::analysis
