// SM pinning, device side. CUDA cannot place a block on a chosen SM, so a pinned launch starts
// many blocks (harness/cuda/launch.cpp sizes the grid) and each asks claim_pinned_sm(): only the
// first block that finds itself on the wanted SM gets true; every other block returns at once.
// The host checks the claim word afterwards: 0 means no block reached that SM.
// SmPin, the kernel argument, is plain C++ that g++ compiles too (harness/cuda/launch.hpp);
// claim_pinned_sm is device code. NVRTC-safe.
#pragma once
#include "ptx/types.cuh"
#if defined(__CUDACC__)
#include "ptx/sreg.cuh"
#endif

namespace gpuprobe::cuda {

struct SmPin {
  int32_t sm;          // kAnySm (-1): every block proceeds (the grid is then one block)
  uint32_t* claimed;   // device word, zeroed by the host before the launch
};

#if defined(__CUDACC__)
__device__ __forceinline__ bool claim_pinned_sm(const SmPin& pin) {
  if (pin.sm < 0) return true;
  if (ptx::get_sreg_smid() != static_cast<uint32_t>(pin.sm)) return false;
  return atomicCAS(pin.claimed, 0u, 1u) == 0u;
}
#endif

}  // namespace gpuprobe::cuda
