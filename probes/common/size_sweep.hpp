// A probe that sweeps a size geometrically (footprints, windows, spans): its parameters, its
// sizes, and the free-memory check of its largest.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harness/params.hpp"
#include "harness/probe.hpp"

namespace gpuprobe::probes {

// The most sizes per doubling a sweep may take.
inline constexpr uint64_t kMaxPointsPerOctave = 64;

// --min-<what>-bytes (min_default; omitted where empty), --max-<what>-bytes ("0: " max_zero) and
// --points-per-octave (per_octave): "smallest footprint", "largest footprint (0: 4x the L2 size)",
// "footprints per doubling".
inline std::vector<ParamSpec> size_sweep_params(const std::string& what, const std::string& min_default,
                                                const std::string& max_zero, const std::string& per_octave) {
  using K = ParamSpec::Kind;
  std::vector<ParamSpec> params;
  if (!min_default.empty())
    params.push_back({"min-" + what + "-bytes", K::bytes, min_default,
                      "smallest " + what + " (one below the sweep's step, a slot or tile, starts at one step)", {}});
  params.push_back({"max-" + what + "-bytes", K::bytes, "0", "largest " + what + " (0: " + max_zero + ")", {}});
  params.push_back({"points-per-octave", K::integer, per_octave, what + "s per doubling", {}, kMaxPointsPerOctave, 1});
  return params;
}

// Sizes from min to max, geometric with points_per_octave, rounded down to a multiple of
// granularity_bytes, strictly increasing, always including max.
std::vector<uint64_t> geometric_sweep(uint64_t min_bytes, uint64_t max_bytes,
                                      uint64_t points_per_octave, uint64_t granularity_bytes);

// Refuses, in one line and before anything runs, a sweep whose largest chain (`bytes`, set by
// --<param>) does not fit in the device's free memory. The backends check each chase as well.
void require_free_memory(ProbeContext& ctx, const char* what, uint64_t bytes, const char* param);

}  // namespace gpuprobe::probes
