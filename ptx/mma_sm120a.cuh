// mma.sync forms only the arch-specific sm_120a target accepts (ptx/mma_forms.def
// GPUPROBE_MMA_FORM_SM120A), included only by probes/tensor/mma.sm120a.cu: a compile error on any
// other pass (GPUPROBE_PTX_REQUIRE). kind::f8f6f4 (PTX ISA 8.7) has the targets of
// Cap::block_scaled_mma (sm_120a/121a, sm_120f/121f), so it is guarded by that capability.
// NVRTC-safe: no standard library.
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

GPUPROBE_PTX_REQUIRE(block_scaled_mma);

namespace gpuprobe::ptx {

// The register shape of the m16n8k32 kind::f8f6f4 forms: 4 f32 accumulators, 4 A and 2 B .b32
// registers of four 8-bit containers each (the e4m3 layout: PTX ISA "Matrix Fragments for
// mma.m16n8k32", the .e4m3/.e5m2/.e3m2/.e2m3/.e2m1 row).
#define GPUPROBE_PTX_MMA_F8F6F4(name, form)                                                     \
  __device__ __forceinline__ void name(float (&d)[4], const uint32_t (&a)[4],                 \
                                       const uint32_t (&b)[2]) {                              \
    asm volatile(form " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                             \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));         \
  }

// PTX: mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32; PTX ISA 8.7; sm_120a.
GPUPROBE_PTX_MMA_F8F6F4(mma_sync_aligned_m16n8k32_row_col_kind_f8f6f4_f32_e2m1_e2m1_f32,
                        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32")
// PTX: mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32; PTX ISA 8.7; sm_120a.
GPUPROBE_PTX_MMA_F8F6F4(mma_sync_aligned_m16n8k32_row_col_kind_f8f6f4_f32_e3m2_e3m2_f32,
                        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32")
// PTX: mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e2m3.f32; PTX ISA 8.7; sm_120a.
GPUPROBE_PTX_MMA_F8F6F4(mma_sync_aligned_m16n8k32_row_col_kind_f8f6f4_f32_e2m3_e2m3_f32,
                        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e2m3.f32")

#undef GPUPROBE_PTX_MMA_F8F6F4

// Block-scaled forms (PTX ISA 9.7.14.3 "Block Scaling for mma.sync"): after C, scale-a-data,
// {byte-id-a, thread-id-a}, scale-b-data, {byte-id-b, thread-id-b}; the selectors pick which
// thread of the quad and which byte(s) of its scale register give SF_A of a row / SF_B of a column
// (probes/tensor/mma.cuh MmaBlockScale spells the rule out). They are immediates: template
// arguments, within Table 37's valid values for the form's scale_vec (else undefined behaviour).
#define GPUPROBE_PTX_MMA_BLOCK_SCALED(name, form)                                               \
  template <unsigned kByteA, unsigned kThreadA, unsigned kByteB, unsigned kThreadB>           \
  __device__ __forceinline__ void name(float (&d)[4], const uint32_t (&a)[4],                 \
                                       const uint32_t (&b)[2], uint32_t scale_a,              \
                                       uint32_t scale_b) {                                    \
    asm volatile(form " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3}, %10, {%12, %13}, " \
                      "%11, {%14, %15};"                                                      \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                             \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),          \
                   "r"(scale_a), "r"(scale_b), "n"(kByteA), "n"(kThreadA), "n"(kByteB),       \
                   "n"(kThreadB));                                                            \
  }

// PTX: mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e4m3.f32.ue8m0;
// PTX ISA 8.7; sm_120a.
GPUPROBE_PTX_MMA_BLOCK_SCALED(
    mma_sync_aligned_kind_mxf8f6f4_block_scale_scale_vec_1x_m16n8k32_row_col_f32_e4m3_e4m3_f32_ue8m0,
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e4m3.f32.ue8m0")
// PTX: mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e5m2.e5m2.f32.ue8m0;
// PTX ISA 8.7; sm_120a.
GPUPROBE_PTX_MMA_BLOCK_SCALED(
    mma_sync_aligned_kind_mxf8f6f4_block_scale_scale_vec_1x_m16n8k32_row_col_f32_e5m2_e5m2_f32_ue8m0,
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e5m2.e5m2.f32.ue8m0")
// PTX: mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e3m2.e3m2.f32.ue8m0;
// PTX ISA 8.7; sm_120a.
GPUPROBE_PTX_MMA_BLOCK_SCALED(
    mma_sync_aligned_kind_mxf8f6f4_block_scale_scale_vec_1x_m16n8k32_row_col_f32_e3m2_e3m2_f32_ue8m0,
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e3m2.e3m2.f32.ue8m0")
// PTX: mma.sync.aligned.kind::mxf4.block_scale.scale_vec::2X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue8m0;
// PTX ISA 8.7; sm_120a.
GPUPROBE_PTX_MMA_BLOCK_SCALED(
    mma_sync_aligned_kind_mxf4_block_scale_scale_vec_2x_m16n8k64_row_col_f32_e2m1_e2m1_f32_ue8m0,
    "mma.sync.aligned.kind::mxf4.block_scale.scale_vec::2X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue8m0")
// PTX: mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::2X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue8m0;
// PTX ISA 8.7; sm_120a.
GPUPROBE_PTX_MMA_BLOCK_SCALED(
    mma_sync_aligned_kind_mxf4nvf4_block_scale_scale_vec_2x_m16n8k64_row_col_f32_e2m1_e2m1_f32_ue8m0,
    "mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::2X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue8m0")
// PTX: mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::4X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue4m3;
// PTX ISA 8.7; sm_120a.
GPUPROBE_PTX_MMA_BLOCK_SCALED(
    mma_sync_aligned_kind_mxf4nvf4_block_scale_scale_vec_4x_m16n8k64_row_col_f32_e2m1_e2m1_f32_ue4m3,
    "mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::4X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue4m3")

#undef GPUPROBE_PTX_MMA_BLOCK_SCALED

}  // namespace gpuprobe::ptx
