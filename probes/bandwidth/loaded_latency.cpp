// bandwidth/loaded_latency: latency as a function of achieved bandwidth. One thread, pinned to an
// SM, chases a random chain in the level under test (L2 or DRAM) while every block on the other
// SMs streams that level with a throttle of D cycles between its load groups (probes/bandwidth/
// loaded.cuh). The sweep goes from idle (the chaser alone) through a ladder of throttles down to
// D = 0 (full rate); each point records the throttle offered, the bandwidth achieved while the
// chase was timed, the chase's latency per hop (cycles and ns) and the SMs that streamed. The
// analysis fits latency(B) = unloaded + queue x B / (peak - B) to these points
// (analysis/bandwidth_model.cpp; docs/SCHEMA.md "bandwidth.L2, .DRAM loaded_latency").
#include <algorithm>
#include <string>
#include <vector>

#include "harness/error.hpp"
#include "harness/points.hpp"
#include "harness/repeat.hpp"
#include "harness/stats.hpp"
#include "probes/bandwidth/stream_ops.hpp"
#include "probes/common/op_probe.hpp"
#include "probes/common/size_sweep.hpp"

namespace gpuprobe::probes {
namespace {

namespace bw = bandwidth;

// Limits of the parameters (issue 7: every count has a maximum).
constexpr uint64_t kMaxLoadedHops = uint64_t{1} << 20;
constexpr uint64_t kMaxThrottles = 32;
constexpr uint64_t kMaxThrottleCycles = uint64_t{1} << 24;
// Warm-up hops at least (the streamers' ramp-up happens during them); an L2 chain's warm-up also
// covers every slot once, so the chain is L2-resident when the timed hops start.
constexpr uint64_t kMinWarmupHops = 1024;

uint64_t round_up(uint64_t v, uint64_t m) { return (v + m - 1) / m * m; }

struct LevelPlan {
  std::string level;              // "L2" or "DRAM"
  uint64_t chain_bytes = 0;
  uint64_t stream_bytes = 0;      // all streamers' regions together
};

LevelPlan plan_level(ProbeContext& ctx) {
  const auto& prm = ctx.params();
  const DeviceInfo& info = ctx.device().info();
  LevelPlan plan;
  const bool l2 = prm.get_text("level") == "l2";
  plan.level = l2 ? "L2" : "DRAM";
  // L2: a chain far below the L2 and streams over a quarter of it (both stay resident); DRAM: a
  // chain of 8 L2s (a random hop then hits a line the L2 still holds 1 time in 8 at most) and
  // streams over 4 L2s, each at least 256 MiB.
  const uint64_t big = 256ull << 20;
  plan.chain_bytes = prm.get_u64("chain-footprint-bytes");
  if (plan.chain_bytes == 0)
    plan.chain_bytes = l2 ? std::max<uint64_t>(std::min<uint64_t>(info.l2_bytes / 8, 2ull << 20), 64 << 10)
                          : std::max<uint64_t>(8 * info.l2_bytes, big);
  plan.stream_bytes = prm.get_u64("stream-footprint-bytes");
  if (plan.stream_bytes == 0)
    plan.stream_bytes = l2 ? std::max<uint64_t>(info.l2_bytes / 4, 1 << 20)
                           : std::max<uint64_t>(4 * info.l2_bytes, big);
  if (l2 && info.l2_bytes > 0 && plan.chain_bytes + plan.stream_bytes > info.l2_bytes / 2)
    throw Error("--level l2: the chain and the streams (" + std::to_string(plan.chain_bytes) +
                " + " + std::to_string(plan.stream_bytes) + " bytes) must fit in half the L2 (" +
                std::to_string(info.l2_bytes / 2) + " bytes)");
  if (!l2 && info.l2_bytes > 0 &&
      (plan.chain_bytes < 2 * info.l2_bytes || plan.stream_bytes < 2 * info.l2_bytes))
    throw Error("--level dram: the chain and the streams must each be at least twice the L2 (" +
                std::to_string(2 * info.l2_bytes) + " bytes)");
  return plan;
}

ProbeSpec loaded_latency_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "bandwidth/loaded_latency";
  p.summary = "chase latency while the other SMs stream at controlled rates (loaded latency)";
  p.params = {
      {"level", K::choice, "l2", "the level chased and streamed: l2 or dram", {"l2", "dram"}},
      {"throttle-cycles", K::list,
       "65536,32768,16384,8192,4096,2048,1024,512,256,128,64,32,0",
       "cycles each streaming warp spins between its load groups, one point each (0: full rate)",
       {}, kMaxThrottles},
      {"idle", K::choice, "on", "also measure the chaser alone (no streamers)", {"on", "off"}},
      {"hops", K::integer, "4096", "timed chase hops per launch", {}, kMaxLoadedHops,
       bw::kLoadedHopsPerIteration, bw::kLoadedHopsPerIteration},
      {"chain-footprint-bytes", K::bytes, "0",
       "the chain's footprint (0: l2 min(L2/8, 2 MiB); dram 8 x L2, at least 256 MiB)", {}},
      {"stream-footprint-bytes", K::bytes, "0",
       "all streamers' regions together (0: l2 L2/4; dram 4 x L2, at least 256 MiB)", {}},
      {"slot-bytes", K::bytes, "128", "distance between chain slots (one per cache line)", {}, 0,
       8, 8},
      block_threads_param("threads per streaming block (a multiple of 32)"),
      blocks_per_sm_param("streaming blocks per SM (all resident at once)"),
      {"chaser-sm", K::integer, "0", "the SM the chasing thread is pinned to", {}, 1023},
      {"seed", K::integer, "1", "seed of the random chain", {}},
  };
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const DeviceInfo& info = ctx.device().info();
    const LevelPlan plan = plan_level(ctx);
    const uint64_t hops = prm.get_u64("hops");   // a multiple of the iteration (its ParamSpec)
    std::vector<uint64_t> throttles = prm.get_u64_list("throttle-cycles");
    for (uint64_t t : throttles)
      if (t > kMaxThrottleCycles)
        throw Error("--throttle-cycles: " + std::to_string(t) + " is more than " +
                    std::to_string(kMaxThrottleCycles));
    const bool idle = prm.get_text("idle") == "on";
    const uint64_t slot = prm.get_u64("slot-bytes");
    if (slot > plan.chain_bytes / 2)
      throw Error("--slot-bytes must be a multiple of 8 and leave at least two slots in the chain");
    LoadedSetup setup;
    setup.level = plan.level;
    setup.block_threads = read_block_threads(prm);
    setup.blocks_per_sm = read_blocks_per_sm(prm);
    setup.chaser_sm = static_cast<int>(prm.get_u64("chaser-sm"));
    if (setup.chaser_sm >= info.sm_count)
      throw Error("--chaser-sm " + std::to_string(setup.chaser_sm) + ": " + info.name + " has " +
                  std::to_string(info.sm_count) + " SMs");
    const uint64_t grid = uint64_t(setup.blocks_per_sm) * info.sm_count;
    setup.region_tiles = std::max<uint64_t>(
        1, plan.stream_bytes / grid / bw::loaded_tile_bytes(setup.block_threads));
    require_free_memory(ctx, "chain and streams", plan.chain_bytes + plan.stream_bytes,
                        "chain-footprint-bytes");

