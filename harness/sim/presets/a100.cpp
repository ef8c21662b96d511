// A100 40GB at 1410 MHz: the GPU of gpu-latency/a100_40.txt in data/real/.
// Every number cites docs/FIGURES.md (source key, confidence tag M/P/S/D/DER) or says that it is
// an assumption. Plateau values are medians read off [GB24] a100_40.txt.
#include "harness/sim/presets/presets.hpp"
#include "harness/sim/presets/launch_costs.hpp"

namespace gpuprobe::sim::presets_detail {

Preset make_a100() {
  Preset p;
  p.name = "a100";
  p.info.name = "NVIDIA A100 40GB (simulated)";
  p.info.cc = {8, 0};                             // D, CUDA compute capability of GA100 (not in FIGURES)
  p.info.sm_count = 108;                          // D [A100-DS via GLK, PC2], FIGURES §1
  p.info.rated_sm_clock_mhz = 1410;               // D [A100-DS via GLK]; M [GB24] a100_40.txt clock line
  p.info.rated_mem_clock_mhz = 1215;              // DER: 1555 GB/s D §1 over an assumed 5120-bit bus
  p.info.memory_bus_bits = 5120;                  // assumption: HBM2 5 stacks (not in FIGURES)
  p.info.l2_bytes = 40ull << 20;                  // D [A100-DS via GLK] 40 MB (2x20), FIGURES §1
  p.info.global_memory_bytes = 40ull << 30;       // D [A100-DS via GLK] 40 GB (nominal GiB)
  p.info.shared_memory_per_sm_bytes = 164ull << 10;           // S [S-A100] smem up to 164 KB
  p.info.shared_memory_per_block_optin_bytes = 163ull << 10;  // assumption: 1 KiB reserved per
                                                              // block as on H100 (FIGURES §3)
  p.info.ecc_enabled = true;                      // assumption: datacenter default (not in FIGURES)
  p.info.driver_version = 0;                      // simulator
  p.info.runtime_version = 0;                     // simulator
  p.info.pci_bus_id = "sim";
  p.info.uuid = "sim-a100";
  p.info.simulated = true;
  p.info.sim_preset = p.name;
  p.launch = launch_costs_a100();          // FIGURES §7/§6, cited per field in presets/launch_costs.cpp

  p.caches = {
      {.name = "L1",
       .capacity_bytes = 152ull << 10,  // DER [GB24] a100_40.txt: 36.4 cyc at 144 kB, 79.5 at 160 kB;
                                        // FIGURES §2 ends 144-170 kB; P [MT4G] 172 KiB (PCIe)
       .line_bytes = 128,               // P [MT4G]
       .sector_bytes = 32,              // P [MT4G]
       .ways = 4,                       // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 36.1,      // M [GB24] a100_40.txt (36.0-36.4), FIGURES §2
       .hashed_sets = false},
      {.name = "L2",
       .capacity_bytes = 20ull << 20,   // P [MT4G] 20 MiB partition of 40; M [GB24] near plateau
                                        // to ~20 MB (FIGURES §3)
       .line_bytes = 128,               // P [MT4G]
       .sector_bytes = 32,              // P [MT4G]
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 213.0,     // M [GB24] a100_40.txt (212.5-213.6), FIGURES §2
       .hashed_sets = true,
       .hash_block_bytes = 4ull << 20,  // assumption: fitted to the knee's start (~0.9x) in
                                        // a100_40.txt, docs/ANALYSIS.md "soft knees"
       .replacement = Replacement::lru},  // assumption: no published policy; with 64-byte slots
                                          // LRU matches the knee's width in a100_40.txt, and
                                          // PLRU's slow settling from cold would blur the short
                                          // far plateau (1.57x-2x) of a one-pass warm-up
      {.name = "L2-far",
       .capacity_bytes = 40ull << 20,   // D [A100-DS via GLK] whole L2; M far plateau to ~40 MB
       .line_bytes = 128,               // P [MT4G]
       .sector_bytes = 32,              // P [MT4G]
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 426.0,     // M [GB24] a100_40.txt 32-39 MB (425.5-426.7), FIGURES §2
       .hashed_sets = true,
       .replacement = Replacement::plru},  // assumption: no published policy; matches
                                           // the soft rise 42-63 MB of a100_40.txt
  };
  p.l2_partitioned = true;          // P [GB24 README] "2x20MB"/"2x25MB", P [MT4G] partition seen
                                    // by one SM (FIGURES §3); home hash and SM map: assumption
  p.dram_latency_cycles = 570.5;    // M [GB24] a100_40.txt plateau 62-125 MB (569.4-572.2);
                                    // 574.6 at 1.5 GB comes from the TLB1 misses below
  p.shared_latency_cycles = 29.0;   // S [LUO25] (23 S [ABD22], 28 P(old) [MT4G-OLD]), FIGURES §2

  p.page_bytes = 2ull << 20;        // assumption: 2 MiB pages (memory/tlb's default), FIGURES §8
  p.tlbs = {
      {.name = "TLB1",
       .entries = 64,               // DER [GB24] a100_40.txt: DRAM latency creeps from ~125 MB on,
       .ways = 16,                  // reach 128 MiB; ways: assumption, no published figure
       .miss_penalty_cycles = 4.5}, // DER [GB24] a100_40.txt: (574.6 at 1.5 GB - 570.5) / 0.91
      {.name = "TLB2",
       .entries = 32768,            // S [WALKER]: 64 GB TLB reach on A100 = 32768 x 2 MiB
       .ways = 16,                  // assumption: no published figure, FIGURES §8
       .miss_penalty_cycles = 0.0}, // the cost of missing TLB2 is all in page_walk_cycles
  };
  p.page_walk_cycles = 867.0;       // assumption: V100's full-miss/DRAM ratio 1.53 (DER S [JIA18])
                                    // times 570.5, less TLB1's 4.5; no A100 figure, FIGURES §8
  p.l2_sm_spread_cycles = 30.0;  // assumption: per-SM L2 distance not published for A100; the map (--sm all) measures it
  p.noise_rel = 0.004;              // assumption: per-hop jitter, no published distribution
  p.outlier_probability = 0.001;    // assumption: no published figure
  p.outlier_extra_cycles = 400;     // assumption: no published figure
  // Bandwidth per level (probes/bandwidth/stream_sim.cpp; FIGURES §4). Queue growth: assumption
  // (no published loaded-latency curve).
  p.bandwidth = {
      {.level = "L1", .peak_bytes_per_clk_per_sm = 128,      // DER M [GB24] gpu-cache 19.1 TB/s
       .queue_cycles = 8, .source = "DER M [GB24] gpu-cache (A100-80); queue: assumption"},
      {.level = "shared", .peak_bytes_per_clk_per_sm = 128,  // S [LUO25 T5]
       .queue_cycles = 4, .source = "S [LUO25 T5]; queue: assumption"},
      {.level = "L2", .peak_bytes_per_clk_per_sm = 64,       // assumption: per-SM port
       .peak_bytes_per_s = 5.4e12,                           // M [GB24] gpu-l2-cache (A100-80)
       .queue_cycles = 100, .source = "M [GB24] gpu-l2-cache; port and queue: assumption"},
      {.level = "L2-far", .peak_bytes_per_clk_per_sm = 64,
       .peak_bytes_per_s = 0.77 * 5.4e12,                    // assumption: H100 PCIe's far/near
       .queue_cycles = 150, .source = "assumption: far/near ratio of M [GB24] h100_pcie"},
      {.level = "DRAM", .peak_bytes_per_s = 1490e9,          // M [GB24] gpu-stream a100_40 read
       .queue_cycles = 300,
       .write_fraction = 1505.0 / 1490.0,                    // M [GB24] stream init / read
       .copy_fraction = 1375.0 / 1490.0,                     // M [GB24] stream triad / read
       .source = "M [GB24] gpu-stream a100_40.txt; queue: assumption"},
  };
  p.max_threads_per_sm = 2048;      // D CUDA compute capability 8.0 limits
  p.max_blocks_per_sm = 32;         // D CUDA compute capability 8.0 limits
  return p;
}

}  // namespace gpuprobe::sim::presets_detail
