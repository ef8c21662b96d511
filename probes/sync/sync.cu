// sync: the synchronization kernels (probes/sync/sync.cuh: the op table and the contract).
// Per op of sync.def two extern "C" kernels, gpuprobe_sync_<op>_lat and _thr. The
// timing bracket is the same everywhere: the opening %clock64 read follows the start values'
// arrival, the closing one waits for every chain's result (x & zero, zero a runtime 0), so no op
// is dead. An op whose instruction this compile pass lacks (redux before sm_80, elect, clusters,
// try_wait and fence.proxy.async before sm_90, mbarrier before sm_80) traps; the host refuses it
// before that. Device code only (NVRTC-safe); the host side is sync_cuda.cpp.
#include "probes/common/chains.cuh"
#include "probes/common/unit_record.cuh"
#include "probes/sync/sync.cuh"
#include "ptx/barrier.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/sreg.cuh"
#include "ptx/warp.cuh"

namespace gpuprobe::probes::sync::device {

__device__ __forceinline__ uint32_t lane_id() { return threadIdx.x & 31; }

// Lane 0 of each warp writes the bracket, its SM and (a.store) the results.
__device__ __forceinline__ void record(const SyncArgs& a, SyncWarpOut* out, uint64_t c0,
                                       uint64_t c1, const uint32_t* result, int n) {
  record_unit<32>(out, c0, c1, [&](SyncWarpOut& o) {
    if (a.store != 0)
      for (int k = 0; k < n; ++k) o.result[k] = result[k];
  });
}

// ---- warp value chains: x = Op::step(x, aux) -----------------------------------------------
// One struct per op: step(x, aux) and whether this compile pass has it (kOnThisPass; step exists
// only where it is true).
struct shfl_idx {
  static constexpr bool kOnThisPass = true;
  static constexpr bool kUniformAux = false;
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t aux) {
    return ptx::shfl_sync_idx_b32(x, aux);
  }
};
struct shfl_up {
  static constexpr bool kOnThisPass = true;
  static constexpr bool kUniformAux = false;
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t aux) {
    return ptx::shfl_sync_up_b32(x, aux);
  }
};
struct shfl_down {
  static constexpr bool kOnThisPass = true;
  static constexpr bool kUniformAux = false;
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t aux) {
    return ptx::shfl_sync_down_b32(x, aux);
  }
};
struct shfl_bfly {
  static constexpr bool kOnThisPass = true;
  static constexpr bool kUniformAux = false;
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t aux) {
    return ptx::shfl_sync_bfly_b32(x, aux);
  }
};
struct vote_any {
  static constexpr bool kOnThisPass = true;
  static constexpr bool kUniformAux = false;
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t) {
    return ptx::vote_sync_any_pred(x);
  }
};
struct vote_all {
  static constexpr bool kOnThisPass = true;
  static constexpr bool kUniformAux = false;
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t) {
    return ptx::vote_sync_all_pred(x);
  }
};
struct vote_ballot {
  static constexpr bool kOnThisPass = true;
  static constexpr bool kUniformAux = false;
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t aux) {
    return ptx::vote_sync_ballot_b32(x & aux);
  }
};
struct match_any {
  static constexpr bool kOnThisPass = true;
  static constexpr bool kUniformAux = false;
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t) {
    return ptx::match_sync_any_b32(x);
  }
};
struct match_all {
  static constexpr bool kOnThisPass = true;
  static constexpr bool kUniformAux = false;
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t) {
    return ptx::match_sync_all_b32(x);
  }
};
struct redux_add {
  static constexpr bool kOnThisPass = GPUPROBE_PTX_HAS_REDUX_SYNC;
  static constexpr bool kUniformAux = false;
#if GPUPROBE_PTX_HAS_REDUX_SYNC
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t) {
    return ptx::redux_sync_add_u32(x);
  }
#endif
};
struct redux_min {
  static constexpr bool kOnThisPass = GPUPROBE_PTX_HAS_REDUX_SYNC;
  static constexpr bool kUniformAux = false;
#if GPUPROBE_PTX_HAS_REDUX_SYNC
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t) {
    return ptx::redux_sync_min_u32(x);
  }
#endif
};
// aux is the full mask, from memory: ptxas cannot fold the or, nor prove the mask warp-uniform
// (ptx::elect_sync says what the chain then times).
struct elect {
  static constexpr bool kOnThisPass = GPUPROBE_PTX_HAS_ELECT_SYNC;
  static constexpr bool kUniformAux = false;
#if GPUPROBE_PTX_HAS_ELECT_SYNC
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t aux) {
    return ptx::elect_sync(x | aux);
  }
