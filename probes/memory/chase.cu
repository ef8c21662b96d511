// memory/chase, memory/stride, memory/tlb (and memory/sm_map): the global-memory pointer chase,
// one thread, one launch per measurement:
//   warm-up      warmup_hops untimed, the last kChaseHopsPerIteration of them through the unrolled
//                body, so the timed loop's instructions are already fetched
//   timed        timed_iterations x kChaseHopsPerIteration hops between two %clock64 and
//                %globaltimer reads (the mean)
//   sampled      sampled_hops each timed on its own into shared memory (the distribution)
//   empty        kEmptySamples instrumentation-only samples (the sampling overhead)
// One launch means one L1 configuration and one SM for the mean and the percentiles alike.
// The closing clock read of the timed region waits for the last load: it follows an instruction
// that consumes the loaded value (x & zero, zero a kernel argument: a literal would be folded).
// One extern "C" kernel per load variant (ptx/load_variants.def): gpuprobe_chase_global_<id>.
// Device code only (NVRTC-safe); the host side is chase_cuda.cpp.
#include "harness/cuda/pin.cuh"
#include "probes/memory/chase.cuh"

namespace gpuprobe::probes::chase_device {

template <class Load>
__device__ __forceinline__ void chase_global(uint64_t base, uint64_t start_offset_bytes,
                                             uint64_t warmup_hops, uint64_t timed_iterations,
                                             uint32_t sampled_hops, uint64_t zero,
                                             cuda::SmPin pin, ChaseOut* out,
                                             uint32_t* samples_out) {
  if (!cuda::claim_pinned_sm(pin)) return;
  extern __shared__ __align__(16) unsigned char gpuprobe_chase_smem[];
  const uint32_t scratch = static_cast<uint32_t>(__cvta_generic_to_shared(gpuprobe_chase_smem));
  uint32_t* samples = reinterpret_cast<uint32_t*>(gpuprobe_chase_smem + kChaseScratchBytes);

  walk_phases<Load>(base + start_offset_bytes, base, warmup_hops, timed_iterations, sampled_hops, zero,
                    scratch, samples, out, samples_out);
}

}  // namespace gpuprobe::probes::chase_device

// Writes the self-pointers: slot i at base + offset_bytes[i] holds base + offset_bytes[next[i]].
extern "C" __global__ void gpuprobe_chain_scatter(uint64_t base, const uint64_t* offset_bytes,
                                                  const uint32_t* next, uint64_t slots) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < slots; i += stride)
    *reinterpret_cast<uint64_t*>(base + offset_bytes[i]) = base + offset_bytes[next[i]];
}

#define GPUPROBE_LOAD_VARIANT(id, name, ptx_text, first, min_sm, sass75, sass80)             \
  extern "C" __global__ void __launch_bounds__(1) gpuprobe_chase_global_##id(              \
      uint64_t base, uint64_t start_offset_bytes, uint64_t warmup_hops,                   \
      uint64_t timed_iterations, uint32_t sampled_hops, uint64_t zero,                    \
      gpuprobe::cuda::SmPin pin, gpuprobe::probes::ChaseOut* out, uint32_t* samples_out) { \
    gpuprobe::probes::chase_device::chase_global<gpuprobe::ptx::load::id>(                 \
        base, start_offset_bytes, warmup_hops, timed_iterations, sampled_hops, zero, pin,  \
        out, samples_out);                                                                \
  }
#include "ptx/load_variants.def"
#undef GPUPROBE_LOAD_VARIANT
