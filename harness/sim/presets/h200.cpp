// H200 SXM (141 GB HBM3e) at its 1980 MHz run clock: the GH100 of the H100 SXM with more and
// faster HBM. gpu-benches measured its bandwidths ([GB24] gpu-stream, gpu-l2-cache, gpu-strides,
// gpu-roofline h200.txt in data/real/) but no pointer chase: the latencies are the GH200's
// ([GB25] gh200.txt, the same GH100 at the same clock, FIGURES §2).
// Every number cites docs/FIGURES.md (source key, confidence tag M/P/S/D/DER) or says that it is
// an assumption.
#include "harness/sim/presets/presets.hpp"
#include "harness/sim/presets/launch_costs.hpp"

namespace gpuprobe::sim::presets_detail {

Preset make_h200() {
  Preset p;
  p.name = "h200";
  p.info.name = "NVIDIA H200 (simulated)";
  p.info.cc = {9, 0};                             // D, CUDA compute capability of GH100 (not in FIGURES)
  p.info.sm_count = 132;                          // M [GB24 stream] threads / block size, FIGURES §1
  p.info.rated_sm_clock_mhz = 1980;               // D [MLE] run clock, FIGURES §1; M [GB24] gpu-strides clock line
  p.info.rated_mem_clock_mhz = 3125;              // DER: 4800 GB/s D [MLE] over an assumed 6144-bit bus, x2
  p.info.memory_bus_bits = 6144;                  // assumption: six HBM3e stacks (H100 NVL's 6144-bit bus, P [MT4G])
  p.info.l2_bytes = 50ull << 20;                  // S [S-B200] 50 MB, FIGURES §1
  p.info.global_memory_bytes = 141ull * 1000 * 1000 * 1000;  // assumption: the marketed 141 GB
                                                  // (FIGURES §1 names 141 GB only for GH200's HBM3e)
  p.info.shared_memory_per_sm_bytes = 228ull << 10;           // D [HPCTECH] H100/H200 smem <= 228 KB, §3
  p.info.shared_memory_per_block_optin_bytes = 227ull << 10;  // D [HPCTECH] 227 KB/block, §3
  p.info.ecc_enabled = true;                      // assumption: datacenter default (not in FIGURES)
  p.info.driver_version = 0;                      // simulator
  p.info.runtime_version = 0;                     // simulator
  p.info.pci_bus_id = "sim";
  p.info.uuid = "sim-h200";
  p.info.simulated = true;
  p.info.sim_preset = p.name;
  p.launch = launch_costs_h200();          // FIGURES §7/§6, cited per field in presets/launch_costs.cpp

  p.caches = {
      {.name = "L1",
       .capacity_bytes = 224ull << 10,  // M [GB25] gh200.txt L1 to ~213 kB (FIGURES §2); 224 KiB as
                                        // the H100 SXM's M [GP26] (same SM, 256 KB L1/smem §3)
       .line_bytes = 128,               // P [MT4G] (H100 SXM, same SM)
       .sector_bytes = 32,              // P [MT4G] (H100 SXM, same SM)
       .ways = 4,                       // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 32.0,      // M [GB25] gh200.txt 32.0 at 1980 MHz, FIGURES §2
       .hashed_sets = false},
      {.name = "L2",
       .capacity_bytes = 25ull << 20,   // P [GB24 README] "H100 2x25MB", carried to the same GH100;
                                        // M [GB25] gh200 near-L2 to ~26 MB (FIGURES §2)
       .line_bytes = 128,               // P [MT4G] (H100 SXM)
       .sector_bytes = 32,              // P [MT4G] (H100 SXM)
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 280.4,     // M [GB25] gh200.txt 280.4 (142 ns at 1980 MHz), FIGURES §2
       .hashed_sets = true,
       .hash_block_bytes = 4ull << 20,  // assumption: the H100 SXM's, fitted to [GP26] (ANALYSIS.md
                                        // "soft knees")
       .replacement = Replacement::plru},  // assumption: the H100 SXM's (no published policy)
      {.name = "L2-far",
       .capacity_bytes = 50ull << 20,   // S [S-B200] whole L2 50 MB, FIGURES §1
       .line_bytes = 128,               // P [MT4G] (H100 SXM)
       .sector_bytes = 32,              // P [MT4G] (H100 SXM)
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 500.0,     // M [GB25] gh200.txt far plateau ~480-520 (33-57 MB), midpoint
       .hashed_sets = true,
       .replacement = Replacement::lru},  // assumption: the H100 SXM's (no published policy)
  };
  p.l2_partitioned = true;          // P [GB24 README] "2x25MB" (H100), P [MT4G] partition seen by
                                    // one SM (FIGURES §3); home hash and SM map: assumption
  p.dram_latency_cycles = 684.0;    // M [GB25] gh200.txt 680-689 (347 ns), FIGURES §2
  p.shared_latency_cycles = 23.0;   // assumption: the H100 SXM's M [GP26] 23.01 (same SM; no H200
                                    // or GH200 figure in FIGURES §2)
  p.page_bytes = 2ull << 20;        // assumption: 2 MiB pages (memory/tlb's default), FIGURES §8
  p.tlbs = {
      {.name = "TLB1",
       .entries = 128,              // assumption: the H100's DER [GB24] h100_pcie.txt 256 MiB reach
       .ways = 16,                  // (same GH100); ways: assumption, no published figure
       .miss_penalty_cycles = 12.1},// assumption: the H100 SXM's M [GP26] memory/tlb fit
      {.name = "TLB2",
       .entries = 32768,            // assumption: A100's 64 GB reach S [WALKER] carried to GH100
       .ways = 16,                  // assumption: no published figure, FIGURES §8
       .miss_penalty_cycles = 0.0}, // the cost of missing TLB2 is all in page_walk_cycles
  };
  p.page_walk_cycles = 1035.0;      // assumption: V100's full-miss/DRAM ratio 1.53 (DER S [JIA18])
                                    // times 684, less TLB1's 12.1; no GH100 figure, FIGURES §8
  p.l2_sm_spread_cycles = 32.0;     // assumption: the H100 SXM's per-SM spread (M [GP26] sm_map,
                                    // 268.5-300.7 cycles); no H200 map
  p.noise_rel = 0.004;              // assumption: per-hop jitter, no published distribution
  p.outlier_probability = 0.001;    // assumption: no published figure
  p.outlier_extra_cycles = 400;     // assumption: no published figure
  // Bandwidth per level (probes/bandwidth/stream_sim.cpp; FIGURES §4). Queue growth: assumption
  // (no published loaded-latency curve).
  p.bandwidth = {
      {.level = "L1", .peak_bytes_per_clk_per_sm = 128,      // DER FIGURES §4 pattern: ~128 B/clk/SM on
       .queue_cycles = 8,                                    // H200; M [GB24] gpu-strides h200 126 B/clk
       .source = "DER FIGURES §4 (L1 ~128 B/clk/SM on H200), M [GB24] gpu-strides h200.txt 126 B/clk; queue: assumption"},
      {.level = "shared", .peak_bytes_per_clk_per_sm = 128,  // DER 32 banks x 4 B [S-A100 BP]
       .queue_cycles = 4, .source = "DER [S-A100 BP] banks; queue: assumption"},
      {.level = "L2", .peak_bytes_per_clk_per_sm = 64,       // assumption: per-SM port
       .peak_bytes_per_s = 9.8e12,                           // M [GB24] gpu-l2-cache 9.7-10 TB/s to ~44 MB
       .queue_cycles = 100, .source = "M [GB24] gpu-l2-cache h200.txt; port and queue: assumption"},
      {.level = "L2-far", .peak_bytes_per_clk_per_sm = 64,
       .peak_bytes_per_s = 0.77 * 9.8e12,                    // assumption: H100 PCIe's far/near (M [GB24]
       .queue_cycles = 150,                                  // h100_pcie); the H200 file shows no drop
       .source = "assumption: far/near ratio of M [GB24] h100_pcie (h200's gpu-l2-cache stays flat to ~44 MB)"},
      {.level = "DRAM", .peak_bytes_per_s = 2756e9,          // M [GB24] gpu-stream h200 read
       .queue_cycles = 300,
       .write_fraction = 3898.0 / 2756.0,                    // M [GB24] stream init / read
       .copy_fraction = 3534.0 / 2756.0,                     // M [GB24] stream triad / read
       .source = "M [GB24] gpu-stream h200.txt (read still rising at full occupancy); queue: assumption"},
  };
  p.max_threads_per_sm = 2048;      // D CUDA compute capability 9.0 limits
  p.max_blocks_per_sm = 32;         // D CUDA compute capability 9.0 limits
  return p;
}

}  // namespace gpuprobe::sim::presets_detail
