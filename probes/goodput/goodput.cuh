// The contract between the goodput reference kernels (goodput.cu) and their host side
// (goodput_probe.cpp, goodput_cuda.cpp, goodput_sim.cpp): the kernels' arguments, their work per
// launch and the data their self-checks rely on. Plain C++ that nvcc, NVRTC and g++ all compile.
//
// Kernels (goodput/reference: the machine model predicts each one's time, docs/ANALYSIS.md):
//   gpuprobe_goodput_triad        STREAM triad a[i] = b[i] + s c[i] over n floats, 16-byte loads
//                                 and stores, grid-stride (DRAM-sized buffers)
//   gpuprobe_goodput_reduce       `passes` sums of an L2-resident buffer of n 32-bit words (word
//                                 i holds i) with ld.global.cg, kReduceIlp 16-byte loads in flight
//                                 per thread; the sum (mod 2^32) goes into one 64-bit word
//   gpuprobe_goodput_tile         a tensor-core tile loop: every block stages one A (128 x 32) and
//                                 one B (32 x 128) f16 tile in shared memory, then `repeats` times
//                                 loads its fragments from shared memory and issues
//                                 mma.sync.m16n8k16 f16 -> f32 (each warp a 64 x 64 tile: 32 mmas
//                                 per k-step); blocks below `store_blocks` store D (f32)
//   gpuprobe_goodput_chain        one counting kernel: a node of the graph chain (one warp)
// and the helpers gpuprobe_goodput_fill (the triad's inputs), gpuprobe_goodput_triad_verify
// (counts wrong triad results) and gpuprobe_goodput_fill_words (the reduction's pattern).
#pragma once
#include "ptx/types.cuh"

namespace gpuprobe::probes::goodput {

// Triad: b[i] = i mod 1024, c[i] = (i / 1024) mod 1024, a = b + kTriadScalar c: every value an
// integer below 2^24, exact in f32, so the check is exact.
constexpr float kTriadScalar = 3.0f;
constexpr uint32_t kTriadVecFloats = 4;    // 16-byte accesses
GPUPROBE_HD constexpr float triad_b(uint64_t i) { return static_cast<float>(i % 1024); }
GPUPROBE_HD constexpr float triad_c(uint64_t i) { return static_cast<float>((i / 1024) % 1024); }
// Bytes one triad moves per element: b and c read, a written.
constexpr uint64_t kTriadReadBytesPerElement = 8;
constexpr uint64_t kTriadWriteBytesPerElement = 4;
constexpr uint64_t kTriadFlopsPerElement = 2;   // one FMA

struct TriadArgs {
  float* a;
  const float* b;
  const float* c;
  float scalar;
  uint64_t vectors;          // n / kTriadVecFloats
};

// Reduction: kReduceIlp independent 16-byte loads per thread per iteration; the buffer holds a
// whole number of iterations of the grid (grid threads x kReduceIlp x 16 bytes).
constexpr uint32_t kReduceIlp = 4;
constexpr uint32_t kReduceVecWords = 4;

struct ReduceArgs {
  const uint32_t* words;
  uint64_t iterations;       // of the grid over the buffer, per pass
  uint32_t passes;
  unsigned long long* sum;   // the launch adds its (wrapping) sum here
};

// The sum `passes` sweeps of words [0, n) (word i holds i) give, modulo 2^32.
GPUPROBE_HD constexpr uint32_t reduce_expected_sum(uint64_t n, uint32_t passes) {
  const uint64_t a = n % 2 == 0 ? n / 2 : n;
  const uint64_t b = n % 2 == 0 ? n - 1 : (n - 1) / 2;
  return static_cast<uint32_t>(a * b) * passes;
}

// Tile loop geometry: 4 warps in 2 x 2, each a 64 x 64 warp tile of 4 x 8 m16n8k16 mmas; the
// block tile is 128 x 128 over a k-tile of 32 (two k-steps of 16). Shared rows are padded from
// 32 to 40 halves (20 words): the 8 rows and 4 columns a fragment load touches fall in 32
// distinct banks (20 g + t mod 32 for g < 8, t < 4).
constexpr uint32_t kTileThreads = 128;
constexpr uint32_t kTileM = 128, kTileN = 128, kTileK = 32;
constexpr uint32_t kWarpTileM = 64, kWarpTileN = 64;
constexpr uint32_t kMmaM = 16, kMmaN = 8, kMmaK = 16;
constexpr uint32_t kTileRowHalves = 40;
// The shared-memory bytes one warp loads per k-step (A: 4 fragments of 4 words, B: 8 of 2 words,
// 32 lanes, 4 bytes each).
constexpr uint32_t kTileSharedBytesPerKStep =
    ((kWarpTileM / kMmaM) * 4 + (kWarpTileN / kMmaN) * 2) * 32 * 4;
// Per block and repeat: FLOP (2 per multiply-add) and shared bytes loaded into registers.
constexpr uint64_t kTileFlopsPerRepeat = 2ull * kTileM * kTileN * kTileK;
constexpr uint64_t kTileSharedBytesPerRepeat =
    uint64_t(kTileThreads / 32) * (kTileK / kMmaK) * kTileSharedBytesPerKStep;
// Distinct tile pairs in memory (block b stages pair b mod kTilePairs); inputs are integers in
// [-2, 2], so D = repeats x (A B) is exact in f32 while repeats x 4 x kTileK < 2^24.
constexpr uint32_t kTilePairs = 4;
constexpr uint64_t kTileMaxRepeats = (1ull << 24) / (4ull * kTileK) - 1;

struct TileArgs {
  const uint16_t* a;         // kTilePairs tiles of kTileM x kTileK f16, row-major
  const uint16_t* bt;        // kTilePairs tiles of B transposed: kTileN x kTileK f16, row-major
  float* d;                  // store_blocks tiles of kTileM x kTileN f32, row-major
  uint32_t repeats;
  uint32_t store_blocks;
};

// The graph chain: every node adds one to *counter.
constexpr uint32_t kChainThreads = 32;

}  // namespace gpuprobe::probes::goodput
