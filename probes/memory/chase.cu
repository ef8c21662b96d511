// memory/chase, memory/stride and memory/tlb: the global-memory pointer chase, one thread, and
// the kernel that lays a host-built chain out as self-pointers (declared in chase_kernels.hpp).
//
// Two launches per chase. The bulk launch (no shared memory, L1 carve-out at its maximum) gives
// the mean over timed_hops; a separate sampled launch times single hops into a dynamic
// shared-memory array, which takes shared memory and so could shrink L1: keeping it out of the
// bulk launch means the mean is always measured with the largest L1. The device backend starts
// the sampled launch warmup_hops before the bulk launch's end, so that its warm-up re-fills the
// caches and its samples continue the walk exactly where the timed hops stopped.
//
// The closing clock read of a timed region waits for the last load: it follows an instruction
// that consumes the loaded value (x & zero, zero a kernel argument: a literal would be folded).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "probes/memory/chase_common.cuh"
#include "ptx/ld.cuh"
#include "ptx/sreg.cuh"

namespace gpuprobe::cuda {

// Kernels sit in a named namespace so that their symbols (and the SASS tests that look them up)
// do not carry a per-file hash.
namespace chase_kernels {

constexpr int kScatterThreads = 256;
constexpr int kScatterMaxBlocks = 4096;

__global__ void chain_scatter_kernel(uint64_t base, const uint64_t* offset_bytes,
                                     const uint32_t* next, uint64_t slots) {
  const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
  for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < slots; i += stride) {
    *reinterpret_cast<uint64_t*>(base + offset_bytes[i]) = base + offset_bytes[next[i]];
  }
}

template <CacheOp Op>
__global__ void __launch_bounds__(1)
    chase_global_kernel(uint64_t base, uint64_t start_offset_bytes, uint64_t warmup_hops,
                        uint64_t timed_iterations, uint64_t zero, ChaseOut* out) {
  uint64_t x = base + start_offset_bytes;
#pragma unroll 1
  for (uint64_t i = 0; i < warmup_hops; ++i) x = ptx::ld_global<Op>(x);

  const uint64_t c0 = ptx::get_sreg_clock64_after(x, zero);
  const uint64_t g0 = ptx::get_sreg_globaltimer();
#pragma unroll 1
  for (uint64_t i = timed_iterations; i != 0; --i) {
#pragma unroll
    for (uint64_t k = 0; k < kChaseHopsPerIteration; ++k) x = ptx::ld_global<Op>(x);
  }
  const uint64_t c1 = ptx::get_sreg_clock64_after(x, zero);
  const uint64_t g1 = ptx::get_sreg_globaltimer();

  out->final_offset_bytes = x - base;
  out->checkpoint_offset_bytes = 0;
  out->timed_cycles = c1 - c0;
  out->timed_ns = g1 - g0;
  out->smid = ptx::get_sreg_smid();
}

template <CacheOp Op>
__global__ void __launch_bounds__(1)
    chase_global_sampled_kernel(uint64_t base, uint64_t start_offset_bytes, uint64_t warmup_hops,
                                uint32_t sampled_hops, ChaseOut* out, uint32_t* samples_out) {
  unsigned char* smem = dynamic_smem();
  const uint64_t scratch = __cvta_generic_to_shared(smem);
  uint32_t* samples = reinterpret_cast<uint32_t*>(smem + kScratchBytes);

  uint64_t x = base + start_offset_bytes;
#pragma unroll 1
  for (uint64_t i = 0; i < warmup_hops; ++i) x = ptx::ld_global<Op>(x);
  const uint64_t checkpoint = x - base;

#pragma unroll 1
  for (uint32_t j = 0; j < sampled_hops; ++j) {
    uint64_t cycles;
    x = ptx::ld_global_timed<Op>(x, scratch, cycles);
    samples[j] = saturate_u32(cycles);
  }
#pragma unroll 1
  for (uint32_t j = 0; j < sampled_hops; ++j) samples_out[j] = samples[j];

  out->final_offset_bytes = x - base;
  out->checkpoint_offset_bytes = checkpoint;
  out->timed_cycles = 0;
  out->timed_ns = 0;
  out->smid = ptx::get_sreg_smid();
}

}  // namespace chase_kernels

