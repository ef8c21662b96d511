// The sync family's host side (sync.cpp): one launch of an op's latency or throughput kernel
// (probes/sync/sync.cuh), on the GPU (harness/kernel_runner.hpp) or the simulator. Both hand the
// per-warp records (SyncWarpOut) to summarize_sync_launch, which turns them into the numbers and
// makes the self-check, so the arithmetic and the check exist once. The simulator's costs per
// preset are sync_costs.cpp's (the preset table "sync").
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/device.hpp"
#include "probes/common/op_costs.hpp"
#include "probes/common/op_table.hpp"
#include "probes/common/units.hpp"
#include "probes/sync/sync.cuh"

namespace gpuprobe::probes {

using sync::SyncOp;

inline const sync::SyncOpInfo& sync_info(SyncOp op) { return sync::sync_op_info(op); }
// Throws a one-line gpuprobe::Error listing the ops when `name` is unknown.
inline SyncOp parse_sync_op(const std::string& name) { return find_op(sync::kSyncOps, name, "sync op").op; }
uint32_t sync_chains(SyncOp op, Kind kind);

// latency: one dependent chain per thread, in the smallest launch the op allows (one warp, or one
// CTA / cluster / grid of the swept size); throughput: many independent chains or CTAs per SM.
struct SyncSetup {
  SyncOp op = SyncOp::shfl_idx;
  Kind kind = Kind::latency;
  uint32_t block_threads = 32;   // a multiple of 32; bar_arrive: an even number of warps
  uint32_t blocks = 1;
  uint32_t cluster_size = 0;     // cluster and DSMEM ops: CTAs per cluster (1 to 8); else 0
};

struct SyncRun {
  uint64_t iterations = 64;      // of the unrolled loop (ops_per_iteration ops per chain each)
};

// The 64 words of the kernel's `lanes` buffer: each lane's start value, then its operand.
std::array<uint32_t, 64> sync_lane_words(SyncOp op);

// The result word the host expects from chain `chain` of the first warp (SyncWarpOut::result)
// after `ops` ops: a warp op's fingerprint from simulating the 32 lanes, the CTA count of
// bar_red_popc, the DSMEM slot, the mbarrier phases, else lane 0's untouched start value.
uint32_t sync_reference(SyncOp op, const SyncSetup& setup, uint32_t chain, uint64_t ops);

// The checks every backend makes before launching: the device has the op (else Skip), the launch
// shape fits the op. Throws one-line Errors.
void check_sync_fits(const SyncSetup& setup, const DeviceInfo& info);

// The result and the self-check: every warp ran, on an SM, with end after start, and every
// chain's result is the reference; throws gpuprobe::Error "self-check failed ..." otherwise.
// Latency: per warp, its cycles over its chain's ops (the median warp and the slowest). Rate: per
// SM, the op's units (threads, warps or CTAs) x chains x ops over the cycles from its first warp's
// start to its last warp's end.
ChainResult summarize_sync_launch(const SyncSetup& setup, const SyncRun& run,
                                  const std::vector<sync::SyncWarpOut>& warps);

// An op's simulator cost (sync_costs.cpp): its rate counts the op's unit (sync::SyncUnit: a
// thread's load, a warp-wide instruction, a CTA passing a barrier) per clock per SM, 0 for none
// (grid_sync); its latency depends on the op's swept variable x (warps per block, CTAs per
// cluster, grid blocks; 1 where the op has no sweep): sync_latency_cycles().
struct SyncCost : OpCost {
  double per_doubling_cycles = 0;  // added per doubling of x, up to saturates_at
  double saturates_at = 1e9;
  double per_unit_cycles = 0;      // added per unit of x beyond 1
};
using SyncCosts = std::vector<SyncCost>;

inline double sync_latency_cycles(const SyncCost& m, double x) {
  const double capped = x < 1 ? 1 : (x > m.saturates_at ? m.saturates_at : x);
  return m.latency_cycles + m.per_doubling_cycles * std::log2(capped) + m.per_unit_cycles * (x < 1 ? 0 : x - 1);
}

}  // namespace gpuprobe::probes