#endif
};
// aux is the kernel argument `mask` (warp-uniform): see ptx::bar_warp_sync for what ptxas does.
struct bar_warp_sync {
  static constexpr bool kOnThisPass = true;
  static constexpr bool kUniformAux = true;
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t aux) {
    ptx::bar_warp_sync(aux);
    return x;
  }
};

// Sum over the warp of v: bfly reduction (outside the timed region).
__device__ __forceinline__ uint32_t warp_sum(uint32_t v) {
#pragma unroll
  for (uint32_t m = 16; m != 0; m >>= 1) v += ptx::shfl_sync_bfly_b32(v, m);
  return v;
}

template <class Op, int kChains>
__device__ __forceinline__ void run_warp(const SyncArgs& a, SyncWarpOut* out) {
  constexpr int kPerChain = kSyncValueOpsPerIteration / kChains;
  const uint32_t lane = lane_id();
  const uint32_t aux = Op::kUniformAux ? a.mask : a.lanes[32 + lane];
  uint32_t x[kChains];
  uint64_t first = aux;
#pragma unroll
  for (int k = 0; k < kChains; ++k) {
    x[k] = a.lanes[(lane + k) & 31];
    first ^= x[k];
  }
  const uint64_t c0 = ptx::get_sreg_clock64_after(first, a.zero);
  step_chains<kPerChain>(x, a.iterations, [&](uint32_t v) { return Op::step(v, aux); });
  uint64_t last = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k) last ^= x[k];
  const uint64_t c1 = ptx::get_sreg_clock64_after(last, a.zero);
  uint32_t result[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) result[k] = warp_sum(x[k] * (2 * lane + 1));
  record(a, out, c0, c1, result, kChains);
}

// ---- CTA barriers: every warp of the CTA runs the loop ---------------------------------------
struct bar_sync {
  static __device__ __forceinline__ uint32_t step(uint32_t x) {
    ptx::bar_sync_0();
    return x;
  }
};
// x = the number of threads whose (x ^ tid) is odd: half the CTA once x is the same everywhere.
struct bar_red_popc {
  static __device__ __forceinline__ uint32_t step(uint32_t x) {
    return ptx::bar_red_popc_u32((x ^ threadIdx.x) & 1);
  }
};

template <class Op>
__device__ __forceinline__ void run_cta(const SyncArgs& a, SyncWarpOut* out) {
  uint32_t x = a.lanes[lane_id()];
  ptx::bar_sync_0();  // every warp starts together
  const uint64_t c0 = ptx::get_sreg_clock64_after(x, a.zero);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < int(kSyncBarrierOpsPerIteration); ++u) x = Op::step(x);
  }
  const uint64_t c1 = ptx::get_sreg_clock64_after(x, a.zero);
  record(a, out, c0, c1, &x, 1);
}

// bar.arrive: the CTA's first half arrives at barrier 1 and waits at 2, the second half waits at
// 1 and arrives at 2, each in its own loop: one op is a round trip (two hand-offs). Needs an even
// number of warps.
__device__ __forceinline__ void run_bar_arrive(const SyncArgs& a, SyncWarpOut* out) {
  uint32_t x = a.lanes[lane_id()];
  const uint32_t n = blockDim.x;
  ptx::bar_sync_0();
  const uint64_t c0 = ptx::get_sreg_clock64_after(x, a.zero);
  if (threadIdx.x < n / 2) {
#pragma unroll 1
    for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
      for (int u = 0; u < int(kSyncBarrierOpsPerIteration); ++u) {
        ptx::bar_arrive(1, n);
        ptx::bar_sync(2, n);
      }
    }
  } else {
#pragma unroll 1
    for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
      for (int u = 0; u < int(kSyncBarrierOpsPerIteration); ++u) {
        ptx::bar_sync(1, n);
        ptx::bar_arrive(2, n);
      }
    }
  }
  const uint64_t c1 = ptx::get_sreg_clock64_after(x, a.zero);
  record(a, out, c0, c1, &x, 1);
}

// ---- clusters (sm_90+) ----------------------------------------------------------------------
#if GPUPROBE_PTX_HAS_CLUSTER
struct barrier_cluster {
  static __device__ __forceinline__ void step() {
    ptx::barrier_cluster_arrive_release_aligned();
    ptx::barrier_cluster_wait_acquire_aligned();
  }
};
struct barrier_cluster_relaxed {
  static __device__ __forceinline__ void step() {
    ptx::barrier_cluster_arrive_relaxed_aligned();
    ptx::barrier_cluster_wait_acquire_aligned();
  }
};

