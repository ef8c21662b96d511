// bandwidth/*: the global-memory streaming kernels. Every block streams its window of tiles
// (probes/bandwidth/stream.cuh: the geometry that gives L1, L2 and HBM), `passes` times; each
// thread issues `ilp` independent vector accesses per loop iteration. One extern "C" kernel per
// shape of GPUPROBE_BW_SHAPES and kind:
//   gpuprobe_bw_read_v<bytes>_x<ilp>      ld.global      (allocates in L1: the L1 and HBM levels)
//   gpuprobe_bw_read_l2_v<bytes>_x<ilp>   ld.global.cg   (L2 only: data re-read by other CTAs)
//   gpuprobe_bw_write_v<bytes>_x<ilp>     st.global of the pattern
//   gpuprobe_bw_copy_v<bytes>_x<ilp>      ld.global from src, st.global to dst
// plus gpuprobe_bw_fill (writes the pattern) and gpuprobe_bw_verify (counts words off pattern).
// The loads' values are summed into the checksum (what keeps them alive, and the self-check);
// the stores write the pattern, checked afterwards by gpuprobe_bw_verify. 32-byte shapes trap
// where the compile pass has no 256-bit accesses (the host refuses them before that).
// Device code only (NVRTC-safe); the host side is stream_cuda.cpp.
#include "probes/bandwidth/stream.cuh"
#include "probes/bandwidth/stream_device.cuh"
#include "ptx/ld.cuh"
#include "ptx/st.cuh"

namespace gpuprobe::probes::bandwidth::device {

// The window walk shared by every kernel: calls body(offset_bytes) once per tile of the block's
// window, `passes` times, the offset being that of the thread's first access in the tile.
template <int kBytes, int kIlp, class Body>
__device__ __forceinline__ void for_each_tile(const StreamGeometry& g, Body body) {
  const uint64_t tile = uint64_t(blockDim.x) * kBytes * kIlp;
  // 32-bit tile indices keep the modulo inline (a 64-bit one is a call); the host bounds
  // footprint_tiles and block_step_tiles x blocks below 2^32.
  const uint32_t start = static_cast<uint32_t>(
      (uint32_t(blockIdx.x) * uint32_t(g.block_step_tiles)) % uint32_t(g.footprint_tiles));
  const uint64_t first_offset = uint64_t(start) * tile + uint64_t(threadIdx.x) * kBytes;
  const uint64_t wrap_bytes = g.footprint_tiles * tile;
#pragma unroll 1
  for (uint32_t p = 0; p < g.passes; ++p) {
    uint64_t offset = first_offset;
#pragma unroll 1
    for (uint64_t t = g.tiles_per_block; t != 0; --t) {
      body(offset);
      offset += tile;
      if (offset >= wrap_bytes) offset -= wrap_bytes;
    }
  }
}

template <int kBytes, int kIlp, ptx::GlobalCache kCache>
__device__ __forceinline__ void read(uint64_t base, StreamGeometry g,
                                     unsigned long long* checksum) {
  constexpr int kWords = kBytes / 4;
  const uint64_t stride = uint64_t(blockDim.x) * kBytes;  // between a thread's ilp accesses
  uint32_t sum = 0;
  for_each_tile<kBytes, kIlp>(g, [&](uint64_t offset) {
    ptx::Words<kWords> v[kIlp];
#pragma unroll
    for (int k = 0; k < kIlp; ++k)
      v[k] = ptx::LdGlobal<kWords, kCache>::load(base + offset + k * stride);
#pragma unroll
    for (int k = 0; k < kIlp; ++k) sum += sum_words(v[k]);
  });
  add_checksum(sum, checksum);
}

// The pattern words of the vector at `offset` bytes: word i holds i.
template <int kWords>
__device__ __forceinline__ ptx::Words<kWords> pattern_at(uint64_t offset) {
  ptx::Words<kWords> v;
  const uint32_t first = static_cast<uint32_t>(offset / 4);
#pragma unroll
  for (int j = 0; j < kWords; ++j) v.w[j] = first + j;
  return v;
}

template <int kBytes, int kIlp>
__device__ __forceinline__ void write(uint64_t base, StreamGeometry g) {
  constexpr int kWords = kBytes / 4;
  const uint64_t stride = uint64_t(blockDim.x) * kBytes;
  for_each_tile<kBytes, kIlp>(g, [&](uint64_t offset) {
#pragma unroll
    for (int k = 0; k < kIlp; ++k)
      ptx::StGlobal<kWords>::store(base + offset + k * stride,
                                   pattern_at<kWords>(offset + k * stride));
  });
}

template <int kBytes, int kIlp>
__device__ __forceinline__ void copy(uint64_t dst, uint64_t src, StreamGeometry g,
                                     unsigned long long* checksum) {
  constexpr int kWords = kBytes / 4;
  const uint64_t stride = uint64_t(blockDim.x) * kBytes;
  uint32_t sum = 0;
  for_each_tile<kBytes, kIlp>(g, [&](uint64_t offset) {
    ptx::Words<kWords> v[kIlp];
#pragma unroll
    for (int k = 0; k < kIlp; ++k)
      v[k] = ptx::LdGlobal<kWords, ptx::GlobalCache::all_levels>::load(src + offset + k * stride);
#pragma unroll
    for (int k = 0; k < kIlp; ++k) {
      ptx::StGlobal<kWords>::store(dst + offset + k * stride, v[k]);
      sum += sum_words(v[k]);
    }
  });
  add_checksum(sum, checksum);
}

// Whether this compile pass has the shape's accesses (32-byte ones: sm_100+, PTX ISA 8.8). The
// kernels go through these templates so that, the condition depending on kBytes, the 32-byte
// body is not even instantiated on a pass without the accesses.
template <int kBytes>
constexpr bool kPassHasShape = kBytes != 32 || GPUPROBE_PTX_HAS_256BIT;

template <int kBytes, int kIlp, ptx::GlobalCache kCache>
__device__ __forceinline__ void read_or_trap(uint64_t base, StreamGeometry g,
                                             unsigned long long* checksum) {
  if constexpr (kPassHasShape<kBytes>) read<kBytes, kIlp, kCache>(base, g, checksum);
  else __trap();
}
template <int kBytes, int kIlp>
__device__ __forceinline__ void write_or_trap(uint64_t base, StreamGeometry g) {
  if constexpr (kPassHasShape<kBytes>) write<kBytes, kIlp>(base, g);
  else __trap();
}
template <int kBytes, int kIlp>
__device__ __forceinline__ void copy_or_trap(uint64_t dst, uint64_t src, StreamGeometry g,
                                             unsigned long long* checksum) {
  if constexpr (kPassHasShape<kBytes>) copy<kBytes, kIlp>(dst, src, g, checksum);
  else __trap();
}

// Writes the pattern over words [0, words): word i holds i (grid-stride, 4-byte stores).
extern "C" __global__ void gpuprobe_bw_fill(uint32_t* buffer, uint64_t words) {
  const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += step)
    buffer[i] = static_cast<uint32_t>(i);
}

