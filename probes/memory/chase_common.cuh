// Pieces the memory chase kernels share (probes/memory/chase.cu, chase_shared.cu): the output
// record, the dynamic shared-memory window, and the host-side helpers of their launchers.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "harness/cuda/check.cuh"
#include "harness/device.hpp"
#include "probes/memory/chase_kernels.hpp"

namespace gpuprobe::cuda {
namespace chase_kernels {

constexpr uint64_t kScratchBytes = kChaseScratchBytes;  // harness/device.hpp

struct ChaseOut {
  uint64_t final_offset_bytes;
  uint64_t checkpoint_offset_bytes;
  uint64_t timed_cycles;
  uint64_t timed_ns;
  uint32_t smid;
};

__device__ __forceinline__ unsigned char* dynamic_smem() {
  extern __shared__ __align__(16) unsigned char gpuprobe_chase_smem[];
  return gpuprobe_chase_smem;
}

// The full 64-bit delta is used (saturated, never wrapped): were only its low half used, ptxas
// would read the opening clock with a variable-latency S2UR instead of CS2R.
__device__ __forceinline__ uint32_t saturate_u32(uint64_t cycles) {
  return cycles > 0xffffffffull ? 0xffffffffu : static_cast<uint32_t>(cycles);
}

}  // namespace chase_kernels

namespace chase_detail {
using chase_kernels::ChaseOut;

inline uint64_t round_up8(uint64_t bytes) { return (bytes + 7) / 8 * 8; }

inline ChaseLaunchResult to_result(const ChaseOut& out) {
  ChaseLaunchResult result;
  result.timed_cycles = out.timed_cycles;
  result.timed_ns = out.timed_ns;
  result.final_offset_bytes = out.final_offset_bytes;
  result.checkpoint_offset_bytes = out.checkpoint_offset_bytes;
  result.smid = out.smid;
  return result;
}

inline ChaseOut read_out(const DeviceArray<ChaseOut>& out) {
  ChaseOut host{};
  GPUPROBE_CUDA_CHECK(cudaMemcpy(&host, out.get(), sizeof(ChaseOut), cudaMemcpyDeviceToHost));
  return host;
}

inline uint64_t timed_iterations_of(uint64_t timed_hops) {
  if (timed_hops % kChaseHopsPerIteration != 0) {
    throw Error("timed_hops " + std::to_string(timed_hops) + " is not a multiple of " +
                std::to_string(kChaseHopsPerIteration) + " (hops per timed-loop iteration)");
  }
  return timed_hops / kChaseHopsPerIteration;
}

// Raises the dynamic shared-memory limit of `kernel` to `bytes`, or says why it cannot.
template <typename Kernel>
void allow_dynamic_smem(Kernel kernel, uint64_t bytes, const char* what) {
  int device = 0;
  int optin_bytes = 0;
  GPUPROBE_CUDA_CHECK(cudaGetDevice(&device));
  GPUPROBE_CUDA_CHECK(
      cudaDeviceGetAttribute(&optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (bytes > static_cast<uint64_t>(optin_bytes)) {
    throw Error(std::string(what) + " needs " + std::to_string(bytes) +
                " bytes of shared memory per block, the device allows " +
                std::to_string(optin_bytes));
  }
  GPUPROBE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(bytes)));
}

}  // namespace chase_detail
}  // namespace gpuprobe::cuda
