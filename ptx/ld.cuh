// Loads for pointer chases: one 64-bit load whose result is the next address (x = *x), the cache
// operator chosen by a template argument (CUB ThreadLoad style). asm volatile with a "memory"
// clobber keeps cicc from hoisting or merging hops; ptxas still deletes a chain whose result is
// never used (PTX_NOTES.md section 8), so callers must store the final value.
#pragma once
#include <cstdint>

#include "harness/device.hpp"
#include "ptx/capability.hpp"

namespace gpuprobe::ptx {

// PTX: ld.global{.ca,.cg,.cs,.lu,.cv,.nc}.u64 d, [a]; PTX ISA 2.0 (.nc 3.1); sm_75+ (suite minimum)
template <CacheOp Op>
__device__ __forceinline__ uint64_t ld_global(uint64_t addr) {
  GPUPROBE_PTX_REQUIRE(ld_global_cache_ops);
  uint64_t value;
  if constexpr (Op == CacheOp::ca) {
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(value) : "l"(addr) : "memory");
  } else if constexpr (Op == CacheOp::cg) {
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(value) : "l"(addr) : "memory");
  } else if constexpr (Op == CacheOp::cs) {
    asm volatile("ld.global.cs.u64 %0, [%1];" : "=l"(value) : "l"(addr) : "memory");
  } else if constexpr (Op == CacheOp::lu) {
    asm volatile("ld.global.lu.u64 %0, [%1];" : "=l"(value) : "l"(addr) : "memory");
  } else if constexpr (Op == CacheOp::cv) {
    asm volatile("ld.global.cv.u64 %0, [%1];" : "=l"(value) : "l"(addr) : "memory");
  } else {
    static_assert(Op == CacheOp::nc, "every CacheOp needs its ld.global form");
    asm volatile("ld.global.nc.u64 %0, [%1];" : "=l"(value) : "l"(addr) : "memory");
  }
  return value;
}

// PTX: ld.shared.u64 d, [a]; PTX ISA 1.0; sm_75+ (suite minimum). a is a shared-window address
// (__cvta_generic_to_shared), held in 64 bits so that a chain slot stores it whole.
__device__ __forceinline__ uint64_t ld_shared_u64(uint64_t shared_addr) {
  GPUPROBE_PTX_REQUIRE(ld_shared);
  uint64_t value;
  asm volatile("ld.shared.u64 %0, [%1];" : "=l"(value) : "l"(shared_addr) : "memory");
  return value;
}

// PTX: st.shared.u64 [a], v; PTX ISA 1.0; sm_75+ (suite minimum)
__device__ __forceinline__ void st_shared_u64(uint64_t shared_addr, uint64_t value) {
  GPUPROBE_PTX_REQUIRE(ld_shared);
  asm volatile("st.shared.u64 [%0], %1;" :: "l"(shared_addr), "l"(value) : "memory");
}

// One timed hop (MT4G pattern), in a single asm block so nothing is scheduled between the reads:
//   mov %clock64; ld.global.OP [x]; st.shared [scratch], x'; mov %clock64
// The store consumes the loaded value, so the closing clock read waits for the load.
// PTX: mov.u64 %clock64; ld.global.OP.u64; st.shared.u64; mov.u64 %clock64; PTX ISA 2.0 (.nc 3.1); sm_75+
#define GPUPROBE_PTX_TIMED_HOP(LOAD)                                                       \
  asm volatile(                                                                           \
      "{\n\t.reg .u64 t0, t1;\n\t"                                                        \
      "mov.u64 t0, %%clock64;\n\t" LOAD " %0, [%0];\n\t"                                  \
      "st.shared.u64 [%2], %0;\n\t"                                                       \
      "mov.u64 t1, %%clock64;\n\t"                                                        \
      "sub.u64 %1, t1, t0;\n\t}"                                                          \
      : "+l"(addr), "=l"(cycles)                                                          \
      : "l"(scratch_shared_addr)                                                          \
      : "memory")

// Returns the loaded value; cycles = clock64 delta around the load (includes a small constant
// read overhead).
template <CacheOp Op>
__device__ __forceinline__ uint64_t ld_global_timed(uint64_t addr, uint64_t scratch_shared_addr,
                                                    uint64_t& cycles) {
  GPUPROBE_PTX_REQUIRE(ld_global_cache_ops);
  GPUPROBE_PTX_REQUIRE(ld_shared);
  GPUPROBE_PTX_REQUIRE(sreg_timers);
  if constexpr (Op == CacheOp::ca) {
    GPUPROBE_PTX_TIMED_HOP("ld.global.ca.u64");
  } else if constexpr (Op == CacheOp::cg) {
    GPUPROBE_PTX_TIMED_HOP("ld.global.cg.u64");
  } else if constexpr (Op == CacheOp::cs) {
    GPUPROBE_PTX_TIMED_HOP("ld.global.cs.u64");
  } else if constexpr (Op == CacheOp::lu) {
    GPUPROBE_PTX_TIMED_HOP("ld.global.lu.u64");
  } else if constexpr (Op == CacheOp::cv) {
    GPUPROBE_PTX_TIMED_HOP("ld.global.cv.u64");
  } else {
    static_assert(Op == CacheOp::nc, "every CacheOp needs its ld.global form");
    GPUPROBE_PTX_TIMED_HOP("ld.global.nc.u64");
  }
  return addr;
}

// PTX: mov.u64 %clock64; ld.shared.u64; st.shared.u64; mov.u64 %clock64; PTX ISA 2.0; sm_75+
__device__ __forceinline__ uint64_t ld_shared_timed(uint64_t addr, uint64_t scratch_shared_addr,
                                                    uint64_t& cycles) {
  GPUPROBE_PTX_REQUIRE(ld_shared);
  GPUPROBE_PTX_REQUIRE(sreg_timers);
  GPUPROBE_PTX_TIMED_HOP("ld.shared.u64");
  return addr;
}

#undef GPUPROBE_PTX_TIMED_HOP

}  // namespace gpuprobe::ptx
