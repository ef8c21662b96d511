// Warp-level collectives for the sync probes: one function per PTX instruction form, named after
// its mnemonic, with the PTX form, the ISA version, the minimum SM and the SASS it becomes
// (PTX ISA; SASS: tests/probes/sync/test_sass.py). The member mask of the value-returning forms is the full
// warp as an immediate (a register mask makes ptxas put a WARPSYNC before each one); every lane of
// the warp executes them. asm volatile without a "memory" clobber: the collectives exchange
// registers only, so independent chains stay free to interleave. Predicates travel as u32
// (non-zero: true) and the setp/selp around the instruction fold into its predicate operands.
// Forms newer than the suite's sm_70 minimum exist only on compile passes that have them
// (GPUPROBE_PTX_HAS_*); kernels that need one trap elsewhere and the host refuses them first.
// NVRTC-safe: no standard library.
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

// redux.sync: sm_80+ (PTX ISA 7.0). elect.sync: sm_90+ (PTX ISA 8.0).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GPUPROBE_PTX_HAS_REDUX_SYNC 1
#else
#define GPUPROBE_PTX_HAS_REDUX_SYNC 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GPUPROBE_PTX_HAS_ELECT_SYNC 1
#else
#define GPUPROBE_PTX_HAS_ELECT_SYNC 0
#endif

namespace gpuprobe::ptx {

// PTX: shfl.sync.idx.b32 d, a, b, 0x1f, 0xffffffff; PTX ISA 6.0; sm_70+. SASS: SHFL.IDX
__device__ __forceinline__ uint32_t shfl_sync_idx_b32(uint32_t a, uint32_t src_lane) {
  uint32_t d;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(d) : "r"(a), "r"(src_lane));
  return d;
}

// PTX: shfl.sync.up.b32 d, a, b, 0, 0xffffffff (lane i reads lane i - b; lanes below b keep their
// own value); PTX ISA 6.0; sm_70+. SASS: SHFL.UP
__device__ __forceinline__ uint32_t shfl_sync_up_b32(uint32_t a, uint32_t delta) {
  uint32_t d;
  asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(d) : "r"(a), "r"(delta));
  return d;
}

// PTX: shfl.sync.down.b32 d, a, b, 0x1f, 0xffffffff (lane i reads lane i + b; lanes past 31 - b
// keep their own value); PTX ISA 6.0; sm_70+. SASS: SHFL.DOWN
__device__ __forceinline__ uint32_t shfl_sync_down_b32(uint32_t a, uint32_t delta) {
  uint32_t d;
  asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(d) : "r"(a), "r"(delta));
  return d;
}

// PTX: shfl.sync.bfly.b32 d, a, b, 0x1f, 0xffffffff (lane i reads lane i ^ b); PTX ISA 6.0;
// sm_70+. SASS: SHFL.BFLY
__device__ __forceinline__ uint32_t shfl_sync_bfly_b32(uint32_t a, uint32_t lane_mask) {
  uint32_t d;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(d) : "r"(a), "r"(lane_mask));
  return d;
}

