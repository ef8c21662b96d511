// The contract between the synchronization kernels (sync.cu) and their host side (sync_ops.cpp,
// sync_cuda.cpp, sync_sim.cpp): the op table, the kernel arguments and what every warp reports.
// Plain C++ that nvcc, NVRTC and g++ all compile.
//
// Two kernels per op:
//   gpuprobe_sync_<op>_lat   one dependent chain per thread: latency. Warp ops launch one warp;
//                            barriers launch one CTA / cluster / grid of the swept size.
//   gpuprobe_sync_<op>_thr   warp ops and the DSMEM chase: kSyncThroughputChains independent
//                            chains per thread; the others one chain, launched with many
//                            independent CTAs on every SM: rate
// Every thread runs `iterations` iterations of the op's ops_per_iteration (unrolled). Lane 0 of
// each warp records %clock64 around the loop (the closing read waits for the chains' results) and
// its SM; when `store` is set it also stores a fingerprint of each chain's values, which the host
// checks against its own simulation of the warp (probes/sync/sync_ops.cpp).
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

namespace gpuprobe::probes::sync {

// The ops, named after their PTX form (ptx/warp.cuh, ptx/barrier.cuh, ptx/mbarrier.cuh). X(op).
//   warp value chains, x = op(x, aux) per lane (aux: a per-lane operand from the host):
//     shfl_idx shfl_up shfl_down shfl_bfly     x = shfl.sync.<mode>(x, aux)
//     vote_any vote_all                        x = vote.sync.<mode>.pred(x != 0)
//     vote_ballot                              x = vote.sync.ballot.b32((x & aux) != 0)
//     match_any match_all                      x = match.sync.<mode>.b32(x)
//     redux_add redux_min                      x = redux.sync.<op>.u32(x)             sm_80+
//     elect                                    x = elect.sync(x | aux)                sm_90+
//     bar_warp_sync                            bar.warp.sync mask (a kernel argument)
//   CTA barriers (the CTA's warps together): bar_sync (bar.sync 0), bar_arrive (a round trip of
//     bar.arrive / bar.sync between the two halves of the CTA), bar_red_popc
//     (x = bar.red.popc((x ^ tid) & 1))
//   clusters (sm_90+): barrier_cluster (arrive.release + wait.acquire), barrier_cluster_relaxed
//     (arrive.relaxed + wait), dsmem_ld (a chase through the next CTA's shared memory: mapa +
//     ld.shared::cluster)
//   grid_sync: the cooperative grid barrier (ptx::grid_sync, what cg::this_grid().sync() is)
//   mbarrier (sm_80+; try_wait sm_90+): mbarrier_test_wait (arrive, then test_wait until the
//     phase completes), mbarrier_try_wait (arrive, then try_wait.parity)
//   fences: membar_cta membar_gl membar_sys fence_acq_rel_gpu, fence_acq_rel_cluster and
//     fence_proxy_async (sm_90+)
#define GPUPROBE_SYNC_OPS(X)                                                                   \
  X(shfl_idx) X(shfl_up) X(shfl_down) X(shfl_bfly) X(vote_any) X(vote_all) X(vote_ballot)      \
  X(match_any) X(match_all) X(redux_add) X(redux_min) X(elect) X(bar_warp_sync) X(bar_sync)    \
  X(bar_arrive) X(bar_red_popc) X(barrier_cluster) X(barrier_cluster_relaxed) X(dsmem_ld)      \
  X(grid_sync) X(mbarrier_test_wait) X(mbarrier_try_wait) X(membar_cta) X(membar_gl)           \
  X(membar_sys) X(fence_acq_rel_gpu) X(fence_acq_rel_cluster) X(fence_proxy_async)

enum class SyncOp {
#define GPUPROBE_SYNC_ENUM(op) op,
  GPUPROBE_SYNC_OPS(GPUPROBE_SYNC_ENUM)
#undef GPUPROBE_SYNC_ENUM
};

// How an op's kernels are built and launched.
enum class SyncShape {
  warp,      // a warp value chain (or bar.warp.sync); latency: one warp
  cta,       // a CTA barrier; latency: one CTA of `warps_per_block` warps
  cluster,   // a cluster barrier; latency: one cluster of `cluster_size` CTAs of one warp
  dsmem,     // the DSMEM chase; latency: one cluster of `cluster_size` CTAs of one warp
  grid,      // the grid barrier; latency: a cooperative grid of `grid_blocks` CTAs (no rate)
  mbarrier,  // an mbarrier arrive + wait; latency: one CTA of one warp
  fence,     // a fence; latency: one warp
};

// What one op counts in a rate: a thread-level access, a warp-wide instruction, or a CTA passing
// a barrier.
enum class SyncUnit { thread, warp, cta };

// PTX ops per chain per loop iteration: the warp collectives and the chase 64 (loop control under
// 5% of the issue slots), the barriers and fences 16 (each costs tens of cycles or more), the
// mbarrier round trips 8 (each has a retry loop), the grid barrier 1.
constexpr uint32_t kSyncValueOpsPerIteration = 64;
constexpr uint32_t kSyncBarrierOpsPerIteration = 16;
constexpr uint32_t kSyncMbarrierOpsPerIteration = 8;
constexpr uint32_t kSyncGridOpsPerIteration = 1;
// Independent chains per thread of a warp-op or chase throughput kernel.
constexpr uint32_t kSyncThroughputChains = 8;
constexpr uint32_t kSyncMaxChains = kSyncThroughputChains;
// The DSMEM ring: 64-bit slots in dynamic shared memory, walked with an odd stride.
constexpr uint32_t kSyncDsmemSlots = 1024;
constexpr uint32_t kSyncDsmemStride = 97;
// The largest portable cluster (non-portable sizes need an opt-in the launch path does not make).
constexpr uint32_t kSyncMaxClusterSize = 8;

struct SyncOpInfo {
  SyncOp op;
  const char* name;
  const char* ptx;
  const char* scope;        // "warp", "cta", "cluster", "gpu", "sys": what the op synchronizes
  SyncShape shape;
  SyncUnit unit;
  uint32_t ops_per_iteration;
  uint32_t thr_chains;      // chains per thread in the throughput kernel
  const char* sweep;        // the latency sweep's variable: "warps_per_block", "cluster_size",
                            // "grid_blocks", or "" (none)
  bool needs_cap;
  ptx::Cap cap;
};

#define GPUPROBE_SYNC_WARP(op, ptx_form, unit_, cap_needed, cap_)                                    \
  {SyncOp::op, #op, ptx_form, "warp", SyncShape::warp, SyncUnit::unit_, kSyncValueOpsPerIteration,   \
   kSyncThroughputChains, "", cap_needed, ptx::Cap::cap_}

inline constexpr SyncOpInfo kSyncOps[] = {
    GPUPROBE_SYNC_WARP(shfl_idx, "shfl.sync.idx.b32", warp, false, sreg_timers),
    GPUPROBE_SYNC_WARP(shfl_up, "shfl.sync.up.b32", warp, false, sreg_timers),
    GPUPROBE_SYNC_WARP(shfl_down, "shfl.sync.down.b32", warp, false, sreg_timers),
    GPUPROBE_SYNC_WARP(shfl_bfly, "shfl.sync.bfly.b32", warp, false, sreg_timers),
    GPUPROBE_SYNC_WARP(vote_any, "vote.sync.any.pred", warp, false, sreg_timers),
    GPUPROBE_SYNC_WARP(vote_all, "vote.sync.all.pred", warp, false, sreg_timers),
    GPUPROBE_SYNC_WARP(vote_ballot, "vote.sync.ballot.b32", warp, false, sreg_timers),
    GPUPROBE_SYNC_WARP(match_any, "match.sync.any.b32", warp, false, sreg_timers),
    GPUPROBE_SYNC_WARP(match_all, "match.sync.all.b32", warp, false, sreg_timers),
    GPUPROBE_SYNC_WARP(redux_add, "redux.sync.add.u32", warp, true, redux_sync),
    GPUPROBE_SYNC_WARP(redux_min, "redux.sync.min.u32", warp, true, redux_sync),
    GPUPROBE_SYNC_WARP(elect, "elect.sync", warp, true, elect_sync),
    GPUPROBE_SYNC_WARP(bar_warp_sync, "bar.warp.sync", warp, false, sreg_timers),
    {SyncOp::bar_sync, "bar_sync", "bar.sync 0", "cta", SyncShape::cta, SyncUnit::cta,
     kSyncBarrierOpsPerIteration, 1, "warps_per_block", false, ptx::Cap::sreg_timers},
    {SyncOp::bar_arrive, "bar_arrive", "bar.arrive + bar.sync (a round trip)", "cta",
     SyncShape::cta, SyncUnit::cta, kSyncBarrierOpsPerIteration, 1, "warps_per_block", false,
     ptx::Cap::sreg_timers},
    {SyncOp::bar_red_popc, "bar_red_popc", "bar.red.popc.u32", "cta", SyncShape::cta,
     SyncUnit::cta, kSyncBarrierOpsPerIteration, 1, "warps_per_block", false, ptx::Cap::sreg_timers},
    {SyncOp::barrier_cluster, "barrier_cluster",
     "barrier.cluster.arrive.release.aligned + barrier.cluster.wait.acquire.aligned", "cluster",
     SyncShape::cluster, SyncUnit::cta, kSyncBarrierOpsPerIteration, 1, "cluster_size", true,
     ptx::Cap::cluster_dsmem},
    {SyncOp::barrier_cluster_relaxed, "barrier_cluster_relaxed",
     "barrier.cluster.arrive.relaxed.aligned + barrier.cluster.wait.aligned", "cluster",
     SyncShape::cluster, SyncUnit::cta, kSyncBarrierOpsPerIteration, 1, "cluster_size", true,
     ptx::Cap::cluster_dsmem},
    {SyncOp::dsmem_ld, "dsmem_ld", "mapa + ld.shared::cluster.u64", "cluster", SyncShape::dsmem,
     SyncUnit::thread, kSyncValueOpsPerIteration, kSyncThroughputChains, "cluster_size", true,
     ptx::Cap::cluster_dsmem},
    {SyncOp::grid_sync, "grid_sync", "grid barrier (cg::this_grid().sync())", "gpu",
     SyncShape::grid, SyncUnit::cta, kSyncGridOpsPerIteration, 1, "grid_blocks", false,
     ptx::Cap::sreg_timers},
    {SyncOp::mbarrier_test_wait, "mbarrier_test_wait",
     "mbarrier.arrive.shared.b64 + mbarrier.test_wait.shared.b64", "cta", SyncShape::mbarrier,
     SyncUnit::warp, kSyncMbarrierOpsPerIteration, 1, "", true, ptx::Cap::mbarrier},
    {SyncOp::mbarrier_try_wait, "mbarrier_try_wait",
     "mbarrier.arrive.shared.b64 + mbarrier.try_wait.parity.shared::cta.b64", "cta",
     SyncShape::mbarrier, SyncUnit::warp, kSyncMbarrierOpsPerIteration, 1, "", true,
     ptx::Cap::mbarrier_try_wait},
    {SyncOp::membar_cta, "membar_cta", "membar.cta", "cta", SyncShape::fence, SyncUnit::warp,
     kSyncBarrierOpsPerIteration, 1, "", false, ptx::Cap::sreg_timers},
    {SyncOp::membar_gl, "membar_gl", "membar.gl", "gpu", SyncShape::fence, SyncUnit::warp,
     kSyncBarrierOpsPerIteration, 1, "", false, ptx::Cap::sreg_timers},
    {SyncOp::membar_sys, "membar_sys", "membar.sys", "sys", SyncShape::fence, SyncUnit::warp,
     kSyncBarrierOpsPerIteration, 1, "", false, ptx::Cap::sreg_timers},
    {SyncOp::fence_acq_rel_gpu, "fence_acq_rel_gpu", "fence.acq_rel.gpu", "gpu", SyncShape::fence,
     SyncUnit::warp, kSyncBarrierOpsPerIteration, 1, "", false, ptx::Cap::sreg_timers},
    {SyncOp::fence_acq_rel_cluster, "fence_acq_rel_cluster", "fence.acq_rel.cluster", "cluster",
     SyncShape::fence, SyncUnit::warp, kSyncBarrierOpsPerIteration, 1, "", true,
     ptx::Cap::cluster_dsmem},
    {SyncOp::fence_proxy_async, "fence_proxy_async", "fence.proxy.async.shared::cta", "cta",
     SyncShape::fence, SyncUnit::warp, kSyncBarrierOpsPerIteration, 1, "", true,
     ptx::Cap::fence_proxy_async},
};
#undef GPUPROBE_SYNC_WARP
inline constexpr unsigned kSyncOpCount = sizeof(kSyncOps) / sizeof(kSyncOps[0]);

GPUPROBE_HD constexpr const SyncOpInfo& sync_op_info(SyncOp op) {
  return kSyncOps[static_cast<unsigned>(op)];
}

namespace detail {
GPUPROBE_HD constexpr bool sync_table_in_enum_order() {
  for (unsigned i = 0; i < kSyncOpCount; ++i)
    if (static_cast<unsigned>(kSyncOps[i].op) != i) return false;
  return true;
}
static_assert(sync_table_in_enum_order(), "kSyncOps must list the SyncOp values in enum order");
}  // namespace detail

// Kernel arguments. `lanes` is a device buffer of 64 words: [0, 32) each lane's start value
// (chain k of lane l starts at lanes[(l + k) % 32]), [32, 64) each lane's operand (aux).
struct SyncArgs {
  const uint32_t* lanes;
  uint64_t iterations;   // of the unrolled loop (ops_per_iteration ops per chain each)
  uint64_t zero;         // a runtime 0: the closing clock read depends on the results
  uint32_t store;        // non-zero: lane 0 of each warp stores its chains' fingerprints
  uint32_t mask;         // 0xffffffff: bar.warp.sync's member mask, warp-uniform
};

// What lane 0 of each warp writes (timing and SM always; result only when `store`).
struct SyncWarpOut {
  uint64_t start_cycles;
  uint64_t end_cycles;
  uint32_t smid;
  uint32_t ran;          // 1 once the warp finished
  // Warp ops: per chain, sum over lanes of value x (2 lane + 1) (mod 2^32). bar_red_popc: the
  // last count. dsmem_ld: per chain, lane 0's slot after the walk. mbarrier: waits completed.
  uint32_t result[kSyncMaxChains];
};

}  // namespace gpuprobe::probes::sync
