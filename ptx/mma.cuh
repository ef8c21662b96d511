// Warp-level tensor-core MMA (mma.sync) for the tensor probes: one function per form of
// ptx/mma_forms.def, named after its mnemonic, with the PTX form, the ISA version, the targets
// and the SASS it becomes per target (tests/probes/tensor/test_sass_mma.py). D and C are the same
// registers ("+f"/"+r"/"+d"): d = a * b + d. asm volatile keeps every mma of a chain; ptxas
// still deletes dead results, so the kernels consume every accumulator.
// Forms newer than the suite's sm_70 minimum exist only on compile passes that have them
// (GPUPROBE_PTX_HAS_MMA_*); kernels that need one trap elsewhere and the host refuses them first.
// NVRTC-safe: no standard library.
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

// m8n8k4 f16 (f16 or f32 accumulate): sm_70+ (PTX ISA 6.4). m16n8k8 f16 (f16 or f32 accumulate),
// m8n8k16 s8, m8n8k32 s4: sm_75+ (PTX ISA 6.5). m16n8k16 f16/bf16, m16n8k8 tf32, m8n8k4 f64, m16n8k32 s8,
// m16n8k64 s4: sm_80+ (PTX ISA 7.0). m16n8k16 f64: sm_90+ (PTX ISA 7.8). e4m3/e5m2 m16n8k32:
// sm_89+ (PTX ISA 8.4, CUDA 12.4+).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define GPUPROBE_PTX_HAS_MMA_SM70 1
#else
#define GPUPROBE_PTX_HAS_MMA_SM70 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
#define GPUPROBE_PTX_HAS_MMA_SM75 1
#else
#define GPUPROBE_PTX_HAS_MMA_SM75 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GPUPROBE_PTX_HAS_MMA_SM80 1
#else
#define GPUPROBE_PTX_HAS_MMA_SM80 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GPUPROBE_PTX_HAS_MMA_F64_M16N8K16 1
#else
#define GPUPROBE_PTX_HAS_MMA_F64_M16N8K16 0
#endif
#if defined(__CUDACC_VER_MAJOR__) && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4)) && \
    defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define GPUPROBE_PTX_HAS_MMA_FP8 1
#else
#define GPUPROBE_PTX_HAS_MMA_FP8 0
#endif
// Passes where ptxas emulates a form with other instructions (tests/probes/tensor/test_sass_mma.py):
// fp8 mma.sync on sm_90/100/103/110 (F2FP unpack + HMMA; native QMMA only on sm_89 and
// sm_120/121), s4 mma.sync on sm_90+ (a subroutine call per mma).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
#define GPUPROBE_PTX_MMA_FP8_EMULATED 1
#else
#define GPUPROBE_PTX_MMA_FP8_EMULATED 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GPUPROBE_PTX_MMA_S4_EMULATED 1
#else
#define GPUPROBE_PTX_MMA_S4_EMULATED 0
#endif
// The sm_70/75 shapes on later targets (ptxas 13.0, tests/probes/tensor/test_sass_mma.py): m8n8k4 f16
// on sm_80+ is a subroutine call per mma (SHFL, FFMA and HADD2.F32: no tensor instruction);
// m8n8k32 s4 on sm_90+ a call to two IMMA.8816/16816.S8; m8n8k16 s8 on sm_100+ one IMMA.16816.S8
// (a shape of twice its work).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GPUPROBE_PTX_MMA_M8N8K4_F16_EMULATED 1
#else
#define GPUPROBE_PTX_MMA_M8N8K4_F16_EMULATED 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
#define GPUPROBE_PTX_MMA_M8N8K16_S8_EMULATED 1
#else
#define GPUPROBE_PTX_MMA_M8N8K16_S8_EMULATED 0
#endif

namespace gpuprobe::ptx {

// The common register shape of the k-full 16x8 forms: 4 accumulators, 4 A and 2 B .b32 registers.
#define GPUPROBE_PTX_MMA_D4_A4_B2(name, dcons, dtype, form)                                    \
  __device__ __forceinline__ void name(dtype (&d)[4], const uint32_t (&a)[4],                  \
                                       const uint32_t (&b)[2]) {                              \
    asm volatile(form " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                \
                 : dcons(d[0]), dcons(d[1]), dcons(d[2]), dcons(d[3])                         \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));         \
  }

#if GPUPROBE_PTX_HAS_MMA_SM70
// PTX: mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16; PTX ISA 6.4; sm_70+. Four 8x8x4 products,
// one per quad-pair (lanes 0-3 + 16-19, 4-7 + 20-23, ...). SASS: 2 HMMA.884.F16.F16 (STEP0/1) on
// sm_75 (sm_70 not disassembled here); a subroutine call on sm_80+ (CUDA cores, no tensor op)
__device__ __forceinline__ void mma_sync_aligned_m8n8k4_row_col_f16_f16_f16_f16(
    uint32_t (&d)[4], const uint32_t (&a)[2], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, "
      "{%0,%1,%2,%3};"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]));
}
// PTX: mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32; PTX ISA 6.4; sm_70+. SASS: 4
// HMMA.884.F32.F32 (STEP0-3) on sm_75; a subroutine call on sm_80+
__device__ __forceinline__ void mma_sync_aligned_m8n8k4_row_col_f32_f16_f16_f32(
    float (&d)[8], const uint32_t (&a)[2], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%11}, {%0,%1,%2,%3,%4,%5,%6,%7};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7])
      : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]));
}
#endif

