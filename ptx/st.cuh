// Stores for the bandwidth probes: kWords 32-bit words per thread.
// st.global.{u32,v2.u32,v4.u32,v8.b32}: PTX ISA 1.0, sm_70+; .v8.b32 (256-bit): PTX ISA 8.8,
// sm_100+ (Cap::ld_st_global_256). SASS: STG.E{,.64,.128,.ENL2.256}. asm volatile with a
// "memory" clobber: every store happens, in program order. NVRTC-safe.
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

namespace gpuprobe::ptx {

template <int kWords>
struct StGlobal;
template <>
struct StGlobal<1> {
  static __device__ __forceinline__ void store(uint64_t addr, const Words<1>& v) {
    GPUPROBE_PTX_REQUIRE(ld_global_cache_ops);
    asm volatile("st.global.u32 [%0], %1;" ::"l"(addr), "r"(v.w[0]) : "memory");
  }
};
template <>
struct StGlobal<2> {
  static __device__ __forceinline__ void store(uint64_t addr, const Words<2>& v) {
    GPUPROBE_PTX_REQUIRE(ld_global_cache_ops);
    asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(addr), "r"(v.w[0]), "r"(v.w[1])
                 : "memory");
  }
};
template <>
struct StGlobal<4> {
  static __device__ __forceinline__ void store(uint64_t addr, const Words<4>& v) {
    GPUPROBE_PTX_REQUIRE(ld_global_cache_ops);
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(addr), "r"(v.w[0]),
                 "r"(v.w[1]), "r"(v.w[2]), "r"(v.w[3])
                 : "memory");
  }
};
#if GPUPROBE_PTX_HAS_256BIT
template <>
struct StGlobal<8> {
  static __device__ __forceinline__ void store(uint64_t addr, const Words<8>& v) {
    GPUPROBE_PTX_REQUIRE(ld_st_global_256);
    asm volatile("st.global.v8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};" ::"l"(addr),
                 "r"(v.w[0]), "r"(v.w[1]), "r"(v.w[2]), "r"(v.w[3]), "r"(v.w[4]), "r"(v.w[5]),
                 "r"(v.w[6]), "r"(v.w[7])
                 : "memory");
  }
};
#endif

// PTX: st.relaxed.gpu.global.u32 [a], v; PTX ISA 6.0; sm_70+. SASS: STG.E.STRONG.GPU. Raises a
// flag that other SMs poll with ld_relaxed_gpu_global_u32 (ptx/ld.cuh).
__device__ __forceinline__ void st_relaxed_gpu_global_u32(uint64_t addr, uint32_t value) {
  GPUPROBE_PTX_REQUIRE(ld_global_cache_ops);
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(addr), "r"(value) : "memory");
}

// st.shared.{u32,v2.u32,v4.u32}: PTX ISA 1.0, sm_70+. SASS: STS{,.64,.128}. asm volatile with a
// "memory" clobber: every store happens (a loop rewriting one slot keeps each one).
template <int kWords>
struct StShared;
template <>
struct StShared<1> {
  static __device__ __forceinline__ void store(uint32_t shared_addr, const Words<1>& v) {
    GPUPROBE_PTX_REQUIRE(ld_shared);
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(shared_addr), "r"(v.w[0]) : "memory");
  }
};
template <>
struct StShared<2> {
  static __device__ __forceinline__ void store(uint32_t shared_addr, const Words<2>& v) {
    GPUPROBE_PTX_REQUIRE(ld_shared);
    asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(shared_addr), "r"(v.w[0]), "r"(v.w[1])
                 : "memory");
  }
};
template <>
struct StShared<4> {
  static __device__ __forceinline__ void store(uint32_t shared_addr, const Words<4>& v) {
    GPUPROBE_PTX_REQUIRE(ld_shared);
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(shared_addr), "r"(v.w[0]),
                 "r"(v.w[1]), "r"(v.w[2]), "r"(v.w[3])
                 : "memory");
  }
};

}  // namespace gpuprobe::ptx
