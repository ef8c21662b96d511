// Special registers: clocks and identity. asm volatile for registers that change between reads,
// plain asm for invariant ones (a thread never changes SM while it runs).
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

namespace gpuprobe::ptx {

// PTX: mov.u64 d, %clock64; PTX ISA 2.0; sm_70+ (suite minimum). SASS: CS2R Rd, SR_CLOCKLO
__device__ __forceinline__ uint64_t get_sreg_clock64() {
  GPUPROBE_PTX_REQUIRE(sreg_timers);
  uint64_t cycles;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(cycles) :: "memory");
  return cycles;
}

// PTX: mov.u64 d, %globaltimer; PTX ISA 3.1; sm_70+ (suite minimum). ns; 32 ns ticks on GH100+
__device__ __forceinline__ uint64_t get_sreg_globaltimer() {
  GPUPROBE_PTX_REQUIRE(sreg_timers);
  uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns) :: "memory");
  return ns;
}

// PTX: mov.u32 d, %smid; PTX ISA 1.3; sm_70+ (suite minimum). Not necessarily contiguous.
__device__ __forceinline__ uint32_t get_sreg_smid() {
  GPUPROBE_PTX_REQUIRE(sreg_timers);
  uint32_t smid;
  asm("mov.u32 %0, %%smid;" : "=r"(smid));
  return smid;
}

// Closes a timed region: reads %clock64 only after `value` has arrived. The runtime zero (a
// kernel argument; a literal 0 would be folded by ptxas) makes the added term depend on value,
// and the clock read follows it in the same asm block.
// PTX: and.b64; mov.u64 %clock64; add.u64; PTX ISA 2.0; sm_70+
__device__ __forceinline__ uint64_t get_sreg_clock64_after(uint64_t value, uint64_t zero) {
  GPUPROBE_PTX_REQUIRE(sreg_timers);
  uint64_t cycles;
  asm volatile(
      "{\n\t.reg .u64 z;\n\t"
      "and.b64 z, %1, %2;\n\t"
      "mov.u64 %0, %%clock64;\n\t"
      "add.u64 %0, %0, z;\n\t}"
      : "=l"(cycles)
      : "l"(value), "l"(zero)
      : "memory");
  return cycles;
}

}  // namespace gpuprobe::ptx
