#include "probes/bandwidth/stream_point.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "harness/error.hpp"
#include "harness/points.hpp"
#include "harness/repeat.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::probes {

namespace {
// Passes (or shared iterations) grow at most to this many: a footprint of one tile then still
// ends within the time bound on the slowest level.
constexpr uint64_t kMaxRepeats = uint64_t{1} << 20;
// A repeat times n and kDifferenceFactor x n passes (measure_stream).
constexpr uint64_t kDifferenceFactor = 4;
}  // namespace

uint64_t tiles_in(uint64_t bytes, uint64_t tile_bytes) {
  return std::max<uint64_t>(1, bytes / tile_bytes);
}

StreamSetup stream_setup(const DeviceInfo& info, const StreamConfig& c) {
  return {.shape = c.shape,
          .block_threads = c.block_threads,
          .blocks = static_cast<uint32_t>(info.sm_count) * c.blocks_per_sm};
}

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

nlohmann::json measure_stream(ProbeContext& ctx, const StreamSetup& setup, bool flush_l2) {
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
  const bool vec32 = info.cc.major * 10 + info.cc.minor >= bandwidth::kMinSmVec32 &&
                     base.shape.kind != StreamKind::shared;
  around(vec32 ? std::vector<uint32_t>{4, 8, 16, 32} : std::vector<uint32_t>{4, 8, 16},
         [](StreamConfig& c, uint32_t v) { c.shape.vec_bytes = v; });
  around({32, 64, 128, 256, 512, 1024}, [](StreamConfig& c, uint32_t t) { c.block_threads = t; });
  return out;
}

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
  if (c.shape.vec_bytes == 32 && info.cc.major * 10 + info.cc.minor < bandwidth::kMinSmVec32)
    throw Error("--vec-bytes 32 needs sm_100 or newer; " + info.name + " is sm_" +
                std::to_string(info.cc.major * 10 + info.cc.minor));
  if (c.shape.vec_bytes == 32 && kind == StreamKind::shared)
    throw Error("--vec-bytes 32: shared memory has no 32-byte load (4, 8 or 16)");
  return c;
}

void plan_concurrency(ProbeContext& ctx, const StreamConfig& base, const std::string& level,
                      const std::function<std::optional<StreamSetup>(const StreamConfig&)>& setup_for,
                      std::vector<PlannedPoint>& points, bool flush_l2) {
  if (ctx.params().get_text("concurrency") != "on") return;
  for (const StreamConfig& c : concurrency_configs(base, ctx.device().info())) {
    const std::optional<StreamSetup> setup = setup_for(c);
    if (!setup) continue;
    const StreamSetup s = *setup;
    points.push_back({{{"sweep", "concurrency"},
                       {"level", level},
                       {"kind", stream_kind_name(c.shape.kind)},
                       {"vec_bytes", c.shape.vec_bytes},
                       {"ilp", c.shape.ilp},
                       {"block_threads", c.block_threads},
                       {"blocks_per_sm", c.blocks_per_sm}},
                      [&ctx, s, flush_l2] { return measure_stream(ctx, s, flush_l2); }});
  }
}

}  // namespace gpuprobe::probes
