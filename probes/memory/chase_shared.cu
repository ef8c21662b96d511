// memory/chase_shared: the shared-memory (ld.shared) pointer chase in one launch. The block
// writes the chain into dynamic shared memory as 32-bit shared-window addresses in 8-byte slots;
// thread 0 walks it with the same warm-up / timed / sampled / empty phases as the global chase
// (chase.cu). Every hop, timed or sampled, is the same 32-bit LDS.
// Device code only (NVRTC-safe); the host side is chase_cuda.cpp.
#include "harness/cuda/pin.cuh"
#include "probes/memory/chase.cuh"

namespace gpuprobe::probes::chase_device {

// The shared chase's hop: one 32-bit LDS of a shared-window address, timed or not.
struct SharedHop {
  static __device__ __forceinline__ uint32_t load(uint32_t x) { return ptx::ld_shared_u32(x); }
  static __device__ __forceinline__ uint32_t timed(uint32_t x, uint32_t scratch, uint64_t& cycles) {
    return ptx::ld_shared_u32_timed(x, scratch, cycles);
  }
};

// Dynamic shared memory: [0, chain_bytes) the chain, then the scratch word, then the samples.
extern "C" __global__ void __launch_bounds__(kSharedChaseThreads)
    gpuprobe_chase_shared(const uint64_t* offset_bytes, const uint32_t* next, uint64_t slots,
                          uint64_t chain_bytes, uint32_t start_slot, uint64_t warmup_hops,
                          uint64_t timed_iterations, uint32_t sampled_hops, uint64_t zero,
                          cuda::SmPin pin, ChaseOut* out, uint32_t* samples_out) {
  // No static shared memory: the chain may take all the block's opt-in shared memory, so the
  // pinning claim is passed through the scratch word.
  extern __shared__ __align__(16) unsigned char gpuprobe_chase_shared_smem[];
  unsigned char* smem = gpuprobe_chase_shared_smem;
  volatile uint32_t* claim = reinterpret_cast<volatile uint32_t*>(smem + chain_bytes);
  if (threadIdx.x == 0) *claim = cuda::claim_pinned_sm(pin) ? 1u : 0u;
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
  walk_phases<SharedHop>(base + static_cast<uint32_t>(offset_bytes[start_slot]), base, warmup_hops,
                         timed_iterations, sampled_hops, zero, scratch, samples, out, samples_out);
}

}  // namespace gpuprobe::probes::chase_device
