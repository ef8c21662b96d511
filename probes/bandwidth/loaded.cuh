// The contract between the loaded-latency kernel (loaded.cu) and its host side (stream_ops.cpp,
// stream_cuda.cpp, stream_sim.cpp): the launch's roles, its arguments, what it reports and the
// checksum the streamers' reads must give. Plain C++ that nvcc, NVRTC and g++ all compile.
//
// One launch, all blocks resident at once (the host checks the occupancy):
//   chaser     the one thread that claims the pinned SM (harness/cuda/pin.cuh) walks a chain
//              (harness/chain.hpp, 64-bit self-pointers) with ld.global.cg from start_offset_bytes: warmup_hops untimed,
//              then timed_iterations x kLoadedHopsPerIteration hops between two %clock64 and
//              %globaltimer reads. It raises the flag to kLoadedTimed before the timed hops and
//              to kLoadedStop after them, each store waiting for the last load.
//   streamers  every thread of every block on another SM reads its block's region of
//              region_tiles tiles, one tile per group: kLoadedIlp vectors of kLoadedVecBytes per
//              thread (ld.global.cg), a thread's accesses blockDim.x x kLoadedVecBytes apart. After
//              each group (its values summed) it spins throttle_cycles (0: full rate), and polls
//              its copy of the flag (ld.relaxed.gpu; one value per warp), until kLoadedStop or until it has
//              streamed max_stream_cycles (then it counts itself in `overran`: the point is void).
//   idle       the other blocks on the pinned SM return at once.
// Groups seen while the flag read kLoadedTimed are the timed bytes: achieved bandwidth = timed
// bytes / the chaser's timed %globaltimer interval.
//
// Self-checks: the chase ends on the slot the host predicts (walk(chain, start, warmup + timed));
// the streamers' checksum (the low 32 bits of the sum of every word read; word i of the stream
// buffer holds i, probes/bandwidth/stream.cuh) equals loaded_checksum() over the group counts
// each warp reports.
#pragma once
#include "probes/bandwidth/stream.cuh"
#include "ptx/types.cuh"

namespace gpuprobe::probes::bandwidth {

constexpr uint32_t kLoadedVecBytes = 16;   // ld.global.cg.v4.u32
constexpr uint32_t kLoadedIlp = 4;         // vectors per thread per group
// Chase hops per timed-loop iteration (unrolled; the SASS test reads this line).
constexpr uint64_t kLoadedHopsPerIteration = 32;

// Flag values (the chaser's phase, as the streamers see it).
constexpr uint32_t kLoadedWarmup = 0;
constexpr uint32_t kLoadedTimed = 1;
constexpr uint32_t kLoadedStop = 2;
// Or-ed into a streamer's reading once it has streamed max_stream_cycles: it stops too.
constexpr uint32_t kLoadedOverran = 0x100;

// The flag is kept in kLoadedFlagCopies copies kLoadedFlagStrideBytes apart (different lines, so
// different L2 slices): the chaser stores every copy, warp w polls copy w mod kLoadedFlagCopies.
// Thousands of warps polling one line would load its slice, and the chase with it.
constexpr uint32_t kLoadedFlagCopies = 32;
constexpr uint32_t kLoadedFlagStrideBytes = 256;
constexpr uint64_t kLoadedFlagBytes = uint64_t(kLoadedFlagCopies) * kLoadedFlagStrideBytes;

// block_smid[b] of a block that did not stream (the chaser's and the idle blocks).
constexpr uint32_t kLoadedNotStreaming = 0xffffffffu;

struct LoadedParams {
  uint64_t chain_base;           // device address of the chain's span
  uint64_t start_offset_bytes;   // the start slot's offset
  uint64_t warmup_hops;          // at least kLoadedHopsPerIteration
  uint64_t timed_iterations;     // timed hops / kLoadedHopsPerIteration
  uint64_t zero;                 // 0, at run time (keeps dependences ptxas cannot fold)
  uint64_t stream_base;          // device address of the stream buffer (gridDim.x regions)
  uint64_t region_tiles;         // tiles per block's region (0: nobody streams, the idle point)
  uint64_t throttle_cycles;      // spin between groups (0: full rate)
  uint64_t max_stream_cycles;    // a streamer gives up after this long (the point is void)
};

// What a launch reports. checksum, timed_stream_bytes and overran are atomically added.
struct LoadedOut {
  uint64_t final_offset_bytes;   // where the chase ended, from the chain's base
  uint64_t timed_cycles;         // %clock64 over the timed hops
  uint64_t timed_ns;             // %globaltimer over the same hops
  uint64_t timed_iterations;     // timed-loop iterations the chaser executed
  unsigned long long timed_stream_bytes;   // bytes of the groups that saw kLoadedTimed
  unsigned long long checksum;   // low 32 bits: the streamers' checksum
  uint32_t smid;                 // the chaser's SM
  uint32_t ran;                  // 1 once the chaser finished
  uint32_t overran;              // warps that stopped at max_stream_cycles
  uint32_t pad;
};

// Bytes of one tile (one group of a block): blockDim.x x kLoadedIlp x kLoadedVecBytes.
GPUPROBE_HD constexpr uint64_t loaded_tile_bytes(uint32_t block_threads) {
  return tile_bytes(block_threads, kLoadedVecBytes, kLoadedIlp);
}

// Bytes one warp reads per group.
constexpr uint64_t kLoadedWarpGroupBytes = uint64_t(32) * kLoadedVecBytes * kLoadedIlp;

// The checksum of warp `warp` of block `block` after `groups` groups: group g reads tile
// g mod region_tiles of the block's region; per access k the warp's 32 lanes read the
// 32 x kLoadedVecBytes / 4 consecutive words from
//   ((block x region_tiles + tile) x tile_bytes + k x block_threads x kLoadedVecBytes
//    + warp x 32 x kLoadedVecBytes) / 4.
GPUPROBE_HD constexpr uint32_t loaded_warp_checksum(uint64_t block, uint32_t warp,
                                                    uint32_t block_threads,
                                                    uint64_t region_tiles, uint64_t groups) {
  const uint64_t tile_words = loaded_tile_bytes(block_threads) / 4;
  const uint64_t access_words = uint64_t(block_threads) * kLoadedVecBytes / 4;
  const uint64_t warp_words = 32 * kLoadedVecBytes / 4;
  const uint64_t full = groups / region_tiles, rest = groups % region_tiles;
  uint32_t all = 0, part = 0;
  for (uint64_t t = 0; t < region_tiles; ++t) {
    uint32_t tile_sum = 0;
    for (uint32_t k = 0; k < kLoadedIlp; ++k)
      tile_sum += pattern_sum((block * region_tiles + t) * tile_words + k * access_words +
                                  uint64_t(warp) * warp_words,
                              warp_words);
    all += tile_sum;
    if (t < rest) part += tile_sum;
  }
  return static_cast<uint32_t>(full) * all + part;
}

}  // namespace gpuprobe::probes::bandwidth
