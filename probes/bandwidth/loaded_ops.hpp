// The bandwidth family's loaded-latency operation: one thread chases a chain the harness built
// while the other SMs stream at a throttled rate (probes/bandwidth/loaded.cuh: the kernel's
// contract). Each backend implements LoadedLatencyOps (loaded_cuda.cpp, loaded_sim.cpp); a probe
// gets it with ctx.ops<LoadedLatencyOps>(). Prepare once (chain and stream buffer), run many
// (one launch per run, with its self-checks).
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

namespace gpuprobe::probes {

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

// A setup without a chain is the caller's error (the backends' prepare checks it first).
inline void require_chain(const LoadedSetup& setup) {
  if (setup.chain == nullptr) throw Error("loaded latency: a setup without a chain");
}

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

// The grid of a setup, the stream buffer it needs (grid x region) and the warps per block.
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
