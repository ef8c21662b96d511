// The bandwidth family's operations on the simulated device: a queueing model per memory level
// (Preset::bandwidth, harness/littles_law.hpp) for both.
//
// StreamOps. A launch keeps stream_bytes_in_flight_per_sm() bytes in flight on each streaming
// SM; Little's law with the level's loaded latency turns the bytes in flight of all those SMs
// into a bandwidth, capped by the smaller of the SMs' ports and the level's own peak. Which level
// serves a launch follows from the geometry and the preset's caches:
//   read     the first pass comes from the level that holds the whole footprint; the further
//            passes from L1 when every resident block's window fits in it together
//   read_l2  the L2 (its far partition, where the preset has one, past the near capacity), or
//            DRAM past the whole L2
//   write, copy  the level that holds the footprint, at the level's write / copy fraction
//   shared   shared memory, slowed by the stride's bank conflicts (32 banks of 4 bytes)
// The checksum is the host's closed form; the timing carries the preset's relative noise.
//
// LoadedLatencyOps. The chaser walks the real chain through the machine model (SimDevice::walk,
// L1 bypassed as ld.global.cg does), which gives its unloaded hops and the slot it ends on. The
// streamers are the level's queue: every streaming warp keeps one group of kLoadedWarpGroupBytes
// in flight, waits for it (the level's latency under load) and spins the throttle, so Little's
// law with the latency plus the throttle gives the achieved bandwidth B:
//     B x (latency(B) + throttle) = bytes in flight,   latency(B) = unloaded + queue B / (peak - B)
// (littles_law::bandwidth_for with the throttle added to the unloaded latency: B stays below the
// level's service rate `peak`, the smaller of the streaming SMs' ports and the level's own peak).
// Each chase hop then waits queue x B / (peak - B) more. Blocks go to SMs round-robin; those on
// the chaser's SM do not stream. The timing carries the walk's per-hop noise, the streamers'
// rate the preset's relative noise.
#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "harness/littles_law.hpp"
#include "harness/ops.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/bandwidth/stream_ops.hpp"
#include "probes/common/units.hpp"

namespace gpuprobe::probes {
namespace {

namespace bw = bandwidth;

// Fixed cost of a launch inside the events (the grid's ramp-up and drain), in ns: an assumption
// of the order the H100 runs show for an empty kernel behind a spin.
constexpr double kSimLaunchRampNs = 2000.0;

const sim::LevelBandwidthModel& level_model(const sim::Preset& p, const std::string& level) {
  for (const auto& m : p.bandwidth)
    if (m.level == level) return m;
  // A preset without a far-partition entry streams its far L2 at the L2's rate.
  if (level == "L2-far") return level_model(p, "L2");
  throw Error("the simulated " + p.name + " has no bandwidth model for " + level);
}

const sim::CacheLevelModel* cache(const sim::Preset& p, const std::string& name) {
  for (const auto& c : p.caches)
    if (c.name == name) return &c;
  return nullptr;
}

// Blocks of block_threads threads one SM of the preset holds at once.
uint32_t resident_blocks(const sim::Preset& p, uint32_t block_threads) {
  return block_threads == 0 ? 0 : std::min(p.max_blocks_per_sm, p.max_threads_per_sm / block_threads);
}

double unloaded_cycles(const sim::Preset& p, const std::string& level) {
  if (level == "shared") return p.shared_latency_cycles;
  const sim::CacheLevelModel* c = level == "DRAM" ? nullptr : cache(p, level);
  return c ? c->hit_latency_cycles : p.dram_latency_cycles;
}

// The level's service rate in bytes per clock (at clock_hz) with `sms` SMs streaming: the smaller
// of their ports and the level's own peak. Either limit may be absent (0); a level with neither
// is a preset error.
double peak_bytes_per_clk(const sim::Preset& p, const sim::LevelBandwidthModel& m, double sms,
                          double clock_hz) {
  double peak = m.peak_bytes_per_clk_per_sm > 0 ? sms * m.peak_bytes_per_clk_per_sm : INFINITY;
  if (m.peak_bytes_per_s > 0) peak = std::min(peak, m.peak_bytes_per_s / clock_hz);
  if (!std::isfinite(peak)) throw Error("the simulated " + p.name + " has no peak for " + m.level);
  return peak;
}

// Wavefronts a warp's shared access takes over the conflict-free count: lanes are served in
// phases of 128 bytes (32 lanes of 4 bytes, 16 of 8, 8 of 16); in each phase the bank that holds
// the most distinct 4-byte words sets the number of wavefronts.
double shared_conflict_factor(uint32_t stride_elems, uint32_t vec_bytes) {
  const uint32_t words = vec_bytes / 4;
  const uint32_t lanes_per_phase = 32 / words;
  uint32_t wavefronts = 0;
  for (uint32_t phase = 0; phase < words; ++phase) {
    std::vector<std::set<uint64_t>> bank(32);
    for (uint32_t l = 0; l < lanes_per_phase; ++l) {
      const uint64_t first = (phase * lanes_per_phase + l) * stride_elems * words;
      for (uint32_t j = 0; j < words; ++j) bank[(first + j) % 32].insert(first + j);
    }
    uint32_t most = 1;
    for (const auto& b : bank) most = std::max<uint32_t>(most, static_cast<uint32_t>(b.size()));
    wavefronts += most;
  }
  return static_cast<double>(wavefronts) / words;
}

class SimPreparedStream final : public PreparedStream {
 public:
  SimPreparedStream(sim::SimDevice& device, const StreamSetup& setup)
      : preset_(device.preset()), setup_(setup),
        smem_bytes_(check_stream_fits(setup, device.info(), device.free_memory_bytes())),
        resident_(resident_blocks_per_sm()),
        rng_(std::hash<std::string>{}(stream_kernel_name(setup.shape)) ^ setup.blocks ^
             (setup.geometry.footprint_tiles << 20)) {}

