// mbarrier: the shared-memory transaction barrier (PTX ISA: mbarrier): one function per
// PTX instruction form, named after its mnemonic, with the PTX form, the ISA version, the minimum
// SM and the SASS it becomes. The barrier is a .b64 in shared memory, addressed by its 32-bit
// shared-window address (__cvta_generic_to_shared). Forms exist only on compile passes that have
// them (GPUPROBE_PTX_HAS_*). NVRTC-safe.
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

// mbarrier.init/arrive/test_wait: sm_80+ (PTX ISA 7.0). mbarrier.try_wait: sm_90+ (PTX ISA 7.8).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GPUPROBE_PTX_HAS_MBARRIER 1
#else
#define GPUPROBE_PTX_HAS_MBARRIER 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GPUPROBE_PTX_HAS_MBARRIER_TRY_WAIT 1
#else
#define GPUPROBE_PTX_HAS_MBARRIER_TRY_WAIT 0
#endif

namespace gpuprobe::ptx {

#if GPUPROBE_PTX_HAS_MBARRIER
// PTX: mbarrier.init.shared.b64 [a], count; PTX ISA 7.0; sm_80+. SASS: SYNCS.EXCH.64 (sm_90+),
// STS.64 (sm_80-89)
__device__ __forceinline__ void mbarrier_init_shared_b64(uint32_t bar, uint32_t count) {
  GPUPROBE_PTX_REQUIRE(mbarrier);
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

// PTX: mbarrier.arrive.shared.b64 state, [a] (state: the phase this arrival belongs to); PTX ISA
// 7.0; sm_80+. SASS: SYNCS.ARRIVE.TRANS64.A1T0 (sm_90+), ATOMS-based sequence (sm_80-89)
__device__ __forceinline__ uint64_t mbarrier_arrive_shared_b64(uint32_t bar) {
  GPUPROBE_PTX_REQUIRE(mbarrier);
  uint64_t state;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(bar) : "memory");
  return state;
}

// PTX: mbarrier.test_wait.shared.b64 p, [a], state; selp.u32 d, 1, 0, p (1: the phase of
// `state` completed; never blocks); PTX ISA 7.0; sm_80+. SASS: SYNCS.PHASECHK.TRANS64 (sm_90+)
__device__ __forceinline__ uint32_t mbarrier_test_wait_shared_b64(uint32_t bar, uint64_t state) {
  GPUPROBE_PTX_REQUIRE(mbarrier);
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred p;\n\tmbarrier.test_wait.shared.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done) : "r"(bar), "l"(state) : "memory");
  return done;
}
#endif

#if GPUPROBE_PTX_HAS_MBARRIER_TRY_WAIT
// PTX: mbarrier.try_wait.parity.shared::cta.b64 p, [a], parity; selp.u32 d, 1, 0, p (1: the
// phase with that parity completed; the hardware may suspend the thread a while before saying
// no); PTX ISA 7.8; sm_90+. SASS: SYNCS.PHASECHK.TRANS64.TRYWAIT
__device__ __forceinline__ uint32_t mbarrier_try_wait_parity_shared_b64(uint32_t bar,
                                                                        uint32_t parity) {
  GPUPROBE_PTX_REQUIRE(mbarrier_try_wait);
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  return done;
}
#endif

}  // namespace gpuprobe::ptx
