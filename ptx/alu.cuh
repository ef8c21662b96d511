// CUDA-core arithmetic for the compute probes: one function per PTX instruction form, named after
// its mnemonic, with the PTX form, the ISA version, the minimum SM and the SASS it becomes
// (PTX ISA; the SASS: see below). asm volatile: cicc keeps every op of a chain, in order;
// ptxas still deletes dead results and folds idempotent chains, so the kernels consume every
// result and the SASS tests (tests/probes/compute/test_sass.py) count each op per iteration.
// No "memory" clobber: the ops touch registers only, so independent chains stay free to interleave.
// Forms newer than the suite's sm_70 minimum exist only on compile passes that have them
// (GPUPROBE_PTX_HAS_*); kernels that need one trap elsewhere and the host refuses them first.
// NVRTC-safe: no standard library.
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

// fma.rn.bf16x2: sm_80+ (PTX ISA 7.0). tanh.approx.f32: sm_75+ (PTX ISA 7.0). fma.rn.f32x2:
// sm_100+ (PTX ISA 8.6, CUDA 12.8+).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GPUPROBE_PTX_HAS_FMA_BF16X2 1
#else
#define GPUPROBE_PTX_HAS_FMA_BF16X2 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
#define GPUPROBE_PTX_HAS_TANH_APPROX 1
#else
#define GPUPROBE_PTX_HAS_TANH_APPROX 0
#endif
#if defined(__CUDACC_VER_MAJOR__) && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8)) && \
    defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
#define GPUPROBE_PTX_HAS_FMA_F32X2 1
#else
#define GPUPROBE_PTX_HAS_FMA_F32X2 0
#endif