  StreamResult run(const StreamRun& run) override {
    StreamResult result = expected_stream_result(setup_, run);
    const double clock_mhz = preset_.info.rated_sm_clock_mhz;
    const double moved = static_cast<double>(result.bytes_read + result.bytes_written);
    const double per_pass = moved / run.repeats;
    double cycles = 0;
    if (setup_.shape.kind == StreamKind::read && run.repeats > 1 && windows_fit_l1()) {
      cycles = per_pass / bytes_per_clk(data_level()) +
               (moved - per_pass) / bytes_per_clk("L1");
    } else {
      cycles = moved / bytes_per_clk(setup_.shape.kind == StreamKind::shared ? "shared"
                                                                              : data_level());
    }
    std::normal_distribution<double> noise(0.0, preset_.noise_rel);
    result.elapsed_ns =
        (cycles / clock_mhz * 1000.0 + kSimLaunchRampNs) * std::max(0.5, 1.0 + noise(rng_));
    result.checksum = result.expected_checksum;
    result.resident_blocks_per_sm = resident_;
    result.launch.kernel = stream_kernel_name(setup_.shape);
    result.launch.config = launch_config(setup_.blocks, setup_.block_threads, smem_bytes_);
    check_stream_result(setup_, result);
    return result;
  }

 private:
  uint32_t resident_blocks_per_sm() const {
    const auto sms = static_cast<uint32_t>(preset_.info.sm_count);
    uint32_t r = resident_blocks(preset_, setup_.block_threads);
    if (smem_bytes_ > 0)
      r = std::min<uint32_t>(r, static_cast<uint32_t>(preset_.info.shared_memory_per_sm_bytes /
                                                      smem_bytes_));
    return std::max<uint32_t>(1, std::min(r, (setup_.blocks + sms - 1) / sms));
  }

  bool windows_fit_l1() const {
    const sim::CacheLevelModel* l1 = cache(preset_, "L1");
    if (l1 == nullptr) return false;
    const uint64_t window = setup_.geometry.tiles_per_block *
                            bw::tile_bytes(setup_.block_threads, setup_.shape.vec_bytes, setup_.shape.ilp);
    return window * resident_ <= l1->capacity_bytes;
  }

  // The level that holds the footprint (a copy's source and destination both; L1 is never it:
  // the first pass misses it).
  std::string data_level() const {
    const uint64_t bytes = stream_buffer_bytes(setup_);
    const sim::CacheLevelModel* near = cache(preset_, "L2");
    const sim::CacheLevelModel* far = cache(preset_, "L2-far");
    const uint64_t whole_l2 = far ? far->capacity_bytes : near ? near->capacity_bytes : 0;
    if (bytes > whole_l2) return "DRAM";
    if (setup_.shape.kind == StreamKind::read_l2 && far != nullptr && near != nullptr &&
        bytes > near->capacity_bytes)
      return "L2-far";
    return "L2";
  }

