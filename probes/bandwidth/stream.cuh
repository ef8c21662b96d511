// The contract between the bandwidth kernels (stream.cu, stream_shared.cu) and their host side:
// the kernel table, the access geometry and the data pattern the self-checks rely on. Plain C++
// that nvcc, NVRTC and g++ all compile.
//
// Data pattern: 32-bit word i of a buffer holds i (global buffers are filled by gpuprobe_bw_fill,
// shared memory by each block). Every kernel sums, per thread, the words it loads (modulo 2^32)
// and adds that sum into one 64-bit word; its low 32 bits are the checksum (sums of 32-bit
// partial sums agree modulo 2^32 whatever order they wrap in). The host computes the same sum
// from the geometry (expected_*_checksum below) and a mismatch fails the point. A store kernel writes the pattern
// and gpuprobe_bw_verify counts the words that do not hold it.
#pragma once
#include "ptx/types.cuh"

namespace gpuprobe::probes::bandwidth {

// Vector widths (bytes per thread per access) and independent accesses per thread (ILP) that
// have a kernel. 32-byte accesses (ld/st .v8.b32) exist on sm_100+ only, compiled with PTX ISA
// 8.8 (CUDA 12.9+); elsewhere their kernel traps and the host refuses them first.
//
// GPUPROBE_BW_SHARED_SHAPES(X): the shapes shared memory has (vector bytes up to 16); every
// kernel kind (read, read_l2, write, copy, shared) exists for each. GPUPROBE_BW_SHAPES(X): those
// and the 32-byte accesses, which only the global kinds have. X(vec_bytes, ilp).
#define GPUPROBE_BW_SHARED_SHAPES(X) \
  X(4, 1) X(4, 2) X(4, 4) X(4, 8) \
  X(8, 1) X(8, 2) X(8, 4) X(8, 8) \
  X(16, 1) X(16, 2) X(16, 4) X(16, 8)
#define GPUPROBE_BW_SHAPES(X) GPUPROBE_BW_SHARED_SHAPES(X) X(32, 1) X(32, 2) X(32, 4) X(32, 8)

constexpr uint32_t kMaxIlp = 8;
// The smallest SM number with 32-byte global loads and stores.
constexpr int kMinSmVec32 = 100;

// Global kernels. A block streams a window of `tiles_per_block` tiles; a tile is what one pass
// of the unrolled loop body moves: blockDim.x threads x ilp accesses x vec_bytes, the ilp
// accesses of a thread blockDim.x x vec_bytes apart (each coalesced across the warp). The buffer
// holds `footprint_tiles` tiles; block b's window starts at tile (b x block_step_tiles) mod
// footprint_tiles and wraps at the end of the buffer. This one geometry gives every level:
//   L1   block_step_tiles = tiles_per_block: each block re-reads its own window (passes > 1)
//   L2   windows of different blocks overlap: data re-read by different CTAs (the split L2)
//   HBM  a footprint far beyond the L2, each block its own window, one pass
struct StreamGeometry {
  uint64_t footprint_tiles;
  uint64_t tiles_per_block;
  uint64_t block_step_tiles;
  uint32_t passes;
};

GPUPROBE_HD constexpr uint64_t tile_bytes(uint32_t block_threads, uint32_t vec_bytes,
                                          uint32_t ilp) {
  return uint64_t(block_threads) * vec_bytes * ilp;
}

// Sum of the words [first, first + count) of the pattern (word i holds i), modulo 2^32.
GPUPROBE_HD constexpr uint32_t pattern_sum(uint64_t first, uint64_t count) {
  // sum = count * first + count * (count - 1) / 2; the halving is done on the even factor.
  const uint64_t a = count % 2 == 0 ? count / 2 : count;
  const uint64_t b = count % 2 == 0 ? count - 1 : (count - 1) / 2;
  return static_cast<uint32_t>(count * first + a * b);
}

// The checksum a read (or copy) launch must report: every block sums its window `passes` times.
GPUPROBE_HD constexpr uint32_t expected_stream_checksum(const StreamGeometry& g, uint32_t blocks,
                                                        uint64_t tile_words) {
  uint32_t total = 0;
  for (uint64_t b = 0; b < blocks; ++b) {
    const uint64_t start = (b * g.block_step_tiles) % g.footprint_tiles;
    const uint64_t first_run = g.tiles_per_block < g.footprint_tiles - start
                                   ? g.tiles_per_block
                                   : g.footprint_tiles - start;
    uint32_t window = pattern_sum(start * tile_words, first_run * tile_words);
    uint64_t left = g.tiles_per_block - first_run;
    while (left > 0) {  // the window wraps (possibly more than once) from tile 0
      const uint64_t run = left < g.footprint_tiles ? left : g.footprint_tiles;
      window += pattern_sum(0, run * tile_words);
      left -= run;
    }
    total += window * g.passes;
  }
  return total;
}

// Shared-memory kernels: every thread loads, `iterations` times, ilp vectors of vec_bytes at
//   lane x stride_elems x vec_bytes + k x 128 bytes        (k = 0 .. ilp-1, lane = thread % 32)
// Offsets of 128 bytes keep each access's banks, so the stride alone sets the bank-conflict
// degree (4-byte words, 32 banks: a stride of s elements makes gcd(s, 32) lanes share a bank).
constexpr uint32_t kSharedMaxStrideElems = 64;
constexpr uint32_t kSharedBankSpanBytes = 128;

GPUPROBE_HD constexpr uint64_t shared_stream_bytes(uint32_t stride_elems, uint32_t vec_bytes,
                                                   uint32_t ilp) {
  return uint64_t(31) * stride_elems * vec_bytes + vec_bytes +
         uint64_t(ilp - 1) * kSharedBankSpanBytes;
}

// Expected checksum of a shared launch: word w of shared memory holds w.
GPUPROBE_HD constexpr uint32_t expected_shared_checksum(uint32_t blocks, uint32_t block_threads,
                                                        uint32_t stride_elems, uint32_t vec_bytes,
                                                        uint32_t ilp, uint32_t iterations) {
  const uint32_t words = vec_bytes / 4;
  uint32_t total = 0;
  for (uint32_t t = 0; t < block_threads; ++t) {
    uint32_t per_thread = 0;
    for (uint32_t k = 0; k < ilp; ++k) {
      const uint64_t first = (uint64_t(t % 32) * stride_elems * vec_bytes +
                              uint64_t(k) * kSharedBankSpanBytes) / 4;
      per_thread += pattern_sum(first, words);
    }
    total += per_thread * iterations;
  }
  return total * blocks;
}

}  // namespace gpuprobe::probes::bandwidth
