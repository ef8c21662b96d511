// async/copy: what moving global memory into shared memory costs, per op of
// probes/async/async.def (cp.async at 4, 8 and 16 bytes, .ca and .cg; the bulk copy; TMA 1D and
// 2D; and the same traffic through ld.global + st.shared for comparison):
//   latency     one copy at a time from an L2-resident source (cycles per copy, and ns at the SM
//               clock measured right after); bulk and TMA against the copy's size
//   throughput  bytes per clock per SM (and per second) against bytes in flight per SM: depth 1 to
//               8 copies in flight per thread (thread ops) or CTA (bulk, TMA), then more CTAs per SM,
//               from a source four times the L2
//   chase       a TMA 1D pointer chase (16-byte boxes, the next coordinate in the box) against the
//               footprint, from 1 MiB to four times the L2 at four points per octave
//   multicast   TMA 2D boxes of 4 KiB multicast to every CTA of clusters of 1, 2, 4, 8 one-warp
//               CTAs (one CTA per SM): cycles per round (one cluster barrier included) and the
//               bytes every SM receives (sm_90a kernel)
// Each point repeats its launch until stable; every launch's CTAs pass the self-check (the slots'
// data is the source's; the chase ends where the host's walk does). An op the device lacks is
// recorded as skipped with the reason. The kernels are async.cu and multicast.sm90a.cu; the
// simulator's costs per preset are async_costs.cpp.
#include "probes/async/async.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "harness/self_check.hpp"
#include "harness/axes.hpp"
#include "harness/kernel_runner.hpp"
#include "harness/points.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/common/op_probe.hpp"
#include "probes/sync/sync.hpp"
#include "ptx/capability.hpp"

// The kernels (async.cuh), weak as probes/common/op_table.hpp's KernelPair are; the multicast is
// built only for sm_90a.
#define GPUPROBE_ASYNC_KERNEL_(name)                                                  \
  extern "C" __attribute__((weak)) void name(gpuprobe::probes::async::AsyncArgs,      \
                                             gpuprobe::probes::async::AsyncTensorMap, \
                                             gpuprobe::probes::async::AsyncCtaOut*);
#define GPUPROBE_ASYNC_DEPTH_KERNEL_(op, depth) GPUPROBE_ASYNC_KERNEL_(gpuprobe_async_##op##_d##depth)
#define GPUPROBE_ASYNC_OP(op, ...) GPUPROBE_ASYNC_DEPTHS(GPUPROBE_ASYNC_DEPTH_KERNEL_, op)
#include "probes/async/async.def"
#undef GPUPROBE_ASYNC_OP
GPUPROBE_ASYNC_KERNEL_(gpuprobe_async_tma_chase)
GPUPROBE_ASYNC_KERNEL_(gpuprobe_async_tma_multicast)
#undef GPUPROBE_ASYNC_DEPTH_KERNEL_
#undef GPUPROBE_ASYNC_KERNEL_

