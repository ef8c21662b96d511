// A simulated GPU: the parameters the simulator models. Each preset lives in
// harness/sim/presets/<name>.cpp and cites the source of every number (FIGURES.md keys).
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/device.hpp"
#include "harness/sim/family_tables.hpp"

namespace gpuprobe::sim {

// How a set chooses the way to evict when it is full (an empty way is always taken first).
enum class Replacement {
  lru,     // strict least recently used: a cyclic footprint one line over a set misses every time
  plru,    // tree pseudo-LRU (power-of-two ways): keeps some lines of a footprint past capacity
  random,  // a way drawn from the device's seeded generator
};

// One set-associative, sectored cache level.
struct CacheLevelModel {
  std::string name;               // "L1", "L2", "L2-far"
  uint64_t capacity_bytes = 0;
  uint32_t line_bytes = 128;
  uint32_t sector_bytes = 32;
  uint32_t ways = 16;
  double hit_latency_cycles = 0;  // load-to-use latency of a hop that hits here
  bool hashed_sets = false;       // L2 slices hash their set index; L1 indexes by address bits
  // Hashed sets: the hash rotates each aligned block of this many bytes (at least one line per
  // set), which loads the sets of a contiguous buffer a little unevenly so that the knee starts
  // before the capacity; 0: every set gets the same number of lines up to the capacity.
  uint64_t hash_block_bytes = 0;
  Replacement replacement = Replacement::lru;
};

struct TlbLevelModel {
  std::string name;               // "TLB1", "TLB2"
  uint32_t entries = 0;
  uint32_t ways = 0;              // entries == ways means fully associative
  double miss_penalty_cycles = 0; // added when this level misses (and the next one is asked)
};

// Bandwidth of one level for the simulated stream probes (probes/bandwidth/stream_sim.cpp):
// the aggregate peak is the smaller of the per-SM port times the SMs and the level's own peak;
// latency under load grows by queue_cycles as the load approaches the peak (Little's law).
struct LevelBandwidthModel {
  std::string level;                      // "L1", "shared", "L2", "L2-far", "DRAM"
  double peak_bytes_per_clk_per_sm = 0;   // per-SM port; 0 = no per-SM limit
  double peak_bytes_per_s = 0;            // whole-device limit; 0 = none
  double queue_cycles = 0;                // extra latency at the peak
  double write_fraction = 1.0;            // write peak over read peak
  double copy_fraction = 1.0;             // copy peak over read peak
  std::string source;                     // FIGURES.md keys, or "assumption"
};

// What launching costs on the simulated device, for the launch family (probes/launch/launch_sim.cpp;
// the measures are probes/launch/launch_ops.hpp's). Filled per preset in presets/launch_costs.cpp,
// each number citing FIGURES.md §7 (and §6) or marked as an assumption.
struct SmallKernelCost {
  std::string method;             // "stream", "graph", "gsync", "pt"
  double overhead_ns = 0;         // a of T = a + V/b: per launch or per pass
  double bytes_per_s = 0;         // b: SCALE's bandwidth while its data sits in the L2
  std::string source;
};
struct LaunchCostModel {
  double host_enqueue_ns = 0;     // 0: the simulated launch probes are unavailable
  double round_trip_ns = 0;       // launch + synchronize
  double back_to_back_ns = 0;     // GPU time per empty kernel, many in a row
  double gap_ns = 0;              // one kernel's end to the next one's start
  double pdl_launch_ns = 0;       // a PDL secondary's start after its primary's trigger (0: no PDL)
  double graph_instantiate_ns = 0, graph_instantiate_per_node_ns = 0;
  double graph_update_ns = 0, graph_update_per_node_ns = 0;
  double graph_launch_ns = 0, graph_launch_per_node_ns = 0;
  double device_graph_launch_ns = 0;  // a device-side cudaGraphLaunch to the child's start
  std::vector<SmallKernelCost> small_kernels;
  std::string source;             // the citations, field by field
};

struct Preset {
  std::string name;               // "h100"
  DeviceInfo info;                // what the simulated device reports (simulated = true)
  // Cache levels a global load walks, nearest first. A `.ca`/`.cs`/`.lu`/`.nc` load starts at
  // the level named "L1"; `.cg` and `.cv` start at the first level after it.
  std::vector<CacheLevelModel> caches;
  double dram_latency_cycles = 0;
  double shared_latency_cycles = 0;
  uint64_t page_bytes = 2ull << 20;
  std::vector<TlbLevelModel> tlbs;  // nearest first; a miss in all of them costs a page walk
  double page_walk_cycles = 0;      // added when every TLB level misses
  // Extra cycles an SM pays for every access that reaches the L2, drawn per SM from
  // [0, l2_sm_spread_cycles): its distance to the L2 slices on the on-chip network.
  double l2_sm_spread_cycles = 0;
  // Measured distances, one per SM (overrides the spread): what memory/chase --sm all read on a
  // real GPU, less its fastest SM.
  std::vector<double> l2_sm_offsets_cycles;
  // A100/H100: the L2 is two partitions. Each line's home is one of them (l2_home_partition(), an
  // address hash) and each SM is attached to one, its near partition. When true, the level named
  // "L2-far" is the two home partitions, each half of its capacity, and a line lives in the sets of
  // its home partition; the level before it ("L2") is what the SM's near partition holds for it:
  // its own lines and copies of the far partition's. A hit past the near copy costs the far latency
  // (see docs/ANALYSIS.md, "The simulator's soft knees", for why wherever the home is).
  bool l2_partitioned = false;
  // Device::min_timed_region_ns of the simulated device (the simulator's timer does not tick).
  uint64_t min_timed_region_ns = 20'000;
  double noise_rel = 0.004;         // relative sigma of per-hop jitter (deterministic from seed)
  double outlier_probability = 0.001;
  double outlier_extra_cycles = 400;
  std::vector<LevelBandwidthModel> bandwidth;  // empty: the stream probes are unavailable
  LaunchCostModel launch;           // host_enqueue_ns 0: the launch probes are unavailable
  uint32_t max_threads_per_sm = 2048;
  uint32_t max_blocks_per_sm = 32;
  // The families' own cost tables (harness/sim/family_tables.hpp), attached by presets().
  FamilyTables tables;
  template <class T>
  const T* table(const std::string& family) const {
    return tables.find<T>(family);
  }
};

const std::vector<Preset>& presets();
// Throws gpuprobe::Error listing the known presets when name is unknown.
const Preset& find_preset(std::string_view name);

// The same GPU made `factor` times slower, an injected slow device for fleet tests (`gpuprobe
// aggregate`): every rate of the preset (per clock per SM, per second) divided by the factor,
// every latency and cost (cycles, ns) multiplied by it; the clock, capacities and noise stay.
// sim_preset and uuid carry the modifier ("h100,slowdown=1.25", "sim-h100-slowdown-1.25") so that
// its results are never taken for the preset's; the name stays the GPU model's.
Preset slowed_preset(const Preset& preset, double factor);

// What follows "sim:" in a device spec: a preset name, optionally ",slowdown=F" (1 <= F <= 100).
// Throws gpuprobe::Error (one line) on an unknown preset, modifier or a bad factor.
Preset preset_from_spec(std::string_view spec);

}  // namespace gpuprobe::sim