template <class Op>
__device__ __forceinline__ void run_cluster(const SyncArgs& a, SyncWarpOut* out) {
  uint32_t x = a.lanes[lane_id()];
  ptx::barrier_cluster_arrive_release_aligned();  // every CTA of the cluster starts together
  ptx::barrier_cluster_wait_acquire_aligned();
  const uint64_t c0 = ptx::get_sreg_clock64_after(x, a.zero);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < int(kSyncBarrierOpsPerIteration); ++u) Op::step();
  }
  const uint64_t c1 = ptx::get_sreg_clock64_after(x, a.zero);
  record(a, out, c0, c1, &x, 1);
}

// Each CTA writes a ring into its shared memory: slot i holds the 64-bit shared::cluster address
// (as its own CTA sees it through mapa) of slot (i + stride) % slots. Each thread then walks the
// ring of the next CTA of the cluster: kChains chains from slots (128 k + 4 lane) % slots.
template <int kChains>
__device__ __forceinline__ void run_dsmem(const SyncArgs& a, SyncWarpOut* out) {
  extern __shared__ __align__(16) uint64_t gpuprobe_sync_ring[];
  constexpr int kPerChain = kSyncValueOpsPerIteration / kChains;
  const uint32_t rank = ptx::get_sreg_cluster_ctarank();
  const uint32_t peer = (rank + 1) % ptx::get_sreg_cluster_nctarank();
  const uint64_t base = __cvta_generic_to_shared(gpuprobe_sync_ring);
  for (uint32_t i = threadIdx.x; i < kSyncDsmemSlots; i += blockDim.x)
    gpuprobe_sync_ring[i] =
        ptx::mapa_shared_cluster_u64(base + 8 * ((i + kSyncDsmemStride) % kSyncDsmemSlots), rank);
  ptx::barrier_cluster_arrive_release_aligned();  // the rings are written; start together
  ptx::barrier_cluster_wait_acquire_aligned();
  const uint64_t peer_base = ptx::mapa_shared_cluster_u64(base, peer);
  const uint32_t lane = lane_id();
  uint64_t x[kChains];
  uint64_t first = a.lanes[lane];
#pragma unroll
  for (int k = 0; k < kChains; ++k) {
    x[k] = peer_base + 8 * ((128 * k + 4 * lane) % kSyncDsmemSlots);
    first ^= x[k];
  }
  const uint64_t c0 = ptx::get_sreg_clock64_after(first, a.zero);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < kPerChain; ++u) {
#pragma unroll
      for (int k = 0; k < kChains; ++k) x[k] = ptx::ld_shared_cluster_u64(x[k]);
    }
  }
  uint64_t last = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k) last ^= x[k];
  const uint64_t c1 = ptx::get_sreg_clock64_after(last, a.zero);
  // The peer must stay resident until every CTA finished reading its ring.
  ptx::barrier_cluster_arrive_release_aligned();
  ptx::barrier_cluster_wait_acquire_aligned();
  uint32_t result[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) result[k] = static_cast<uint32_t>((x[k] - peer_base) / 8);
  record(a, out, c0, c1, result, kChains);
}
#endif

// ---- the grid barrier -------------------------------------------------------------------------
__device__ __forceinline__ void run_grid(const SyncArgs& a, SyncWarpOut* out) {
  uint32_t x = a.lanes[lane_id()];
  ptx::grid_sync();  // every CTA starts together
  const uint64_t c0 = ptx::get_sreg_clock64_after(x, a.zero);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) ptx::grid_sync();
  const uint64_t c1 = ptx::get_sreg_clock64_after(x, a.zero);
  record(a, out, c0, c1, &x, 1);
}

// ---- mbarrier: every thread of the CTA arrives, then waits for the phase to complete ----------
#if GPUPROBE_PTX_HAS_MBARRIER
struct mbarrier_test_wait {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ uint32_t step(uint32_t bar, uint32_t done) {
    const uint64_t state = ptx::mbarrier_arrive_shared_b64(bar);
    while (ptx::mbarrier_test_wait_shared_b64(bar, state) == 0) {
    }
    return done + 1;
  }
};
#endif
struct mbarrier_try_wait {
  static constexpr bool kOnThisPass = GPUPROBE_PTX_HAS_MBARRIER_TRY_WAIT;
#if GPUPROBE_PTX_HAS_MBARRIER_TRY_WAIT
  // Phase k completes with parity k & 1; done counts the phases completed.
  static __device__ __forceinline__ uint32_t step(uint32_t bar, uint32_t done) {
    ptx::mbarrier_arrive_shared_b64(bar);
    while (ptx::mbarrier_try_wait_parity_shared_b64(bar, done & 1) == 0) {
    }
    return done + 1;
  }
#endif
};

