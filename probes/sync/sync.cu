// sync: the synchronization kernels, two per op of sync.def (probes/sync/sync.cuh: the contract and
// the timing bracket). The opening %clock64 read follows the start values' arrival, the closing one
// waits for every chain's result (x & zero, zero a runtime 0), so no op is dead. An op this compile
// pass lacks (redux before sm_80, elect, clusters, try_wait and fence.proxy.async before sm_90,
// mbarrier before sm_80) traps; the host, sync.cpp, refuses it first. Device code only (NVRTC-safe).
#include "harness/cuda/bounded_wait.cuh"
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
// One struct per op: step(x, aux), whether this compile pass has it (kOnThisPass; step exists
// only where it is true) and whether aux is the warp-uniform kernel argument `mask` (kUniformAux).
#define GPUPROBE_SYNC_WARP_STEP(op, body)                                                        \
  struct op {                                                                                    \
    static constexpr bool kOnThisPass = true;                                                    \
    static constexpr bool kUniformAux = false;                                                   \
    static __device__ __forceinline__ uint32_t step(uint32_t x, [[maybe_unused]] uint32_t aux) { \
      return body;                                                                               \
    }                                                                                            \
  };
#define GPUPROBE_SYNC_LACKING(op)              \
  struct op {                                  \
    static constexpr bool kOnThisPass = false; \
  };
// An op whose step has no value (a cluster barrier, a fence): step() runs `calls`.
#define GPUPROBE_SYNC_VOID_STEP(op, calls)                   \
  struct op {                                                \
    static constexpr bool kOnThisPass = true;                \
    static __device__ __forceinline__ void step() { calls; } \
  };
GPUPROBE_SYNC_WARP_STEP(shfl_idx, ptx::shfl_sync_idx_b32(x, aux))
GPUPROBE_SYNC_WARP_STEP(shfl_up, ptx::shfl_sync_up_b32(x, aux))
GPUPROBE_SYNC_WARP_STEP(shfl_down, ptx::shfl_sync_down_b32(x, aux))
GPUPROBE_SYNC_WARP_STEP(shfl_bfly, ptx::shfl_sync_bfly_b32(x, aux))
GPUPROBE_SYNC_WARP_STEP(vote_any, ptx::vote_sync_any_pred(x))
GPUPROBE_SYNC_WARP_STEP(vote_all, ptx::vote_sync_all_pred(x))
GPUPROBE_SYNC_WARP_STEP(vote_ballot, ptx::vote_sync_ballot_b32(x & aux))
GPUPROBE_SYNC_WARP_STEP(match_any, ptx::match_sync_any_b32(x))
GPUPROBE_SYNC_WARP_STEP(match_all, ptx::match_sync_all_b32(x))
#if GPUPROBE_PTX_HAS_REDUX_SYNC
GPUPROBE_SYNC_WARP_STEP(redux_add, ptx::redux_sync_add_u32(x))
GPUPROBE_SYNC_WARP_STEP(redux_min, ptx::redux_sync_min_u32(x))
#else
GPUPROBE_SYNC_LACKING(redux_add)
GPUPROBE_SYNC_LACKING(redux_min)
#endif
// aux is the full mask, from memory: ptxas cannot fold the or, nor prove the mask warp-uniform
// (ptx::elect_sync says what the chain then times).
#if GPUPROBE_PTX_HAS_ELECT_SYNC
GPUPROBE_SYNC_WARP_STEP(elect, ptx::elect_sync(x | aux))
#else
GPUPROBE_SYNC_LACKING(elect)
#endif
// aux is the kernel argument `mask` (warp-uniform): see ptx::bar_warp_sync for what ptxas does.
struct bar_warp_sync {
  static constexpr bool kOnThisPass = true;
  static constexpr bool kUniformAux = true;
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t aux) {
    ptx::bar_warp_sync(aux);
    return x;
  }
};

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

