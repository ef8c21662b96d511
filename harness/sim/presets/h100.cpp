// H100 PCIe at 1755 MHz: the GPU of gpu-latency/h100_pcie.txt in data/real/.
// Every number cites docs/FIGURES.md (source key, confidence tag M/P/S/D/DER) or says that it is
// an assumption. Plateau values are medians read off [GB24] h100_pcie.txt.
#include "harness/sim/presets/presets.hpp"
#include "harness/sim/presets/launch_costs.hpp"

namespace gpuprobe::sim::presets_detail {

Preset make_h100() {
  Preset p;
  p.name = "h100";
  p.info.name = "NVIDIA H100 PCIe (simulated)";
  p.info.cc = {9, 0};                             // D, CUDA compute capability of GH100 (not in FIGURES)
  p.info.sm_count = 114;                          // P [CC-H100], D [HPCTECH], FIGURES §1
  p.info.rated_sm_clock_mhz = 1755;               // P [CC-H100]; M [GB24] h100_pcie.txt clock line
  p.info.rated_mem_clock_mhz = 1562.5;            // DER: 2000 GB/s D [HPCTECH] over an assumed 5120-bit bus
  p.info.memory_bus_bits = 5120;                  // assumption: HBM2e 5 stacks (not in FIGURES)
  p.info.l2_bytes = 50ull << 20;                  // P [CC-H100], D [HPCTECH] 50 MB, FIGURES §1
  p.info.global_memory_bytes = 80ull << 30;       // assumption: 80 GB H100 PCIe (not in FIGURES)
  p.info.shared_memory_per_sm_bytes = 228ull << 10;           // D [HPCTECH] smem <= 228 KB, §3
  p.info.shared_memory_per_block_optin_bytes = 227ull << 10;  // D [HPCTECH] 227 KB/block, §3
  p.info.ecc_enabled = true;                      // assumption: datacenter default (not in FIGURES)
  p.info.driver_version = 0;                      // simulator
  p.info.runtime_version = 0;                     // simulator
  p.info.pci_bus_id = "sim";
  p.info.uuid = "sim-h100";
  p.info.simulated = true;
  p.info.sim_preset = p.name;
  p.launch = launch_costs_h100();          // FIGURES §7/§6, cited per field in presets/launch_costs.cpp

  p.caches = {
      {.name = "L1",
       .capacity_bytes = 224ull << 10,  // DER [GB24] h100_pcie.txt: 34.8 cyc at 216 kB, 134.2 at 239 kB;
                                        // FIGURES §2 ends 216-239 kB; P [MT4G] 233 KiB (SXM)
       .line_bytes = 128,               // P [MT4G] (H100 SXM)
       .sector_bytes = 32,              // P [MT4G] (H100 SXM)
       .ways = 4,                       // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 34.1,      // M [GB24] h100_pcie.txt (34.0-34.8), FIGURES §2
       .hashed_sets = false},
      {.name = "L2",
       .capacity_bytes = 25ull << 20,   // P [MT4G] 25 MiB partition of 50 (SXM), P [GB24 README]
                                        // "H100 2x25MB"; M near plateau to ~22 MB (FIGURES §3)
       .line_bytes = 128,               // P [MT4G]
       .sector_bytes = 32,              // P [MT4G]
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 265.6,     // M [GB24] h100_pcie.txt (265.1-266.0), FIGURES §2
       .hashed_sets = true,
       .hash_block_bytes = 4ull << 20,  // assumption: fitted to the knee's start (~0.9x) in
                                        // h100_pcie.txt, docs/ANALYSIS.md "soft knees"
       .replacement = Replacement::plru},  // assumption: no published policy; PLRU matches the
                                           // knee's width in h100_pcie.txt
      {.name = "L2-far",
       .capacity_bytes = 50ull << 20,   // P [CC-H100] whole L2; M far plateau ~30-47 MB
       .line_bytes = 128,               // P [MT4G]
       .sector_bytes = 32,              // P [MT4G]
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 475.0,     // M [GB24] h100_pcie.txt 32-47 MB (461.5-477.8), FIGURES §2
       .hashed_sets = true,
       .replacement = Replacement::lru},  // assumption: no published policy; matches
                                           // the sharp start of the rise at 52 MB of h100_pcie.txt
  };
  p.l2_partitioned = true;          // P [GB24 README] "2x20MB"/"2x25MB", P [MT4G] partition seen
                                    // by one SM (FIGURES §3); home hash and SM map: assumption
  p.dram_latency_cycles = 649.5;    // M [GB24] h100_pcie.txt plateau 75-206 MB (649.2-650.0);
                                    // 658.4 at 1.5 GB comes from the TLB1 misses below (FIGURES §8)
  p.shared_latency_cycles = 29.0;   // S [LUO24] H800 PCIe (same GH100 SM, 1755 MHz); 30 p50 P
                                    // [MT4G] H100 SXM; FIGURES §2
  p.page_bytes = 2ull << 20;        // assumption: 2 MiB pages (memory/tlb's default), FIGURES §8
  p.tlbs = {
      {.name = "TLB1",
       .entries = 128,              // DER [GB24] h100_pcie.txt: DRAM creeps from ~300 MB on, fits a
       .ways = 16,                  // 256 MiB reach; ways: assumption, no published figure
       .miss_penalty_cycles = 10.8},// DER [GB24] h100_pcie.txt: (658.4 at 1.5 GB - 649.5) / 0.82
      {.name = "TLB2",
       .entries = 32768,            // assumption: A100's 64 GB reach S [WALKER] carried to GH100
       .ways = 16,                  // assumption: no published figure, FIGURES §8
       .miss_penalty_cycles = 0.0}, // the cost of missing TLB2 is all in page_walk_cycles
  };
  p.page_walk_cycles = 982.0;       // assumption: V100's full-miss/DRAM ratio 1.53 (DER S [JIA18])
                                    // times 649.5, less TLB1's 10.8; no H100 figure, FIGURES §8
  p.l2_sm_spread_cycles = 30.0;  // assumption: per-SM L2 distance not published for H100 PCIe; --sm all measures it
  p.noise_rel = 0.004;              // assumption: per-hop jitter, no published distribution
  p.outlier_probability = 0.001;    // assumption: no published figure
  p.outlier_extra_cycles = 400;     // assumption: no published figure
  // Bandwidth per level (probes/bandwidth/stream_sim.cpp; FIGURES §4). Queue growth: assumption
  // (no published loaded-latency curve).
  p.bandwidth = {
      {.level = "L1", .peak_bytes_per_clk_per_sm = 128,      // DER M [GB24] gpu-cache 25.2 TB/s
       .queue_cycles = 8, .source = "DER M [GB24] gpu-cache; queue: assumption"},
      {.level = "shared", .peak_bytes_per_clk_per_sm = 128,  // DER 32 banks x 4 B [S-A100 BP]
       .queue_cycles = 4, .source = "DER [S-A100 BP] banks; queue: assumption"},
      {.level = "L2", .peak_bytes_per_clk_per_sm = 64,       // assumption: per-SM port
       .peak_bytes_per_s = 7.4e12,                           // M [GB24] gpu-l2-cache 7.0-7.8 TB/s
       .queue_cycles = 100, .source = "M [GB24] gpu-l2-cache; port and queue: assumption"},
      {.level = "L2-far", .peak_bytes_per_clk_per_sm = 64,
       .peak_bytes_per_s = 5.7e12,                           // M [GB24] gpu-l2-cache at 40 MB
       .queue_cycles = 150, .source = "M [GB24] gpu-l2-cache; queue: assumption"},
      {.level = "DRAM", .peak_bytes_per_s = 1942e9,          // M [GB24] gpu-stream read
       .queue_cycles = 300,
       .write_fraction = 2016.0 / 1942.0,                    // M [GB24] stream init / read
       .copy_fraction = 1832.0 / 1942.0,                     // M [GB24] stream triad / read
       .source = "M [GB24] gpu-stream h100_pcie.txt; queue: assumption"},
  };
  p.max_threads_per_sm = 2048;      // D CUDA compute capability 9.0 limits
  p.max_blocks_per_sm = 32;         // D CUDA compute capability 9.0 limits
  return p;
}

}  // namespace gpuprobe::sim::presets_detail
