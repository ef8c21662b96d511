// The stream probes, one per level (bandwidth/l1, l2, dram and shared, each described where it is
// declared below), and what they share: measure one streaming configuration until stable (with the
// self-check of every launch), the concurrency sweep every level runs (bytes in flight per SM, for
// Little's law) and the parameters they share.
#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "harness/error.hpp"
#include "harness/points.hpp"
#include "harness/probe.hpp"
#include "harness/repeat.hpp"
#include "harness/stats.hpp"
#include "probes/bandwidth/stream_ops.hpp"
#include "probes/common/size_sweep.hpp"

namespace gpuprobe::probes {

std::vector<StreamConfig> concurrency_configs(const StreamConfig& base, const DeviceInfo& info) {
  std::vector<StreamConfig> out;
  std::set<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>> seen;
  auto add = [&](StreamConfig c) {
    if (seen.insert({c.shape.vec_bytes, c.shape.ilp, c.block_threads, c.blocks_per_sm}).second)
      out.push_back(c);
  };
  // The ladder: from one warp per SM with one 4-byte access in flight, each step raises the bytes
  // in flight per SM by 1.33 to 2 times through one knob (vector width, ILP, block size, blocks
  // per SM), so that Little's law sees the whole curve from latency-bound to the peak, with
  // half-steps of the block size where the knee of a fast level (L1, shared) lies.
  StreamConfig step = base;
  step.shape.vec_bytes = 4;
  step.shape.ilp = 1;
  step.block_threads = 32;
  step.blocks_per_sm = 1;
  add(step);
  for (uint32_t v : {8u, 16u}) step.shape.vec_bytes = v, add(step);
  for (uint32_t ilp : {2u, 4u}) step.shape.ilp = ilp, add(step);
  for (uint32_t t : {64u, 96u, 128u, 192u, 256u}) step.block_threads = t, add(step);
  for (uint32_t b : {2u, 4u}) step.blocks_per_sm = b, add(step);
  step.shape.ilp = 8, add(step);
  step.block_threads = 512, add(step);
  // Then each knob on its own around the probe's configuration, for what it does by itself.
  auto around = [&](const std::vector<uint32_t>& values, auto set) {
    for (uint32_t v : values) {
      StreamConfig c = base;
      set(c, v);
      add(c);
    }
  };
  around({1, 2, 4, 8}, [](StreamConfig& c, uint32_t b) { c.blocks_per_sm = b; });
  around({1, 2, 4, 8}, [](StreamConfig& c, uint32_t ilp) { c.shape.ilp = ilp; });
  const bool vec32 = info.cc.sm() >= bandwidth::kMinSmVec32 && base.shape.kind != StreamKind::shared;
  around(vec32 ? std::vector<uint32_t>{4, 8, 16, 32} : std::vector<uint32_t>{4, 8, 16},
         [](StreamConfig& c, uint32_t v) { c.shape.vec_bytes = v; });
  around({32, 64, 128, 256, 512, 1024}, [](StreamConfig& c, uint32_t t) { c.block_threads = t; });
  return out;
}

namespace {

// Passes (or shared iterations) grow at most to this many: a footprint of one tile then still
// ends within the time bound on the slowest level.
constexpr uint64_t kMaxRepeats = uint64_t{1} << 20;
// A repeat times n and kDifferenceFactor x n passes (measure_stream).
constexpr uint64_t kDifferenceFactor = 4;

// Tiles of `tile_bytes` in `bytes`, at least one.
uint64_t tiles_in(uint64_t bytes, uint64_t tile_bytes) {
  return std::max<uint64_t>(1, bytes / tile_bytes);
}

// The launch of a configuration with every SM streaming (blocks = SMs x blocks per SM) at a
// shared stride of `stride` elements; the caller sets the geometry of the global kinds.
StreamSetup stream_setup(const DeviceInfo& info, const StreamConfig& c, uint32_t stride = 1) {
  return {.shape = c.shape,
          .block_threads = c.block_threads,
          .blocks = static_cast<uint32_t>(info.sm_count) * c.blocks_per_sm,
          .stride_elems = stride};
}

// Every block streams its own window of window_bytes (at least one tile): disjoint windows that
// cover the buffer once (L1 re-reads, DRAM reads, writes and copies).
StreamSetup own_windows(const DeviceInfo& info, const StreamConfig& c, uint64_t window_bytes) {
  StreamSetup s = stream_setup(info, c);
  const uint64_t window =
      tiles_in(window_bytes, bandwidth::tile_bytes(c.block_threads, c.shape.vec_bytes, c.shape.ilp));
  s.geometry = {.footprint_tiles = uint64_t(s.blocks) * window,
                .tiles_per_block = window,
                .block_step_tiles = window,
                .passes = 1};
  return s;
}

// Prepares the setup once, calibrates the repeats (passes or iterations) until a launch lasts
// the minimum region, repeats it per the context's policy, and returns the point: bandwidth
// (median, CI), bytes moved, bytes in flight per SM, the occupancy, the launch configuration and
// the SM clock measured right after (region_sm_clock_mhz). Every launch's self-check must pass
// or it throws "self-check failed ...". Fields: docs/SCHEMA.md "bandwidth point".
nlohmann::json measure_stream(ProbeContext& ctx, const StreamSetup& setup, bool flush_l2 = false) {
  const auto prepared = ctx.ops<StreamOps>().prepare(setup);
  const uint64_t min_region_ns = ctx.device().min_timed_region_ns();

  auto run_once = [&](uint64_t repeats) { return prepared->run({static_cast<uint32_t>(repeats), flush_l2}); };
  // The per-point time bound covers the calibration and the repeats together. A repeat runs n
  // and 4n passes, so the calibrated n is planned within a fifth of the bound.
  auto calibrated = calibrate_point(
      ctx.repeat(), ctx.repeat().max_seconds / static_cast<double>(1 + kDifferenceFactor), run_once,
      [](const StreamResult& r) { return r.elapsed_ns; }, 1, 1, static_cast<double>(min_region_ns),
      kMaxRepeats);
  const uint64_t repeats = calibrated.count;

  // Each repeat times n and 4n passes: their difference cancels what every launch pays once
  // (the grid's ramp-up and drain, and the first pass of an L1 window, which comes from the L2).
  // Against n and 2n, the 3n passes of difference cut the noise the subtraction adds (a launch's
  // relative noise s gives sqrt(17) s / 3 = 1.4 s instead of sqrt(5) s = 2.2 s).
  std::vector<double> elapsed;
  StreamResult first;
  const auto outcome = repeat_until_stable(
      [&]() {
        const StreamResult r = calibrated.take_or_run(run_once);
        const StreamResult longer = run_once(kDifferenceFactor * repeats);
        if (elapsed.empty()) first = r;
        elapsed.push_back(r.elapsed_ns);
        const double moved = static_cast<double>(longer.bytes_read + longer.bytes_written -
                                                 r.bytes_read - r.bytes_written);
        const double ns = longer.elapsed_ns - r.elapsed_ns;
        if (!(ns > 0))
          throw Error(stream_kernel_name(setup.shape) + ": " +
                      std::to_string(kDifferenceFactor * repeats) + " passes took no longer than " +
                      std::to_string(repeats) + " (the timer or the launch is broken)");
        return moved / ns * 1e9;
      },
      calibrated.policy);
  const double clock_mhz = ctx.device().measure_sm_clock_mhz(kPointClockSpinNs);

  const auto& sum = outcome.summary;
  const DeviceInfo& info = ctx.device().info();
  const double active_sms = std::min<double>(info.sm_count, setup.blocks);
  const uint64_t in_flight = stream_bytes_in_flight_per_sm(setup, first.resident_blocks_per_sm);
  nlohmann::json p = {
      {"bandwidth_bytes_per_s", sum.median},
      {"ci95_bytes_per_s", {sum.median_ci95.lo, sum.median_ci95.hi}},
      {"mad_bytes_per_s", sum.mad},
      {"bytes_per_clk_per_sm",
       clock_mhz > 0 ? nlohmann::json(sum.median / (clock_mhz * 1e6) / active_sms)
                     : nlohmann::json(nullptr)},
      {"repeats", sum.n},
      {"converged", outcome.converged},
      {"passes", repeats},
      {"method", "difference of n and 4n passes"},
      {"bytes_read", first.bytes_read},
      {"bytes_written", first.bytes_written},
      {"elapsed_ns", stats::median(elapsed)},
      {"bytes_in_flight_per_sm", in_flight},
      {"resident_blocks_per_sm", first.resident_blocks_per_sm},
      {"active_sms", active_sms},
      {"region_sm_clock_mhz", clock_mhz},
      {"l2_flushed", flush_l2},
      {"kernel", stream_kernel_name(setup.shape)},
      {"launch", to_json(first.launch)},
      {"self_check", "passed"}};
  return p;
}

// The parameters every bandwidth probe shares: block-threads, vec-bytes, ilp, blocks-per-sm
// (the footprint sweep's configuration) and concurrency (whether to run the concurrency sweep).
void add_stream_params(std::vector<ParamSpec>& params, const char* default_block_threads,
                       const char* default_vec_bytes, const char* default_ilp,
                       const char* default_blocks_per_sm) {
  using K = ParamSpec::Kind;
  params.push_back({"block-threads", K::integer, default_block_threads,
                    "threads per block (a multiple of 32, at most 1024)", {}, 1024, 32, 32});
  params.push_back({"vec-bytes", K::choice, default_vec_bytes,
                    "bytes per access: 4, 8, 16, or 32 (global memory, sm_100 and newer)",
                    {"4", "8", "16", "32"}});
  params.push_back({"ilp", K::choice, default_ilp, "independent accesses per thread per iteration",
                    {"1", "2", "4", "8"}});
  params.push_back({"blocks-per-sm", K::integer, default_blocks_per_sm,
                    "blocks launched per SM (1 to 32)", {}, 32, 1});
  params.push_back({"concurrency", K::choice, "on",
                    "also sweep the bytes in flight per SM (blocks per SM, ILP, vector width, "
                    "block size) at a footprint inside the level",
                    {"on", "off"}});
}

StreamConfig stream_config(ProbeContext& ctx, StreamKind kind) {
  const auto& prm = ctx.params();
  StreamConfig c;
  c.shape.kind = kind;
  c.shape.vec_bytes = static_cast<uint32_t>(std::stoul(prm.get_text("vec-bytes")));
  c.shape.ilp = static_cast<uint32_t>(std::stoul(prm.get_text("ilp")));
  c.block_threads = read_block_threads(prm);
  c.blocks_per_sm = read_blocks_per_sm(prm);
  const DeviceInfo& info = ctx.device().info();
  if (c.shape.vec_bytes == 32 && info.cc.sm() < bandwidth::kMinSmVec32)
    throw Error("--vec-bytes 32 needs sm_100 or newer; " + info.name + " is sm_" +
                std::to_string(info.cc.sm()));
  if (c.shape.vec_bytes == 32 && kind == StreamKind::shared)
    throw Error("--vec-bytes 32: shared memory has no 32-byte load (4, 8 or 16)");
  return c;
}

// With --concurrency on, adds the concurrency points of one level to `points`: for each
// configuration `setup_for` returns the setup (or nullopt: the configuration cannot stay in this
// level, skipped).
void plan_concurrency(ProbeContext& ctx, const StreamConfig& base, const std::string& level,
                      const std::function<std::optional<StreamSetup>(const StreamConfig&)>& setup_for,
                      std::vector<PlannedPoint>& points, bool flush_l2 = false) {
  if (ctx.params().get_text("concurrency") != "on") return;
  for (const StreamConfig& c : concurrency_configs(base, ctx.device().info())) {
    const std::optional<StreamSetup> setup = setup_for(c);
    if (!setup) continue;
    points.push_back({{{"sweep", "concurrency"},
                       {"level", level},
                       {"kind", stream_kind_name(c.shape.kind)},
                       {"vec_bytes", c.shape.vec_bytes},
                       {"ilp", c.shape.ilp},
                       {"block_threads", c.block_threads},
                       {"blocks_per_sm", c.blocks_per_sm}},
                      [&ctx, s = *setup, flush_l2] { return measure_stream(ctx, s, flush_l2); }});
  }
}

// bandwidth/l1: L1 load bandwidth per SM. Each block re-reads its own window (ld.global, which
// allocates in L1) for many passes; the window sweeps from inside L1 to past it, where the passes
// come from the L2 (gpu-benches gpu-cache's method). Then the concurrency sweep, at a window that
// keeps every resident block's data in L1. The bandwidth fit reads the L1 plateau and its end.

// Data every resident block of an SM keeps for the concurrency sweep: well inside the smallest
// L1 of the supported GPUs (V100 and L40: 128 KB with shared memory).
constexpr uint64_t kConcurrencyL1Bytes = 64 << 10;

constexpr const char* kDefaultMinWindow = "16K";

ProbeSpec l1_probe() {
  ProbeSpec p;
  p.id = "bandwidth/l1";
  p.summary = "L1 load bandwidth per SM against each SM's data, and against bytes in flight";
  // A window: the data per SM.
  p.params = size_sweep_params("window", kDefaultMinWindow, "twice the shared memory per SM, past any L1",
                               "4");
  p.params[0].help =
      "smallest window, at least one tile of a block (block-threads x vec-bytes x ilp; the "
      "default: 16K or that tile, whichever is larger)";
  add_stream_params(p.params, "512", "16", "2", "1");
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const DeviceInfo& info = ctx.device().info();
    const StreamConfig c = stream_config(ctx, StreamKind::read);
    uint64_t max_window = prm.get_u64("max-window-bytes");
    if (max_window == 0) max_window = 2 * info.shared_memory_per_sm_bytes;
    const uint64_t tile = bandwidth::tile_bytes(c.block_threads, c.shape.vec_bytes, c.shape.ilp);
    // A window smaller than one tile cannot be streamed: a value given is refused, never silently
    // enlarged; the default grows to the tile of larger blocks.
    uint64_t min_window = prm.get_u64("min-window-bytes");
    if (prm.get_text("min-window-bytes") == kDefaultMinWindow) min_window = std::max(min_window, tile);
    if (min_window < tile)
      throw Error("--min-window-bytes " + prm.get_text("min-window-bytes") +
                  " is less than one tile of a block (" + std::to_string(tile) +
                  " bytes: block-threads x vec-bytes x ilp), the smallest window");
    require_free_memory(ctx, "data", max_window * info.sm_count, "max-window-bytes");
    std::vector<PlannedPoint> points;
    for (uint64_t w : geometric_sweep(min_window, max_window, prm.get_u64("points-per-octave"), tile)) {
      // Each block its own window: the data per SM is the window times the blocks per SM.
      const StreamSetup s = own_windows(info, c, w / c.blocks_per_sm);
      points.push_back({{{"sweep", "footprint"},
                         {"level", "L1"},
                         {"window_bytes_per_sm", w},
                         {"footprint_bytes", stream_buffer_bytes(s)}},
                        [&ctx, s] { return measure_stream(ctx, s); }});
    }
    plan_concurrency(ctx, c, "L1", [&info](const StreamConfig& k) -> std::optional<StreamSetup> {
      const uint64_t t = bandwidth::tile_bytes(k.block_threads, k.shape.vec_bytes, k.shape.ilp);
      if (uint64_t(k.blocks_per_sm) * t > kConcurrencyL1Bytes) return std::nullopt;
      return own_windows(info, k, kConcurrencyL1Bytes / k.blocks_per_sm);
    }, points);
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kL1Registration(l1_probe);

// bandwidth/l2: L2 load bandwidth. Blocks re-read windows that overlap across CTAs, through
// ld.global.cg (L2 only), so the data is shared by SMs of both L2 partitions; the total footprint
// sweeps across the near partition and the whole L2 into DRAM (gpu-benches gpu-l2-cache's
// method). Then the concurrency sweep at a footprint inside the near partition.

// Each block re-reads this much (or the step between block starts, if larger: the windows then
// still cover the footprint).
constexpr uint64_t kWindowBytes = 512 << 10;

StreamSetup shared_windows(const DeviceInfo& info, const StreamConfig& c, uint64_t footprint) {
  StreamSetup s = stream_setup(info, c);
  const uint64_t tile = bandwidth::tile_bytes(c.block_threads, c.shape.vec_bytes, c.shape.ilp);
  s.geometry.footprint_tiles = tiles_in(footprint, tile);
  s.geometry.block_step_tiles =
      std::max<uint64_t>(1, (s.geometry.footprint_tiles + s.blocks - 1) / s.blocks);
  s.geometry.tiles_per_block = std::max(tiles_in(kWindowBytes, tile), s.geometry.block_step_tiles);
  s.geometry.passes = 1;
  return s;
}

ProbeSpec l2_probe() {
  ProbeSpec p;
  p.id = "bandwidth/l2";
  p.summary = "L2 load bandwidth (data re-read by other CTAs) against footprint and bytes in flight";
  p.params = size_sweep_params("footprint", "1M", "four times the L2", "6");
  add_stream_params(p.params, "256", "16", "4", "4");
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const DeviceInfo& info = ctx.device().info();
    const StreamConfig c = stream_config(ctx, StreamKind::read_l2);
    uint64_t max_bytes = prm.get_u64("max-footprint-bytes");
    if (max_bytes == 0) max_bytes = 4 * info.l2_bytes;
    const uint64_t tile = bandwidth::tile_bytes(c.block_threads, c.shape.vec_bytes, c.shape.ilp);
    require_free_memory(ctx, "footprint", max_bytes, "max-footprint-bytes");
    std::vector<PlannedPoint> points;
    for (uint64_t f : geometric_sweep(std::max(prm.get_u64("min-footprint-bytes"), tile),
                                      max_bytes, prm.get_u64("points-per-octave"), tile)) {
      const StreamSetup s = shared_windows(info, c, f);
      points.push_back({{{"sweep", "footprint"}, {"level", "L2"}, {"footprint_bytes", f}},
                        [&ctx, s] { return measure_stream(ctx, s); }});
    }
    const uint64_t inside = std::max<uint64_t>(info.l2_bytes / 4, 1 << 20);
    plan_concurrency(ctx, c, "L2", [&info, inside](const StreamConfig& k) {
      return std::optional<StreamSetup>(shared_windows(info, k, inside));
    }, points);
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kL2Registration(l2_probe);

// bandwidth/dram: device-memory bandwidth for reads, writes and copies, over a footprint far
// beyond the L2 (flushed before each launch), each against bytes in flight per SM: the peak and
// the concurrency that reaches 90% of it (Little's law).

// Disjoint windows that cover the buffer exactly once (what writes and copies need).
StreamSetup disjoint_windows(const DeviceInfo& info, const StreamConfig& c, uint64_t footprint) {
  return own_windows(info, c, footprint / (uint64_t(info.sm_count) * c.blocks_per_sm));
}

ProbeSpec dram_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "bandwidth/dram";
  p.summary = "device-memory read, write and copy bandwidth against bytes in flight per SM";
  p.params = {
      {"footprint-bytes", K::bytes, "0",
       "bytes per buffer (0: four times the L2, at least 256 MiB)", {}},
      {"kind", K::choice, "all", "what to stream: read, write, copy or all",
       {"read", "write", "copy", "all"}},
  };
  add_stream_params(p.params, "256", "16", "4", "4");
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const DeviceInfo& info = ctx.device().info();
    uint64_t footprint = prm.get_u64("footprint-bytes");
    if (footprint == 0) footprint = std::max<uint64_t>(4 * info.l2_bytes, 256ull << 20);
    const std::string which = prm.get_text("kind");
    std::vector<StreamKind> kinds;
    for (StreamKind k : {StreamKind::read, StreamKind::write, StreamKind::copy})
      if (which == "all" || which == stream_kind_name(k)) kinds.push_back(k);
    // A copy holds two buffers.
    const bool copies = std::find(kinds.begin(), kinds.end(), StreamKind::copy) != kinds.end();
    require_free_memory(ctx, "buffers", copies ? 2 * footprint : footprint, "footprint-bytes");
    std::vector<PlannedPoint> points;
    for (StreamKind kind : kinds) {
      const StreamConfig c = stream_config(ctx, kind);
      const StreamSetup s = disjoint_windows(info, c, footprint);
      points.push_back({{{"sweep", "base"}, {"level", "DRAM"}, {"kind", stream_kind_name(kind)},
                         {"footprint_bytes", footprint}},
                        [&ctx, s] { return measure_stream(ctx, s, true); }});
      plan_concurrency(ctx, c, "DRAM", [&info, footprint](const StreamConfig& k) {
        return std::optional<StreamSetup>(disjoint_windows(info, k, footprint));
      }, points, true);
    }
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kDramRegistration(dram_probe);

// bandwidth/shared: shared-memory load bandwidth per SM and bank conflicts. Every thread of a
// warp loads at lane x stride elements (plus 128-byte steps for its independent loads), so the
// stride alone sets how many lanes share a bank: a stride sweep gives the N-way conflict
// slowdown (gpu-benches gpu-strides). Then the concurrency sweep at stride 1.

ProbeSpec shared_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "bandwidth/shared";
  p.summary = "shared-memory bandwidth per SM against the access stride (bank conflicts) and "
              "bytes in flight";
  p.params = {
      {"strides", K::list, "1,2,3,4,5,6,7,8,9,12,15,16,17,24,31,32,33,48,64",
       "strides in elements of --vec-bytes (1 to 64)", {}, 64, 1},
  };
  add_stream_params(p.params, "256", "4", "4", "4");
  p.run = [](ProbeContext& ctx) {
    const DeviceInfo& info = ctx.device().info();
    const StreamConfig c = stream_config(ctx, StreamKind::shared);
    std::vector<PlannedPoint> points;
    for (uint64_t stride : ctx.params().get_u64_list("strides")) {
      if (stride == 0 || stride > bandwidth::kSharedMaxStrideElems)
        throw Error("--strides: " + std::to_string(stride) + " is not between 1 and " +
                    std::to_string(bandwidth::kSharedMaxStrideElems));
      const StreamSetup s = stream_setup(info, c, static_cast<uint32_t>(stride));
      points.push_back({{{"sweep", "stride"}, {"level", "shared"}, {"stride_elems", stride},
                         {"vec_bytes", c.shape.vec_bytes}},
                        [&ctx, s] { return measure_stream(ctx, s); }});
    }
    plan_concurrency(ctx, c, "shared", [&info](const StreamConfig& k) {
      return std::optional<StreamSetup>(stream_setup(info, k));
    }, points);
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kSharedRegistration(shared_probe);

}  // namespace
}  // namespace gpuprobe::probes