// One chain from x, timed through `iterations` iterations of kOps steps, then recorded: the
// barriers, the mbarriers and the fences.
template <int kOps, class Step>
__device__ __forceinline__ void run_one_chain(const SyncArgs& a, SyncWarpOut* out, uint32_t x, Step&& step) {
  uint32_t chain[1] = {x};
  const uint64_t c0 = ptx::get_sreg_clock64_after(chain[0], a.zero);
  step_chains<kOps>(chain, a.iterations, step);
  const uint64_t c1 = ptx::get_sreg_clock64_after(chain[0], a.zero);
  record(a, out, c0, c1, chain, 1);
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
  const uint32_t x = a.lanes[lane_id()];
  ptx::bar_sync_0();  // every warp starts together
  run_one_chain<kSyncBarrierOpsPerIteration>(a, out, x, [](uint32_t v) { return Op::step(v); });
}

// bar.arrive: the CTA's first half arrives at barrier 1 and waits at 2, the second half waits at
// 1 and arrives at 2, each in its own loop: one op is a round trip (two hand-offs). Needs an even
// number of warps.
struct bar_arrive {};
template <>
__device__ __forceinline__ void run_cta<bar_arrive>(const SyncArgs& a, SyncWarpOut* out) {
  uint32_t x[1] = {a.lanes[lane_id()]};
  const uint32_t n = blockDim.x;
  ptx::bar_sync_0();
  const uint64_t c0 = ptx::get_sreg_clock64_after(x[0], a.zero);
  if (threadIdx.x < n / 2) {
    step_chains<kSyncBarrierOpsPerIteration>(x, a.iterations, [n](uint32_t v) {
      ptx::bar_arrive(1, n);
      ptx::bar_sync(2, n);
      return v;
    });
  } else {
    step_chains<kSyncBarrierOpsPerIteration>(x, a.iterations, [n](uint32_t v) {
      ptx::bar_sync(1, n);
      ptx::bar_arrive(2, n);
      return v;
    });
  }
  const uint64_t c1 = ptx::get_sreg_clock64_after(x[0], a.zero);
  record(a, out, c0, c1, x, 1);
}

// ---- clusters (sm_90+) ----------------------------------------------------------------------
#if GPUPROBE_PTX_HAS_CLUSTER
GPUPROBE_SYNC_VOID_STEP(barrier_cluster, ptx::barrier_cluster_arrive_release_aligned();
                        ptx::barrier_cluster_wait_acquire_aligned())
GPUPROBE_SYNC_VOID_STEP(barrier_cluster_relaxed, ptx::barrier_cluster_arrive_relaxed_aligned();
                        ptx::barrier_cluster_wait_acquire_aligned())

