// tcgen05: the 5th-generation tensor core and its tensor memory (TMEM), PTX ISA 8.6, sm_100a/f,
// sm_103a/f, sm_110a/f; nothing on sm_120 (PTX ISA: tcgen05, Target ISA Notes). One function per
// PTX form the tensor probes use, named after the mnemonic, with the SASS it becomes (the MMA
// classes and UTCBAR: tests/probes/tensor/test_sass_tcgen05.py; the rest as third-party SASS
// tables report it [R]: confirm with cuobjdump -sass).
// Every wrapper requires the tcgen05 capability (kind::i8 the sm_100a/103a/110a-specific one):
// include this header only from *.sm100a.cu units. All tcgen05 instructions of one kernel must use
// one cta_group (ptxas refuses a mix), hence the template parameter kCg (1 or 2).
// TMEM addresses: bits [31,16) lane, [16,0) column; a warp w may touch lanes 32*(w%4)..+31 only.
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

namespace gpuprobe::ptx {

// PTX: tcgen05.alloc.cta_group::N.sync.aligned.shared::cta.b32 [dst], ncols (whole warp; ncols a
// power of two, 32..512; the TMEM address lands in shared memory at dst; cta_group::2: one warp of
// each CTA of the pair). SASS: UTCATOMSWS-based sequence
template <int kCg>
__device__ __forceinline__ void tcgen05_alloc(uint32_t dst_smem, uint32_t ncols) {
  GPUPROBE_PTX_REQUIRE(tcgen05);
  if constexpr (kCg == 1)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;"
                 ::"r"(dst_smem), "r"(ncols) : "memory");
  else
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;"
                 ::"r"(dst_smem), "r"(ncols) : "memory");
}

// PTX: tcgen05.relinquish_alloc_permit.cta_group::N.sync.aligned (other CTAs may then allocate)
template <int kCg>
__device__ __forceinline__ void tcgen05_relinquish_alloc_permit() {
  GPUPROBE_PTX_REQUIRE(tcgen05);
  if constexpr (kCg == 1)
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  else
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::: "memory");
}

// PTX: tcgen05.dealloc.cta_group::N.sync.aligned.b32 taddr, ncols (the warp that allocated)
template <int kCg>
__device__ __forceinline__ void tcgen05_dealloc(uint32_t taddr, uint32_t ncols) {
  GPUPROBE_PTX_REQUIRE(tcgen05);
  if constexpr (kCg == 1)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols)
                 : "memory");
  else
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols)
                 : "memory");
}

// PTX: tcgen05.fence::before_thread_sync / ::after_thread_sync: order tcgen05 operations around a
// thread synchronisation (bar.sync, barrier.cluster, an mbarrier wait).
__device__ __forceinline__ void tcgen05_fence_before_thread_sync() {
  GPUPROBE_PTX_REQUIRE(tcgen05);
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}
__device__ __forceinline__ void tcgen05_fence_after_thread_sync() {
  GPUPROBE_PTX_REQUIRE(tcgen05);
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}

// PTX: tcgen05.commit.cta_group::N.mbarrier::arrive::one.shared::cluster.b64 [bar]: one arrival
// on the mbarrier once every tcgen05 operation this thread issued before has completed (at
// once when none is outstanding). SASS: UTCBAR
template <int kCg>
__device__ __forceinline__ void tcgen05_commit(uint32_t bar) {
  GPUPROBE_PTX_REQUIRE(tcgen05);
  if constexpr (kCg == 1)
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                 ::"r"(bar) : "memory");
  else
    asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                 ::"r"(bar) : "memory");
}

// PTX: tcgen05.ld.sync.aligned.32x32b.x8.b32 {r0..r7}, [taddr]: thread t of the warp reads lane
// (taddr lane + t), columns taddr column .. +7. SASS: LDTM
__device__ __forceinline__ void tcgen05_ld_32x32b_x8(uint32_t taddr, uint32_t (&r)[8]) {
  GPUPROBE_PTX_REQUIRE(tcgen05);
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]),
                 "=r"(r[6]), "=r"(r[7])
               : "r"(taddr)
               : "memory");
}

