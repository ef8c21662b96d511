// The machine model's `bandwidth` section from the bandwidth probes' run records
// (bandwidth/l1, l2, dram, shared, loaded_latency): per level the peak (bytes/s and
// bytes/clk/SM), the bytes in flight per SM that reach 90% of it with the Little's-law fit and its
// raw points, the levels a footprint sweep crosses, the bank conflicts of shared memory, for DRAM
// the % of the datasheet peak, and for L2 and DRAM the loaded-latency curve (measured by
// bandwidth/loaded_latency, else derived from the concurrency sweep). Schema: docs/SCHEMA.md
// "bandwidth".
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/bandwidth_fit.hpp"
#include "harness/family.hpp"

namespace gpuprobe::analysis {

// Adds what the run measured to `bandwidth` (an object keyed by level: "L1", "shared", "L2",
// "DRAM"). Throws gpuprobe::Error (one line) when the record has too few points to fit.
void add_bandwidth_from_run(const nlohmann::json& run, nlohmann::json& bandwidth);

// A curve imported from another tool (gpuprobe analyze --import-csv), fitted into the shape a
// run's sweep gets: footprint_sweep (x_name "footprint_bytes") or concurrency, each with
// `input_points` and `binned` (null, or bin_octaves, statistic and points when a curve of more
// than kMaxFootprintFitPoints points was reduced to its bins first). sm_count and clock_mhz are 0
// when unknown (then no bytes/clk/SM; without an SM count no loaded-latency model either).
// Throws gpuprobe::Error (one line) when the fit cannot run.
//
// Footprint sweep: its levels are named from `first_level` (L1: L1, L2, L2-far, L3; L2: L2,
// L2-far, L3), the last one "DRAM" when last_is_memory and there are at least two.
nlohmann::json imported_footprint_sweep(const std::vector<FootprintPoint>& points,
                                        const std::string& first_level, bool last_is_memory,
                                        int sm_count, double clock_mhz);
// Concurrency sweep: rows with the same bytes in flight become their median, as a run's shapes do.
nlohmann::json imported_concurrency_sweep(const std::vector<ConcurrencyPoint>& points, int sm_count,
                                          double clock_mhz);


// metrics[] of the bandwidth section with the roofline's memory ceilings: each level's ceiling,
// DRAM per kind, the bytes in flight each level needs (its concurrency fit, and Little's law on
// the memory section's unloaded latency).
void bandwidth_metrics(const nlohmann::json& model, const MetricSink& add);

}  // namespace gpuprobe::analysis