template <class Op>
__device__ __forceinline__ void run_cluster(const SyncArgs& a, SyncWarpOut* out) {
  const uint32_t x = a.lanes[lane_id()];
  ptx::barrier_cluster_arrive_release_aligned();  // every CTA of the cluster starts together
  ptx::barrier_cluster_wait_acquire_aligned();
  run_one_chain<kSyncBarrierOpsPerIteration>(a, out, x, [](uint32_t v) {
    Op::step();
    return v;
  });
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
  step_chains<kPerChain>(x, a.iterations, [](uint64_t v) { return ptx::ld_shared_cluster_u64(v); });
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
// Its poll under the deadline of harness/cuda/bounded_wait.cuh (a grid that is not co-resident
// never completes it). The wait's `iteration` is 0: the chain has no counter to spare.
struct BoundedGridWait {
  __device__ __forceinline__ void operator()(uint64_t arrived, uint32_t old) const {
    cuda::wait_word_changed(arrived, old, 0x80000000u, cuda::WaitKind::grid_barrier, 0);
  }
};

__device__ __forceinline__ void run_grid(const SyncArgs& a, SyncWarpOut* out) {
  const uint32_t x = a.lanes[lane_id()];
  ptx::grid_sync(BoundedGridWait{});  // every CTA starts together
  run_one_chain<1>(a, out, x, [](uint32_t v) {
    ptx::grid_sync(BoundedGridWait{});
    return v;
  });
}

// ---- mbarrier: every thread of the CTA arrives, then waits for the phase to complete ----------
#if GPUPROBE_PTX_HAS_MBARRIER
struct mbarrier_test_wait {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ uint32_t step(uint32_t bar, uint32_t done) {
    const uint64_t state = ptx::mbarrier_arrive_shared_b64(bar);
    cuda::wait_mbarrier_state(bar, state, done & 1, done);
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
    cuda::wait_mbarrier_parity(bar, done & 1, done, 0);
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
  const uint32_t done = a.lanes[lane_id()] & a.zero;  // 0
  run_one_chain<kSyncMbarrierOpsPerIteration>(a, out, done, [&](uint32_t d) { return Op::step(bar, d); });
}
#endif

// ---- fences -----------------------------------------------------------------------------------
GPUPROBE_SYNC_VOID_STEP(membar_cta, ptx::membar_cta())
GPUPROBE_SYNC_VOID_STEP(membar_gl, ptx::membar_gl())
GPUPROBE_SYNC_VOID_STEP(membar_sys, ptx::membar_sys())
GPUPROBE_SYNC_VOID_STEP(fence_acq_rel_gpu, ptx::fence_acq_rel_gpu())
#if GPUPROBE_PTX_HAS_CLUSTER
GPUPROBE_SYNC_VOID_STEP(fence_acq_rel_cluster, ptx::fence_acq_rel_cluster())
GPUPROBE_SYNC_VOID_STEP(fence_proxy_async, ptx::fence_proxy_async_shared_cta())
#else
GPUPROBE_SYNC_LACKING(fence_acq_rel_cluster)
GPUPROBE_SYNC_LACKING(fence_proxy_async)
#endif

template <class Op>
__device__ __forceinline__ void run_fence(const SyncArgs& a, SyncWarpOut* out) {
  run_one_chain<kSyncBarrierOpsPerIteration>(a, out, a.lanes[lane_id()], [](uint32_t v) {
    Op::step();
    return v;
  });
}

// Both kernels of each op of sync.def, from its shape: GPUPROBE_SYNC_RUN_<shape>(op, chains) is
// the body, a statement (chains: 1 in the latency kernel, kSyncThroughputChains in the throughput
// one, where the warp ops and the DSMEM chase use it); GPUPROBE_SYNC_ON_PASS(op, run) traps where
// this pass lacks the op. A latency launch of a warp op or a fence is one warp.
#define GPUPROBE_SYNC_ON_PASS(op, run) \
  if constexpr (op::kOnThisPass) run;  \
  else __trap()
#define GPUPROBE_SYNC_RUN_warp(op, chains) GPUPROBE_SYNC_ON_PASS(op, (run_warp<op, chains>(a, out)))
#define GPUPROBE_SYNC_RUN_cta(op, chains) run_cta<op>(a, out)
#define GPUPROBE_SYNC_RUN_grid(op, chains) run_grid(a, out)
#define GPUPROBE_SYNC_RUN_fence(op, chains) GPUPROBE_SYNC_ON_PASS(op, run_fence<op>(a, out))
#if GPUPROBE_PTX_HAS_CLUSTER
#define GPUPROBE_SYNC_RUN_cluster(op, chains) run_cluster<op>(a, out)
#define GPUPROBE_SYNC_RUN_dsmem(op, chains) run_dsmem<chains>(a, out)
#else
#define GPUPROBE_SYNC_RUN_cluster(op, chains) __trap()
#define GPUPROBE_SYNC_RUN_dsmem(op, chains) __trap()
#endif
#if GPUPROBE_PTX_HAS_MBARRIER
#define GPUPROBE_SYNC_RUN_mbarrier(op, chains)             \
  if constexpr (op::kOnThisPass) run_mbarrier<op>(a, out); \
  else __trap()
#else
#define GPUPROBE_SYNC_RUN_mbarrier(op, chains) __trap()
#endif
__host__ __device__ constexpr int latency_bound(SyncShape shape) {
  return shape == SyncShape::warp || shape == SyncShape::fence ? 32 : 1024;
}
#define GPUPROBE_SYNC_OP(op, ptx_, scope, shape, ...)                           \
  extern "C" __global__ void __launch_bounds__(latency_bound(SyncShape::shape)) \
      gpuprobe_sync_##op##_lat(SyncArgs a, SyncWarpOut* out) {                  \
    GPUPROBE_SYNC_RUN_##shape(op, 1);                                           \
  }                                                                             \
  extern "C" __global__ void __launch_bounds__(1024)                            \
      gpuprobe_sync_##op##_thr(SyncArgs a, SyncWarpOut* out) {                  \
    GPUPROBE_SYNC_RUN_##shape(op, kSyncThroughputChains);                       \
  }
#include "probes/sync/sync.def"
#undef GPUPROBE_SYNC_OP

}  // namespace gpuprobe::probes::sync::device
