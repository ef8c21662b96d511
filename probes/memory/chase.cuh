// The contract between the chase kernels (chase.cu, chase_shared.cu) and their host side
// (chase_cuda.cpp, chase_sim.cpp): constants and the output record, plain C++ that nvcc, NVRTC and
// g++ all compile; and, for nvcc and NVRTC, the phases every chase kernel walks.
#pragma once
#include "ptx/types.cuh"
#if defined(__CUDACC__)
#include "ptx/ld.cuh"
#include "ptx/sreg.cuh"
#endif

namespace gpuprobe::probes {

// Hops per iteration of the timed loop in every chase kernel (the loop is unrolled by this much;
// the SASS tests read this line and check exactly this many loads per loop iteration). ptxas puts
// register moves at the head of each iteration on the dependent chain, so the unroll sets that
// bias per hop: 32 keeps it near a tenth of a cycle.
constexpr uint64_t kChaseHopsPerIteration = 32;

// Instrumentation-only samples after the sampled hops: two clock reads around a store, no load.
// Their median is the fixed cost inside every sample (reported, and subtracted for "corrected").
constexpr uint32_t kEmptySamples = 32;

// Threads of a shared-memory chase's block: they write the chain, thread 0 walks it.
constexpr uint32_t kSharedChaseThreads = 256;

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

#if defined(__CUDACC__)
namespace chase_device {

__device__ __forceinline__ uint32_t saturate_u32(uint64_t cycles) {
  // The full 64-bit delta is used (saturated, never wrapped): were only its low half used, ptxas
  // would read the opening clock with a variable-latency S2UR instead of CS2R.
  return cycles > 0xffffffffull ? 0xffffffffu : static_cast<uint32_t>(cycles);
}

// The walk of every chase kernel (the phases of chase.cu's header) from x, an address of the
// chain at `base`: each hop Hop::load(x), each sample Hop::timed(x, scratch, cycles) into
// samples[] (shared memory), which are then copied to samples_out; *out last.
template <class Hop, class Addr>
__device__ __forceinline__ void walk_phases(Addr x, Addr base, uint64_t warmup_hops,
                                            uint64_t timed_iterations, uint32_t sampled_hops, uint64_t zero,
                                            uint32_t scratch, uint32_t* samples, ChaseOut* out,
                                            uint32_t* samples_out) {
#pragma unroll 1
  for (uint64_t i = kChaseHopsPerIteration; i < warmup_hops; ++i) x = Hop::load(x);
#pragma unroll
  for (uint64_t k = 0; k < kChaseHopsPerIteration; ++k) x = Hop::load(x);

  const uint64_t c0 = ptx::get_sreg_clock64_after(x, zero);
  const uint64_t g0 = ptx::get_sreg_globaltimer();
  uint64_t executed = 0;
#pragma unroll 1
  for (uint64_t i = timed_iterations; i != 0; --i) {
#pragma unroll
    for (uint64_t k = 0; k < kChaseHopsPerIteration; ++k) x = Hop::load(x);
    ++executed;
  }
  const uint64_t c1 = ptx::get_sreg_clock64_after(x, zero);
  const uint64_t g1 = ptx::get_sreg_globaltimer();

#pragma unroll 1
  for (uint32_t j = 0; j < sampled_hops; ++j) {
    uint64_t cycles;
    x = Hop::timed(x, scratch, cycles);
    samples[j] = saturate_u32(cycles);
  }
#pragma unroll 1
  for (uint32_t j = 0; j < kEmptySamples; ++j)
    samples[sampled_hops + j] = saturate_u32(ptx::empty_timed_hop(x, scratch));
#pragma unroll 1
  for (uint32_t j = 0; j < sampled_hops + kEmptySamples; ++j) samples_out[j] = samples[j];

  out->final_offset_bytes = x - base;
  out->timed_cycles = c1 - c0;
  out->timed_ns = g1 - g0;
  out->timed_iterations = executed;
  out->smid = ptx::get_sreg_smid();
  out->ran = 1;
}

}  // namespace chase_device
#endif

}  // namespace gpuprobe::probes