// PTX: tcgen05.ld.sync.aligned.32x32b.x8.pack::16b.b32 {r0..r7}, [taddr]: as above for 16-bit
// elements, one per TMEM column: register j packs the 16-bit elements of columns 2j and 2j + 1
// (16 columns in all). SASS: LDTM
__device__ __forceinline__ void tcgen05_ld_32x32b_x8_pack_16b(uint32_t taddr, uint32_t (&r)[8]) {
  GPUPROBE_PTX_REQUIRE(tcgen05);
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x8.pack::16b.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
        "=r"(r[7])
      : "r"(taddr)
      : "memory");
}

// PTX: tcgen05.st.sync.aligned.32x32b.x8.b32 [taddr], {r0..r7}: the store of the same shape.
// SASS: STTM
__device__ __forceinline__ void tcgen05_st_32x32b_x8(uint32_t taddr, const uint32_t (&r)[8]) {
  GPUPROBE_PTX_REQUIRE(tcgen05);
  asm volatile("tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
               ::"r"(taddr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]),
                 "r"(r[6]), "r"(r[7])
               : "memory");
}

// PTX: tcgen05.wait::ld.sync.aligned / tcgen05.wait::st.sync.aligned: this thread's earlier
// tcgen05.ld (their registers may be read after it) / tcgen05.st have completed.
__device__ __forceinline__ void tcgen05_wait_ld() {
  GPUPROBE_PTX_REQUIRE(tcgen05);
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void tcgen05_wait_st() {
  GPUPROBE_PTX_REQUIRE(tcgen05);
  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
}

// PTX: tcgen05.cp.cta_group::N.32x128b.warpx4 [taddr], s_desc: one thread copies 32 rows of 128
// bits from shared memory (s_desc: a shared-memory matrix descriptor) into TMEM lanes 0-31,
// columns taddr .. +3, multicast to the same lanes of all four 32-lane subpartitions. Asynchronous:
// ordered with the thread's later tcgen05.mma, tracked by its tcgen05.commit. SASS: UTCCP
template <int kCg>
__device__ __forceinline__ void tcgen05_cp_32x128b_warpx4(uint32_t taddr, uint64_t s_desc) {
  GPUPROBE_PTX_REQUIRE(tcgen05);
  if constexpr (kCg == 1)
    asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" ::"r"(taddr), "l"(s_desc)
                 : "memory");
  else
    asm volatile("tcgen05.cp.cta_group::2.32x128b.warpx4 [%0], %1;" ::"r"(taddr), "l"(s_desc)
                 : "memory");
}

// PTX: fence.mbarrier_init.release.cluster: makes an mbarrier.init visible to the cluster (and
// to the tensor core's commit) before the barrier that follows; PTX ISA 8.0, sm_90+.
__device__ __forceinline__ void fence_mbarrier_init_release_cluster() {
  GPUPROBE_PTX_REQUIRE(tcgen05);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// tcgen05.mma, one thread issues (D in TMEM += or = A * B):
//   SS: tcgen05.mma.cta_group::N.kind::K [d_tmem], a_desc, b_desc, idesc, enable_input_d;
//   TS: tcgen05.mma.cta_group::N.kind::K [d_tmem], [a_tmem], b_desc, idesc, enable_input_d;
// enable_input_d 0: D = A * B. Named tcgen05_mma_<kind>_<ss|ts>_cg<N>. SASS: UTCHMMA (f16,
// tf32), UTCQMMA (f8f6f4), UTCIMMA (i8), .2CTA for cta_group::2.
#define GPUPROBE_TCGEN05_MMA(kind, cg, cap)                                                       \
  __device__ __forceinline__ void tcgen05_mma_##kind##_ss_cg##cg(                                \
      uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc, uint32_t accumulate) {  \
    GPUPROBE_PTX_REQUIRE(cap);                                                                    \
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"                             \
                 "tcgen05.mma.cta_group::" #cg ".kind::" #kind " [%0], %1, %2, %3, p;\n\t}"     \
                 ::"r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate)           \
                 : "memory");                                                                    \
  }                                                                                               \
  __device__ __forceinline__ void tcgen05_mma_##kind##_ts_cg##cg(                                \
      uint32_t d_tmem, uint32_t a_tmem, uint64_t b_desc, uint32_t idesc, uint32_t accumulate) {  \
    GPUPROBE_PTX_REQUIRE(cap);                                                                    \
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"                             \
                 "tcgen05.mma.cta_group::" #cg ".kind::" #kind " [%0], [%1], %2, %3, p;\n\t}"   \
                 ::"r"(d_tmem), "r"(a_tmem), "l"(b_desc), "r"(idesc), "r"(accumulate)           \
                 : "memory");                                                                    \
  }