#if GPUPROBE_PTX_HAS_MBARRIER
template <class Op>
__device__ __forceinline__ void run_mbarrier(const SyncArgs& a, SyncWarpOut* out) {
  __shared__ __align__(8) uint64_t gpuprobe_sync_mbarrier;
  const uint32_t bar = static_cast<uint32_t>(__cvta_generic_to_shared(&gpuprobe_sync_mbarrier));
  if (threadIdx.x == 0) ptx::mbarrier_init_shared_b64(bar, blockDim.x);
  ptx::bar_sync_0();
  uint32_t done = a.lanes[lane_id()] & a.zero;  // 0
  const uint64_t c0 = ptx::get_sreg_clock64_after(done, a.zero);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < int(kSyncMbarrierOpsPerIteration); ++u) done = Op::step(bar, done);
  }
  const uint64_t c1 = ptx::get_sreg_clock64_after(done, a.zero);
  record(a, out, c0, c1, &done, 1);
}
#endif

// ---- fences -----------------------------------------------------------------------------------
struct membar_cta {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ void step() { ptx::membar_cta(); }
};
struct membar_gl {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ void step() { ptx::membar_gl(); }
};
struct membar_sys {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ void step() { ptx::membar_sys(); }
};
struct fence_acq_rel_gpu {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ void step() { ptx::fence_acq_rel_gpu(); }
};
struct fence_acq_rel_cluster {
  static constexpr bool kOnThisPass = GPUPROBE_PTX_HAS_CLUSTER;
#if GPUPROBE_PTX_HAS_CLUSTER
  static __device__ __forceinline__ void step() { ptx::fence_acq_rel_cluster(); }
#endif
};
struct fence_proxy_async {
  static constexpr bool kOnThisPass = GPUPROBE_PTX_HAS_CLUSTER;
#if GPUPROBE_PTX_HAS_CLUSTER
  static __device__ __forceinline__ void step() { ptx::fence_proxy_async_shared_cta(); }
#endif
};

template <class Op>
__device__ __forceinline__ void run_fence(const SyncArgs& a, SyncWarpOut* out) {
  if constexpr (!Op::kOnThisPass) {
    __trap();
  } else {
    uint32_t x = a.lanes[lane_id()];
    const uint64_t c0 = ptx::get_sreg_clock64_after(x, a.zero);
#pragma unroll 1
    for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
      for (int u = 0; u < int(kSyncBarrierOpsPerIteration); ++u) Op::step();
    }
    const uint64_t c1 = ptx::get_sreg_clock64_after(x, a.zero);
    record(a, out, c0, c1, &x, 1);
  }
}

template <class Op, int kChains>
__device__ __forceinline__ void run_warp_or_trap(const SyncArgs& a, SyncWarpOut* out) {
  if constexpr (Op::kOnThisPass) run_warp<Op, kChains>(a, out);
  else __trap();
}

// Both kernels of an op, from one body per kernel kind: BODY_LAT / BODY_THR are statements.
#define GPUPROBE_SYNC_KERNELS(op, lat_bounds, body_lat, body_thr)                              \
  extern "C" __global__ void __launch_bounds__(lat_bounds)                                     \
      gpuprobe_sync_##op##_lat(SyncArgs a, SyncWarpOut* out) {                                 \
    body_lat;                                                                                  \
  }                                                                                            \
  extern "C" __global__ void __launch_bounds__(1024)                                           \
      gpuprobe_sync_##op##_thr(SyncArgs a, SyncWarpOut* out) {                                 \
    body_thr;                                                                                  \
  }

#define GPUPROBE_SYNC_WARP_KERNELS(op)                             \
  GPUPROBE_SYNC_KERNELS(op, 32, (run_warp_or_trap<op, 1>(a, out)), \
                        (run_warp_or_trap<op, kSyncThroughputChains>(a, out)))
