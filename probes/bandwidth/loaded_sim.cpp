// LoadedLatencyOps on the simulated device. The chaser walks the real chain through the machine
// model (SimDevice::walk, L1 bypassed as ld.global.cg does), which gives its unloaded hops and
// the slot it ends on. The streamers are the level's queue (Preset::bandwidth, the model of
// harness/littles_law.hpp that stream_sim.cpp uses): every streaming warp keeps one group of
// kLoadedWarpGroupBytes in flight, waits for it (the level's latency under load) and spins the
// throttle, so Little's law with the latency plus the throttle gives the achieved bandwidth B:
//     B x (latency(B) + throttle) = bytes in flight,   latency(B) = unloaded + queue B / (peak - B)
// (littles_law::bandwidth_for with the throttle added to the unloaded latency: B stays below the
// level's service rate `peak`, the smaller of the streaming SMs' ports and the level's own peak).
// Each chase hop then waits queue x B / (peak - B) more. Blocks go to SMs round-robin; those on
// the chaser's SM do not stream. The timing carries the walk's per-hop noise, the streamers'
// rate the preset's relative noise.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "harness/littles_law.hpp"
#include "harness/ops.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/bandwidth/loaded_ops.hpp"

namespace gpuprobe::probes {
namespace {

namespace bw = bandwidth;

class SimPreparedLoaded final : public PreparedLoaded {
 public:
  SimPreparedLoaded(sim::SimDevice& device, const LoadedSetup& setup)
      : device_(device), preset_(device.preset()), setup_(setup), chain_(*setup.chain), walk_chain_(*setup.chain),
        rng_(0x10adedull ^ (uint64_t(setup.chaser_sm) << 32) ^ setup.region_tiles) {
    const uint32_t resident = setup.block_threads == 0
                                  ? 0
                                  : std::min(preset_.max_blocks_per_sm,
                                             preset_.max_threads_per_sm / setup.block_threads);
    check_loaded_fits(setup, device_.info(), device_.free_memory_bytes(), resident);
    model_ = &level_model(setup.level);
    if (setup.level == "DRAM") {
      level_latency_cycles_ = preset_.dram_latency_cycles;
    } else {
      for (const auto& c : preset_.caches)
        if (c.name == setup.level) level_latency_cycles_ = c.hit_latency_cycles;
    }
    if (!(level_latency_cycles_ > 0))
      throw Error("the simulated " + preset_.name + " has no latency for " + setup.level);
  }

