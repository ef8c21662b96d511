// The machine model: fitted levels, line/sector, TLB and shared-memory latency joined into one
// versioned JSON document (schema gpuprobe.machine_model, docs/SCHEMA.md). This file is the one
// loader of run records (schema gpuprobe.run) for the analysis.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/curve.hpp"
#include "analysis/hierarchy_fit.hpp"

namespace gpuprobe::analysis {

// Checks schema and version; throws a one-line gpuprobe::Error naming `what` otherwise.
void check_run_record(const nlohmann::json& run, const std::string& what);

// Latency against footprint_bytes from a memory/chase or memory/chase_shared record.
Curve latency_curve_from_run(const nlohmann::json& run);
// One curve per stride from a memory/stride record.
std::vector<StrideCurve> stride_curves_from_run(const nlohmann::json& run);
// Latency against span_bytes from a memory/tlb record.
Curve tlb_curve_from_run(const nlohmann::json& run);

nlohmann::json to_json(const HierarchyFit& fit, const Curve& curve);

// Builds the model from run records (any subset of the memory probes). A component whose fit
// fails carries {"error": "..."} instead of numbers; the others are still reported.
nlohmann::json build_machine_model(const std::vector<nlohmann::json>& runs,
                                   const std::vector<std::string>& run_paths);

// Builds the model from one imported latency curve (gpuprobe analyze --import-csv).
nlohmann::json build_machine_model_from_curve(const Curve& curve, const std::string& source,
                                              const HierarchyFitOptions& options = {});

// Builds the model from one imported bandwidth curve: `sweep` (imported_footprint_sweep or
// imported_concurrency_sweep, bandwidth_model.hpp) becomes bandwidth.imported.<key>, key
// "footprint_sweep" or "concurrency"; sm_count > 0 is recorded as device.sm_count.
nlohmann::json build_machine_model_from_bandwidth(const nlohmann::json& sweep, const std::string& key,
                                                  const std::string& source, int sm_count);

// Builds the model from one imported intensity sweep: `imported` (analysis/roofline_fit.hpp
// to_json) becomes compute.imported; sm_count > 0 is recorded as device.sm_count.
nlohmann::json build_machine_model_from_intensity(const nlohmann::json& imported, const std::string& source,
                                                  int sm_count);

// memory/chase --sm all: per SM its near- and far-L2 latency, with min/median/max/spread and
// the fastest and slowest SM.
nlohmann::json sm_map_from_run(const nlohmann::json& run);

// Adds to the DRAM level (the last, if so named) the pages its plateau touched and the TLB level
// (from mem["tlb"]) whose reach holds them.
void annotate_dram(nlohmann::json& mem);

}  // namespace gpuprobe::analysis
