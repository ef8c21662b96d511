// The contract between the chase kernels (chase.cu, chase_shared.cu) and their host side
// (chase_cuda.cpp, chase_sim.cpp): constants and the output record. Plain C++ that nvcc, NVRTC and
// g++ all compile.
#pragma once
#include "ptx/types.cuh"

namespace gpuprobe::probes {

// Hops per iteration of the timed loop in every chase kernel (the loop is unrolled by this much;
// the SASS tests read this line and check exactly this many loads per loop iteration). ptxas puts
// register moves at the head of each iteration on the dependent chain, so the unroll sets that
// bias per hop: 32 keeps it near a tenth of a cycle.
constexpr uint64_t kChaseHopsPerIteration = 32;

// Instrumentation-only samples after the sampled hops: two clock reads around a store, no load.
// Their median is the fixed cost inside every sample (reported, and subtracted for "corrected").
constexpr uint32_t kEmptySamples = 32;

// The shared-memory scratch word every timed hop stores its loaded value to (8 bytes).
constexpr uint64_t kChaseScratchBytes = 8;

// Dynamic shared memory of a global chase launch: the scratch word, then one 32-bit cycle count
// per sampled hop and per empty sample.
GPUPROBE_HD constexpr uint64_t global_chase_smem_bytes(uint32_t sampled_hops) {
  return kChaseScratchBytes + (uint64_t(sampled_hops) + kEmptySamples) * 4;
}

// Shared memory one block of a shared-memory chase needs: the chain (8-byte slots holding 32-bit
// shared addresses), the scratch word and the samples. Every backend refuses a chase whose need
// exceeds the block's opt-in shared memory, and memory/chase_shared sizes its sweep by it.
GPUPROBE_HD constexpr uint64_t shared_chase_bytes(uint64_t span_bytes, uint32_t sampled_hops) {
  return (span_bytes + 7) / 8 * 8 + global_chase_smem_bytes(sampled_hops);
}

// What one chase launch reports.
struct ChaseOut {
  uint64_t final_offset_bytes;   // where the walk ended, from the chain's base
  uint64_t timed_cycles;         // %clock64 over the timed region
  uint64_t timed_ns;             // %globaltimer over the same region
  uint64_t timed_iterations;     // iterations of the unrolled timed loop the kernel executed
  uint32_t smid;                 // the SM that walked
  uint32_t ran;                  // 1 once the walking thread finished (0: no block did the work)
};

}  // namespace gpuprobe::probes