  LoadedResult run(const LoadedRun& run) override {
    check_loaded_run(setup_, run);
    sim::WalkSpec spec;
    spec.from_l1 = false;   // ld.global.cg
    spec.sm = setup_.chaser_sm;
    spec.phase_hops = {run.warmup_hops, run.timed_hops};
    spec.keep_each_hop = {false, false};
    walk_chain_.start = run.start_slot;
    const sim::WalkResult walked = device_.walk(walk_chain_, spec);
    const double mhz = walked.clock_mhz;

    // The streamers: one group in flight per warp, on every SM but the chaser's.
    const int sms = device_.info().sm_count;
    const uint32_t blocks = loaded_grid_blocks(setup_, device_.info());
    const uint32_t warps_per_block = setup_.block_threads / 32;
    uint32_t streaming_blocks = 0;
    for (uint32_t b = 0; b < blocks; ++b)
      streaming_blocks += static_cast<int>(b % sms) != setup_.chaser_sm;
    const double streaming_sms = sms - 1;
    double peak = model_->peak_bytes_per_clk_per_sm > 0
                      ? streaming_sms * model_->peak_bytes_per_clk_per_sm
                      : INFINITY;
    if (model_->peak_bytes_per_s > 0) peak = std::min(peak, model_->peak_bytes_per_s / (mhz * 1e6));
    if (!std::isfinite(peak))
      throw Error("the simulated " + preset_.name + " has no peak for " + setup_.level);
    const double in_flight =
        double(streaming_blocks) * warps_per_block * double(bw::kLoadedWarpGroupBytes);
    double bytes_per_clk = 0;
    if (run.stream) {
      const littles_law::LoadedLatency throttled{
          level_latency_cycles_ + static_cast<double>(run.throttle_cycles), model_->queue_cycles,
          peak};
      std::normal_distribution<double> noise(0.0, preset_.noise_rel);
      // The noise moves the point along the curve (the chase's queueing follows the rate the
      // streamers achieved), never to or past the service rate.
      bytes_per_clk = std::min(littles_law::bandwidth_for(throttled, in_flight) *
                                   std::max(0.5, 1.0 + noise(rng_)),
                               peak * (1 - 1e-6));
    }
    const double queued = bytes_per_clk > 0 ? model_->queue_cycles * bytes_per_clk / (peak - bytes_per_clk) : 0.0;

    const double timed_cycles =
        walked.phase_cycles[1] + queued * static_cast<double>(run.timed_hops);
    const double all_cycles = walked.phase_cycles[0] + timed_cycles +
                              queued * static_cast<double>(run.warmup_hops);
    LoadedResult r;
    r.timed_cycles = static_cast<uint64_t>(std::llround(timed_cycles));
    r.timed_ns = static_cast<uint64_t>(std::llround(timed_cycles / mhz * 1000.0));
    r.timed_iterations = (run.timed_hops + walked.extra_timed_hops) / bw::kLoadedHopsPerIteration;
    r.final_offset_bytes = chain_.offset_bytes[walked.final_slot];
    r.timed_stream_bytes = static_cast<uint64_t>(std::llround(bytes_per_clk * timed_cycles));
    // Every streaming warp streams the same groups over the whole launch.
    std::vector<uint32_t> warp_groups(uint64_t(blocks) * warps_per_block, 0);
    if (run.stream && streaming_blocks > 0) {
      const double per_warp = bytes_per_clk * all_cycles /
                              (double(streaming_blocks) * warps_per_block) /
                              double(bw::kLoadedWarpGroupBytes);
      const auto groups = static_cast<uint32_t>(std::max(1.0, std::round(per_warp)));
      for (uint32_t b = 0; b < blocks; ++b) {
        if (static_cast<int>(b % sms) == setup_.chaser_sm) continue;
        for (uint32_t w = 0; w < warps_per_block; ++w)
          warp_groups[uint64_t(b) * warps_per_block + w] = groups;
        r.stream_bytes += uint64_t(groups) * warps_per_block * bw::kLoadedWarpGroupBytes;
      }
      r.streaming_blocks = streaming_blocks;
      r.streaming_sms = static_cast<uint32_t>(streaming_sms);
    }
    r.expected_checksum = loaded_checksum(setup_, warp_groups);
    r.checksum = r.expected_checksum;
    LaunchRecord& launch = r.launch;
    launch.kernel = "gpuprobe_bw_loaded";
    launch.config.grid = Dim3{blocks, 1, 1};
    launch.config.block = Dim3{setup_.block_threads, 1, 1};
    launch.config.pinned_sm = setup_.chaser_sm;
    launch.smid = setup_.chaser_sm;
    check_loaded_result(setup_, run, r);
    return r;
  }

 private:
  const sim::LevelBandwidthModel& level_model(const std::string& level) const {
    for (const auto& m : preset_.bandwidth)
      if (m.level == level) return m;
    throw Error("the simulated " + preset_.name + " has no bandwidth model for " + level);
  }

  sim::SimDevice& device_;
  const sim::Preset& preset_;
  LoadedSetup setup_;
  const Chain& chain_;
  Chain walk_chain_;   // the chain, started where each run starts (SimDevice::walk starts at .start)
  const sim::LevelBandwidthModel* model_ = nullptr;
  double level_latency_cycles_ = 0;
  std::mt19937_64 rng_;
};

const auto kRegistration = register_prepare_ops<LoadedLatencyOps, sim::SimDevice, SimPreparedLoaded>(
    "sim", __FILE__, [](sim::SimDevice& device, const LoadedSetup& setup) {
      if (device.preset().bandwidth.empty())
        throw OpsUnavailable("the simulated " + device.preset().name + " has no bandwidth model");
      require_chain(setup);
    });

}  // namespace
}  // namespace gpuprobe::probes
