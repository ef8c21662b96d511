// Shared by the memory probes: measure one chase configuration until stable, with the self-check.
#pragma once
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/probe.hpp"

namespace gpuprobe::probes {

struct ChaseSettings {
  MemorySpace space = MemorySpace::global;
  CacheOp op = CacheOp::ca;
  uint64_t timed_hops = 4096;
  uint32_t sampled_hops = 512;
  double clock_mhz = 0;   // measured SM clock used to convert cycles to ns
};

// Appends the parameters every chase probe shares to `params`: cache-op (global memory only,
// with its default), timed-hops and sampled-hops (with its default).
void add_chase_params(std::vector<ParamSpec>& params, MemorySpace space, const char* default_op,
                      const char* default_sampled_hops);

// The settings from those parameters; measures the SM clock into the record ("before").
ChaseSettings chase_settings(ProbeContext& ctx, MemorySpace space);

// Runs the chase (repeating per the context's policy), checks that every repeat ended on the
// slot predicted on the host (throws gpuprobe::Error "self-check failed ..." otherwise) and
// returns the point: latency_cycles (median over repeats of the timed mean), latency_ns,
// p50/p95 of the per-hop samples, MAD and 95% CI over repeats, repeats, converged, and the SM
// clock seen by the timed region.
nlohmann::json measure_chase(ProbeContext& ctx, const Chain& chain, const ChaseSettings& s);

// The footprint sweep of memory/chase and memory/chase_shared: from --min-footprint-bytes to
// max_bytes at --points-per-octave, one random cycle of --slot-bytes slots (--seed) per point,
// clock measured before and after.
void sweep_random_cycles(ProbeContext& ctx, MemorySpace space, uint64_t max_bytes);

// Footprints from min to max, geometric with points_per_octave, rounded down to a multiple of
// granularity_bytes, strictly increasing, always including max.
std::vector<uint64_t> geometric_sweep(uint64_t min_bytes, uint64_t max_bytes,
                                      uint64_t points_per_octave, uint64_t granularity_bytes);

// Refuses, in one line and before anything runs, a sweep whose largest chain (`bytes`, set by
// --<param>) does not fit in the device's free memory. The backends check each chase as well.
void require_free_memory(ProbeContext& ctx, const char* what, uint64_t bytes, const char* param);

// Measures the SM clock (before a sweep) and records it in the run record.
double measure_clock(ProbeContext& ctx, const char* when);

}  // namespace gpuprobe::probes