namespace gpuprobe::probes {

namespace {

using async::AsyncArgs;
using async::AsyncCtaOut;
using async::AsyncTensorMap;

constexpr const char* kFamily = "async";

// Per op (table order) its kernels at depth 1, 2, 4 and 8 (async::kAsyncDepths).
const void* const kKernels[][std::size(async::kAsyncDepths)] = {
#define GPUPROBE_ASYNC_DEPTH_ENTRY_(op, depth) reinterpret_cast<const void*>(&gpuprobe_async_##op##_d##depth),
#define GPUPROBE_ASYNC_OP(op, ...) {GPUPROBE_ASYNC_DEPTHS(GPUPROBE_ASYNC_DEPTH_ENTRY_, op)},
#include "probes/async/async.def"
#undef GPUPROBE_ASYNC_OP
#undef GPUPROBE_ASYNC_DEPTH_ENTRY_
};

bool single_issuer(AsyncEngine e) {
  return e == AsyncEngine::bulk || e == AsyncEngine::tma_1d || e == AsyncEngine::tma_2d;
}

// The seed of the chase's ring (any fixed value: the host and every backend build the same one).
constexpr uint64_t kChaseSeed = 0xA5C0;
constexpr uint32_t kChaseNodeBytes = 128;

}  // namespace

std::string async_kernel_name(const AsyncSetup& s) {
  if (s.kind == AsyncKind::chase) return "gpuprobe_async_tma_chase";
  if (s.kind == AsyncKind::multicast) return "gpuprobe_async_tma_multicast";
  return std::string("gpuprobe_async_") + async_info(s.op).name + "_d" + std::to_string(s.depth);
}

uint32_t async_copy_bytes(const AsyncSetup& s) {
  if (s.kind == AsyncKind::chase) return 4 * async::kAsyncChaseBoxWords;
  const auto& info = async_info(s.op);
  return info.thread_bytes != 0 ? s.block_threads * info.thread_bytes : s.copy_bytes;
}

uint64_t async_dynamic_smem_bytes(const AsyncSetup& s) {
  if (s.kind == AsyncKind::chase) return 128 + 8;  // the 16-byte slot, its mbarrier at 128
  const uint64_t slot = (uint64_t{async_copy_bytes(s)} + 127) / 128 * 128;
  return s.depth * slot + (single_issuer(async_info(s.op).engine) ? 8ull * s.depth : 0);
}

double async_bytes_in_flight_per_sm(const AsyncSetup& s, double ctas_per_sm) {
  return ctas_per_sm * s.depth * async_copy_bytes(s);
}

void check_async_fits(const AsyncSetup& s, const DeviceInfo& info) {
  const auto& op = async_info(s.op);
  const bool chase = s.kind == AsyncKind::chase, multicast = s.kind == AsyncKind::multicast;
  require_cap(chase ? ptx::Cap::bulk_copy : multicast ? ptx::Cap::bulk_multicast : op.cap,
              chase ? "the TMA chase" : multicast ? "the TMA multicast" : op.ptx, info);
  const std::string kernel = async_kernel_name(s);
  if (chase) {
    if (s.op != AsyncOp::tma_1d) throw Error(kernel + ": the chase is a TMA 1D chase (op tma_1d)");
    if (s.blocks != 1 || s.block_threads != 32 || s.depth != 1)
      throw Error(kernel + ": a chase launch is one CTA of one warp");
    if (s.footprint_bytes < 2 * kChaseNodeBytes || s.footprint_bytes % kChaseNodeBytes != 0 ||
        s.footprint_bytes / 4 > UINT32_MAX)
      throw Error(kernel + ": a chase footprint is a multiple of 128 bytes from 256 B to 16 GiB");
    return;
  }
  if (multicast) {
    if (s.op != AsyncOp::tma_2d) throw Error(kernel + ": the multicast is a TMA 2D multicast (op tma_2d)");
    if (s.cluster_size < 1 || s.cluster_size > 8 || s.blocks == 0 || s.blocks % s.cluster_size != 0)
      throw Error(kernel + ": " + std::to_string(s.blocks) + " CTAs are not whole clusters of 1 to 8 (" +
                  std::to_string(s.cluster_size) + ")");
    if (s.block_threads != 32 || s.depth != 1)
      throw Error(kernel + ": a multicast launch is one warp per CTA, one copy in flight");
  } else if (s.cluster_size != 0) {
    throw Error(kernel + ": only the multicast launches clusters");
  }
  if (std::find(std::begin(async::kAsyncDepths), std::end(async::kAsyncDepths), s.depth) ==
      std::end(async::kAsyncDepths))
    throw Error(kernel + ": depth " + std::to_string(s.depth) + " is not 1, 2, 4 or 8");
  if (s.kind == AsyncKind::latency && (s.blocks != 1 || s.depth != 1 || s.block_threads != 32))
    throw Error(kernel + ": a latency launch is the depth-1 kernel in one CTA of one warp");
  if (single_issuer(op.engine) && s.block_threads != 32)
    throw Error(kernel + ": bulk and TMA launches are one warp per CTA");
  check_blocks(kernel, s.block_threads, s.blocks, async::kAsyncMaxBlockThreads);
  const uint32_t bytes = async_copy_bytes(s);
  switch (op.engine) {
    case AsyncEngine::bulk:
    case AsyncEngine::tma_1d:
      if (bytes < 16 || bytes % 16 != 0 ||
          (op.engine == AsyncEngine::tma_1d && bytes > 4 * async::kAsyncTma1dMaxBoxWords))
        throw Error(kernel +
                    (op.engine == AsyncEngine::bulk
                         ? ": a bulk copy is a positive multiple of 16 bytes, not "
                         : ": a TMA 1D box is 16 to 1024 bytes in steps of 16, not ") +
                    std::to_string(bytes));
      break;
    case AsyncEngine::tma_2d: {
      const uint32_t rows = bytes / (4 * async::kAsyncTma2dBoxWords);
      if (bytes % (4 * async::kAsyncTma2dBoxWords) != 0 || !std::has_single_bit(rows) || rows > 256)
        throw Error(kernel + ": a TMA 2D box is 64 words by 1 to 256 rows (a power of two), not " +
                    std::to_string(bytes) + " bytes");
      if (s.footprint_bytes < uint64_t{4} * async::kAsyncTma2dRowWords * rows)
        throw Error(kernel + ": the source must hold at least one band of " + std::to_string(rows) +
                    " rows of 4 KiB");
      break;
    }
    default: break;
  }
  if (!std::has_single_bit(s.footprint_bytes) || s.footprint_bytes < bytes)
    throw Error(kernel + ": the source (" + std::to_string(s.footprint_bytes) +
                " bytes) must be a power of two of at least one copy (" + std::to_string(bytes) + " bytes)");
  const uint64_t smem = async_dynamic_smem_bytes(s);
  if (info.shared_memory_per_block_optin_bytes != 0 && smem > info.shared_memory_per_block_optin_bytes)
    throw Error(kernel + ": " + std::to_string(s.depth) + " slots of " + std::to_string(bytes) +
                " bytes need " + std::to_string(smem) + " bytes of shared memory; " + info.name + " allows " +
                std::to_string(info.shared_memory_per_block_optin_bytes) + " per block");
}

uint32_t async_reference_fingerprint(const AsyncSetup& s, const AsyncRun& run, uint32_t cta) {
  const auto& info = async_info(s.op);
  const uint64_t copy_words = async_copy_bytes(s) / 4, src_words = s.footprint_bytes / 4;
  const uint32_t box_rows = static_cast<uint32_t>(copy_words / async::kAsyncTma2dBoxWords);
  uint32_t sum = 0;
  for (uint32_t slot = 0; slot < s.depth; ++slot) {
    const uint64_t c = s.kind == AsyncKind::multicast
                           ? (run.iterations - 1) * (s.blocks / s.cluster_size) + cta / s.cluster_size
                           : async::async_copy_index(run.iterations - 1, cta, s.blocks, slot, s.depth);
    for (uint32_t j = 0; j < copy_words; ++j) {
      const uint64_t word = async::async_source_word(info.engine, c, j, copy_words, src_words, box_rows);
      sum += async::async_fingerprint_step(static_cast<uint32_t>(slot * copy_words + j),
                                           async::async_pattern(word));
    }
  }
  return sum;
}

Chain async_chase_chain(const AsyncSetup& s) {
  return make_random_cycle(s.footprint_bytes, kChaseNodeBytes, kChaseSeed);
}

uint32_t async_chase_reference(const Chain& chain, const AsyncRun& run) {
  const uint32_t slot = walk(chain, chain.start, run.warmup + run.iterations);
  return static_cast<uint32_t>(chain.offset_bytes[slot] / 4);
}

ChainResult summarize_async_launch(const AsyncSetup& s, const AsyncRun& run,
                                   const std::vector<AsyncCtaOut>& ctas, uint32_t chase_reference) {
  const std::string kernel = async_kernel_name(s);
  const bool chase = s.kind == AsyncKind::chase;
  const double bytes = async_copy_bytes(s);
  const uint64_t copies = chase ? run.iterations : run.iterations * s.depth;
  const ChainResult r = summarize_units(ctas, s.blocks, kernel, "CTA", copies, [&](const SmSpan& span) {
    return double(span.units) * double(copies) * bytes / span.cycles();
  });
  for (uint32_t b = 0; run.store && b < ctas.size(); ++b) {
    const uint32_t got = ctas[b].result;
    const uint32_t want = chase ? chase_reference : async_reference_fingerprint(s, run, b);
    if (got != want)
      throw SelfCheckFailed(kernel + " CTA " + std::to_string(b) +
                            (chase ? " ended the chase on word 0x" : " holds data with fingerprint 0x") +
                            hex_of(got) + ", expected 0x" + hex_of(want) +
                            " (the copies did not bring the source intact)");
  }
  return r;
}

namespace {

constexpr uint64_t kMaxIterations = uint64_t{1} << 20;
constexpr uint64_t kLatencyFootprintBytes = 1ull << 20;  // L2-resident everywhere
// Bulk and TMA latency sweeps (bytes per copy) and their throughput copy.
const std::vector<uint32_t> kBulkSizes = {16, 64, 256, 1024, 4096, 16384, 65536};
const std::vector<uint32_t> kTma1dSizes = {16, 64, 256, 1024};
const std::vector<uint32_t> kTma2dSizes = {256, 1024, 4096, 16384, 65536};  // 64 words x 1..256 rows
constexpr uint32_t kBulkThroughputBytes = 4096;
constexpr uint32_t kTma1dThroughputBytes = 1024;
// The chase: up to this many warm-up hops (the ring once, for the L2's plateau).
constexpr uint64_t kChaseMaxWarmupHops = uint64_t{1} << 18;
constexpr uint32_t kChasePointsPerOctave = 4;
constexpr uint64_t kChaseFirstFootprintBytes = 1ull << 20;

LaunchConfig config_of(const AsyncSetup& s) {
  return launch_config(s.blocks, s.block_threads, async_dynamic_smem_bytes(s), s.cluster_size);
}

// ---- on a GPU -----------------------------------------------------------------------------------

// The source buffer of a probe run's GPU launches (the pattern, or the chase's ring), kept between
// launches of the same footprint (a point's repeats).
struct Source {
  DeviceBuffer buffer;
  uint64_t words = 0;
  bool chase = false;
};

// The TMA descriptor of a TMA op over the source (32-bit words): 1D boxes of copy_bytes / 4 words
// (the chase: 4), or 2D boxes of 64 words by box_rows rows over rows of 1024 words.
AsyncTensorMap tensor_map(KernelRunner& gpu, const AsyncSetup& s, const void* src) {
  const uint64_t words = s.footprint_bytes / 4;
  const uint32_t copy_words = async_copy_bytes(s) / 4;
  TiledTensor t;
  t.base = src;
  if (s.kind != AsyncKind::chase && async_info(s.op).engine == AsyncEngine::tma_2d) {
    t.rank = 2;
    t.dims[0] = async::kAsyncTma2dRowWords;
    t.dims[1] = words / async::kAsyncTma2dRowWords;
    t.row_stride_bytes = 4ull * async::kAsyncTma2dRowWords;
    t.box[0] = async::kAsyncTma2dBoxWords;
    t.box[1] = copy_words / async::kAsyncTma2dBoxWords;
  } else {
    t.dims[0] = words;
    t.box[0] = copy_words;
  }
  static_assert(sizeof(TensorMap) == sizeof(AsyncTensorMap), "a TMA descriptor is 128 bytes");
  const TensorMap map = gpu.encode_tensor_map(t, async_kernel_name(s));
  AsyncTensorMap out;
  std::memcpy(&out, &map, sizeof out);
  return out;
}

const void* kernel_of(const AsyncSetup& s) {
  if (s.kind == AsyncKind::chase) return reinterpret_cast<const void*>(&gpuprobe_async_tma_chase);
  if (s.kind == AsyncKind::multicast) return reinterpret_cast<const void*>(&gpuprobe_async_tma_multicast);
  const auto depth = std::find(std::begin(async::kAsyncDepths), std::end(async::kAsyncDepths), s.depth);
  return kKernels[static_cast<unsigned>(s.op)][depth - std::begin(async::kAsyncDepths)];
}

// Timed in the kernel by %clock64 (each CTA's own bracket; only compared within one SM).
ChainResult run_on_gpu(KernelRunner& gpu, const AsyncSetup& s, const AsyncRun& run, Source& source) {
  check_async_fits(s, gpu.info());
  const void* kernel = kernel_of(s);
  if (s.kind == AsyncKind::multicast && gpu.info().cc.sm() != 90)
    skip("the TMA multicast kernel is built for sm_90a only; " + gpu.info().name + " is sm_" +
         std::to_string(gpu.info().cc.sm()));
  if (s.kind == AsyncKind::multicast && kernel == nullptr)
    skip("the TMA multicast kernel is built for sm_90a only (probes/async/multicast.sm90a.cu), and this "
         "build has no sm_90a code");
  const std::string name = async_kernel_name(s);
  if (run.iterations == 0) throw Error(name + ": no iterations");
  const bool chase = s.kind == AsyncKind::chase;
  const uint64_t words = s.footprint_bytes / 4;
  // The source: the pattern, or the chase's ring (every node's first word the next node's).
  Chain ring;
  if (chase) ring = async_chase_chain(s);
  if (source.words != words || source.chase != chase) {
    std::vector<uint32_t> host(words, 0);
    if (chase) {
      for (uint64_t i = 0; i < ring.slots(); ++i)
        host[ring.offset_bytes[i] / 4] = static_cast<uint32_t>(ring.offset_bytes[ring.next[i]] / 4);
    } else {
      for (uint64_t i = 0; i < words; ++i) host[i] = async::async_pattern(i);
    }
    source = Source{};  // the last launch's source freed first
    source = Source{gpu.upload(host), words, chase};
  }
  const uint32_t copy_bytes = async_copy_bytes(s), box_rows = copy_bytes / (4 * async::kAsyncTma2dBoxWords);
  const AsyncArgs args{
      .src = static_cast<const uint32_t*>(source.buffer.get()),
      .src_words = words,
      .iterations = run.iterations,
      .warmup = chase ? run.warmup : 0,
      .zero = 0,
      .tma2d_tiles = box_rows == 0 ? 1 : words / (uint64_t{async::kAsyncTma2dBoxWords} * box_rows),
      .copy_bytes = copy_bytes,
      .box_rows = box_rows,
      .start_word = chase ? static_cast<uint32_t>(ring.offset_bytes[ring.start] / 4) : 0,
      .store = run.store};
  const AsyncEngine engine = async_info(s.op).engine;
  const AsyncTensorMap map = chase || engine == AsyncEngine::tma_1d || engine == AsyncEngine::tma_2d
                                 ? tensor_map(gpu, s, args.src)
                                 : AsyncTensorMap{};
  LaunchRecord record;
  const auto ctas = run_units<AsyncCtaOut>(gpu, kernel, name, config_of(s), args, s.blocks, record, map);
  const uint32_t chase_end = chase && run.store ? async_chase_reference(ring, run) : 0;
  return with_launch(summarize_async_launch(s, run, ctas, chase_end), record);
}

// ---- on the simulator ---------------------------------------------------------------------------

// The whole device's bandwidth at a level in bytes per SM clock (0: no limit known).
double level_bytes_per_clk(const sim::Preset& p, const char* level) {
  for (const auto& b : p.bandwidth) {
    if (b.level != level) continue;
    double peak = b.peak_bytes_per_s / (p.info.rated_sm_clock_mhz * 1e6);
    if (b.peak_bytes_per_clk_per_sm > 0) {
      const double ports = b.peak_bytes_per_clk_per_sm * p.info.sm_count;
      peak = peak > 0 ? std::min(peak, ports) : ports;
    }
    return peak;
  }
  return 0;
}

// A copy's latency and its op's rate are the preset's AsyncCost (async.hpp): a latency launch takes
// copies x latency; on every SM a throughput launch moves its CTAs' bytes at the least of the op's
// rate, the SM's share of the source level's bandwidth (the preset's L2 or DRAM) and the bytes in
// flight over the copy's latency (Little's law). A multicast round is one cluster barrier (the sync
// family's table, at the cluster size) and one copy, on every CTA. The TMA chase walks the
// simulator's caches from the L2 (SimDevice::walk, as memory/chase .cg does) and adds the TMA's
// extra cycles per hop. The CTAs' fingerprints are the host's reference; the timing carries the
// preset's relative noise (simulate_units).
ChainResult simulate(sim::SimDevice& device, const AsyncSetup& s, const AsyncRun& run) {
  const sim::Preset& p = device.preset();
  const AsyncCosts& costs = op_costs<AsyncCost>(p, kFamily);
  check_async_fits(s, device.info());
  const AsyncCost& cost = op_cost(p, costs, async_info(s.op).name);
  const std::string kernel = async_kernel_name(s);
  const uint64_t seed = std::hash<std::string>{}(kernel) ^ s.blocks ^ (s.footprint_bytes << 8) ^
                        (uint64_t(s.copy_bytes) << 40) ^ device.next_launch(kFamily);
  const double bytes = async_copy_bytes(s);
  const bool from_dram = s.footprint_bytes > p.info.l2_bytes;
  const double latency = cost.latency_cycles + cost.cycles_per_kib * std::max(0.0, bytes / 1024 - 1) +
                         (from_dram ? p.dram_latency_cycles - cache_hit_cycles(p, "L2") : 0);
  std::vector<AsyncCtaOut> ctas;
  uint32_t chase_end = 0;
  if (s.kind == AsyncKind::chase) {
    const Chain chain = async_chase_chain(s);
    sim::WalkSpec spec;
    spec.from_l1 = false;  // TMA reads through the L2
    spec.phase_hops = {run.warmup, run.iterations};
    spec.keep_each_hop = {false, false};
    const sim::WalkResult walked = device.walk(chain, spec);
    const double cycles = walked.phase_cycles[1] + double(run.iterations) * cost.chase_extra_cycles;
    ctas = simulate_units<AsyncCtaOut>(p, 1, 1, seed, [&](uint32_t, uint32_t) { return cycles; });
    ctas[0].result = static_cast<uint32_t>(chain.offset_bytes[walked.final_slot] / 4);
    chase_end = async_chase_reference(chain, run);
  } else if (s.kind == AsyncKind::multicast) {
    static const SyncCosts kNone;  // no sync table: no model of the cluster barrier either
    const SyncCosts* sync = p.table<SyncCosts>("sync");
    const double round =
        latency + sync_latency_cycles(op_cost(p, sync ? *sync : kNone, "barrier_cluster"), s.cluster_size);
    ctas = simulate_units<AsyncCtaOut>(p, s.blocks, 1, seed,
                                       [&](uint32_t, uint32_t) { return double(run.iterations) * round; });
  } else {
    const double level_share = level_bytes_per_clk(p, from_dram ? "DRAM" : "L2") / p.info.sm_count;
    ctas = simulate_units<AsyncCtaOut>(p, s.blocks, 1, seed, [&](uint32_t, uint32_t n) {
      if (n == 0) return 0.0;
      const double moved = double(n) * run.iterations * s.depth * bytes;
      double rate = std::min(cost.rate, async_bytes_in_flight_per_sm(s, n) / latency);
      if (level_share > 0) rate = std::min(rate, level_share);
      return std::max(double(run.iterations) * latency, moved / rate);
    });
  }
  for (uint32_t b = 0; s.kind != AsyncKind::chase && b < s.blocks; ++b)
    ctas[b].result = run.store ? async_reference_fingerprint(s, run, b) : 0;
  return with_launch(summarize_async_launch(s, run, ctas, chase_end), {kernel, config_of(s)});
}

ChainResult launch(Device& device, const AsyncSetup& s, const AsyncRun& run, Source& source) {
  if (auto* sim = dynamic_cast<sim::SimDevice*>(&device)) return simulate(*sim, s, run);
  return run_on_gpu(kernel_runner(device), s, run, source);
}

// ---- the probe ----------------------------------------------------------------------------------

nlohmann::json measure(ProbeContext& ctx, const AsyncSetup& s, const AsyncRun& run, Source& source) {
  const auto& info = async_info(s.op);
  nlohmann::json fields = {{"synchronous", info.engine == AsyncEngine::thread_sync},
                           {"copy_bytes", async_copy_bytes(s)},
                           {"footprint_bytes", s.footprint_bytes},
                           {"block_threads", s.block_threads},
                           {"blocks", s.blocks}};
  if (s.cluster_size != 0) fields["cluster_size"] = s.cluster_size;
  if (s.kind == AsyncKind::chase) fields["warmup_hops"] = run.warmup;
  ChainPoint c = measure_op_point(ctx, s.kind != AsyncKind::throughput, "bytes", run.iterations, info.ptx,
                                  std::move(fields), [&] { return launch(ctx.device(), s, run, source); });
  const ChainResult& first = c.first;
  if (c.skipped) return c.point;
  if (s.kind == AsyncKind::multicast) {
    // A round's latency (one cluster barrier included) and the bytes every CTA receives.
    c.point["bytes_per_clk_per_sm"] = first.ops_per_clk_per_sm;
    c.point["bytes_per_s"] = first.ops_per_clk_per_sm * ctx.device().info().sm_count * c.clock_mhz * 1e6;
  } else if (s.kind == AsyncKind::throughput) {
    // depth and ctas_per_sm are the point's axes.
    c.point["bytes_in_flight_per_sm"] = async_bytes_in_flight_per_sm(s, double(s.blocks) / first.sms);
  } else {
    c.point["slowest_cta_cycles"] = first.latency_cycles_max;
  }
  return c.point;
}

// What a probe run's launches come from: its parameters and the device.
struct Plan {
  const DeviceInfo& info;
  uint32_t threads;    // --block-threads
  AsyncRun run;        // --iterations
  uint64_t hops;       // --chase-hops
  uint64_t footprint;  // the throughput and multicast source: 4x the L2, at least 64 MiB, a power of two
};

// A launch of a point, and the axes it adds to the point's op and kind.
struct Launch {
  AsyncSetup setup;
  AsyncRun run;
  nlohmann::json axes;
};

// The launches of an op and kind, in order.
//   latency     one warp's copy (thread ops), or the copy size sweep (bulk, TMA)
//   throughput  in growing bytes in flight per SM: first what stays below a GPU's knee (thread
//               ops: one CTA of 32, 64 and 128 threads at depth 1; bulk and TMA: a quarter-size
//               copy at depth 1 and 2), then depth 1, 2, 4, 8 with one CTA per SM of block-threads
//               threads (one warp for bulk and TMA), then 2, 4, 8, 16 CTAs per SM at depth 8, as far
//               as the SM's shared memory (and threads) hold them
//   multicast   clusters of 1, 2, 4 and 8, one CTA per SM
//   chase       footprints of 1 MiB to four times the L2, four per octave, multiples of 128 bytes
std::vector<Launch> launches(const Plan& plan, AsyncOp op, AsyncKind kind) {
  const DeviceInfo& info = plan.info;
  const AsyncEngine e = async_info(op).engine;
  std::vector<Launch> out;
  AsyncSetup s;
  s.op = op;
  s.kind = kind;
  s.footprint_bytes = plan.footprint;
  switch (kind) {
    case AsyncKind::latency: {
      s.footprint_bytes = kLatencyFootprintBytes;
      // The thread ops' one copy size comes from the block.
      const std::vector<uint32_t> sizes = e == AsyncEngine::bulk     ? kBulkSizes
                                          : e == AsyncEngine::tma_1d ? kTma1dSizes
                                          : e == AsyncEngine::tma_2d ? kTma2dSizes
                                                                     : std::vector<uint32_t>{0};
      for (uint32_t b : sizes) {
        s.copy_bytes = b;
        out.push_back({s, plan.run, {{"copy_bytes", async_copy_bytes(s)}}});
      }
      break;
    }
    case AsyncKind::throughput: {
      const uint32_t block = single_issuer(e) ? 32 : plan.threads;
      const uint32_t copy = e == AsyncEngine::tma_1d ? kTma1dThroughputBytes : kBulkThroughputBytes;
      struct Shape {
        uint32_t ctas, depth, threads, copy_bytes;
      };
      std::vector<Shape> shapes;
      if (!single_issuer(e)) {
        for (uint32_t t : {32u, 64u, 128u})
          if (t < block) shapes.push_back({1, 1, t, copy});
      } else {
        for (uint32_t d : {1u, 2u}) shapes.push_back({1, d, block, copy / 4});
      }
      for (uint32_t d : async::kAsyncDepths) shapes.push_back({1, d, block, copy});
      for (uint32_t c : {2u, 4u, 8u, 16u}) shapes.push_back({c, async::kAsyncMaxDepth, block, copy});
      for (const Shape& shape : shapes) {
        s.depth = shape.depth;
        s.block_threads = shape.threads;
        s.copy_bytes = shape.copy_bytes;
        const uint64_t smem = async_dynamic_smem_bytes(s) + 1024;  // the runtime's reserve per CTA
        if (info.shared_memory_per_sm_bytes != 0 && shape.ctas * smem > info.shared_memory_per_sm_bytes)
          break;
        if (shape.ctas * s.block_threads > 2048 || shape.ctas > 16) break;
        s.blocks = shape.ctas * static_cast<uint32_t>(info.sm_count);
        out.push_back({s,
                       plan.run,
                       {{"depth", s.depth},
                        {"ctas_per_sm", s.blocks / std::max(1, info.sm_count)},
                        {"block_threads", s.block_threads},
                        {"copy_bytes", async_copy_bytes(s)}}});
      }
      break;
    }
    case AsyncKind::multicast:
      s.copy_bytes = kBulkThroughputBytes;
      for (uint32_t n : {1u, 2u, 4u, 8u}) {
        s.cluster_size = n;
        s.blocks = std::max<uint32_t>(n, static_cast<uint32_t>(info.sm_count) / n * n);
        out.push_back({s, plan.run, {{"cluster_size", n}}});
      }
      break;
    case AsyncKind::chase: {
      AsyncRun run;
      run.iterations = plan.hops;
      const double last = 4.0 * std::max<uint64_t>(info.l2_bytes, 2ull << 20);
      for (uint32_t k = 0;; ++k) {
        const double f = double(kChaseFirstFootprintBytes) * std::pow(2.0, double(k) / kChasePointsPerOctave);
        if (f > last * 1.0001) break;
        const uint64_t bytes = static_cast<uint64_t>(f) / 128 * 128;
        if (!out.empty() && bytes <= out.back().setup.footprint_bytes) continue;
        s.footprint_bytes = bytes;
        run.warmup = std::min<uint64_t>(bytes / 128, kChaseMaxWarmupHops);
        out.push_back({s, run, {{"footprint_bytes", bytes}}});
      }
      break;
    }
  }
  return out;
}

// The kind axis's value of a point.
AsyncKind kind_of(const nlohmann::json& axes) {
  constexpr const char* kKindNames[] = {"latency", "throughput", "chase", "multicast"};
  const std::string kind = axes["kind"];
  return static_cast<AsyncKind>(std::find(std::begin(kKindNames), std::end(kKindNames), kind) -
                                std::begin(kKindNames));
}

ProbeSpec async_probe() {
  ProbeSpec p;
  p.id = "async/copy";
  p.summary =
      "cp.async (4/8/16 B, .ca/.cg), bulk and TMA copies against ld+st: latency (cycles, ns), "
      "bandwidth against bytes in flight, and a TMA pointer chase against footprint";
  ParamSpec threads = block_threads_param(
      "threads per block of a cp.async or ld+st throughput launch (a multiple of 32, at most 512)");
  threads.max = async::kAsyncMaxBlockThreads;
  p.params = {
      op_param(op_choices(async::kAsyncOps), "probes/async/async.def"),
      {"kind",
       ParamSpec::Kind::choice,
       "all",
       "latency, throughput, chase (the TMA 1D chase), multicast (TMA 2D to a cluster) or all",
       {"all", "latency", "throughput", "chase", "multicast"}},
      iterations_param("64", "copies per slot per launch", kMaxIterations),
      threads,
      {"chase-hops", ParamSpec::Kind::integer, "2048", "timed hops per chase launch", {}, kMaxIterations, 1}};
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const uint32_t threads = read_block_threads(prm, async::kAsyncMaxBlockThreads);
    AsyncRun run;
    run.iterations = read_iterations(prm, kMaxIterations);
    const uint64_t hops = prm.get_u64("chase-hops");
    uint64_t footprint = 1;
    while (footprint < std::max<uint64_t>(4 * ctx.device().info().l2_bytes, 64ull << 20)) footprint <<= 1;
    const Plan plan{ctx.device().info(), threads, run, hops, footprint};
    Axis kinds = fixed_axis("kind", {}, "all");  // tma_2d adds the multicast, tma_1d the chase
    kinds.values = [](const nlohmann::json& at) {
      std::vector<nlohmann::json> k{"latency", "throughput"};
      if (at["op"] == "tma_2d") k.push_back("multicast");
      if (at["op"] == "tma_1d") k.push_back("chase");
      return k;
    };
    Axis sweep;  // an expansion: each launch's own axes
    sweep.values = [&plan](const nlohmann::json& at) {
      std::vector<nlohmann::json> out;
      for (const Launch& l : launches(plan, parse_async_op(at["op"]), kind_of(at))) out.push_back(l.axes);
      return out;
    };
    Source source;
    measure_axes(
        ctx, {op_axis(op_names(async::kAsyncOps)), kinds, sweep},
        [&](const nlohmann::json& axes) {
          for (const Launch& l : launches(plan, parse_async_op(axes["op"]), kind_of(axes))) {
            nlohmann::json at = l.axes;
            at["op"] = axes["op"], at["kind"] = axes["kind"];
            if (at == axes) return measure(ctx, l.setup, l.run, source);
          }
          throw Error("async/copy: no launch at " + axes.dump());
        },
        "--op " + prm.get_text("op") + " --kind " + prm.get_text("kind") +
            " measures nothing: only tma_2d has a multicast and only tma_1d a chase");
  };
  return p;
}

const ProbeRegistration kRegistration(async_probe);

}  // namespace
}  // namespace gpuprobe::probes
