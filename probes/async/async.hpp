// The async family's host side (async.cpp): one launch of an op's copy kernel (probes/async/
// async.cuh), of the TMA chase or of the TMA multicast, on the GPU (harness/kernel_runner.hpp) or
// the simulator. Both hand the per-CTA records (AsyncCtaOut) to summarize_async_launch, which
// turns them into the numbers and makes the self-check (the data arrived intact), so the
// arithmetic and the check exist once. The simulator's costs per preset are async_costs.cpp's
// (the preset table "async").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harness/chain.hpp"
#include "harness/device.hpp"
#include "probes/async/async.cuh"
#include "probes/common/op_costs.hpp"
#include "probes/common/op_table.hpp"
#include "probes/common/units.hpp"

namespace gpuprobe::probes {

using async::AsyncEngine;
using async::AsyncOp;

// The probe's kinds of point (async.cpp's header; the kernels: async.cuh).
enum class AsyncKind { latency, throughput, chase, multicast };

inline const async::AsyncOpInfo& async_info(AsyncOp op) { return async::async_op_info(op); }
// Throws a one-line gpuprobe::Error listing the ops when `name` is unknown.
inline AsyncOp parse_async_op(const std::string& name) {
  return find_op(async::kAsyncOps, name, "async op").op;
}

struct AsyncSetup {
  AsyncOp op = AsyncOp::cp_async_ca_16;  // the chase: tma_1d
  AsyncKind kind = AsyncKind::latency;
  uint32_t depth = 1;                    // 1, 2, 4 or 8 (async::kAsyncDepths)
  uint32_t block_threads = 32;           // thread ops: a multiple of 32; bulk, TMA, chase: 32
  uint32_t blocks = 1;
  uint32_t copy_bytes = 0;               // bulk, TMA: bytes per copy; thread ops: set from the
                                         // block (async_copy_bytes)
  uint64_t footprint_bytes = 1 << 20;    // the source: a power of two (chase: a multiple of 128)
  uint32_t cluster_size = 0;             // multicast: CTAs per cluster (1 to 8); else 0
};

struct AsyncRun {
  uint64_t iterations = 64;              // copies per slot (chase: timed hops)
  uint64_t warmup = 0;                   // chase: untimed hops first
  bool store = true;                     // fingerprint the slots (the self-check needs it)
};

// gpuprobe_async_<op>_d<depth>, gpuprobe_async_tma_chase or gpuprobe_async_tma_multicast.
std::string async_kernel_name(const AsyncSetup& setup);
// Bytes one CTA's copy moves: block_threads x the op's bytes per thread for the thread ops,
// copy_bytes for bulk and TMA, 16 for the chase.
uint32_t async_copy_bytes(const AsyncSetup& setup);
// Dynamic shared memory of a launch: depth slots (each rounded up to 128 B) and the mbarriers.
uint64_t async_dynamic_smem_bytes(const AsyncSetup& setup);
// Bytes in flight per SM when `ctas_per_sm` CTAs each keep depth copies in flight.
double async_bytes_in_flight_per_sm(const AsyncSetup& setup, double ctas_per_sm);

// The checks every backend makes before launching: the device has the op (else
// Skip), the launch shape, copy and source fit the op. Throws one-line Errors.
void check_async_fits(const AsyncSetup& setup, const DeviceInfo& info);

// The fingerprint CTA `cta` must report (AsyncCtaOut::result): its slots after the last copy,
// from the source pattern (async.cuh async_pattern / async_source_word).
uint32_t async_reference_fingerprint(const AsyncSetup& setup, const AsyncRun& run, uint32_t cta);

// The chase's ring over setup.footprint_bytes: one random cycle of 128-byte nodes (each node's
// first word holds the next node's word index); the chase starts at node chain.start.
Chain async_chase_chain(const AsyncSetup& setup);
// The word index the chase ends on after run.warmup + run.iterations hops.
uint32_t async_chase_reference(const Chain& chain, const AsyncRun& run);

// Turns the CTAs' records into the result and makes the self-check: every CTA ran, on an SM, with
// end after start, and (run.store) every CTA's fingerprint is the reference (the chase: its last
// coordinate, `chase_reference`); throws gpuprobe::Error "self-check failed ..." otherwise. The
// result counts copies and bytes: ops_per_chain the copies of a CTA (the chase: its timed hops);
// latency_cycles per copy (the median CTA, and the slowest); ops_per_clk_per_sm the bytes per
// clock of an SM, its CTAs' bytes over the span from its first CTA's start to its last CTA's end
// (the median SM, and the spread).
ChainResult summarize_async_launch(const AsyncSetup& setup, const AsyncRun& run,
                                   const std::vector<async::AsyncCtaOut>& ctas, uint32_t chase_reference = 0);

// An op's simulator cost (async_costs.cpp, the preset table "async"; how async.cpp's simulate uses
// it): its rate is the copy engine's (or load path's) limit in bytes per clock per SM; its latency
// (issue to data in shared memory) is latency_cycles for the latency launch's copy from an
// L2-resident source, plus cycles_per_kib per KiB past the first (bulk, TMA: latency against box
// size), plus the preset's DRAM-over-L2 latency when the source is larger than the L2.
struct AsyncCost : OpCost {
  double cycles_per_kib = 0;
  double chase_extra_cycles = 0;  // tma_1d: a TMA chase hop over a plain load's hop
};
using AsyncCosts = std::vector<AsyncCost>;

}  // namespace gpuprobe::probes
