// bandwidth/shared: shared-memory load bandwidth and bank conflicts. Each block fills its shared
// memory with the pattern (word w holds w), then every thread loads, `iterations` times, ilp
// vectors of vec_bytes at lane x stride_elems x vec_bytes + k x 128 bytes (probes/bandwidth/
// stream.cuh: the offsets of 128 bytes keep the banks, so the stride alone sets the conflict
// degree). The loads' values are summed into the checksum. One extern "C" kernel per shape of
// GPUPROBE_BW_SHARED_SHAPES: gpuprobe_bw_shared_v<bytes>_x<ilp>.
// Device code only (NVRTC-safe); the host side is stream_cuda.cpp.
#include "probes/bandwidth/stream.cuh"
#include "probes/bandwidth/stream_device.cuh"
#include "ptx/ld.cuh"

namespace gpuprobe::probes::bandwidth::device {

__device__ __forceinline__ uint32_t* shared_words() {
  extern __shared__ __align__(16) uint32_t gpuprobe_bw_smem[];
  return gpuprobe_bw_smem;
}

template <int kBytes, int kIlp>
__device__ __forceinline__ void shared_stream(uint32_t smem_bytes, uint32_t stride_elems,
                                              uint32_t iterations,
                                              unsigned long long* checksum) {
  constexpr int kWords = kBytes / 4;
  uint32_t* words = shared_words();
  for (uint32_t w = threadIdx.x; w < smem_bytes / 4; w += blockDim.x) words[w] = w;
  __syncthreads();

  const uint32_t first = static_cast<uint32_t>(__cvta_generic_to_shared(words)) +
                         (threadIdx.x & 31) * stride_elems * kBytes;
  uint32_t sum = 0;
#pragma unroll 1
  for (uint32_t i = iterations; i != 0; --i) {
    ptx::Words<kWords> v[kIlp];
#pragma unroll
    for (int k = 0; k < kIlp; ++k)
      v[k] = ptx::LdShared<kWords>::load(first + k * kSharedBankSpanBytes);
#pragma unroll
    for (int k = 0; k < kIlp; ++k)
#pragma unroll
      for (int j = 0; j < kWords; ++j) sum += v[k].w[j];
  }
  add_checksum(sum, checksum);
}

}  // namespace gpuprobe::probes::bandwidth::device

#define GPUPROBE_BW_SHARED_KERNEL(bytes, ilp)                                                 \
  extern "C" __global__ void gpuprobe_bw_shared_v##bytes##_x##ilp(                            \
      uint32_t smem_bytes, uint32_t stride_elems, uint32_t iterations,                        \
      unsigned long long* checksum) {                                                         \
    gpuprobe::probes::bandwidth::device::shared_stream<bytes, ilp>(smem_bytes, stride_elems,  \
                                                                   iterations, checksum);     \
  }
GPUPROBE_BW_SHARED_SHAPES(GPUPROBE_BW_SHARED_KERNEL)
#undef GPUPROBE_BW_SHARED_KERNEL
