// The memory probes' measurement core: one chase configuration measured until stable, with the
// self-checks (the sweeps of chase.cpp are built on it).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/points.hpp"
#include "harness/probe.hpp"
#include "probes/common/size_sweep.hpp"
#include "probes/memory/chase_ops.hpp"

namespace gpuprobe::probes {

struct ChaseSettings {
  MemorySpace space = MemorySpace::global;
  ptx::LoadVariant load = ptx::LoadVariant::plain;
  uint64_t min_timed_hops = 4096;   // the timed region grows from here to min_region_ns
  uint64_t min_region_ns = 0;       // 0: the device's minimum (Device::min_timed_region_ns)
  uint32_t sampled_hops = 512;
  int sm = kAnySm;                  // pinned SM, or kAnySm
};

// The most hops one timed region may take (the calibration's ceiling and --timed-hops' maximum),
// and the most hops timed one by one (their samples sit in shared memory).
inline constexpr uint64_t kMaxTimedHops = uint64_t{1} << 24;
// --min-region-us at most: the largest --max-seconds-per-point, 3600 s (the run's own bound is
// checked when the probe plans).
inline constexpr uint64_t kMaxRegionUs = uint64_t{3600} * 1000 * 1000;
inline constexpr uint64_t kMaxSampledHops = 16384;
// The largest --slot-bytes and --offset-step-bytes: the chain holds them as 32-bit sizes.
inline constexpr uint64_t kMaxSlotBytes = uint64_t{1} << 30;
// The most strides memory/stride sweeps in one run.
inline constexpr uint64_t kMaxStrides = 32;

// Prepares the chase once, calibrates the timed region to at least the minimum region, repeats
// it per the context's policy and returns the point. Every repeat must end on the slot the host
// predicted and must have executed the expected number of timed-loop iterations, or it throws
// gpuprobe::Error "self-check failed ...". Repeats that ran on an SM other than the first are
// rejected (counted in rejected_repeats). Fields: docs/SCHEMA.md "memory chase point".
nlohmann::json measure_chase(ProbeContext& ctx, const Chain& chain, const ChaseSettings& s);

}  // namespace gpuprobe::probes