GPUPROBE_TCGEN05_MMA(f16, 1, tcgen05)
GPUPROBE_TCGEN05_MMA(f16, 2, tcgen05)
GPUPROBE_TCGEN05_MMA(tf32, 1, tcgen05)
GPUPROBE_TCGEN05_MMA(tf32, 2, tcgen05)
GPUPROBE_TCGEN05_MMA(f8f6f4, 1, tcgen05)
GPUPROBE_TCGEN05_MMA(f8f6f4, 2, tcgen05)
GPUPROBE_TCGEN05_MMA(i8, 1, tcgen05_block_scaled)
GPUPROBE_TCGEN05_MMA(i8, 2, tcgen05_block_scaled)
#undef GPUPROBE_TCGEN05_MMA

// Block-scaled, SS, cta_group::1: D = (A x scale_A) * (B x scale_B), the scale factors in TMEM
// at sf_a / sf_b (the instruction descriptor's scale-factor ids pick the byte of their columns):
//   tcgen05.mma.cta_group::1.kind::K.block_scale.scale_vec::V [d_tmem], a_desc, b_desc, idesc,
//       [sf_a], [sf_b], enable_input_d;
// with (K, V): (mxf8f6f4, 1X) ue8m0 scales, one per 32 K; (mxf4, 2X) e2m1 packed, ue8m0 scales,
// one per 32 K; (mxf4nvf4, 4X) e2m1 packed, ue4m3 scales, one per 16 K. Named
// tcgen05_mma_<K>_ss_cg1. sm_100a/103a/110a only (the tcgen05_block_scaled capability). SASS:
// UTCQMMA (mxf8f6f4), UTCOMMA (mxf4, mxf4nvf4).
#define GPUPROBE_TCGEN05_MMA_BS(kind, vec)                                                        \
  __device__ __forceinline__ void tcgen05_mma_##kind##_ss_cg1(                                   \
      uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc, uint32_t accumulate,    \
      uint32_t sf_a, uint32_t sf_b) {                                                             \
    GPUPROBE_PTX_REQUIRE(tcgen05_block_scaled);                                                   \
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"                             \
                 "tcgen05.mma.cta_group::1.kind::" #kind ".block_scale.scale_vec::" #vec         \
                 " [%0], %1, %2, %3, [%5], [%6], p;\n\t}"                                       \
                 ::"r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate),          \
                   "r"(sf_a), "r"(sf_b)                                                          \
                 : "memory");                                                                    \
  }
GPUPROBE_TCGEN05_MMA_BS(mxf8f6f4, 1X)
GPUPROBE_TCGEN05_MMA_BS(mxf4, 2X)
GPUPROBE_TCGEN05_MMA_BS(mxf4nvf4, 4X)
#undef GPUPROBE_TCGEN05_MMA_BS

}  // namespace gpuprobe::ptx
