// The contract between the synchronization kernels (sync.cu) and their host side (sync.cpp): the
// op table (sync.def), the kernel arguments and what every warp reports. Plain C++ that nvcc,
// NVRTC and g++ all compile.
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
// checks against its own simulation of the warp (probes/sync/sync.cpp).
#pragma once
#include "probes/common/op_order.cuh"
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

namespace gpuprobe::probes::sync {

// The ops (sync.def), in table order.
enum class SyncOp {
#define GPUPROBE_SYNC_OP(op, ...) op,
#include "probes/sync/sync.def"
#undef GPUPROBE_SYNC_OP
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
  ptx::Cap cap;             // what the op needs (sreg_timers: nothing beyond sm_70)
};

inline constexpr SyncOpInfo kSyncOps[] = {
#define GPUPROBE_SYNC_OP(op, ptx_, scope, shape, unit, ops_per_iteration, thr_chains, sweep, cap) \
  {SyncOp::op, #op, ptx_, scope, SyncShape::shape, SyncUnit::unit, ops_per_iteration, thr_chains, sweep, ptx::Cap::cap},
#include "probes/sync/sync.def"
#undef GPUPROBE_SYNC_OP
};

GPUPROBE_HD constexpr const SyncOpInfo& sync_op_info(SyncOp op) {
  return kSyncOps[static_cast<unsigned>(op)];
}

static_assert(in_enum_order(kSyncOps), "kSyncOps must list the SyncOp values in enum order");

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
