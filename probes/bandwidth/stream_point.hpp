// Shared by the bandwidth probes: measure one streaming configuration until stable (with the
// self-check of every launch), and the sweeps built on it: the concurrency sweep every level
// runs (bytes in flight per SM, for Little's law) and the parameters they share.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/points.hpp"
#include "harness/probe.hpp"
#include "probes/bandwidth/stream_ops.hpp"

namespace gpuprobe::probes {

// Prepares the setup once, calibrates the repeats (passes or iterations) until a launch lasts
// the minimum region, repeats it per the context's policy, and returns the point: bandwidth
// (median, CI), bytes moved, bytes in flight per SM, the occupancy, the launch configuration and
// the SM clock measured right after (region_sm_clock_mhz). Every launch's self-check must pass
// or it throws "self-check failed ...". Fields: docs/SCHEMA.md "bandwidth point".
nlohmann::json measure_stream(ProbeContext& ctx, const StreamSetup& setup, bool flush_l2 = false);

// A streaming configuration: the shape and the occupancy, before the level sizes the window.
struct StreamConfig {
  StreamShape shape;
  uint32_t block_threads = 256;
  uint32_t blocks_per_sm = 1;
};

// The concurrency sweep of a level, without repeats: a ladder from one warp with one 4-byte
// access per SM that doubles the bytes in flight at each step (one knob at a time), then
// one-dimensional sweeps around `base` of the blocks per SM, the ILP, the vector width (32 bytes
// on sm_100+ only) and the block size.
std::vector<StreamConfig> concurrency_configs(const StreamConfig& base, const DeviceInfo& info);

// The parameters every bandwidth probe shares: block-threads, vec-bytes, ilp, blocks-per-sm
// (the footprint sweep's configuration) and concurrency (whether to run the concurrency sweep).
void add_stream_params(std::vector<ParamSpec>& params, const char* default_block_threads,
                       const char* default_vec_bytes, const char* default_ilp,
                       const char* default_blocks_per_sm);
StreamConfig stream_config(ProbeContext& ctx, StreamKind kind);

// With --concurrency on, adds the concurrency points of one level to `points`: for each
// configuration `setup_for` returns the setup (or nullopt: the configuration cannot stay in this
// level, skipped).
void plan_concurrency(ProbeContext& ctx, const StreamConfig& base, const std::string& level,
                      const std::function<std::optional<StreamSetup>(const StreamConfig&)>& setup_for,
                      std::vector<PlannedPoint>& points, bool flush_l2 = false);

// The launch of a configuration with every SM streaming (blocks = SMs x blocks per SM); the
// caller sets the geometry (global kinds) or the stride (shared).
StreamSetup stream_setup(const DeviceInfo& info, const StreamConfig& c);

// Every block streams its own window of window_bytes (at least one tile): disjoint windows that
// cover the buffer once (L1 re-reads, DRAM reads, writes and copies).
StreamSetup own_windows(const DeviceInfo& info, const StreamConfig& c, uint64_t window_bytes);

// Tiles of `tile_bytes` in `bytes`, at least one.
uint64_t tiles_in(uint64_t bytes, uint64_t tile_bytes);

}  // namespace gpuprobe::probes
