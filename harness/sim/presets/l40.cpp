// L40 at 2490 MHz: the GPU of gpu-latency/l40.txt in data/real/.
// Every number cites docs/FIGURES.md (source key, confidence tag M/P/S/D/DER) or says that it is
// an assumption. Plateau values are medians read off [GB24] l40.txt.
#include "harness/sim/presets/presets.hpp"
#include "harness/sim/presets/launch_costs.hpp"

namespace gpuprobe::sim::presets_detail {

Preset make_l40() {
  Preset p;
  p.name = "l40";
  p.info.name = "NVIDIA L40 (simulated)";
  p.info.cc = {8, 9};                             // D, CUDA compute capability of AD102 (not in FIGURES)
  p.info.sm_count = 142;                          // M [GB24] stream threads, FIGURES §1
  p.info.rated_sm_clock_mhz = 2490;               // M [GB24] l40.txt run clock, FIGURES §1
  p.info.rated_mem_clock_mhz = 9001;              // assumption: 18 Gbps GDDR6 (L40 spec not read, §4)
  p.info.memory_bus_bits = 384;                   // assumption: AD102 bus (not in FIGURES)
  p.info.l2_bytes = 96ull << 20;                  // M [GB24] 96 MB, plateau to ~90 MB, FIGURES §1
  p.info.global_memory_bytes = 48ull << 30;       // assumption: 48 GB L40 (not in FIGURES)
  p.info.shared_memory_per_sm_bytes = 100ull << 10;           // D [MLE] Ada smem 100 KB, §3
  p.info.shared_memory_per_block_optin_bytes = 99ull << 10;   // D [MLE] 99 KB/block, §3
  p.info.ecc_enabled = false;                     // assumption: GDDR6 ECC off by default
  p.info.driver_version = 0;                      // simulator
  p.info.runtime_version = 0;                     // simulator
  p.info.pci_bus_id = "sim";
  p.info.uuid = "sim-l40";
  p.info.simulated = true;
  p.info.sim_preset = p.name;
  p.launch = launch_costs_l40();          // FIGURES §7/§6, cited per field in presets/launch_costs.cpp

  p.caches = {
      {.name = "L1",
       .capacity_bytes = 88ull << 10,   // DER [GB24] l40.txt: 36.3 cyc at 84 kB, 50.9 at 90 kB;
                                        // FIGURES §2 ends 79-96 kB
       .line_bytes = 128,               // assumption: as every MT4G GPU, P [MT4G] (no Ada in MT4G)
       .sector_bytes = 32,              // assumption: as every MT4G GPU, P [MT4G]
       .ways = 4,                       // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 36.1,      // M [GB24] l40.txt (36.0-36.3), FIGURES §2
       .hashed_sets = false},
      {.name = "L2",
       .capacity_bytes = 96ull << 20,   // M [GB24] one flat level to ~90 MB of 96 MB, FIGURES §2
       .line_bytes = 128,               // assumption: as every MT4G GPU, P [MT4G]
       .sector_bytes = 32,              // assumption: as every MT4G GPU, P [MT4G]
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 276.5,     // M [GB24] l40.txt (276.3-276.7 to 33 MB), FIGURES §2
       .hashed_sets = true},
  };
  p.dram_latency_cycles = 630.4;    // M [GB24] l40.txt at 185 MB; 631.9 at 1.1 GB comes from the
                                    // TLB1 misses below (FIGURES §2: 631.7)
  p.shared_latency_cycles = 30.1;   // S [LUO24] RTX 4090 (same AD102 SM); no L40 figure, FIGURES §2
  p.page_bytes = 2ull << 20;        // assumption: 2 MiB pages (memory/tlb's default), FIGURES §8
  p.tlbs = {
      {.name = "TLB1",
       .entries = 128,              // DER [GB24] l40.txt: DRAM creeps from ~288 MB on, fits a
       .ways = 16,                  // 256 MiB reach; ways: assumption, no published figure
       .miss_penalty_cycles = 2.0}, // DER [GB24] l40.txt: (631.9 at 1.1 GB - 630.4) / 0.76
      {.name = "TLB2",
       .entries = 8192,             // assumption: 16 GiB reach, no published figure, FIGURES §8
       .ways = 16,                  // assumption: no published figure, FIGURES §8
       .miss_penalty_cycles = 0.0}, // the cost of missing TLB2 is all in page_walk_cycles
  };
  p.page_walk_cycles = 961.0;       // assumption: V100's full-miss/DRAM ratio 1.53 (DER S [JIA18])
                                    // times 630.4, less TLB1's 2.0; no Ada figure, FIGURES §8
  p.l2_sm_spread_cycles = 117.0;  // 222 to 339 cycles of L2 hit latency across the SMs of an L40 (issue 5 review)
  p.noise_rel = 0.004;              // assumption: per-hop jitter, no published distribution
  p.outlier_probability = 0.001;    // assumption: no published figure
  p.outlier_extra_cycles = 400;     // assumption: no published figure
  // Bandwidth per level (probes/bandwidth/stream_sim.cpp; FIGURES §4). Queue growth: assumption
  // (no published loaded-latency curve).
  p.bandwidth = {
      {.level = "L1", .peak_bytes_per_clk_per_sm = 64,       // DER M [GB24] gpu-cache 22.6 TB/s
       .queue_cycles = 8, .source = "DER M [GB24] gpu-cache; queue: assumption"},
      {.level = "shared", .peak_bytes_per_clk_per_sm = 128,  // assumption: 32 banks x 4 B (AD102
       .queue_cycles = 4,                                    // not published; GB202 124.9 P [R6000D])
       .source = "assumption: DER [S-A100 BP] banks; queue: assumption"},
      {.level = "L2", .peak_bytes_per_clk_per_sm = 64,       // assumption: per-SM port
       .peak_bytes_per_s = 5.2e12,                           // M [GB24] gpu-l2-cache to ~92 MB
       .queue_cycles = 100, .source = "M [GB24] gpu-l2-cache; port and queue: assumption"},
      {.level = "DRAM", .peak_bytes_per_s = 844e9,           // M [GB24] gpu-stream read
       .queue_cycles = 300,
       .write_fraction = 846.0 / 844.0,                      // M [GB24] stream init / read
       .copy_fraction = 803.0 / 844.0,                       // M [GB24] stream triad / read
       .source = "M [GB24] gpu-stream l40.txt; queue: assumption"},
  };
  p.max_threads_per_sm = 1536;      // D CUDA compute capability 8.9 limits
  p.max_blocks_per_sm = 24;         // D CUDA compute capability 8.9 limits
  return p;
}

}  // namespace gpuprobe::sim::presets_detail