namespace {
using namespace chase_kernels;
using namespace chase_detail;

template <CacheOp Op>
ChaseLaunchResult run_global_chase(const DeviceChain& chain, uint64_t start_offset_bytes,
                                   uint64_t warmup_hops, uint64_t timed_hops) {
  const uint64_t iterations = timed_iterations_of(timed_hops);
  // Prefer the largest L1: no shared memory is used by this kernel.
  GPUPROBE_CUDA_CHECK(cudaFuncSetAttribute(chase_global_kernel<Op>,
                                           cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  DeviceArray<ChaseOut> out(1);
  chase_global_kernel<Op><<<1, 1>>>(chain.base_addr, start_offset_bytes, warmup_hops, iterations,
                                    /*zero=*/0, out.get());
  GPUPROBE_CUDA_CHECK_LAUNCH("chase_global_kernel");
  return to_result(read_out(out));
}

template <CacheOp Op>
ChaseLaunchResult run_global_chase_sampled(const DeviceChain& chain, uint64_t start_offset_bytes,
                                           uint64_t warmup_hops, uint32_t sampled_hops,
                                           std::vector<uint32_t>& sample_cycles) {
  const uint64_t smem_bytes = sampled_chase_smem_bytes(sampled_hops);
  allow_dynamic_smem(chase_global_sampled_kernel<Op>, smem_bytes, "the sampled global chase");
  DeviceArray<ChaseOut> out(1);
  DeviceArray<uint32_t> samples(sampled_hops);
  chase_global_sampled_kernel<Op><<<1, 1, smem_bytes>>>(chain.base_addr, start_offset_bytes,
                                                        warmup_hops, sampled_hops, out.get(),
                                                        samples.get());
  GPUPROBE_CUDA_CHECK_LAUNCH("chase_global_sampled_kernel");
  sample_cycles.assign(sampled_hops, 0);
  if (sampled_hops > 0) {
    GPUPROBE_CUDA_CHECK(cudaMemcpy(sample_cycles.data(), samples.get(), samples.bytes(),
                                   cudaMemcpyDeviceToHost));
  }
  return to_result(read_out(out));
}

}  // namespace

// ---- launchers -----------------------------------------------------------------------------

uint64_t sampled_chase_smem_bytes(uint32_t sampled_hops) {
  return kScratchBytes + uint64_t{sampled_hops} * sizeof(uint32_t);
}

void check_chase_kernels_loadable() {
  cudaFuncAttributes attributes{};
  GPUPROBE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, chase_global_kernel<CacheOp::ca>));
}

void launch_chain_scatter(const DeviceChain& chain) {
  if (chain.slots == 0) return;
  const uint64_t blocks_needed = (chain.slots + kScatterThreads - 1) / kScatterThreads;
  const int blocks = static_cast<int>(
      blocks_needed < kScatterMaxBlocks ? blocks_needed : uint64_t{kScatterMaxBlocks});
  chain_scatter_kernel<<<blocks, kScatterThreads>>>(chain.base_addr, chain.offset_bytes,
                                                    chain.next, chain.slots);
  GPUPROBE_CUDA_CHECK_LAUNCH("chain_scatter_kernel");
}

ChaseLaunchResult launch_global_chase(CacheOp op, const DeviceChain& chain,
                                      uint64_t start_offset_bytes, uint64_t warmup_hops,
                                      uint64_t timed_hops) {
  switch (op) {
    case CacheOp::ca: return run_global_chase<CacheOp::ca>(chain, start_offset_bytes, warmup_hops, timed_hops);
    case CacheOp::cg: return run_global_chase<CacheOp::cg>(chain, start_offset_bytes, warmup_hops, timed_hops);
    case CacheOp::cs: return run_global_chase<CacheOp::cs>(chain, start_offset_bytes, warmup_hops, timed_hops);
    case CacheOp::lu: return run_global_chase<CacheOp::lu>(chain, start_offset_bytes, warmup_hops, timed_hops);
    case CacheOp::cv: return run_global_chase<CacheOp::cv>(chain, start_offset_bytes, warmup_hops, timed_hops);
    case CacheOp::nc: return run_global_chase<CacheOp::nc>(chain, start_offset_bytes, warmup_hops, timed_hops);
  }
  throw Error("unknown cache operator " + std::to_string(static_cast<int>(op)));
}

ChaseLaunchResult launch_global_chase_sampled(CacheOp op, const DeviceChain& chain,
                                              uint64_t start_offset_bytes, uint64_t warmup_hops,
                                              uint32_t sampled_hops,
                                              std::vector<uint32_t>& sample_cycles) {
  switch (op) {
    case CacheOp::ca: return run_global_chase_sampled<CacheOp::ca>(chain, start_offset_bytes, warmup_hops, sampled_hops, sample_cycles);
    case CacheOp::cg: return run_global_chase_sampled<CacheOp::cg>(chain, start_offset_bytes, warmup_hops, sampled_hops, sample_cycles);
    case CacheOp::cs: return run_global_chase_sampled<CacheOp::cs>(chain, start_offset_bytes, warmup_hops, sampled_hops, sample_cycles);
    case CacheOp::lu: return run_global_chase_sampled<CacheOp::lu>(chain, start_offset_bytes, warmup_hops, sampled_hops, sample_cycles);
    case CacheOp::cv: return run_global_chase_sampled<CacheOp::cv>(chain, start_offset_bytes, warmup_hops, sampled_hops, sample_cycles);
    case CacheOp::nc: return run_global_chase_sampled<CacheOp::nc>(chain, start_offset_bytes, warmup_hops, sampled_hops, sample_cycles);
  }
  throw Error("unknown cache operator " + std::to_string(static_cast<int>(op)));
}

}  // namespace gpuprobe::cuda
