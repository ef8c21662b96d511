// The machine model: fitted levels, line/sector, TLB and shared-memory latency joined into one
// versioned JSON document (schema gpuprobe.machine_model, docs/SCHEMA.md). This file is the one
// loader of run records (schema gpuprobe.run) for the analysis.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/curve.hpp"
#include "analysis/hierarchy_fit.hpp"
#include "analysis/memory_model.hpp"

namespace gpuprobe::analysis {

// Checks schema and version; throws a one-line gpuprobe::Error naming `what` otherwise.
void check_run_record(const nlohmann::json& run, const std::string& what);

struct ModelOptions {
  // Fit records of different GPUs (device uuid, name or sim_preset) into one model; without it
  // build_machine_model refuses them. The model then says so: `mixed_devices` and a warning.
  bool allow_mixed = false;
};

// Builds the model from run records: each record's family (harness/family.hpp) adds it to its
// section, then the families finish their sections, the roofline is drawn and metrics[] listed.
// A component whose fit fails carries {"error": "..."} instead of numbers; the others are still
// reported. A record that holds no measured point (an empty series, or only skipped ops) gives
// no result: its sources[] entry carries the "error", and its family is not called. Records of
// different GPUs throw a one-line gpuprobe::Error naming both, unless options.allow_mixed.
nlohmann::json build_machine_model(const std::vector<nlohmann::json>& runs,
                                   const std::vector<std::string>& run_paths,
                                   const ModelOptions& options = {});

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



}  // namespace gpuprobe::analysis
