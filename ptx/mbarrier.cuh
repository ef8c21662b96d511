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

// The wait for the phase of `state`, given up after `limit_ns` of %globaltimer_lo: a loop of
// test_wait, and after each failure a read of the clock. Returns the ns waited when it gave up
// (> limit_ns), or at most limit_ns if the phase completed (0 on the first test). One test per
// loop (a C++ loop would be rotated into two); a `{}` block scopes its labels. `test` is the PTX
// of the wait, into predicate p, on operands %1 and %2; %3 is the limit.
#define GPUPROBE_PTX_WAIT_WITHIN(test)                                                               \
  "{\n\t.reg .pred p, q;\n\t.reg .u32 t0, t;\n\t"                                                \
  "mov.u32 %0, 0;\n\tmov.u32 t0, %%globaltimer_lo;\n"                                                 \
  "WAIT:\n\t" test "\n\t@p bra DONE;\n\t"                                                             \
  "mov.u32 t, %%globaltimer_lo;\n\tsub.u32 %0, t, t0;\n\tsetp.le.u32 q, %0, %3;\n\t@q bra WAIT;\n" \
  "DONE:\n\t}"

// PTX: mov.u32 %globaltimer_lo; mbarrier.test_wait.shared.b64; sub.u32; setp.le.u32; bra;
// PTX ISA 7.0; sm_80+
__device__ __forceinline__ uint32_t mbarrier_test_wait_shared_b64_within(uint32_t bar, uint64_t state,
                                                                         uint32_t limit_ns) {
  GPUPROBE_PTX_REQUIRE(mbarrier);
  uint32_t waited;
  asm volatile(GPUPROBE_PTX_WAIT_WITHIN("mbarrier.test_wait.shared.b64 p, [%1], %2;")
               : "=r"(waited) : "r"(bar), "l"(state), "r"(limit_ns) : "memory");
  return waited;
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

// The wait for the phase with parity `parity`, given up after `limit_ns` of %globaltimer_lo;
// returns as mbarrier_test_wait_shared_b64_within does.
// PTX: mov.u32 %globaltimer_lo; mbarrier.try_wait.parity.shared::cta.b64; sub.u32; setp.le.u32;
// bra; PTX ISA 7.8; sm_90+. SASS: CS2R.32 SR_GLOBALTIMERLO, SYNCS.PHASECHK.TRANS64.TRYWAIT and
// its retry branch
__device__ __forceinline__ uint32_t mbarrier_try_wait_parity_shared_b64_within(uint32_t bar, uint32_t parity,
                                                                               uint32_t limit_ns) {
  GPUPROBE_PTX_REQUIRE(mbarrier_try_wait);
  uint32_t waited;
  asm volatile(GPUPROBE_PTX_WAIT_WITHIN("mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;")
               : "=r"(waited) : "r"(bar), "r"(parity), "r"(limit_ns) : "memory");
  return waited;
}
#endif

}  // namespace gpuprobe::ptx
