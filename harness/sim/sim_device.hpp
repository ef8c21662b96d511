// The simulated device: walks the chains the harness built through a model of the machine
// (sectored set-associative caches, near/far L2, TLB levels, DRAM, per-SM L2 distance, seeded
// noise). Families implement their operations on it (probes/<family>/*_sim.cpp) with walk().
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/chain.hpp"
#include "harness/device.hpp"
#include "harness/error.hpp"
#include "harness/sim/preset.hpp"

namespace gpuprobe::sim {

// Where every simulated warp's, warpgroup's or CTA's clock starts in a family's simulated ops
// (any value: only differences count).
inline constexpr uint64_t kStartCycles = 1'000'000;

// Faults a test can plant to prove that a probe's self-checks fail loudly.
struct Faults {
  uint64_t extra_final_hops = 0;   // the walk ends this many hops past where it should
  uint64_t extra_timed_hops = 0;   // the timed phase runs this many hops too many
  // Walks slow_clock_from_walk (1-based) to slow_clock_from_walk + slow_clock_walks - 1 run at
  // 90% of the clock (a throttle).
  uint64_t slow_clock_from_walk = 0;
  uint64_t slow_clock_walks = 0;
};

// One walk: phases of hops over one chain, continuing where the previous phase stopped.
struct WalkSpec {
  bool shared = false;             // shared memory: every hop costs the shared latency
  bool from_l1 = true;             // global: a hit may come from L1 (false: L1 is bypassed)
  int sm = 0;                      // the SM that walks (its distance to the L2 slices)
  std::vector<uint64_t> phase_hops;
  std::vector<bool> keep_each_hop;   // per phase: return every hop's cycles
};

struct WalkResult {
  std::vector<double> phase_cycles;             // the sum of each phase's hops
  std::vector<std::vector<double>> hop_cycles;  // per phase, where keep_each_hop
  uint64_t extra_timed_hops = 0;                // a planted fault, for the caller to report
  double clock_mhz = 0;                         // the SM clock during this walk
  uint32_t final_slot = 0;
};

class SimDevice final : public Device {
 public:
  SimDevice(const Preset& preset, uint64_t seed, Faults faults = {});
  ~SimDevice() override;
  std::string_view backend() const override { return "sim"; }
  const DeviceInfo& info() const override;
  uint64_t free_memory_bytes() override;
  double measure_sm_clock_mhz(uint64_t spin_ns) override;
  nlohmann::json warm_up(double max_seconds) override;
  nlohmann::json telemetry() override;
  uint64_t min_timed_region_ns() const override;

  const Preset& preset() const;
  // Walks `chain` from its start slot; caches and TLBs start cold. Throws Error on a malformed
  // chain or one that does not fit the device.
  WalkResult walk(const Chain& chain, const WalkSpec& spec);
  // The extra cycles SM `sm` pays for every access that reaches the L2 (its distance on the
  // on-chip network); 0 for presets without a per-SM spread.
  double l2_distance_cycles(int sm) const;
  // Presets with Preset::l2_partitioned: the L2 partition (0 or 1) SM `sm` is attached to, and
  // whether the line at `offset_bytes` of a buffer has its home in the other partition. The two
  // SMs of a TPC share a partition; which TPCs go where is a fixed hash (not published).
  int l2_partition_of_sm(int sm) const;
  bool l2_far(int sm, uint64_t offset_bytes) const;
  // The number of this launch among the simulated launches of `family` on this device (1, 2,
  // ...): a family's launch seeds its noise with it, so repeats differ and runs repeat.
  uint64_t next_launch(const std::string& family) { return ++launches_[family]; }

  // A planted wrong result, to prove that a self-check fails its point and the probe goes on
  // (a test's, or the CLI's test hook GPUPROBE_TEST_FAIL_SELF_CHECK=<op>[:<how>]): the simulated
  // result of the op named `op` (the name its records give it) is made wrong where the family
  // computes it, so that the family's own check finds the mismatch. `how`, for the tensor ops, is
  // the layout error planted in the tile (probes/tensor/tile_diagnosis.hpp); empty: one value off.
  struct WrongResult {
    std::string op, how;
  };
  void plant_wrong_result(WrongResult w) { wrong_.push_back(std::move(w)); }
  // The planted wrong result of `op`, or nullptr.
  const WrongResult* wrong_result(const std::string& op) const {
    for (const WrongResult& w : wrong_)
      if (w.op == op) return &w;
    return nullptr;
  }

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  std::map<std::string, uint64_t> launches_;
  std::vector<WrongResult> wrong_;
};

std::unique_ptr<Device> make_sim_device(const Preset& preset, uint64_t seed = 1,
                                        Faults faults = {});

}  // namespace gpuprobe::sim
