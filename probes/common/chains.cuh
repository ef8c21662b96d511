// The timed loop of a kernel that measures chains of dependent operations: `iterations` times,
// kPerChain steps of each of kChains independent chains, interleaved (x[k] = step(x[k])). The
// outer loop stays a loop (the SASS tests count the steps in its body); the inner two unroll.
// One chain times the step's latency, enough chains its throughput.
#pragma once
#include "ptx/types.cuh"

namespace gpuprobe::probes {

template <int kPerChain, int kChains, class Reg, class Step>
__device__ __forceinline__ void step_chains(Reg (&x)[kChains], uint64_t iterations, Step&& step) {
#pragma unroll 1
  for (uint64_t i = iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < kPerChain; ++u) {
#pragma unroll
      for (int k = 0; k < kChains; ++k) x[k] = step(x[k]);
    }
  }
}

}  // namespace gpuprobe::probes