GPUPROBE_SYNC_WARP_KERNELS(shfl_idx)
GPUPROBE_SYNC_WARP_KERNELS(shfl_up)
GPUPROBE_SYNC_WARP_KERNELS(shfl_down)
GPUPROBE_SYNC_WARP_KERNELS(shfl_bfly)
GPUPROBE_SYNC_WARP_KERNELS(vote_any)
GPUPROBE_SYNC_WARP_KERNELS(vote_all)
GPUPROBE_SYNC_WARP_KERNELS(vote_ballot)
GPUPROBE_SYNC_WARP_KERNELS(match_any)
GPUPROBE_SYNC_WARP_KERNELS(match_all)
GPUPROBE_SYNC_WARP_KERNELS(redux_add)
GPUPROBE_SYNC_WARP_KERNELS(redux_min)
GPUPROBE_SYNC_WARP_KERNELS(elect)
GPUPROBE_SYNC_WARP_KERNELS(bar_warp_sync)
#undef GPUPROBE_SYNC_WARP_KERNELS

#define GPUPROBE_SYNC_CTA_KERNELS(op) \
  GPUPROBE_SYNC_KERNELS(op, 1024, (run_cta<op>(a, out)), (run_cta<op>(a, out)))
GPUPROBE_SYNC_CTA_KERNELS(bar_sync)
GPUPROBE_SYNC_KERNELS(bar_arrive, 1024, (run_bar_arrive(a, out)), (run_bar_arrive(a, out)))
GPUPROBE_SYNC_CTA_KERNELS(bar_red_popc)
#undef GPUPROBE_SYNC_CTA_KERNELS

#if GPUPROBE_PTX_HAS_CLUSTER
#define GPUPROBE_SYNC_CLUSTER_BODY(op) (run_cluster<op>(a, out))
#define GPUPROBE_SYNC_DSMEM_BODY(chains) (run_dsmem<chains>(a, out))
#else
#define GPUPROBE_SYNC_CLUSTER_BODY(op) __trap()
#define GPUPROBE_SYNC_DSMEM_BODY(chains) __trap()
#endif
GPUPROBE_SYNC_KERNELS(barrier_cluster, 1024, GPUPROBE_SYNC_CLUSTER_BODY(barrier_cluster),
                      GPUPROBE_SYNC_CLUSTER_BODY(barrier_cluster))
GPUPROBE_SYNC_KERNELS(barrier_cluster_relaxed, 1024,
                      GPUPROBE_SYNC_CLUSTER_BODY(barrier_cluster_relaxed),
                      GPUPROBE_SYNC_CLUSTER_BODY(barrier_cluster_relaxed))
GPUPROBE_SYNC_KERNELS(dsmem_ld, 1024, GPUPROBE_SYNC_DSMEM_BODY(1),
                      GPUPROBE_SYNC_DSMEM_BODY(kSyncThroughputChains))
#undef GPUPROBE_SYNC_CLUSTER_BODY
#undef GPUPROBE_SYNC_DSMEM_BODY

GPUPROBE_SYNC_KERNELS(grid_sync, 1024, (run_grid(a, out)), (run_grid(a, out)))

#if GPUPROBE_PTX_HAS_MBARRIER
#define GPUPROBE_SYNC_MBARRIER_BODY(op)                    \
  if constexpr (op::kOnThisPass) run_mbarrier<op>(a, out); \
  else __trap()
#else
#define GPUPROBE_SYNC_MBARRIER_BODY(op) __trap()
#endif
GPUPROBE_SYNC_KERNELS(mbarrier_test_wait, 1024, GPUPROBE_SYNC_MBARRIER_BODY(mbarrier_test_wait),
                      GPUPROBE_SYNC_MBARRIER_BODY(mbarrier_test_wait))
GPUPROBE_SYNC_KERNELS(mbarrier_try_wait, 1024, GPUPROBE_SYNC_MBARRIER_BODY(mbarrier_try_wait),
                      GPUPROBE_SYNC_MBARRIER_BODY(mbarrier_try_wait))
#undef GPUPROBE_SYNC_MBARRIER_BODY

#define GPUPROBE_SYNC_FENCE_KERNELS(op) \
  GPUPROBE_SYNC_KERNELS(op, 32, (run_fence<op>(a, out)), (run_fence<op>(a, out)))
GPUPROBE_SYNC_FENCE_KERNELS(membar_cta)
GPUPROBE_SYNC_FENCE_KERNELS(membar_gl)
GPUPROBE_SYNC_FENCE_KERNELS(membar_sys)
GPUPROBE_SYNC_FENCE_KERNELS(fence_acq_rel_gpu)
GPUPROBE_SYNC_FENCE_KERNELS(fence_acq_rel_cluster)
GPUPROBE_SYNC_FENCE_KERNELS(fence_proxy_async)
#undef GPUPROBE_SYNC_FENCE_KERNELS
#undef GPUPROBE_SYNC_KERNELS

}  // namespace gpuprobe::probes::sync::device
