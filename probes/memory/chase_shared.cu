// memory/chase_shared: the shared-memory (ld.shared) pointer chase in one launch. The block
// writes the chain into dynamic shared memory as 32-bit shared-window addresses in 8-byte slots;
// thread 0 walks it with the same warm-up / timed / sampled / empty phases as the global chase
// (chase.cu). Every hop, timed or sampled, is the same 32-bit LDS.
// Device code only (NVRTC-safe); the host side is chase_cuda.cpp.
#include "harness/cuda/pin.cuh"
#include "probes/memory/chase.cuh"
#include "ptx/ld.cuh"
#include "ptx/sreg.cuh"

namespace {
constexpr int kSharedChaseThreads = 256;

__device__ __forceinline__ uint32_t saturate_u32(uint64_t cycles) {
  return cycles > 0xffffffffull ? 0xffffffffu : static_cast<uint32_t>(cycles);
}
}  // namespace

using gpuprobe::probes::kChaseHopsPerIteration;
using gpuprobe::probes::kChaseScratchBytes;
using gpuprobe::probes::kEmptySamples;
namespace ptx = gpuprobe::ptx;

// Dynamic shared memory: [0, chain_bytes) the chain, then the scratch word, then the samples.
extern "C" __global__ void __launch_bounds__(kSharedChaseThreads)
    gpuprobe_chase_shared(const uint64_t* offset_bytes, const uint32_t* next, uint64_t slots,
                          uint64_t chain_bytes, uint32_t start_slot, uint64_t warmup_hops,
                          uint64_t timed_iterations, uint32_t sampled_hops, uint64_t zero,
                          gpuprobe::cuda::SmPin pin, gpuprobe::probes::ChaseOut* out,
                          uint32_t* samples_out) {
  // No static shared memory: the chain may take all the block's opt-in shared memory, so the
  // pinning claim is passed through the scratch word.
  extern __shared__ __align__(16) unsigned char gpuprobe_chase_shared_smem[];
  unsigned char* smem = gpuprobe_chase_shared_smem;
  volatile uint32_t* claim = reinterpret_cast<volatile uint32_t*>(smem + chain_bytes);
  if (threadIdx.x == 0) *claim = gpuprobe::cuda::claim_pinned_sm(pin) ? 1u : 0u;
  __syncthreads();
  if (*claim == 0) return;
  __syncthreads();   // every thread has read the claim before thread 0 reuses the word

  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  for (uint64_t i = threadIdx.x; i < slots; i += blockDim.x)
    *reinterpret_cast<uint32_t*>(smem + offset_bytes[i]) =
        base + static_cast<uint32_t>(offset_bytes[next[i]]);
  __syncthreads();
  if (threadIdx.x != 0) return;

  const uint32_t scratch = base + static_cast<uint32_t>(chain_bytes);
  uint32_t* samples = reinterpret_cast<uint32_t*>(smem + chain_bytes + kChaseScratchBytes);
  uint32_t x = base + static_cast<uint32_t>(offset_bytes[start_slot]);
#pragma unroll 1
  for (uint64_t i = kChaseHopsPerIteration; i < warmup_hops; ++i) x = ptx::ld_shared_u32(x);
#pragma unroll
  for (uint64_t k = 0; k < kChaseHopsPerIteration; ++k) x = ptx::ld_shared_u32(x);

  const uint64_t c0 = ptx::get_sreg_clock64_after(x, zero);
  const uint64_t g0 = ptx::get_sreg_globaltimer();
  uint64_t executed = 0;
#pragma unroll 1
  for (uint64_t i = timed_iterations; i != 0; --i) {
#pragma unroll
    for (uint64_t k = 0; k < kChaseHopsPerIteration; ++k) x = ptx::ld_shared_u32(x);
    ++executed;
  }
  const uint64_t c1 = ptx::get_sreg_clock64_after(x, zero);
  const uint64_t g1 = ptx::get_sreg_globaltimer();

#pragma unroll 1
  for (uint32_t j = 0; j < sampled_hops; ++j) {
    uint64_t cycles;
    x = ptx::ld_shared_u32_timed(x, scratch, cycles);
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
