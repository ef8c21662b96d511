// What a family's run-all plan and time estimate (harness/family.hpp) share: the H100 the
// estimates are for and how long a point of each kind of probe takes there. A family's estimate
// adds up its points from the run's parameters with these.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "harness/family.hpp"
#include "harness/params.hpp"
#include "probes/common/size_sweep.hpp"

namespace gpuprobe::probes::plan {

// ---- The H100 the estimates are for ----------------------------------------------------------
// An H100 SXM as measured in results/nvidia-h100-80gb-hbm3 (PROVENANCE.md: SM 0, plain loads,
// 1980 MHz in every timed region; 80 GB, 50 MiB L2).
constexpr double kClockHz = 1980e6;
constexpr double kL1Bytes = 240e3;          // the fitted L1 capacity (the launch holds 2 KB of shared)
constexpr double kL2NearBytes = 24.4e6;     // the near partition's fitted capacity
constexpr uint64_t kL2Bytes = 50ull << 20;
constexpr uint64_t kFreeBytes = 80ull * 1000 * 1000 * 1000 / 20 * 19;
constexpr double kL1Cycles = 32.0, kL2NearCycles = 283.3, kL2FarCycles = 529.2, kDramCycles = 686.7;
constexpr double kSharedCycles = 23.0;

// ---- How a point is measured on a GPU ---------------------------------------------------------
// Every family calibrates its timed region to at least the device's minimum (1 ms on a GPU,
// Device::min_timed_region_ns), then repeats it: at least RepeatPolicy::min_repeats = 3 times (the
// measured H100 chases averaged 3.1 repeats a point), the last calibration run counting as the
// first. kRunsPerPoint counts the calibration run and the repeats.
constexpr double kMinRegionSeconds = 1e-3;
constexpr double kRunsPerPoint = 4;
// What a point pays besides its runs: the 0.2 ms SM clock spin (kPointClockSpinNs), launches,
// synchronization and writing the record.
constexpr double kPointOverheadSeconds = 0.5e-3;
// Noisy points (a loaded chase, atomics under contention) take more repeats: the simulated
// H100's loaded-latency points averaged 9 (RepeatPolicy::max_repeats is 15).
constexpr double kNoisyRunsPerPoint = 10;
// Host time to build a random chain and copy it to the device, per slot (make_random_cycle).
constexpr double kChainBuildSecondsPerSlot = 30e-9;

// The latency level a chase of `footprint_bytes` lands in.
inline double chase_cycles(double footprint_bytes, bool from_l1) {
  if (from_l1 && footprint_bytes <= kL1Bytes) return kL1Cycles;
  if (footprint_bytes <= kL2NearBytes) return kL2NearCycles;
  if (footprint_bytes <= static_cast<double>(kL2Bytes)) return kL2FarCycles;
  return kDramCycles;
}

// One point of a pointer chase: kRunsPerPoint runs, each a warm-up lap of the chain (at least
// 1024 hops), a timed region of at least the minimum, and the sampled hops; plus the chain built.
inline double chase_point_seconds(double slots, double cycles, double timed_hops, double sampled_hops) {
  const double hop_s = cycles / kClockHz;
  const double run = std::max(slots, 1024.0) * hop_s + std::max(timed_hops * hop_s, kMinRegionSeconds) +
                     sampled_hops * hop_s;
  return kRunsPerPoint * run + slots * kChainBuildSecondsPerSlot + kPointOverheadSeconds;
}

// A chase sweep's points from min_bytes to max_bytes, at the run's --points-per-octave, timed and
// sampled hops.
inline double chase_sweep_seconds(const Params& p, uint64_t min_bytes, uint64_t max_bytes,
                                  uint64_t slot_bytes, bool from_l1, double cycles_override = 0) {
  double s = 0;
  for (uint64_t f : geometric_sweep(min_bytes, max_bytes, p.get_u64("points-per-octave"), slot_bytes)) {
    const double bytes = static_cast<double>(f);
    s += chase_point_seconds(bytes / static_cast<double>(slot_bytes),
                             cycles_override > 0 ? cycles_override : chase_cycles(bytes, from_l1),
                             static_cast<double>(p.get_u64("timed-hops")),
                             static_cast<double>(p.get_u64("sampled-hops")));
  }
  return s;
}

// A point of the op-table probes (compute, tensor, sync, atomics, async copies, launch): its
// launches are short, so each run is about the minimum region.
inline double op_points_seconds(double points, double runs = kRunsPerPoint) {
  return points * (runs * kMinRegionSeconds + kPointOverheadSeconds);
}

// 2 when the parameter `name` holds `all` (latency and throughput, random and zeros), else 1.
inline double kinds(const Params& p, const char* name, const char* all) { return p.get_text(name) == all ? 2 : 1; }

// The points of an op-table probe by --kind (latency, throughput or both): with every op, its
// `latency` and `throughput` points (counted in the simulated H100's records); with one op, one
// per kind.
inline double op_kind_points(const Params& p, bool every_op, double latency, double throughput) {
  const std::string& kind = p.get_text("kind");
  if (!every_op) return kinds(p, "kind", "both");
  return (kind != "throughput" ? latency : 0) + (kind != "latency" ? throughput : 0);
}

inline double geometric_points(uint64_t min_bytes, uint64_t max_bytes, uint64_t ppo, uint64_t grain) {
  return static_cast<double>(geometric_sweep(min_bytes, max_bytes, ppo, grain).size());
}

// A planned run (its estimate filled in by run-all's plan).
inline PlannedRun run(std::string probe, std::map<std::string, std::string> params, std::string file) {
  return PlannedRun{std::move(probe), std::move(params), std::move(file), 0};
}

}  // namespace gpuprobe::probes::plan
