// memory/chase_shared: the shared-memory (ld.shared) pointer chase in one launch. The block
// writes the chain into dynamic shared memory; thread 0 walks it with the same warm-up / timed /
// sampled structure as the global chase (declared in chase_kernels.hpp).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "probes/memory/chase_common.cuh"
#include "ptx/ld.cuh"
#include "ptx/sreg.cuh"

namespace gpuprobe::cuda {
namespace chase_kernels {

constexpr int kSharedChaseThreads = 256;

// Dynamic shared memory: [0, chain_bytes) the chain, then the 8-byte scratch, then the samples.
__global__ void __launch_bounds__(kSharedChaseThreads)
    chase_shared_kernel(const uint64_t* offset_bytes, const uint32_t* next, uint64_t slots,
                        uint64_t chain_bytes, uint32_t start_slot, uint64_t warmup_hops,
                        uint64_t timed_iterations, uint32_t sampled_hops, uint64_t zero,
                        ChaseOut* out, uint32_t* samples_out) {
  unsigned char* smem = dynamic_smem();
  const uint64_t base = __cvta_generic_to_shared(smem);
  for (uint64_t i = threadIdx.x; i < slots; i += blockDim.x) {
    *reinterpret_cast<uint64_t*>(smem + offset_bytes[i]) = base + offset_bytes[next[i]];
  }
  __syncthreads();
  if (threadIdx.x != 0) return;

  const uint64_t scratch = base + chain_bytes;
  uint32_t* samples = reinterpret_cast<uint32_t*>(smem + chain_bytes + kScratchBytes);
  uint64_t x = base + offset_bytes[start_slot];
#pragma unroll 1
  for (uint64_t i = 0; i < warmup_hops; ++i) x = ptx::ld_shared_u64(x);

  const uint64_t c0 = ptx::get_sreg_clock64_after(x, zero);
  const uint64_t g0 = ptx::get_sreg_globaltimer();
#pragma unroll 1
  for (uint64_t i = timed_iterations; i != 0; --i) {
#pragma unroll
    for (uint64_t k = 0; k < kChaseHopsPerIteration; ++k) x = ptx::ld_shared_u64(x);
  }
  const uint64_t c1 = ptx::get_sreg_clock64_after(x, zero);
  const uint64_t g1 = ptx::get_sreg_globaltimer();
  const uint64_t checkpoint = x - base;

#pragma unroll 1
  for (uint32_t j = 0; j < sampled_hops; ++j) {
    uint64_t cycles;
    x = ptx::ld_shared_timed(x, scratch, cycles);
    samples[j] = saturate_u32(cycles);
  }
#pragma unroll 1
  for (uint32_t j = 0; j < sampled_hops; ++j) samples_out[j] = samples[j];

  out->final_offset_bytes = x - base;
  out->checkpoint_offset_bytes = checkpoint;
  out->timed_cycles = c1 - c0;
  out->timed_ns = g1 - g0;
  out->smid = ptx::get_sreg_smid();
}

}  // namespace chase_kernels

using namespace chase_kernels;
using namespace chase_detail;

ChaseLaunchResult launch_shared_chase(const DeviceChain& chain, uint32_t start_slot,
                                      uint64_t warmup_hops, uint64_t timed_hops,
                                      uint32_t sampled_hops, std::vector<uint32_t>& sample_cycles) {
  const uint64_t iterations = timed_iterations_of(timed_hops);
  if (start_slot >= chain.slots) {
    throw Error("shared chase: start slot " + std::to_string(start_slot) + " is not below " +
                std::to_string(chain.slots) + " slots");
  }
  const uint64_t chain_bytes = round_up8(chain.span_bytes);
  const uint64_t smem_bytes = shared_chase_bytes(chain.span_bytes, sampled_hops);
  allow_dynamic_smem(chase_shared_kernel, smem_bytes, "the shared-memory chase");
  DeviceArray<ChaseOut> out(1);
  DeviceArray<uint32_t> samples(sampled_hops);
  chase_shared_kernel<<<1, kSharedChaseThreads, smem_bytes>>>(
      chain.offset_bytes, chain.next, chain.slots, chain_bytes, start_slot, warmup_hops,
      iterations, sampled_hops, /*zero=*/0, out.get(), samples.get());
  GPUPROBE_CUDA_CHECK_LAUNCH("chase_shared_kernel");
  sample_cycles.assign(sampled_hops, 0);
  if (sampled_hops > 0) {
    GPUPROBE_CUDA_CHECK(cudaMemcpy(sample_cycles.data(), samples.get(), samples.bytes(),
                                   cudaMemcpyDeviceToHost));
  }
  return to_result(read_out(out));
}

}  // namespace gpuprobe::cuda