  double bytes_per_clk(const std::string& level) const {
    const sim::LevelBandwidthModel& m = level_model(preset_, level);
    const double sms = std::min<double>(preset_.info.sm_count, setup_.blocks);
    double peak = peak_bytes_per_clk(preset_, m, sms, preset_.info.rated_sm_clock_mhz * 1e6);
    if (setup_.shape.kind == StreamKind::write) peak *= m.write_fraction;
    if (setup_.shape.kind == StreamKind::copy) peak *= m.copy_fraction;
    if (setup_.shape.kind == StreamKind::shared)
      peak /= shared_conflict_factor(setup_.stride_elems, setup_.shape.vec_bytes);
    const littles_law::LoadedLatency model{unloaded_cycles(preset_, level), m.queue_cycles, peak};
    const double in_flight =
        sms * static_cast<double>(stream_bytes_in_flight_per_sm(setup_, resident_));
    return littles_law::bandwidth_for(model, in_flight);
  }

  const sim::Preset& preset_;
  StreamSetup setup_;
  uint64_t smem_bytes_ = 0;
  uint32_t resident_ = 0;
  std::mt19937_64 rng_;
};

class SimPreparedLoaded final : public PreparedLoaded {
 public:
  SimPreparedLoaded(sim::SimDevice& device, const LoadedSetup& setup)
      : device_(device), preset_(device.preset()), setup_(setup),
        rng_(0x10adedull ^ (uint64_t(setup.chaser_sm) << 32) ^ setup.region_tiles) {
    check_loaded_fits(setup, device_.info(), device_.free_memory_bytes(),
                      resident_blocks(preset_, setup.block_threads));
    walk_chain_ = *setup.chain;
    model_ = &level_model(preset_, setup.level);
    level_latency_cycles_ = unloaded_cycles(preset_, setup.level);
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
    const uint32_t streaming_blocks = blocks - setup_.blocks_per_sm;  // blocks_per_sm on each SM
    const double streaming_sms = sms - 1;
    const double peak = peak_bytes_per_clk(preset_, *model_, streaming_sms, mhz * 1e6);
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
    const double queued =
        bytes_per_clk > 0 ? model_->queue_cycles * bytes_per_clk / (peak - bytes_per_clk) : 0.0;

    const double timed_cycles =
        walked.phase_cycles[1] + queued * static_cast<double>(run.timed_hops);
    const double all_cycles = walked.phase_cycles[0] + timed_cycles +
                              queued * static_cast<double>(run.warmup_hops);
    LoadedResult r;
    r.timed_cycles = static_cast<uint64_t>(std::llround(timed_cycles));
    r.timed_ns = static_cast<uint64_t>(std::llround(timed_cycles / mhz * 1000.0));
    r.timed_iterations = (run.timed_hops + walked.extra_timed_hops) / bw::kLoadedHopsPerIteration;
    r.final_offset_bytes = walk_chain_.offset_bytes[walked.final_slot];
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
    r.launch.kernel = "gpuprobe_bw_loaded";
    r.launch.config = launch_config(blocks, setup_.block_threads);
    r.launch.config.pinned_sm = setup_.chaser_sm;
    r.launch.smid = setup_.chaser_sm;
    check_loaded_result(setup_, run, r);
    return r;
  }

 private:
  sim::SimDevice& device_;
  const sim::Preset& preset_;
  LoadedSetup setup_;
  Chain walk_chain_;   // the chain, started where each run starts (SimDevice::walk starts at .start)
  const sim::LevelBandwidthModel* model_ = nullptr;
  double level_latency_cycles_ = 0;
  std::mt19937_64 rng_;
};

void require_bandwidth_model(sim::SimDevice& device) {
  if (device.preset().bandwidth.empty())
    throw OpsUnavailable("the simulated " + device.preset().name + " has no bandwidth model");
}

const auto kStreamOps = register_prepare_ops<StreamOps, sim::SimDevice, SimPreparedStream>(
    "sim", __FILE__, [](sim::SimDevice& device, const StreamSetup&) { require_bandwidth_model(device); });
const auto kLoadedOps = register_prepare_ops<LoadedLatencyOps, sim::SimDevice, SimPreparedLoaded>(
    "sim", __FILE__, [](sim::SimDevice& device, const LoadedSetup&) { require_bandwidth_model(device); });

}  // namespace
}  // namespace gpuprobe::probes