#if GPUPROBE_PTX_HAS_MMA_SM75
// PTX: mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16; PTX ISA 6.5; sm_75+. SASS: HMMA.1688.F16
__device__ __forceinline__ void mma_sync_aligned_m16n8k8_row_col_f16_f16_f16_f16(
    uint32_t (&d)[2], const uint32_t (&a)[2], const uint32_t (&b)[1]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%0,%1};"
      : "+r"(d[0]), "+r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(b[0]));
}
// The integer m8n8 forms: one A and one B .b32, two s32 accumulators.
#define GPUPROBE_PTX_MMA_D2_A1_B1(name, form)                                                 \
  __device__ __forceinline__ void name(uint32_t (&d)[2], const uint32_t (&a)[1],              \
                                       const uint32_t (&b)[1]) {                             \
    asm volatile(form " {%0,%1}, {%2}, {%3}, {%0,%1};"                                        \
                 : "+r"(d[0]), "+r"(d[1])                                                     \
                 : "r"(a[0]), "r"(b[0]));                                                     \
  }
// PTX: mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32; PTX ISA 6.5; sm_75+. SASS: IMMA.8816.S8.S8
// on sm_75-90; one IMMA.16816.S8.S8 on sm_100+
GPUPROBE_PTX_MMA_D2_A1_B1(mma_sync_aligned_m8n8k16_row_col_s32_s8_s8_s32,
                          "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32")
// PTX: mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32; PTX ISA 6.5; sm_75+. SASS: IMMA.8832.S4.S4
// on sm_75-89; a subroutine call (two IMMA.8816/16816.S8 and unpacking) on sm_90+
GPUPROBE_PTX_MMA_D2_A1_B1(mma_sync_aligned_m8n8k32_row_col_s32_s4_s4_s32,
                          "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32")
#undef GPUPROBE_PTX_MMA_D2_A1_B1
// PTX: mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32; PTX ISA 6.5; sm_75+. SASS: HMMA.1688.F32
__device__ __forceinline__ void mma_sync_aligned_m16n8k8_row_col_f32_f16_f16_f32(
    float (&d)[4], const uint32_t (&a)[2], const uint32_t (&b)[1]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
      "{%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(b[0]));
}
#endif

#if GPUPROBE_PTX_HAS_MMA_SM80
// PTX: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16; PTX ISA 7.0; sm_80+. SASS: HMMA.16816.F16
__device__ __forceinline__ void mma_sync_aligned_m16n8k16_row_col_f16_f16_f16_f16(
    uint32_t (&d)[2], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, "
      "{%0,%1};"
      : "+r"(d[0]), "+r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32; PTX ISA 7.0; sm_80+. SASS: HMMA.16816.F32
GPUPROBE_PTX_MMA_D4_A4_B2(mma_sync_aligned_m16n8k16_row_col_f32_f16_f16_f32, "+f", float,
                          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32; PTX ISA 7.0; sm_80+.
// SASS: HMMA.16816.F32.BF16
GPUPROBE_PTX_MMA_D4_A4_B2(mma_sync_aligned_m16n8k16_row_col_f32_bf16_bf16_f32, "+f", float,
                          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")
// PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32; PTX ISA 7.0; sm_80+.
// SASS: HMMA.1688.F32.TF32
GPUPROBE_PTX_MMA_D4_A4_B2(mma_sync_aligned_m16n8k8_row_col_f32_tf32_tf32_f32, "+f", float,
                          "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32")
// PTX: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32; PTX ISA 7.0; sm_80+.
// SASS: IMMA.16832.S8.S8
GPUPROBE_PTX_MMA_D4_A4_B2(mma_sync_aligned_m16n8k32_row_col_s32_s8_s8_s32, "+r", uint32_t,
                          "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32")
// PTX: mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32; PTX ISA 7.0; sm_80+. SASS: IMMA.16864.S4.S4
// on sm_80-89; emulated on sm_90+ (a subroutine call per mma)
GPUPROBE_PTX_MMA_D4_A4_B2(mma_sync_aligned_m16n8k64_row_col_s32_s4_s4_s32, "+r", uint32_t,
                          "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32")

// PTX: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64; PTX ISA 7.0; sm_80+. SASS: DMMA.884
// (sm_80/89), DMMA.8x8x4 (sm_90+)
__device__ __forceinline__ void mma_sync_aligned_m8n8k4_row_col_f64_f64_f64_f64(
    double (&d)[2], const double (&a)[1], const double (&b)[1]) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a[0]), "d"(b[0]));
}
#endif

#if GPUPROBE_PTX_HAS_MMA_F64_M16N8K16
// PTX: mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64; PTX ISA 7.8; sm_90+. SASS: one DMMA on
// sm_90, eight on sm_100/103/120 (tests/probes/tensor/test_sass_mma.py)
__device__ __forceinline__ void mma_sync_aligned_m16n8k16_row_col_f64_f64_f64_f64(
    double (&d)[4], const double (&a)[8], const double (&b)[4]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
      "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
        "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
#endif

#if GPUPROBE_PTX_HAS_MMA_FP8
// PTX: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32; PTX ISA 8.4; sm_89+.
// SASS: QMMA.16832.F32.E4M3.E4M3 on sm_89 and sm_120/121; emulated (F2FP unpack + HMMA) on
// sm_90/100/103/110
GPUPROBE_PTX_MMA_D4_A4_B2(mma_sync_aligned_m16n8k32_row_col_f32_e4m3_e4m3_f32, "+f", float,
                          "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32")
// PTX: mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32; PTX ISA 8.4; sm_89+.
// SASS: QMMA.16832.F32.E5M2.E5M2 (sm_89, sm_120/121); emulated as e4m3 elsewhere
GPUPROBE_PTX_MMA_D4_A4_B2(mma_sync_aligned_m16n8k32_row_col_f32_e5m2_e5m2_f32, "+f", float,
                          "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32")
#endif

#undef GPUPROBE_PTX_MMA_D4_A4_B2

}  // namespace gpuprobe::ptx