    auto chain = std::make_shared<Chain>(
        make_random_cycle(plan.chain_bytes, static_cast<uint32_t>(slot), prm.get_u64("seed")));
    setup.chain = chain.get();
    const uint64_t warmup = round_up(
        std::max<uint64_t>(kMinWarmupHops, plan.level == "L2" ? chain->slots() : 0),
        bw::kLoadedHopsPerIteration);
    auto prepared = std::shared_ptr<PreparedLoaded>(ctx.ops<LoadedLatencyOps>().prepare(setup));
    auto start = std::make_shared<uint32_t>(chain->start);
    const uint64_t streamed_bytes = loaded_stream_buffer_bytes(setup, info);

    auto measure = [&ctx, setup, chain, prepared, start, warmup, hops, plan,
                    streamed_bytes](bool stream, uint64_t throttle) {
      std::vector<double> bandwidths, latency_ns;
      LoadedResult first;
      const auto outcome = repeat_until_stable(
          [&]() {
            const LoadedResult r = prepared->run({.start_slot = *start,
                                                  .warmup_hops = warmup,
                                                  .timed_hops = hops,
                                                  .throttle_cycles = throttle,
                                                  .stream = stream});
            *start = walk(*chain, *start, warmup + hops);
            if (bandwidths.empty()) first = r;
            if (r.timed_ns == 0)
              throw Error("loaded latency: the chase's timed hops took 0 ns (the timer is broken)");
            bandwidths.push_back(static_cast<double>(r.timed_stream_bytes) /
                                 static_cast<double>(r.timed_ns) * 1e9);
            latency_ns.push_back(static_cast<double>(r.timed_ns) / static_cast<double>(hops));
            return static_cast<double>(r.timed_cycles) / static_cast<double>(hops);
          },
          ctx.repeat());
      const double clock_mhz = ctx.device().measure_sm_clock_mhz(kPointClockSpinNs);
      const auto& sum = outcome.summary;
      return nlohmann::json{
          {"achieved_bandwidth_bytes_per_s", stats::median(bandwidths)},
          {"latency_cycles", sum.median},
          {"ci95_cycles", {sum.median_ci95.lo, sum.median_ci95.hi}},
          {"mad_cycles", sum.mad},
          {"latency_ns", stats::median(latency_ns)},
          {"repeats", sum.n},
          {"converged", outcome.converged},
          {"streaming_sms", first.streaming_sms},
          {"streaming_blocks", first.streaming_blocks},
          {"timed_hops", hops},
          {"warmup_hops", warmup},
          {"chain_footprint_bytes", chain->span_bytes},
          {"stream_footprint_bytes", stream ? streamed_bytes : 0},
          {"bytes_in_flight", uint64_t(first.streaming_blocks) * (setup.block_threads / 32) *
                                  bw::kLoadedWarpGroupBytes},
          {"region_sm_clock_mhz", clock_mhz},
          {"kernel", first.launch.kernel},
          {"launch", to_json(first.launch)},
          {"self_check", "passed"}};
    };

    auto axes = [&plan](nlohmann::json throttle, const char* offered) {
      return nlohmann::json{{"sweep", "loaded_latency"}, {"level", plan.level},
                            {"throttle_cycles", throttle}, {"offered", offered}};
    };
    std::vector<PlannedPoint> points;
    if (idle) points.push_back({axes(nullptr, "idle"), [measure] { return measure(false, 0); }});
    for (uint64_t t : throttles)
      points.push_back(
          {axes(t, t == 0 ? "full rate" : "throttled"), [measure, t] { return measure(true, t); }});
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(loaded_latency_probe);

}  // namespace
}  // namespace gpuprobe::probes
