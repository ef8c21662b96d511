// GeForce RTX 5090 (GB202, sm_120) at its 2407 MHz boost clock. No measurement of the 5090 itself
// was read: cycle latencies and per-clock rates are those of the RTX 6000D, a 156-SM GB202 at
// 2.30 GHz measured in [R6000D] (FIGURES §2, §4, §5), the closest proxy; device-wide rates are
// scaled to the 5090's datasheet (FIGURES §1 D [LXF-5090], [SPHERON]).
// Every number cites docs/FIGURES.md (source key, confidence tag M/P/S/D/DER) or says that it is
// an assumption.
#include "harness/sim/presets/presets.hpp"
#include "harness/sim/presets/launch_costs.hpp"

namespace gpuprobe::sim::presets_detail {

Preset make_rtx5090() {
  Preset p;
  p.name = "rtx5090";
  p.info.name = "NVIDIA GeForce RTX 5090 (simulated)";
  p.info.cc = {12, 0};                            // D, CUDA compute capability of GB202 (sm_120; FIGURES §5a)
  p.info.sm_count = 170;                          // D [LXF-5090],[SPHERON], FIGURES §1
  p.info.rated_sm_clock_mhz = 2407;               // D [LXF-5090],[SPHERON] boost, FIGURES §1
  p.info.rated_mem_clock_mhz = 14000;             // DER: 28 Gb/s GDDR7 D [LXF-5090] / 2 (1792 GB/s over 512 bits)
  p.info.memory_bus_bits = 512;                   // D [LXF-5090] 512-bit, FIGURES §1
  p.info.l2_bytes = 96ull << 20;                  // D [LXF-5090],[SPHERON] 96 MB, FIGURES §1
  p.info.global_memory_bytes = 32ull << 30;       // assumption: 32 GB GDDR7 (not in FIGURES)
  p.info.shared_memory_per_sm_bytes = 100ull << 10;           // P [R6000D] GB202 smem 100 KB of 128 KB L1, §3
  p.info.shared_memory_per_block_optin_bytes = 99ull << 10;   // P [R6000D] GB202 99 KB/block, §3
  p.info.ecc_enabled = false;                     // assumption: GeForce GDDR7 ECC off by default
  p.info.driver_version = 0;                      // simulator
  p.info.runtime_version = 0;                     // simulator
  p.info.pci_bus_id = "sim";
  p.info.uuid = "sim-rtx5090";
  p.info.simulated = true;
  p.info.sim_preset = p.name;
  p.launch = launch_costs_rtx5090();          // FIGURES §7/§6, cited per field in presets/launch_costs.cpp

  p.caches = {
      {.name = "L1",
       .capacity_bytes = 88ull << 10,   // assumption: the L40's DER [GB24] 88 KiB (the same 128 KB
                                        // L1/smem with 100 KB smem, FIGURES §3); no GB202 size probe
       .line_bytes = 128,               // assumption: as every MT4G GPU, P [MT4G]
       .sector_bytes = 32,              // assumption: as every MT4G GPU, P [MT4G]
       .ways = 4,                       // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 44.1,      // P [R6000D] GB202 44.1 (19.2 ns at 2.30 GHz), FIGURES §2
       .hashed_sets = false},
      {.name = "L2",
       .capacity_bytes = 96ull << 20,   // D [LXF-5090] 96 MB; one level, as the 112 MiB of the
                                        // RTX 6000D (P [R6000D]: no far plateau), FIGURES §2
       .line_bytes = 128,               // assumption: as every MT4G GPU, P [MT4G]
       .sector_bytes = 32,              // assumption: as every MT4G GPU, P [MT4G]
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 366.0,     // P [R6000D] GB202 ~366 (159 ns); 358 S [JAR25a] GB203, §2
       .hashed_sets = true},
  };
  p.dram_latency_cycles = 760.0;    // P [R6000D] GB202 759-877 (330-381 ns): the low end, taken as the
                                    // TLB-hit plateau (assumption); 876.7 S [JAR25a] GB203, FIGURES §2
  p.shared_latency_cycles = 34.0;   // P [R6000D] GB202 34.0 (14.8 ns), FIGURES §2
  p.page_bytes = 2ull << 20;        // assumption: 2 MiB pages (memory/tlb's default), FIGURES §8
  p.tlbs = {
      {.name = "TLB1",
       .entries = 128,              // assumption: the L40's DER [GB24] 256 MiB reach (no GB202
       .ways = 16,                  // figure, FIGURES §8); ways: assumption
       .miss_penalty_cycles = 2.0}, // assumption: the L40's DER [GB24] l40.txt
      {.name = "TLB2",
       .entries = 8192,             // assumption: 16 GiB reach as the L40's, FIGURES §8
       .ways = 16,                  // assumption: no published figure, FIGURES §8
       .miss_penalty_cycles = 0.0}, // the cost of missing TLB2 is all in page_walk_cycles
  };
  p.page_walk_cycles = 1161.0;      // assumption: V100's full-miss/DRAM ratio 1.53 (DER S [JIA18])
                                    // times 760, less TLB1's 2.0 (P [R6000D] 8 GB footprint 1603
                                    // cyc includes page misses of 4 KB pages), FIGURES §8
  p.l2_sm_spread_cycles = 117.0;    // assumption: the L40's 222-339 spread (FIGURES §2, arXiv
                                    // 2606.22588); no GB202 per-SM figure
  p.noise_rel = 0.004;              // assumption: per-hop jitter, no published distribution
  p.outlier_probability = 0.001;    // assumption: no published figure
  p.outlier_extra_cycles = 400;     // assumption: no published figure
  // Bandwidth per level (probes/bandwidth/stream_sim.cpp; FIGURES §4). Queue growth: assumption
  // (no published loaded-latency curve).
  p.bandwidth = {
      {.level = "L1", .peak_bytes_per_clk_per_sm = 81,       // DER P [R6000D] 29.1 TB/s / (156 SMs x
       .queue_cycles = 8,                                    // 2.30 GHz) = 81 B/clk (its "~186" is GB/s per SM)
       .source = "DER P [R6000D] GB202 L1 29.1 TB/s / (156 SMs x 2.30 GHz) = 81 B/clk/SM; queue: assumption"},
      {.level = "shared", .peak_bytes_per_clk_per_sm = 124.9,  // P [R6000D] GB202 124.9 B/clk/SM
       .queue_cycles = 4, .source = "P [R6000D] GB202 shared 124.9 B/clk/SM (FIGURES §3, §4); queue: assumption"},
      {.level = "L2", .peak_bytes_per_clk_per_sm = 64,       // assumption: per-SM port
       .peak_bytes_per_s = 5.66e12,                          // DER P [R6000D] 5.41 TB/s x 2407 / 2300 MHz
       .queue_cycles = 100,
       .source = "DER P [R6000D] GB202 L2 5.41 TB/s scaled to the 5090's clock (assumption: the same L2 per clock); port and queue: assumption"},
      {.level = "DRAM", .peak_bytes_per_s = 1722e9,          // DER: 96.1% (P [R6000D] read) of 1792 D [LXF-5090]
       .queue_cycles = 300,
       .write_fraction = 1283.0 / 1344.0,                    // P [R6000D] write / read
       .copy_fraction = 1285.0 / 1344.0,                     // P [R6000D] triad / read
       .source = "DER P [R6000D] read at 96.1% of theoretical applied to D [LXF-5090] 1792 GB/s; write, copy: P [R6000D] ratios; queue: assumption"},
  };
  p.max_threads_per_sm = 1536;      // D CUDA compute capability 12.0 limits (not in FIGURES)
  p.max_blocks_per_sm = 32;         // D CUDA compute capability 12.0 limits (not in FIGURES)
  return p;
}

}  // namespace gpuprobe::sim::presets_detail
