// Tesla V100 PCIe 16GB at 1380 MHz: the GPU of gpu-latency/v100.txt in data/real/.
// Every number cites docs/FIGURES.md (source key, confidence tag M/P/S/D/DER) or says that it is
// an assumption. Plateau values are medians read off [GB24] v100.txt.
#include "harness/sim/presets/presets.hpp"
#include "harness/sim/presets/launch_costs.hpp"

namespace gpuprobe::sim::presets_detail {

Preset make_v100() {
  Preset p;
  p.name = "v100";
  p.info.name = "Tesla V100-PCIE-16GB (simulated)";
  p.info.cc = {7, 0};                             // D, CUDA compute capability of Volta (not in FIGURES)
  p.info.sm_count = 80;                           // P [MT4G] 80 SM, FIGURES §1
  p.info.rated_sm_clock_mhz = 1380;               // D [TPU-DB] PCIe boost; M [GB24] v100.txt clock line
  p.info.rated_mem_clock_mhz = 877;               // assumption: 877 MHz x 4096 bit x 2 = 898 GB/s ~ 900 D §1
  p.info.memory_bus_bits = 4096;                  // assumption: HBM2 4 stacks (not in FIGURES)
  p.info.l2_bytes = 6ull << 20;                   // P [MT4G] 6 MiB, FIGURES §1
  p.info.global_memory_bytes = 16ull << 30;       // M [GB24] README "V100 PCIe 16GB" (nominal GiB)
  p.info.shared_memory_per_sm_bytes = 96ull << 10;            // S [JIA18 §3.6] smem <= 96 KiB
  p.info.shared_memory_per_block_optin_bytes = 96ull << 10;   // S [JIA18 §3.6], FIGURES §3
  p.info.ecc_enabled = true;                      // assumption: datacenter default (not in FIGURES)
  p.info.driver_version = 0;                      // simulator
  p.info.runtime_version = 0;                     // simulator
  p.info.pci_bus_id = "sim";
  p.info.uuid = "sim-v100";
  p.info.simulated = true;
  p.info.sim_preset = p.name;
  p.launch = launch_costs_v100();          // FIGURES §7/§6, cited per field in presets/launch_costs.cpp

  p.caches = {
      {.name = "L1",
       .capacity_bytes = 120ull << 10,  // DER [GB24] v100.txt: 30.3 cyc at 118 kB, 89.5 at 130 kB;
                                        // FIGURES §2 ends 118-135 kB; P [MT4G] 115 KiB
       .line_bytes = 128,               // P [MT4G], [NVFORUM-L1] 128 B lines
       .sector_bytes = 32,              // P [MT4G], [NVFORUM-L1] 4 x 32 B sectors
       .ways = 4,                       // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 30.0,      // M [GB24] v100.txt (29.9-30.3), FIGURES §2
       .hashed_sets = false},
      {.name = "L2",
       .capacity_bytes = 6ull << 20,    // P [MT4G] 6 MiB, whole L2 seen by one SM (FIGURES §3)
       .line_bytes = 128,               // P [MT4G]
       .sector_bytes = 32,              // P [MT4G]
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 215.0,     // M [GB24] v100.txt (214.8-215.3), FIGURES §2
       .hashed_sets = true},
  };
  p.dram_latency_cycles = 428.0;    // M [GB24] v100.txt plateau 9-32 MB (424-428.5), inside TLB1
                                    // reach; 437.0 at 1.5 GB comes from the TLB1 misses below
  p.shared_latency_cycles = 23.5;   // P [MT4G-V100] mean (19 S [JIA18]), FIGURES §2

  p.page_bytes = 2ull << 20;        // assumption: 2 MiB pages (memory/tlb's default), FIGURES §8
  p.tlbs = {
      {.name = "TLB1",
       .entries = 16,               // DER [GB24] v100.txt: DRAM latency creeps from ~33 MB on, so
       .ways = 16,                  // reach 32 MiB = 16 x 2 MiB; fully associative: assumption
       .miss_penalty_cycles = 9.0}, // DER [GB24] v100.txt: (437.0 at 1.5 GB - 428) / 0.98 misses
      {.name = "TLB2",
       .entries = 4096,             // assumption: 8 GiB reach, no published figure, FIGURES §8
       .ways = 16,                  // assumption: no published figure, FIGURES §8
       .miss_penalty_cycles = 0.0}, // the cost of missing TLB2 is all in page_walk_cycles
  };
  p.page_walk_cycles = 645.0;       // DER S [JIA18 Fig 3.2]: 1029 - 375 = 654 for a full TLB miss,
                                    // less the 9 of TLB1
  p.l2_sm_spread_cycles = 20.0;  // assumption: per-SM L2 distance not published for V100; the map (--sm all) measures it
  p.noise_rel = 0.004;              // assumption: per-hop jitter, no published distribution
  p.outlier_probability = 0.001;    // assumption: no published figure
  p.outlier_extra_cycles = 400;     // assumption: no published figure
  // Bandwidth per level (probes/bandwidth/stream_sim.cpp; FIGURES §4). Queue growth: assumption
  // (no published loaded-latency curve), chosen so that 90% of a peak needs a few times the
  // unloaded latency's worth of bytes in flight.
  p.bandwidth = {
      {.level = "L1", .peak_bytes_per_clk_per_sm = 128,      // DER M [GB24] gpu-cache 13.9 TB/s
       .queue_cycles = 8, .source = "DER M [GB24] gpu-cache; queue: assumption"},
      {.level = "shared", .peak_bytes_per_clk_per_sm = 128,  // DER 32 banks x 4 B; S [JIA18] 12,080
       .queue_cycles = 4, .source = "DER [S-A100 BP] banks; S [JIA18]; queue: assumption"},
      {.level = "L2", .peak_bytes_per_clk_per_sm = 64,       // assumption: per-SM port
       .peak_bytes_per_s = 2.4e12,                           // M [GB24] gpu-cache replicated read
       .queue_cycles = 100, .source = "M [GB24]; port and queue: assumption"},
      {.level = "DRAM", .peak_bytes_per_s = 866e9,           // M [GB24] gpu-stream read
       .queue_cycles = 300,
       .write_fraction = 895.0 / 866.0,                      // M [GB24] stream init / read
       .copy_fraction = 814.0 / 866.0,                       // M [GB24] stream triad / read
       .source = "M [GB24] gpu-stream v100.txt; queue: assumption"},
  };
  p.max_threads_per_sm = 2048;      // D CUDA compute capability 7.0 limits
  p.max_blocks_per_sm = 32;         // D CUDA compute capability 7.0 limits
  return p;
}

}  // namespace gpuprobe::sim::presets_detail
