// Loads for pointer chases: one load whose result is the next address (x = *x). One struct per
// global-load variant of ptx/load_variants.def, in namespace gpuprobe::ptx::load, each with
//   load(addr)                        the chase hop
//   timed(addr, scratch, cycles)      one hop bracketed by %clock64 reads (MT4G pattern)
// asm volatile with a "memory" clobber keeps cicc from hoisting or merging hops; ptxas still
// deletes a chain whose result is never used (PTX_NOTES.md section 8), so callers store the final
// value. NVRTC-safe: no standard library.
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

// One timed hop, in a single asm block so nothing is scheduled between the reads:
//   mov %clock64; LOAD; st.shared [scratch], x'; mov %clock64
// The store consumes the loaded value, so the closing clock read waits for the load.
#define GPUPROBE_PTX_TIMED_HOP(LOAD, STORE, ADDR_CONSTRAINT)                                \
  asm volatile(                                                                           \
      "{\n\t.reg .u64 t0, t1;\n\t"                                                        \
      "mov.u64 t0, %%clock64;\n\t" LOAD " %0, [%0];\n\t" STORE " [%2], %0;\n\t"            \
      "mov.u64 t1, %%clock64;\n\t"                                                        \
      "sub.u64 %1, t1, t0;\n\t}"                                                          \
      : "+" ADDR_CONSTRAINT(addr), "=l"(cycles)                                           \
      : "r"(scratch_shared_addr)                                                          \
      : "memory")

namespace gpuprobe::ptx::load {

// PTX: ld.global{variant}.u64 d, [a]; PTX ISA 2.0 (.nc 3.1, L1::no_allocate 7.4); sm_70+.
// Timed: mov.u64 %clock64; ld.global{variant}.u64; st.shared.u64; mov.u64 %clock64.
#define GPUPROBE_LOAD_VARIANT(id, name, ptx_form, first, min_sm, sass75, sass80)                  \
  struct id {                                                                             \
    static __device__ __forceinline__ uint64_t load(uint64_t addr) {                      \
      GPUPROBE_PTX_REQUIRE(ld_global_cache_ops);                                          \
      uint64_t value;                                                                     \
      asm volatile(ptx_form " %0, [%1];" : "=l"(value) : "l"(addr) : "memory");           \
      return value;                                                                       \
    }                                                                                     \
    static __device__ __forceinline__ uint64_t timed(uint64_t addr,                       \
                                                     uint32_t scratch_shared_addr,         \
                                                     uint64_t& cycles) {                  \
      GPUPROBE_PTX_REQUIRE(ld_global_cache_ops);                                          \
      GPUPROBE_PTX_REQUIRE(sreg_timers);                                                  \
      GPUPROBE_PTX_TIMED_HOP(ptx_form, "st.shared.u64", "l");                             \
      return addr;                                                                        \
    }                                                                                     \
  };
#include "ptx/load_variants.def"
#undef GPUPROBE_LOAD_VARIANT

}  // namespace gpuprobe::ptx::load

namespace gpuprobe::ptx {

// PTX: ld.shared.u32 d, [a]; PTX ISA 1.0; sm_70+. a is a shared-window address
// (__cvta_generic_to_shared): 32 bits wide, so chains in shared memory hold 32-bit slots and
// every hop, timed or sampled, is one 32-bit LDS.
__device__ __forceinline__ uint32_t ld_shared_u32(uint32_t shared_addr) {
  GPUPROBE_PTX_REQUIRE(ld_shared);
  uint32_t value;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(value) : "r"(shared_addr) : "memory");
  return value;
}

// PTX: st.shared.u32 [a], v; PTX ISA 1.0; sm_70+
__device__ __forceinline__ void st_shared_u32(uint32_t shared_addr, uint32_t value) {
  GPUPROBE_PTX_REQUIRE(ld_shared);
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(shared_addr), "r"(value) : "memory");
}

// PTX: mov.u64 %clock64; ld.shared.u32; st.shared.u32; mov.u64 %clock64; PTX ISA 2.0; sm_70+
__device__ __forceinline__ uint32_t ld_shared_u32_timed(uint32_t addr,
                                                        uint32_t scratch_shared_addr,
                                                        uint64_t& cycles) {
  GPUPROBE_PTX_REQUIRE(ld_shared);
  GPUPROBE_PTX_REQUIRE(sreg_timers);
  GPUPROBE_PTX_TIMED_HOP("ld.shared.u32", "st.shared.u32", "r");
  return addr;
}

// The instrumentation of one timed hop without its load: two %clock64 reads around a store of a
// value that is already in a register. Its delta is the fixed cost inside every sample.
// PTX: mov.u64 %clock64; st.shared.u64; mov.u64 %clock64; PTX ISA 2.0; sm_70+
__device__ __forceinline__ uint64_t empty_timed_hop(uint64_t value, uint32_t scratch_shared_addr) {
  GPUPROBE_PTX_REQUIRE(sreg_timers);
  uint64_t cycles;
  asm volatile(
      "{\n\t.reg .u64 t0, t1;\n\t"
      "mov.u64 t0, %%clock64;\n\t"
      "st.shared.u64 [%2], %1;\n\t"
      "mov.u64 t1, %%clock64;\n\t"
      "sub.u64 %0, t1, t0;\n\t}"
      : "=l"(cycles)
      : "l"(value), "r"(scratch_shared_addr)
      : "memory");
  return cycles;
}

}  // namespace gpuprobe::ptx

#undef GPUPROBE_PTX_TIMED_HOP
