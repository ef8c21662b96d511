// Pointer-chase and clock kernels, and their host launchers (declared in chase_kernels.hpp).
//
// Global chase: two launches. The bulk launch (no shared memory, L1 carve-out at its maximum)
// gives the mean over timed_hops; a separate sampled launch times single hops into a dynamic
// shared-memory array, which takes shared memory and so could shrink L1: keeping it out of the
// bulk launch means the mean is always measured with the largest L1. The device backend starts
// the sampled launch warmup_hops before the bulk launch's end, so that its warm-up re-fills the
// caches and its samples continue the walk exactly where the timed hops stopped.
//
// Shared chase: one launch; the block writes the chain into dynamic shared memory, thread 0
// walks it with the same warm-up / timed / sampled structure.
//
// The closing clock read of a timed region waits for the last load: it follows an instruction
// that consumes the loaded value (x & zero, zero a kernel argument: a literal would be folded).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "harness/cuda/check.cuh"
#include "harness/device.hpp"
#include "probes/memory/chase_kernels.hpp"
#include "ptx/ld.cuh"
#include "ptx/sreg.cuh"

namespace gpuprobe::cuda {

// Kernels sit in a named namespace so that their symbols (and the SASS tests that look them up)
// do not carry a per-file hash.
namespace chase_kernels {

constexpr int kScatterThreads = 256;
constexpr int kScatterMaxBlocks = 4096;
constexpr int kSharedChaseThreads = 256;
constexpr uint64_t kScratchBytes = 8;  // st.shared target of the sampled hops

struct ChaseOut {
  uint64_t final_offset_bytes;
  uint64_t checkpoint_offset_bytes;
  uint64_t timed_cycles;
  uint64_t timed_ns;
  uint32_t smid;
};

struct ClockOut {
  uint64_t cycles;
  uint64_t ns;
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

// ---- kernels -------------------------------------------------------------------------------

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

// Starts on a %globaltimer tick edge and stops on the first tick at least spin_ns later, so the
// timer's quantum (32 ns or 1 us) does not bias the ratio.
__global__ void __launch_bounds__(1) sm_clock_kernel(uint64_t spin_ns, ClockOut* out) {
  const uint64_t before = ptx::get_sreg_globaltimer();
  uint64_t g0 = before;
  while (g0 == before) g0 = ptx::get_sreg_globaltimer();
  const uint64_t c0 = ptx::get_sreg_clock64();
  uint64_t c1 = c0;
  uint64_t g1 = g0;
  while (g1 - g0 < spin_ns) {
    c1 = ptx::get_sreg_clock64();
    g1 = ptx::get_sreg_globaltimer();
  }
  out->cycles = c1 - c0;
  out->ns = g1 - g0;
  out->smid = ptx::get_sreg_smid();
}

}  // namespace chase_kernels

// ---- host helpers --------------------------------------------------------------------------

namespace {
using namespace chase_kernels;

uint64_t round_up8(uint64_t bytes) { return (bytes + 7) / 8 * 8; }

ChaseLaunchResult to_result(const ChaseOut& out) {
  ChaseLaunchResult result;
  result.timed_cycles = out.timed_cycles;
  result.timed_ns = out.timed_ns;
  result.final_offset_bytes = out.final_offset_bytes;
  result.checkpoint_offset_bytes = out.checkpoint_offset_bytes;
  result.smid = out.smid;
  return result;
}

ChaseOut read_out(const DeviceArray<ChaseOut>& out) {
  ChaseOut host{};
  GPUPROBE_CUDA_CHECK(cudaMemcpy(&host, out.get(), sizeof(ChaseOut), cudaMemcpyDeviceToHost));
  return host;
}

uint64_t timed_iterations_of(uint64_t timed_hops) {
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

uint64_t shared_chase_smem_bytes(uint64_t span_bytes, uint32_t sampled_hops) {
  return round_up8(span_bytes) + kScratchBytes + uint64_t{sampled_hops} * sizeof(uint32_t);
}

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

ChaseLaunchResult launch_shared_chase(const DeviceChain& chain, uint32_t start_slot,
                                      uint64_t warmup_hops, uint64_t timed_hops,
                                      uint32_t sampled_hops, std::vector<uint32_t>& sample_cycles) {
  const uint64_t iterations = timed_iterations_of(timed_hops);
  if (start_slot >= chain.slots) {
    throw Error("shared chase: start slot " + std::to_string(start_slot) + " is not below " +
                std::to_string(chain.slots) + " slots");
  }
  const uint64_t chain_bytes = round_up8(chain.span_bytes);
  const uint64_t smem_bytes = shared_chase_smem_bytes(chain.span_bytes, sampled_hops);
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

ClockSample launch_sm_clock(uint64_t spin_ns) {
  DeviceArray<ClockOut> out(1);
  sm_clock_kernel<<<1, 1>>>(spin_ns, out.get());
  GPUPROBE_CUDA_CHECK_LAUNCH("sm_clock_kernel");
  ClockOut host{};
  GPUPROBE_CUDA_CHECK(cudaMemcpy(&host, out.get(), sizeof(ClockOut), cudaMemcpyDeviceToHost));
  return ClockSample{host.cycles, host.ns, host.smid};
}

}  // namespace gpuprobe::cuda