namespace gpuprobe::ptx {

// PTX: fma.rn.f32 d, a, b, c; PTX ISA 2.0; sm_70+. SASS: FFMA
__device__ __forceinline__ float fma_rn_f32(float a, float b, float c) {
  float d;
  asm volatile("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
  return d;
}

// PTX: fma.rn.f64 d, a, b, c; PTX ISA 2.0; sm_70+. SASS: DFMA (ptxas pads dependent ones with
// NOPs on sm_103/110/120/121; tests/probes/compute/test_sass.py does not count them)
__device__ __forceinline__ double fma_rn_f64(double a, double b, double c) {
  double d;
  asm volatile("fma.rn.f64 %0, %1, %2, %3;" : "=d"(d) : "d"(a), "d"(b), "d"(c));
  return d;
}

// PTX: fma.rn.f16x2 d, a, b, c (two f16 in a .b32); PTX ISA 4.2; sm_70+. SASS: HFMA2 (sm_80 and
// sm_90 alternate HFMA2 and HFMA2.MMA within one chain)
__device__ __forceinline__ uint32_t fma_rn_f16x2(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm volatile("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

#if GPUPROBE_PTX_HAS_FMA_BF16X2
// PTX: fma.rn.bf16x2 d, a, b, c (two bf16 in a .b32); PTX ISA 7.0; sm_80+. SASS: HFMA2.BF16_V2
__device__ __forceinline__ uint32_t fma_rn_bf16x2(uint32_t a, uint32_t b, uint32_t c) {
  GPUPROBE_PTX_REQUIRE(fma_bf16x2);
  uint32_t d;
  asm volatile("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
#endif

#if GPUPROBE_PTX_HAS_FMA_F32X2
// PTX: fma.rn.f32x2 d, a, b, c (two f32 in a .b64); PTX ISA 8.6; sm_100+. SASS: FFMA2 on
// sm_100/103, two FFMA on sm_110/120/121 (emulated; tests/probes/compute/test_sass.py)
__device__ __forceinline__ uint64_t fma_rn_f32x2(uint64_t a, uint64_t b, uint64_t c) {
  GPUPROBE_PTX_REQUIRE(fma_f32x2);
  uint64_t d;
  asm volatile("fma.rn.f32x2 %0, %1, %2, %3;" : "=l"(d) : "l"(a), "l"(b), "l"(c));
  return d;
}
#endif

// PTX: mad.lo.s32 d, a, b, c; PTX ISA 1.0; sm_70+. SASS: IMAD
__device__ __forceinline__ int32_t mad_lo_s32(int32_t a, int32_t b, int32_t c) {
  int32_t d;
  asm volatile("mad.lo.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

// PTX: add.u32 t, a, b; add.u32 d, t, c; PTX ISA 1.0; sm_70+. SASS: one IADD3 (ptxas fuses two
// dependent adds into its three inputs; a chain of single adds would be half as many IADD3 as
// PTX ops, so the wrapper is the pair)
__device__ __forceinline__ uint32_t add_add_u32(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm volatile("{\n\t.reg .u32 t;\n\tadd.u32 t, %1, %2;\n\tadd.u32 %0, t, %3;\n\t}"
               : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

// PTX: ex2.approx.ftz.f32 d, a; PTX ISA 1.0; sm_70+. SASS: MUFU.EX2 (a negated argument is an
// operand modifier of the MUFU)
__device__ __forceinline__ float ex2_approx_ftz_f32(float a) {
  float d;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(a));
  return d;
}

// PTX: rsqrt.approx.ftz.f32 d, a; PTX ISA 1.0; sm_70+. SASS: MUFU.RSQ
__device__ __forceinline__ float rsqrt_approx_ftz_f32(float a) {
  float d;
  asm volatile("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(a));
  return d;
}

// PTX: sin.approx.ftz.f32 d, a; PTX ISA 1.0; sm_70+. SASS: FMUL.RZ (range reduction) + MUFU.SIN
__device__ __forceinline__ float sin_approx_ftz_f32(float a) {
  float d;
  asm volatile("sin.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(a));
  return d;
}

#if GPUPROBE_PTX_HAS_TANH_APPROX
// PTX: tanh.approx.f32 d, a (PTX has no .ftz form of tanh); PTX ISA 7.0; sm_75+. SASS: MUFU.TANH
__device__ __forceinline__ float tanh_approx_f32(float a) {
  GPUPROBE_PTX_REQUIRE(tanh_approx);
  float d;
  asm volatile("tanh.approx.f32 %0, %1;" : "=f"(d) : "f"(a));
  return d;
}
#endif

// PTX: cvt.rn.f16.f32 d, a; PTX ISA 1.0; sm_70+. SASS: F2FP.F16.F32 (PACK_AB)
__device__ __forceinline__ unsigned short cvt_rn_f16_f32(float a) {
  unsigned short d;
  asm volatile("cvt.rn.f16.f32 %0, %1;" : "=h"(d) : "f"(a));
  return d;
}

// PTX: cvt.f32.f16 d, a; PTX ISA 1.0; sm_70+. SASS: HADD2.F32
__device__ __forceinline__ float cvt_f32_f16(unsigned short a) {
  float d;
  asm volatile("cvt.f32.f16 %0, %1;" : "=f"(d) : "h"(a));
  return d;
}

// PTX: cvt.rzi.s32.f32 d, a; PTX ISA 1.0; sm_70+. SASS: F2I.TRUNC
__device__ __forceinline__ int32_t cvt_rzi_s32_f32(float a) {
  int32_t d;
  asm volatile("cvt.rzi.s32.f32 %0, %1;" : "=r"(d) : "f"(a));
  return d;
}

// PTX: cvt.rn.f32.s32 d, a; PTX ISA 1.0; sm_70+. SASS: I2F (I2FP.F32.S32 on newer parts)
__device__ __forceinline__ float cvt_rn_f32_s32(int32_t a) {
  float d;
  asm volatile("cvt.rn.f32.s32 %0, %1;" : "=f"(d) : "r"(a));
  return d;
}

}  // namespace gpuprobe::ptx
