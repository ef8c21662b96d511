// The bandwidth family's operations, each implemented by both backends (stream_cuda.cpp,
// stream_sim.cpp) and got by a probe with ctx.ops<...>(). Prepare once, measure many:
//   StreamOps         streaming launches over buffers the backend allocates and fills with the
//                     pattern (probes/bandwidth/stream.cuh); prepare() allocates and fills, each
//                     run() is one timed launch followed by its self-check
//   LoadedLatencyOps  one thread chases a chain the harness built while the other SMs stream at a
//                     throttled rate (probes/bandwidth/loaded.cuh: the kernel's contract);
//                     prepare() lays out the chain and the stream buffer, each run() is one launch
//                     with its self-checks
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/chain.hpp"
#include "harness/device.hpp"
#include "harness/error.hpp"
#include "harness/launch_config.hpp"
#include "probes/bandwidth/loaded.cuh"
#include "probes/bandwidth/stream.cuh"

namespace gpuprobe::probes {

// What a launch does, and through which level it is meant to go:
//   read     ld.global: each block its own window (L1 when it fits and passes > 1, else the
//            level that holds the footprint)
//   read_l2  ld.global.cg: windows shared across CTAs (the L2, near and far partitions)
//   write    st.global of the pattern; copy: ld.global src, st.global dst
//   shared   ld.shared with a stride (per-SM shared-memory bandwidth and bank conflicts)
enum class StreamKind { read, read_l2, write, copy, shared };

const char* stream_kind_name(StreamKind kind);

struct StreamShape {
  StreamKind kind = StreamKind::read;
  uint32_t vec_bytes = 16;   // 4, 8, 16 or 32 (32: global kinds, sm_100+)
  uint32_t ilp = 4;          // 1, 2, 4 or 8 independent accesses per thread per iteration
};

// The kernel of a shape: gpuprobe_bw_<kind>_v<bytes>_x<ilp>.
std::string stream_kernel_name(const StreamShape& shape);

struct StreamSetup {
  StreamShape shape;
  uint32_t block_threads = 256;          // a multiple of 32, at most 1024
  uint32_t blocks = 0;                   // the grid
  bandwidth::StreamGeometry geometry{};  // global kinds (passes: the default for run())
  uint32_t stride_elems = 1;             // shared: 1 .. kSharedMaxStrideElems
};

// A streaming configuration of the stream probes (stream_point.cpp): the shape and the occupancy,
// before the level sizes the window.
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

struct StreamRun {
  uint32_t repeats = 1;    // passes over the windows (global) or iterations (shared)
  bool flush_l2 = false;   // evict the L2 before the launch (a cold sample)
};

struct StreamResult {
  double elapsed_ns = 0;            // the launch, event-timed behind a spin (simulated: modelled)
  uint64_t bytes_read = 0;          // by the launch
  uint64_t bytes_written = 0;
  uint32_t checksum = 0;            // low 32 bits of the launch's checksum (reads only)
  uint32_t expected_checksum = 0;   // the host's closed form
  uint64_t mismatched_words = 0;    // write/copy: destination words that do not hold the pattern
  uint32_t resident_blocks_per_sm = 0;  // the occupancy the launch ran at
  LaunchRecord launch;              // the configuration used
};

// Bytes of the buffer(s) a setup allocates (copy: source and destination).
uint64_t stream_buffer_bytes(const StreamSetup& setup);

// A run's result as far as the geometry gives it: what the run reads and writes (reads of a shared
// run are shared-memory bytes) and the checksum its reads must give. Refuses a run of no passes.
StreamResult expected_stream_result(const StreamSetup& setup, const StreamRun& run);

// Bytes one SM keeps in flight: resident blocks x threads x ilp x vec_bytes (copy: the loads).
uint64_t stream_bytes_in_flight_per_sm(const StreamSetup& setup, uint32_t resident_blocks_per_sm);

// The checks every backend makes before preparing, in one place: the shape has a kernel (32-byte
// accesses need sm_100), the block size, the geometry (tiles below 2^32, a write or copy covers
// its buffer exactly once), the shared stride and memory, and the buffers against free device
// memory. Returns the dynamic shared memory of the launch. Throws one-line Errors.
uint64_t check_stream_fits(const StreamSetup& setup, const DeviceInfo& info, uint64_t free_bytes);

// The self-check of a run: throws gpuprobe::Error "self-check failed ..." when the checksum or
// the destination is wrong.
void check_stream_result(const StreamSetup& setup, const StreamResult& result);

class PreparedStream {
 public:
  virtual ~PreparedStream() = default;
  virtual StreamResult run(const StreamRun& run) = 0;
};

class StreamOps : public FamilyOps {
 public:
  static constexpr const char* kFamily = "bandwidth.stream";
  virtual std::unique_ptr<PreparedStream> prepare(const StreamSetup& setup) = 0;
};

struct LoadedSetup {
  const Chain* chain = nullptr;    // the chaser's chain; must outlive the PreparedLoaded
  int chaser_sm = 0;               // the SM the chaser is pinned to (a real SM)
  uint32_t block_threads = 256;    // streamer blocks: a multiple of 32, at most 1024
  uint32_t blocks_per_sm = 4;      // grid = blocks_per_sm x SMs, all resident at once
  uint64_t region_tiles = 1;       // each block's stream region, in loaded_tile_bytes() tiles
  // The level the chain and the streams are meant to load ("L2" or "DRAM"): recorded, and the
  // level whose queue the simulator models. The probe sizes chain and regions to put them there.
  std::string level = "L2";
};

struct LoadedRun {
  // The slot the chase starts from: where the previous run ended, so that a chain larger than
  // the L2 is never re-walked through lines an earlier run left in the L2.
  uint32_t start_slot = 0;
  uint64_t warmup_hops = 0;        // at least kLoadedHopsPerIteration
  uint64_t timed_hops = 0;         // a positive multiple of kLoadedHopsPerIteration
  uint64_t throttle_cycles = 0;    // spin between a warp's groups (0: full rate)
  bool stream = true;              // false: the idle point (the chaser alone)
};

struct LoadedResult {
  uint64_t timed_cycles = 0;       // the chaser's timed hops
  uint64_t timed_ns = 0;
  uint64_t timed_iterations = 0;   // as executed by the chaser
  uint64_t final_offset_bytes = 0;
  uint64_t timed_stream_bytes = 0; // streamed while the chaser was timed
  uint64_t stream_bytes = 0;       // streamed in all (every group of every warp)
  uint32_t checksum = 0;           // the streamers' checksum, and the host's from their groups
  uint32_t expected_checksum = 0;
  uint32_t streaming_sms = 0;      // distinct SMs with a streaming block
  uint32_t streaming_blocks = 0;
  uint32_t overran_warps = 0;      // warps that hit the streaming time bound (a void point)
  LaunchRecord launch;             // the configuration used; smid: the chaser's SM
};

// The grid of a setup and the stream buffer it needs (grid x region).
uint32_t loaded_grid_blocks(const LoadedSetup& setup, const DeviceInfo& info);
uint64_t loaded_stream_buffer_bytes(const LoadedSetup& setup, const DeviceInfo& info);

// The streamers' checksum from the groups each warp reports (warp w = block x warps per block +
// warp in block), loaded_warp_checksum summed, modulo 2^32.
uint32_t loaded_checksum(const LoadedSetup& setup, const std::vector<uint32_t>& warp_groups);

// The checks every backend makes before preparing, in one place: a chain (check_chain), the
// chaser's SM, the block size and blocks per SM (at most `resident_blocks_per_sm`, so the chaser
// and every streamer run at once: a streamer waits for the chaser's flag), the region, and the
// chain and stream buffer against free device memory. Throws one-line Errors.
void check_loaded_fits(const LoadedSetup& setup, const DeviceInfo& info, uint64_t free_bytes,
                       uint32_t resident_blocks_per_sm);

// The run's shape (start slot, warm-up and timed hops); throws a one-line Error.
void check_loaded_run(const LoadedSetup& setup, const LoadedRun& run);

// The self-checks of a run: the chase ends on walk(chain, run.start_slot, warmup + timed), the chaser ran
// the expected iterations, the checksum matches and no streamer overran (a streamer stops at its
// time bound when the chaser's flag never comes). Throws "self-check failed ...".
void check_loaded_result(const LoadedSetup& setup, const LoadedRun& run,
                         const LoadedResult& result);

class PreparedLoaded {
 public:
  virtual ~PreparedLoaded() = default;
  virtual LoadedResult run(const LoadedRun& run) = 0;
};

class LoadedLatencyOps : public FamilyOps {
 public:
  static constexpr const char* kFamily = "bandwidth.loaded_latency";
  virtual std::unique_ptr<PreparedLoaded> prepare(const LoadedSetup& setup) = 0;
};

}  // namespace gpuprobe::probes
