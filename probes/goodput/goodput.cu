// goodput/reference: the reference kernels whose time the machine model predicts
// (probes/goodput/goodput.cuh: the contract). Global accesses go through ptx/ld.cuh and
// ptx/st.cuh, shared fragment loads through ptx::LdShared (asm volatile: every repeat of the tile
// loop loads its fragments again, nothing is hoisted), the mmas through ptx/mma.cuh. Device code
// only (NVRTC-safe); the host side is goodput_cuda.cpp.
#include "probes/bandwidth/stream_device.cuh"
#include "probes/goodput/goodput.cuh"
#include "ptx/ld.cuh"
#include "ptx/mma.cuh"
#include "ptx/st.cuh"

namespace gpuprobe::probes::goodput::device {

__device__ __forceinline__ uint64_t global_thread() {
  return uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ uint64_t grid_threads() { return uint64_t(gridDim.x) * blockDim.x; }

__device__ __forceinline__ uint32_t shared_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Copies one kRows x kTileK f16 tile (row-major, 16-byte chunks) into shared rows of
// kTileRowHalves halves.
template <uint32_t kRows>
__device__ __forceinline__ void stage(const uint16_t* global, uint16_t* shared) {
  constexpr uint32_t kChunksPerRow = kTileK / 8;
  for (uint32_t i = threadIdx.x; i < kRows * kChunksPerRow; i += blockDim.x) {
    const uint32_t row = i / kChunksPerRow, chunk = i % kChunksPerRow;
    const ptx::Words<4> v =
        ptx::LdGlobal<4, ptx::GlobalCache::all_levels>::load(reinterpret_cast<uint64_t>(global) + 16ull * i);
    *reinterpret_cast<ptx::Words<4>*>(shared + row * kTileRowHalves + chunk * 8) = v;
  }
}

// b[i] = i mod 1024, c[i] = (i / 1024) mod 1024 (grid-stride).
extern "C" __global__ void gpuprobe_goodput_fill(float* b, float* c, uint64_t n) {
  for (uint64_t i = global_thread(); i < n; i += grid_threads()) {
    b[i] = triad_b(i);
    c[i] = triad_c(i);
  }
}

// Counts the elements of a that do not hold b + scalar c into *bad.
extern "C" __global__ void gpuprobe_goodput_triad_verify(const float* a, uint64_t n, float scalar,
                                                         unsigned long long* bad) {
  unsigned long long wrong = 0;
  for (uint64_t i = global_thread(); i < n; i += grid_threads())
    wrong += a[i] != triad_b(i) + scalar * triad_c(i);
  if (wrong != 0) atomicAdd(bad, wrong);
}

// Word i holds i (grid-stride).
extern "C" __global__ void gpuprobe_goodput_fill_words(uint32_t* words, uint64_t n) {
  for (uint64_t i = global_thread(); i < n; i += grid_threads()) words[i] = static_cast<uint32_t>(i);
}

// STREAM triad, 16 bytes per access: per vector two LDG.128, four FFMA, one STG.128.
extern "C" __global__ void gpuprobe_goodput_triad(TriadArgs t) {
  const uint64_t a = reinterpret_cast<uint64_t>(t.a);
  const uint64_t b = reinterpret_cast<uint64_t>(t.b);
  const uint64_t c = reinterpret_cast<uint64_t>(t.c);
  const uint64_t stride = grid_threads();
#pragma unroll 1
  for (uint64_t v = global_thread(); v < t.vectors; v += stride) {
    const ptx::Words<4> x = ptx::LdGlobal<4, ptx::GlobalCache::all_levels>::load(b + 16 * v);
    const ptx::Words<4> y = ptx::LdGlobal<4, ptx::GlobalCache::all_levels>::load(c + 16 * v);
    ptx::Words<4> out;
#pragma unroll
    for (int j = 0; j < 4; ++j)
      out.w[j] = __float_as_uint(__fmaf_rn(t.scalar, __uint_as_float(y.w[j]), __uint_as_float(x.w[j])));
    ptx::StGlobal<4>::store(a + 16 * v, out);
  }
}

// `passes` sums of the buffer through the L2 (ld.global.cg), kReduceIlp loads in flight.
extern "C" __global__ void gpuprobe_goodput_reduce(ReduceArgs r) {
  const uint64_t base = reinterpret_cast<uint64_t>(r.words);
  const uint64_t threads = grid_threads();
  const uint64_t first = global_thread() * 16;
  uint32_t sum = 0;
#pragma unroll 1
  for (uint32_t p = 0; p < r.passes; ++p) {
    uint64_t offset = first;
#pragma unroll 1
    for (uint64_t it = 0; it < r.iterations; ++it) {
      ptx::Words<4> v[kReduceIlp];
#pragma unroll
      for (uint32_t k = 0; k < kReduceIlp; ++k)
        v[k] = ptx::LdGlobal<4, ptx::GlobalCache::l2_only>::load(base + offset + k * threads * 16);
#pragma unroll
      for (uint32_t k = 0; k < kReduceIlp; ++k) sum += gpuprobe::probes::bandwidth::device::sum_words(v[k]);
      offset += kReduceIlp * threads * 16;
    }
  }
  gpuprobe::probes::bandwidth::device::add_checksum(sum, r.sum);
}

// The tensor-core tile loop (goodput.cuh: geometry). Fragment layouts: PTX ISA 9.7.14.5.8
// (m16n8k16 .f16): A a0a1 (g, 2t), a2a3 (g + 8, 2t), a4a5 (g, 2t + 8), a6a7 (g + 8, 2t + 8);
// B b0b1 (k 2t, n g), b2b3 (k 2t + 8, n g); D d0d1 (g, 2t), d2d3 (g + 8, 2t); g = lane / 4,
// t = lane % 4 (the same coordinates as probes/tensor/mma.cpp mma_fragment_coords).
extern "C" __global__ void __launch_bounds__(kTileThreads) gpuprobe_goodput_tile(TileArgs t) {
  namespace gp = gpuprobe::probes::goodput;
#if GPUPROBE_PTX_HAS_MMA_SM80
  constexpr uint32_t kMi = gp::kWarpTileM / gp::kMmaM, kNj = gp::kWarpTileN / gp::kMmaN;
  constexpr uint32_t kRowBytes = gp::kTileRowHalves * 2;
  __shared__ __align__(16) uint16_t smem[(gp::kTileM + gp::kTileN) * gp::kTileRowHalves];
  const uint32_t pair = blockIdx.x % gp::kTilePairs;
  stage<gp::kTileM>(t.a + uint64_t(pair) * gp::kTileM * gp::kTileK, smem);
  stage<gp::kTileN>(t.bt + uint64_t(pair) * gp::kTileN * gp::kTileK, smem + gp::kTileM * gp::kTileRowHalves);
  __syncthreads();
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane >> 2, tq = lane & 3;
  const uint32_t wm = (warp >> 1) * gp::kWarpTileM, wn = (warp & 1) * gp::kWarpTileN;
  const uint32_t a_base = shared_addr(smem) + (wm + g) * kRowBytes + 4 * tq;
  const uint32_t b_base = shared_addr(smem) + (gp::kTileM + wn + g) * kRowBytes + 4 * tq;
  float acc[kMi][kNj][4] = {};
#pragma unroll 1
  for (uint32_t r = 0; r < t.repeats; ++r) {
#pragma unroll
    for (uint32_t s = 0; s < gp::kTileK / gp::kMmaK; ++s) {
      uint32_t af[kMi][4], bf[kNj][2];
#pragma unroll
      for (uint32_t i = 0; i < kMi; ++i) {
        const uint32_t at = a_base + i * gp::kMmaM * kRowBytes + s * gp::kMmaK * 2;
        af[i][0] = ptx::LdShared<1>::load(at).w[0];
        af[i][1] = ptx::LdShared<1>::load(at + 8 * kRowBytes).w[0];
        af[i][2] = ptx::LdShared<1>::load(at + 16).w[0];
        af[i][3] = ptx::LdShared<1>::load(at + 8 * kRowBytes + 16).w[0];
      }
#pragma unroll
      for (uint32_t j = 0; j < kNj; ++j) {
        const uint32_t bt = b_base + j * gp::kMmaN * kRowBytes + s * gp::kMmaK * 2;
        bf[j][0] = ptx::LdShared<1>::load(bt).w[0];
        bf[j][1] = ptx::LdShared<1>::load(bt + 16).w[0];
      }
#pragma unroll
      for (uint32_t i = 0; i < kMi; ++i)
#pragma unroll
        for (uint32_t j = 0; j < kNj; ++j)
          ptx::mma_sync_aligned_m16n8k16_row_col_f32_f16_f16_f32(acc[i][j], af[i], bf[j]);
    }
  }
  if (blockIdx.x >= t.store_blocks) return;
  float* d = t.d + uint64_t(blockIdx.x) * gp::kTileM * gp::kTileN;
#pragma unroll
  for (uint32_t i = 0; i < kMi; ++i)
#pragma unroll
    for (uint32_t j = 0; j < kNj; ++j) {
      const uint32_t row = wm + i * gp::kMmaM + g, col = wn + j * gp::kMmaN + 2 * tq;
      d[row * gp::kTileN + col] = acc[i][j][0];
      d[row * gp::kTileN + col + 1] = acc[i][j][1];
      d[(row + 8) * gp::kTileN + col] = acc[i][j][2];
      d[(row + 8) * gp::kTileN + col + 1] = acc[i][j][3];
    }
#else
  __trap();  // m16n8k16 f16 needs sm_80 (the host refuses older GPUs first)
#endif
}

// One node of the graph chain.
extern "C" __global__ void gpuprobe_goodput_chain(uint32_t* counter) {
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(counter, 1u);
}

}  // namespace gpuprobe::probes::goodput::device