// PTX: setp.ne.u32 q, a, 0; vote.sync.any.pred p, q, 0xffffffff; selp.u32 d, 1, 0, p; PTX ISA
// 6.0; sm_70+. SASS: VOTE.ANY
__device__ __forceinline__ uint32_t vote_sync_any_pred(uint32_t a) {
  uint32_t d;
  asm volatile(
      "{\n\t.reg .pred q, p;\n\tsetp.ne.u32 q, %1, 0;\n\t"
      "vote.sync.any.pred p, q, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(d) : "r"(a));
  return d;
}

// PTX: setp.ne.u32 q, a, 0; vote.sync.all.pred p, q, 0xffffffff; selp.u32 d, 1, 0, p; PTX ISA
// 6.0; sm_70+. SASS: VOTE.ALL
__device__ __forceinline__ uint32_t vote_sync_all_pred(uint32_t a) {
  uint32_t d;
  asm volatile(
      "{\n\t.reg .pred q, p;\n\tsetp.ne.u32 q, %1, 0;\n\t"
      "vote.sync.all.pred p, q, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(d) : "r"(a));
  return d;
}

// PTX: setp.ne.u32 q, a, 0; vote.sync.ballot.b32 d, q, 0xffffffff; PTX ISA 6.0; sm_70+.
// SASS: VOTE.ANY R, PT, P
__device__ __forceinline__ uint32_t vote_sync_ballot_b32(uint32_t a) {
  uint32_t d;
  asm volatile(
      "{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %1, 0;\n\t"
      "vote.sync.ballot.b32 %0, q, 0xffffffff;\n\t}"
      : "=r"(d) : "r"(a));
  return d;
}

// PTX: match.sync.any.b32 d, a, 0xffffffff (d: the lanes holding the same a); PTX ISA 6.0;
// sm_70+. SASS: MATCH.ANY
__device__ __forceinline__ uint32_t match_sync_any_b32(uint32_t a) {
  uint32_t d;
  asm volatile("match.sync.any.b32 %0, %1, 0xffffffff;" : "=r"(d) : "r"(a));
  return d;
}

// PTX: match.sync.all.b32 d, a, 0xffffffff (d: the full mask if every lane holds a, else 0);
// PTX ISA 6.0; sm_70+. SASS: MATCH.ALL
__device__ __forceinline__ uint32_t match_sync_all_b32(uint32_t a) {
  uint32_t d;
  asm volatile("match.sync.all.b32 %0, %1, 0xffffffff;" : "=r"(d) : "r"(a));
  return d;
}

#if GPUPROBE_PTX_HAS_REDUX_SYNC
// PTX: redux.sync.add.u32 d, a, 0xffffffff; PTX ISA 7.0; sm_80+. SASS: REDUX.SUM
__device__ __forceinline__ uint32_t redux_sync_add_u32(uint32_t a) {
  GPUPROBE_PTX_REQUIRE(redux_sync);
  uint32_t d;
  asm volatile("redux.sync.add.u32 %0, %1, 0xffffffff;" : "=r"(d) : "r"(a));
  return d;
}

// PTX: redux.sync.min.u32 d, a, 0xffffffff; PTX ISA 7.0; sm_80+. SASS: REDUX.MIN (CREDUX.MIN on
// sm_100+)
__device__ __forceinline__ uint32_t redux_sync_min_u32(uint32_t a) {
  GPUPROBE_PTX_REQUIRE(redux_sync);
  uint32_t d;
  asm volatile("redux.sync.min.u32 %0, %1, 0xffffffff;" : "=r"(d) : "r"(a));
  return d;
}
#endif

#if GPUPROBE_PTX_HAS_ELECT_SYNC
// PTX: elect.sync d|p, membermask (d: the leader's lane, the lowest of membermask; p, true in the
// leader, is required by ptxas and left unused); PTX ISA 8.0; sm_90+. SASS (sm_90+, nvcc 13.0): a
// mask ptxas cannot prove warp-uniform becomes REDUX.OR (the warp's mask) + R2UR + ELECT and a
// retry branch, so a chain through the mask times that sequence; an immediate mask has no input
// and ptxas merges identical ELECTs (it treats them as pure), so it cannot be timed at all.
__device__ __forceinline__ uint32_t elect_sync(uint32_t membermask) {
  GPUPROBE_PTX_REQUIRE(elect_sync);
  uint32_t d;
  asm volatile("{\n\t.reg .pred p;\n\telect.sync %0|p, %1;\n\t}" : "=r"(d) : "r"(membermask));
  return d;
}
#endif

// PTX: bar.warp.sync membermask; PTX ISA 6.0; sm_70+. SASS: WARPSYNC, or nothing: ptxas drops it
// (a NOP stays) where the mask is warp-uniform and the warp provably converged, and turns a mask it
// cannot prove uniform into a MATCH/REDUX + WARPSYNC.COLLECTIVE loop (sm_90, nvcc 13.0)
__device__ __forceinline__ void bar_warp_sync(uint32_t membermask) {
  asm volatile("bar.warp.sync %0;" ::"r"(membermask) : "memory");
}

}  // namespace gpuprobe::ptx
