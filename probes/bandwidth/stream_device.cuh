// Device helpers the bandwidth kernels share (stream.cu, stream_shared.cu, loaded.cu): the
// per-thread sum of what a load returned and its reduction into the launch's 64-bit checksum word
// (probes/bandwidth/stream.cuh: the checksum rule). Device code only (NVRTC-safe).
#pragma once
#include "ptx/types.cuh"

namespace gpuprobe::probes::bandwidth::device {

template <int kWords>
__device__ __forceinline__ uint32_t sum_words(const ptx::Words<kWords>& v) {
  uint32_t s = 0;
#pragma unroll
  for (int j = 0; j < kWords; ++j) s += v.w[j];
  return s;
}

// Adds the thread's sum into the launch's checksum: a warp reduction, then one atomic per warp.
__device__ __forceinline__ void add_checksum(uint32_t sum, unsigned long long* checksum) {
#pragma unroll
  for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, lane_mask);
  if ((threadIdx.x & 31) == 0) atomicAdd(checksum, static_cast<unsigned long long>(sum));
}

}  // namespace gpuprobe::probes::bandwidth::device
