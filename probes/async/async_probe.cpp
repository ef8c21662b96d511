// async/copy: what moving global memory into shared memory costs, per op of
// probes/async/async.cuh (cp.async at 4, 8 and 16 bytes, .ca and .cg; the bulk copy; TMA 1D and 2D;
// and the same traffic through ld.global + st.shared for comparison):
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
// recorded as skipped with the reason.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "harness/error.hpp"
#include "harness/points.hpp"
#include "harness/probe.hpp"
#include "harness/repeat.hpp"
#include "probes/async/async_ops.hpp"

namespace gpuprobe::probes {
namespace {

constexpr uint64_t kMaxIterations = uint64_t{1} << 20;
constexpr uint64_t kLatencyFootprintBytes = 1ull << 20;  // L2-resident everywhere
// Bulk and TMA latency sweeps (bytes per copy) and their throughput copy.
constexpr uint32_t kBulkSizes[] = {16, 64, 256, 1024, 4096, 16384, 65536};
constexpr uint32_t kTma1dSizes[] = {16, 64, 256, 1024};
constexpr uint32_t kTma2dSizes[] = {256, 1024, 4096, 16384, 65536};  // 64 words x 1..256 rows
constexpr uint32_t kBulkThroughputBytes = 4096;
constexpr uint32_t kTma1dThroughputBytes = 1024;
// The chase: up to this many warm-up hops (the ring once, for the L2's plateau).
constexpr uint64_t kChaseMaxWarmupHops = uint64_t{1} << 18;
constexpr uint32_t kChasePointsPerOctave = 4;
constexpr uint64_t kChaseFirstFootprintBytes = 1ull << 20;

bool single_issuer(AsyncEngine e) { return e != AsyncEngine::thread_async && e != AsyncEngine::thread_sync; }

uint64_t pow2_at_least(uint64_t v) {
  uint64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

nlohmann::json measure_async(ProbeContext& ctx, const AsyncSetup& setup, const AsyncRun& run) {
  const auto& info = async_info(setup.op);
  const bool throughput = setup.kind == AsyncKind::throughput;
  const auto r = repeat_point(
      ctx.repeat(), [&] { return ctx.ops<AsyncOps>().run(setup, run); },
      [&](const AsyncResult& x) { return throughput ? x.bytes_per_clk_per_sm : x.latency_cycles; });
  if (r.skipped) return {{"ptx", info.ptx}, {"skipped", *r.skipped}};
  const AsyncResult& first = r.first;
  nlohmann::json p = {{"ptx", info.ptx},
                      {"synchronous", info.synchronous},
                      {"copy_bytes", first.copy_bytes},
                      {"footprint_bytes", setup.footprint_bytes},
                      {"block_threads", setup.block_threads},
                      {"blocks", setup.blocks},
                      {"sms", first.sms},
                      {"kernel", async_kernel_name(setup)},
                      {"launch", to_json(first.launch)},
                      {"self_check", "passed"}};
  const double clock_mhz = write_point_repeats(p, ctx, r.outcome, run.iterations);
  const auto& sum = r.outcome.summary;
  if (setup.cluster_size != 0) p["cluster_size"] = setup.cluster_size;
  if (setup.kind == AsyncKind::multicast) {
    // A round's latency (one cluster barrier included) and the bytes every CTA receives.
    const double sms = ctx.device().info().sm_count;
    write_latency(p, sum, clock_mhz);
    p["bytes_per_clk_per_sm"] = first.bytes_per_clk_per_sm;
    p["bytes_per_s"] = first.bytes_per_clk_per_sm * sms * clock_mhz * 1e6;
  } else if (throughput) {
    p["depth"] = setup.depth;
    p["ctas_per_sm"] = first.ctas_per_sm;
    p["bytes_in_flight_per_sm"] = first.bytes_in_flight_per_sm;
    write_rate(p, ctx, "bytes", sum, first.bytes_per_clk_per_sm_min,
               first.bytes_per_clk_per_sm_max, clock_mhz);
  } else {
    if (setup.kind == AsyncKind::chase) p["warmup_hops"] = run.warmup;
    write_latency(p, sum, clock_mhz);
    p["slowest_cta_cycles"] = first.latency_cycles_max;
  }
  return p;
}

// The latency launches of an op: one warp's copy (thread ops), or the size sweep.
std::vector<AsyncSetup> latency_setups(AsyncOp op) {
  AsyncSetup s;
  s.op = op;
  s.kind = AsyncKind::latency;
  s.footprint_bytes = kLatencyFootprintBytes;
  std::vector<AsyncSetup> out;
  const auto add_sizes = [&](const auto& sizes) {
    for (uint32_t b : sizes) {
      s.copy_bytes = b;
      out.push_back(s);
    }
  };
  switch (async_info(op).engine) {
    case AsyncEngine::bulk: add_sizes(kBulkSizes); break;
    case AsyncEngine::tma_1d: add_sizes(kTma1dSizes); break;
    case AsyncEngine::tma_2d: add_sizes(kTma2dSizes); break;
    default: out.push_back(s); break;
  }
  return out;
}

// The throughput launches, in growing bytes in flight per SM: first what stays below a GPU's knee
// (thread ops: one CTA of 32, 64 and 128 threads at depth 1; bulk and TMA: a quarter-size copy at
// depth 1 and 2), then for every op depth 1, 2, 4, 8 with one CTA per SM of block-threads threads
// (one warp for bulk and TMA), then 2, 4, 8, 16 CTAs per SM at depth 8, as far as the SM's shared
// memory (and threads) hold them.
std::vector<AsyncSetup> throughput_setups(AsyncOp op, const DeviceInfo& info, uint32_t threads,
                                          uint64_t footprint) {
  AsyncSetup s;
  s.op = op;
  s.kind = AsyncKind::throughput;
  s.footprint_bytes = footprint;
  const AsyncEngine e = async_info(op).engine;
  const uint32_t block = single_issuer(e) ? 32 : threads;
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
  std::vector<AsyncSetup> out;
  for (const Shape& shape : shapes) {
    s.depth = shape.depth;
    s.block_threads = shape.threads;
    s.copy_bytes = shape.copy_bytes;
    const uint64_t smem = async_dynamic_smem_bytes(s) + 1024;  // the runtime's reserve per CTA
    if (info.shared_memory_per_sm_bytes != 0 && shape.ctas * smem > info.shared_memory_per_sm_bytes) break;
    if (shape.ctas * s.block_threads > 2048 || shape.ctas > 16) break;
    s.blocks = shape.ctas * static_cast<uint32_t>(info.sm_count);
    out.push_back(s);
  }
  return out;
}

// The chase's footprints: 1 MiB to four times the L2, four per octave, multiples of 128 bytes.
std::vector<uint64_t> chase_footprints(const DeviceInfo& info) {
  const double last = 4.0 * std::max<uint64_t>(info.l2_bytes, 2ull << 20);
  std::vector<uint64_t> out;
  for (uint32_t k = 0;; ++k) {
    const double f = double(kChaseFirstFootprintBytes) * std::pow(2.0, double(k) / kChasePointsPerOctave);
    if (f > last * 1.0001) break;
    const uint64_t bytes = static_cast<uint64_t>(f) / 128 * 128;
    if (out.empty() || bytes > out.back()) out.push_back(bytes);
  }
  return out;
}

ProbeSpec async_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "async/copy";
  p.summary = "cp.async (4/8/16 B, .ca/.cg), bulk and TMA copies against ld+st: latency (cycles, ns), "
              "bandwidth against bytes in flight, and a TMA pointer chase against footprint";
  std::vector<std::string> op_choices{"all"};
  for (const auto& info : async::kAsyncOps) op_choices.push_back(info.name);
  p.params = {
      {"op", K::choice, "all", "the op to measure (all: every op of probes/async/async.cuh)",
       op_choices},
      {"kind", K::choice, "all",
       "latency, throughput, chase (the TMA 1D chase), multicast (TMA 2D to a cluster) or all",
       {"all", "latency", "throughput", "chase", "multicast"}},
      {"iterations", K::integer, "64", "copies per slot per launch", {}, kMaxIterations},
      {"block-threads", K::integer, "256",
       "threads per block of a cp.async or ld+st throughput launch (a multiple of 32, at most 512)",
       {}, 512},
      {"chase-hops", K::integer, "2048", "timed hops per chase launch", {}, kMaxIterations},
  };
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const uint32_t threads = read_block_threads(prm, async::kAsyncMaxBlockThreads);
    AsyncRun run;
    run.iterations = read_iterations(prm, kMaxIterations);
    const uint64_t hops = prm.get_u64("chase-hops");
    if (hops == 0 || hops > kMaxIterations)
      throw Error("--chase-hops must be 1 to " + std::to_string(kMaxIterations));
    const std::string which = prm.get_text("op");
    const std::string kinds = prm.get_text("kind");
    const DeviceInfo& info = ctx.device().info();
    const uint64_t footprint = pow2_at_least(std::max<uint64_t>(4 * info.l2_bytes, 64ull << 20));
    std::vector<PlannedPoint> points;
    for (const auto& op : async::kAsyncOps) {
      if (which != "all" && which != op.name) continue;
      std::vector<AsyncSetup> setups;
      if (kinds == "all" || kinds == "latency") setups = latency_setups(op.op);
      if (kinds == "all" || kinds == "throughput")
        for (const AsyncSetup& s : throughput_setups(op.op, info, threads, footprint))
          setups.push_back(s);
      for (const AsyncSetup& s : setups) {
        nlohmann::json axes = {{"op", op.name}, {"kind", async_kind_name(s.kind)}};
        if (s.kind == AsyncKind::latency) axes["copy_bytes"] = async_copy_bytes(s);
        else axes["depth"] = s.depth, axes["ctas_per_sm"] = s.blocks / std::max(1, info.sm_count),
             axes["block_threads"] = s.block_threads, axes["copy_bytes"] = async_copy_bytes(s);
        points.push_back({axes, [&ctx, s, run] { return measure_async(ctx, s, run); }});
      }
      if (op.op == AsyncOp::tma_2d && (kinds == "all" || kinds == "multicast")) {
        for (uint32_t n : {1u, 2u, 4u, 8u}) {
          AsyncSetup s;
          s.op = AsyncOp::tma_2d;
          s.kind = AsyncKind::multicast;
          s.cluster_size = n;
          s.copy_bytes = kBulkThroughputBytes;
          s.footprint_bytes = footprint;
          s.blocks = std::max<uint32_t>(n, static_cast<uint32_t>(info.sm_count) / n * n);
          points.push_back({{{"op", "tma_2d"}, {"kind", "multicast"}, {"cluster_size", n}},
                            [&ctx, s, run] { return measure_async(ctx, s, run); }});
        }
      }
      if (op.op == AsyncOp::tma_1d && (kinds == "all" || kinds == "chase")) {
        for (uint64_t f : chase_footprints(info)) {
          AsyncSetup s;
          s.op = AsyncOp::tma_1d;
          s.kind = AsyncKind::chase;
          s.footprint_bytes = f;
          AsyncRun chase_run;
          chase_run.iterations = hops;
          chase_run.warmup = std::min<uint64_t>(f / 128, kChaseMaxWarmupHops);
          points.push_back({{{"op", "tma_1d"}, {"kind", "chase"}, {"footprint_bytes", f}},
                            [&ctx, s, chase_run] { return measure_async(ctx, s, chase_run); }});
        }
      }
    }
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(async_probe);

}  // namespace
}  // namespace gpuprobe::probes
