// StreamOps on the simulated device: a queueing model per memory level (Preset::bandwidth,
// harness/littles_law.hpp). A launch keeps stream_bytes_in_flight_per_sm() bytes in flight on
// each streaming SM; Little's law with the level's loaded latency turns the bytes in flight of
// all those SMs into a bandwidth, capped by the smaller of the SMs' ports and the level's own
// peak. Which level serves a launch follows from the geometry and the preset's caches:
//   read     the first pass comes from the level that holds the whole footprint; the further
//            passes from L1 when every resident block's window fits in it together
//   read_l2  the L2 (its far partition, where the preset has one, past the near capacity), or
//            DRAM past the whole L2
//   write, copy  the level that holds the footprint, at the level's write / copy fraction
//   shared   shared memory, slowed by the stride's bank conflicts (32 banks of 4 bytes)
// The checksum is the host's closed form; the timing carries the preset's relative noise.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "harness/littles_law.hpp"
#include "harness/ops.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/bandwidth/stream_ops.hpp"

namespace gpuprobe::probes {
namespace {

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

// Wavefronts a warp's shared access takes over the conflict-free count: lanes are served in
// phases of 128 bytes (32 lanes of 4 bytes, 16 of 8, 8 of 16); in each phase the bank that holds
// the most distinct 4-byte words sets the number of wavefronts.
double shared_conflict_factor(uint32_t stride_elems, uint32_t vec_bytes) {
  const uint32_t words = vec_bytes / 4;
  const uint32_t lanes_per_phase = 32 / words;
  uint32_t wavefronts = 0;
  for (uint32_t phase = 0; phase < words; ++phase) {
    std::vector<std::vector<uint64_t>> bank(32);
    for (uint32_t l = 0; l < lanes_per_phase; ++l) {
      const uint64_t lane = phase * lanes_per_phase + l;
      const uint64_t first = lane * stride_elems * words;
      for (uint32_t j = 0; j < words; ++j) {
        auto& b = bank[(first + j) % 32];
        if (std::find(b.begin(), b.end(), first + j) == b.end()) b.push_back(first + j);
      }
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
      : device_(device), preset_(device.preset()), setup_(setup),
        rng_(std::hash<std::string>{}(stream_kernel_name(setup.shape)) ^ setup.blocks ^
             (setup.geometry.footprint_tiles << 20)) {
    smem_bytes_ = check_stream_fits(setup, device_.info(), device_.free_memory_bytes());
    resident_ = resident_blocks_per_sm();
  }

  StreamResult run(const StreamRun& run) override {
    if (run.repeats == 0)
      throw Error(stream_kernel_name(setup_.shape) + ": a run needs at least one pass");
    const StreamTraffic traffic = stream_traffic(setup_, run);
    const double clock_mhz = preset_.info.rated_sm_clock_mhz;
    const double moved = static_cast<double>(traffic.bytes_read + traffic.bytes_written);
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
    StreamResult result;
    result.elapsed_ns =
        (cycles / clock_mhz * 1000.0 + kSimLaunchRampNs) * std::max(0.5, 1.0 + noise(rng_));
    result.bytes_read = traffic.bytes_read;
    result.bytes_written = traffic.bytes_written;
    result.checksum = traffic.expected_checksum;
    result.expected_checksum = traffic.expected_checksum;
    result.resident_blocks_per_sm = resident_;
    LaunchRecord& launch = result.launch;
    launch.kernel = stream_kernel_name(setup_.shape);
    launch.config.grid = Dim3{setup_.blocks, 1, 1};
    launch.config.block = Dim3{setup_.block_threads, 1, 1};
    launch.config.dynamic_smem_bytes = smem_bytes_;
    check_stream_result(setup_, result);
    return result;
  }

 private:
  uint32_t resident_blocks_per_sm() const {
    const auto sms = static_cast<uint32_t>(preset_.info.sm_count);
    uint32_t r = std::min(preset_.max_blocks_per_sm, preset_.max_threads_per_sm / setup_.block_threads);
    if (smem_bytes_ > 0)
      r = std::min<uint32_t>(r, static_cast<uint32_t>(preset_.info.shared_memory_per_sm_bytes /
                                                      smem_bytes_));
    return std::max<uint32_t>(1, std::min(r, (setup_.blocks + sms - 1) / sms));
  }

  uint64_t footprint_bytes() const {
    return stream_buffer_bytes(setup_);   // a copy's source and destination both
  }

  bool windows_fit_l1() const {
    const sim::CacheLevelModel* l1 = cache(preset_, "L1");
    if (l1 == nullptr) return false;
    const uint64_t window = setup_.geometry.tiles_per_block *
                            bandwidth::tile_bytes(setup_.block_threads, setup_.shape.vec_bytes,
                                                  setup_.shape.ilp);
    return window * resident_ <= l1->capacity_bytes;
  }

  // The level that holds the footprint (L1 is never it: the first pass misses it).
  std::string data_level() const {
    const uint64_t bytes = footprint_bytes();
    const sim::CacheLevelModel* near = cache(preset_, "L2");
    const sim::CacheLevelModel* far = cache(preset_, "L2-far");
    const uint64_t whole_l2 = far ? far->capacity_bytes : near ? near->capacity_bytes : 0;
    if (bytes > whole_l2) return "DRAM";
    if (setup_.shape.kind == StreamKind::read_l2 && far != nullptr && near != nullptr &&
        bytes > near->capacity_bytes)
      return "L2-far";
    return "L2";
  }

  double unloaded_cycles(const std::string& level) const {
    if (level == "shared") return preset_.shared_latency_cycles;
    if (level == "DRAM") return preset_.dram_latency_cycles;
    const sim::CacheLevelModel* c = cache(preset_, level);
    return c ? c->hit_latency_cycles : preset_.dram_latency_cycles;
  }

  double bytes_per_clk(const std::string& level) const {
    const sim::LevelBandwidthModel& m = level_model(preset_, level);
    const double clock_hz = preset_.info.rated_sm_clock_mhz * 1e6;
    const double sms = std::min<double>(preset_.info.sm_count, setup_.blocks);
    // Either limit may be absent (0); a level with neither is a preset error.
    double peak = m.peak_bytes_per_clk_per_sm > 0 ? sms * m.peak_bytes_per_clk_per_sm : INFINITY;
    if (m.peak_bytes_per_s > 0) peak = std::min(peak, m.peak_bytes_per_s / clock_hz);
    if (!std::isfinite(peak))
      throw Error("the simulated " + preset_.name + " has no peak for " + level);
    if (setup_.shape.kind == StreamKind::write) peak *= m.write_fraction;
    if (setup_.shape.kind == StreamKind::copy) peak *= m.copy_fraction;
    if (setup_.shape.kind == StreamKind::shared)
      peak /= shared_conflict_factor(setup_.stride_elems, setup_.shape.vec_bytes);
    const littles_law::LoadedLatency model{unloaded_cycles(level), m.queue_cycles, peak};
    const double in_flight =
        sms * static_cast<double>(stream_bytes_in_flight_per_sm(setup_, resident_));
    return littles_law::bandwidth_for(model, in_flight);
  }

  sim::SimDevice& device_;
  const sim::Preset& preset_;
  StreamSetup setup_;
  uint64_t smem_bytes_ = 0;
  uint32_t resident_ = 0;
  std::mt19937_64 rng_;
};

const auto kRegistration = register_prepare_ops<StreamOps, sim::SimDevice, SimPreparedStream>(
    "sim", __FILE__, [](sim::SimDevice& device, const StreamSetup&) {
      if (device.preset().bandwidth.empty())
        throw OpsUnavailable("the simulated " + device.preset().name + " has no bandwidth model");
    });

}  // namespace
}  // namespace gpuprobe::probes
