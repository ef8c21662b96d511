// Loads for pointer chases: one load whose result is the next address (x = *x). One struct per
// global-load variant of ptx/load_variants.def, in namespace gpuprobe::ptx::load, each with
//   load(addr)                        the chase hop
//   timed(addr, scratch, cycles)      one hop bracketed by %clock64 reads (MT4G pattern)
// asm volatile with a "memory" clobber keeps cicc from hoisting or merging hops; ptxas still
// deletes a chain whose result is never used (a mutant of tests/probes/bandwidth/test_sass.py
// shows it), so callers store the final value. NVRTC-safe: no standard library.
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

// ---- Streaming loads: kWords 32-bit words per thread (bandwidth probes) ---------------------
// ld.global{.cg}.{u32,v2.u32,v4.u32,v8.b32}: the L1-allocating default form and the L2-only form
// (.cg). asm volatile: cicc may neither merge, hoist nor drop them; no "memory" clobber, so the
// independent loads of an unrolled body stay free to issue back to back.
// PTX ISA 2.0, sm_70+; .v8.b32 (256-bit): PTX ISA 8.8, sm_100+ (Cap::ld_st_global_256).
// SASS: LDG.E{.STRONG.GPU}{,.64,.128,.ENL2.256}.
namespace gpuprobe::ptx {

enum class GlobalCache { all_levels, l2_only };  // ld.global / ld.global.cg

template <int kWords, GlobalCache kCache>
struct LdGlobal;

#define GPUPROBE_PTX_LD_GLOBAL(CACHE, QUAL)                                                  \
  template <>                                                                                \
  struct LdGlobal<1, GlobalCache::CACHE> {                                                   \
    static __device__ __forceinline__ Words<1> load(uint64_t addr) {                         \
      GPUPROBE_PTX_REQUIRE(ld_global_cache_ops);                                             \
      Words<1> v;                                                                            \
      asm volatile("ld.global" QUAL ".u32 %0, [%1];" : "=r"(v.w[0]) : "l"(addr));            \
      return v;                                                                              \
    }                                                                                        \
  };                                                                                         \
  template <>                                                                                \
  struct LdGlobal<2, GlobalCache::CACHE> {                                                   \
    static __device__ __forceinline__ Words<2> load(uint64_t addr) {                         \
      GPUPROBE_PTX_REQUIRE(ld_global_cache_ops);                                             \
      Words<2> v;                                                                            \
      asm volatile("ld.global" QUAL ".v2.u32 {%0, %1}, [%2];"                                \
                   : "=r"(v.w[0]), "=r"(v.w[1]) : "l"(addr));                                \
      return v;                                                                              \
    }                                                                                        \
  };                                                                                         \
  template <>                                                                                \
  struct LdGlobal<4, GlobalCache::CACHE> {                                                   \
    static __device__ __forceinline__ Words<4> load(uint64_t addr) {                         \
      GPUPROBE_PTX_REQUIRE(ld_global_cache_ops);                                             \
      Words<4> v;                                                                            \
      asm volatile("ld.global" QUAL ".v4.u32 {%0, %1, %2, %3}, [%4];"                        \
                   : "=r"(v.w[0]), "=r"(v.w[1]), "=r"(v.w[2]), "=r"(v.w[3]) : "l"(addr));    \
      return v;                                                                              \
    }                                                                                        \
  };
GPUPROBE_PTX_LD_GLOBAL(all_levels, "")
GPUPROBE_PTX_LD_GLOBAL(l2_only, ".cg")
#undef GPUPROBE_PTX_LD_GLOBAL

#if GPUPROBE_PTX_HAS_256BIT
#define GPUPROBE_PTX_LD_GLOBAL_V8(CACHE, QUAL)                                               \
  template <>                                                                                \
  struct LdGlobal<8, GlobalCache::CACHE> {                                                   \
    static __device__ __forceinline__ Words<8> load(uint64_t addr) {                         \
      GPUPROBE_PTX_REQUIRE(ld_st_global_256);                                                \
      Words<8> v;                                                                            \
      asm volatile("ld.global" QUAL ".v8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"        \
                   : "=r"(v.w[0]), "=r"(v.w[1]), "=r"(v.w[2]), "=r"(v.w[3]), "=r"(v.w[4]),   \
                     "=r"(v.w[5]), "=r"(v.w[6]), "=r"(v.w[7])                                \
                   : "l"(addr));                                                             \
      return v;                                                                              \
    }                                                                                        \
  };
GPUPROBE_PTX_LD_GLOBAL_V8(all_levels, "")
GPUPROBE_PTX_LD_GLOBAL_V8(l2_only, ".cg")
#undef GPUPROBE_PTX_LD_GLOBAL_V8
#endif

// PTX: ld.relaxed.gpu.global.u32 d, [a]; PTX ISA 6.0; sm_70+. SASS: LDG.E.STRONG.GPU. A flag
// another SM writes (st_relaxed_gpu_global_u32): read from the L2 each time, never a stale L1 copy.
__device__ __forceinline__ uint32_t ld_relaxed_gpu_global_u32(uint64_t addr) {
  GPUPROBE_PTX_REQUIRE(ld_global_cache_ops);
  uint32_t value;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(addr) : "memory");
  return value;
}

// ld.shared.{u32,v2.u32,v4.u32}: PTX ISA 1.0, sm_70+. SASS: LDS{,.64,.128}. asm volatile, so a
// loop re-reading the same address keeps every load (shared memory has no cache to hit).
template <int kWords>
struct LdShared;
template <>
struct LdShared<1> {
  static __device__ __forceinline__ Words<1> load(uint32_t shared_addr) {
    GPUPROBE_PTX_REQUIRE(ld_shared);
    Words<1> v;
    asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v.w[0]) : "r"(shared_addr));
    return v;
  }
};
template <>
struct LdShared<2> {
  static __device__ __forceinline__ Words<2> load(uint32_t shared_addr) {
    GPUPROBE_PTX_REQUIRE(ld_shared);
    Words<2> v;
    asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v.w[0]), "=r"(v.w[1]) : "r"(shared_addr));
    return v;
  }
};
template <>
struct LdShared<4> {
  static __device__ __forceinline__ Words<4> load(uint32_t shared_addr) {
    GPUPROBE_PTX_REQUIRE(ld_shared);
    Words<4> v;
    asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.w[0]), "=r"(v.w[1]), "=r"(v.w[2]), "=r"(v.w[3])
                 : "r"(shared_addr));
    return v;
  }
};

}  // namespace gpuprobe::ptx

#undef GPUPROBE_PTX_TIMED_HOP