// Counts the words of [0, words) that do not hold the pattern into *mismatches.
extern "C" __global__ void gpuprobe_bw_verify(const uint32_t* buffer, uint64_t words,
                                              unsigned long long* mismatches) {
  const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += step)
    bad += buffer[i] != static_cast<uint32_t>(i);
  if (bad != 0) atomicAdd(mismatches, bad);
}

#define GPUPROBE_BW_KERNELS(bytes, ilp)                                                             \
  extern "C" __global__ void gpuprobe_bw_read_v##bytes##_x##ilp(uint64_t base, StreamGeometry g,    \
                                                                unsigned long long* checksum) {     \
    read_or_trap<bytes, ilp, ptx::GlobalCache::all_levels>(base, g, checksum);                      \
  }                                                                                                 \
  extern "C" __global__ void gpuprobe_bw_read_l2_v##bytes##_x##ilp(uint64_t base, StreamGeometry g, \
                                                                   unsigned long long* checksum) {  \
    read_or_trap<bytes, ilp, ptx::GlobalCache::l2_only>(base, g, checksum);                         \
  }                                                                                                 \
  extern "C" __global__ void gpuprobe_bw_write_v##bytes##_x##ilp(uint64_t base, StreamGeometry g) { \
    write_or_trap<bytes, ilp>(base, g);                                                             \
  }                                                                                                 \
  extern "C" __global__ void gpuprobe_bw_copy_v##bytes##_x##ilp(                                    \
      uint64_t dst, uint64_t src, StreamGeometry g, unsigned long long* checksum) {                 \
    copy_or_trap<bytes, ilp>(dst, src, g, checksum);                                                \
  }
GPUPROBE_BW_SHAPES(GPUPROBE_BW_KERNELS)
#undef GPUPROBE_BW_KERNELS

}  // namespace gpuprobe::probes::bandwidth::device
