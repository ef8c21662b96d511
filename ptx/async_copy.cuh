// Asynchronous copies global -> shared (PTX ISA: cp.async, cp.async.bulk, cp.async.bulk.tensor):
// cp.async (Ampere LDGSTS), the bulk copy and the TMA tensor copy (sm_90+), with the mbarrier
// transaction forms they complete on. One function per PTX form, named after its mnemonic, with
// the PTX ISA version, the minimum SM and the SASS it becomes (tests/probes/async/test_sass.py
// asserts it per target).
// Shared addresses are 32-bit shared-window addresses (__cvta_generic_to_shared); forms exist
// only on compile passes that have them (GPUPROBE_PTX_HAS_CP_ASYNC / _BULK_COPY). NVRTC-safe.
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

// cp.async: PTX ISA 7.0, sm_80+. cp.async.bulk{.tensor}, mbarrier expect_tx / complete_tx: PTX ISA
// 8.0, sm_90+.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GPUPROBE_PTX_HAS_CP_ASYNC 1
#else
#define GPUPROBE_PTX_HAS_CP_ASYNC 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GPUPROBE_PTX_HAS_BULK_COPY 1
#else
#define GPUPROBE_PTX_HAS_BULK_COPY 0
#endif

// The destination state space of the bulk and TMA copies: .shared::cta (PTX ISA 8.6, CUDA 12.8+)
// where the compiler has it, else .shared::cluster (PTX ISA 8.0; the CTA's own shared memory is a
// valid shared::cluster address). sm_120's ptxas gives the .shared::cluster form of a TMA copy an
// 8-byte stack frame; the .shared::cta form has none.
#if defined(__CUDACC_VER_MAJOR__) && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8))
#define GPUPROBE_PTX_BULK_DST "shared::cta"
#else
#define GPUPROBE_PTX_BULK_DST "shared::cluster"
#endif

namespace gpuprobe::ptx {

#if GPUPROBE_PTX_HAS_CP_ASYNC
// PTX: cp.async.ca.shared.global [s], [g], kBytes; (kBytes 4, 8 or 16; L1-allocating) or
// cp.async.cg.shared.global [s], [g], 16; (L1 bypass: 16 bytes only); PTX ISA 7.0; sm_80+.
// SASS: LDGSTS.E{.BYPASS}{.LTC128B}{,.64,.128}
template <int kBytes, bool kBypassL1>
__device__ __forceinline__ void cp_async_shared_global(uint32_t dst, uint64_t src) {
  GPUPROBE_PTX_REQUIRE(cp_async);
  static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16, "cp.async copies 4, 8 or 16 bytes");
  static_assert(!kBypassL1 || kBytes == 16, "cp.async.cg copies 16 bytes only");
  if constexpr (kBypassL1)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
  else if constexpr (kBytes == 16)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
  else if constexpr (kBytes == 8)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(dst), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(src) : "memory");
}

// PTX: cp.async.commit_group; PTX ISA 7.0; sm_80+. SASS: LDGDEPBAR
__device__ __forceinline__ void cp_async_commit_group() {
  GPUPROBE_PTX_REQUIRE(cp_async);
  asm volatile("cp.async.commit_group;" ::: "memory");
}

// PTX: cp.async.wait_group kPending; (this thread's groups but the newest kPending have landed);
// PTX ISA 7.0; sm_80+. SASS: DEPBAR.LE SB0, kPending
template <int kPending>
__device__ __forceinline__ void cp_async_wait_group() {
  GPUPROBE_PTX_REQUIRE(cp_async);
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}
#endif

#if GPUPROBE_PTX_HAS_BULK_COPY
// PTX: mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes; (arrive, and expect `bytes` of
// transactions in this phase); PTX ISA 8.0; sm_90+. SASS: SYNCS.ARRIVE.TRANS64.RED.A1TR
__device__ __forceinline__ void mbarrier_arrive_expect_tx_shared_cta(uint32_t bar, uint32_t bytes) {
  GPUPROBE_PTX_REQUIRE(bulk_copy);
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}

// PTX: cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [s], [g], bytes, [bar];
// (bytes, addresses: multiples of 16; GPUPROBE_PTX_BULK_DST); PTX ISA 8.6 (8.0 .shared::cluster); sm_90+. SASS: UBLKCP.S.G
__device__ __forceinline__ void cp_async_bulk_shared_global(uint32_t dst, uint64_t src,
                                                            uint32_t bytes, uint32_t bar) {
  GPUPROBE_PTX_REQUIRE(bulk_copy);
  asm volatile(
      "cp.async.bulk." GPUPROBE_PTX_BULK_DST ".global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
      ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}

// PTX: cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// [s], [map, {x}], [bar]; (map: the generic address of a __grid_constant__ CUtensorMap); PTX ISA
// 8.6 (8.0 .shared::cluster); sm_90+. SASS: UTMALDG.1D
__device__ __forceinline__ void cp_async_bulk_tensor_1d(uint32_t dst, const void* map, int32_t x,
                                                        uint32_t bar) {
  GPUPROBE_PTX_REQUIRE(bulk_copy);
  asm volatile(
      "cp.async.bulk.tensor.1d." GPUPROBE_PTX_BULK_DST ".global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2}], [%3];"
      ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(bar) : "memory");
}

// PTX: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// [s], [map, {x, y}], [bar]; PTX ISA 8.6 (8.0 .shared::cluster); sm_90+. SASS: UTMALDG.2D
__device__ __forceinline__ void cp_async_bulk_tensor_2d(uint32_t dst, const void* map, int32_t x,
                                                        int32_t y, uint32_t bar) {
  GPUPROBE_PTX_REQUIRE(bulk_copy);
  asm volatile(
      "cp.async.bulk.tensor.2d." GPUPROBE_PTX_BULK_DST ".global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];"
      ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(bar) : "memory");
}
#endif

}  // namespace gpuprobe::ptx
