// H200 SXM (141 GB HBM3e) at its 1980 MHz run clock: the GH100 of the H100 SXM with more and
// faster HBM and a 60 MiB L2. The device, memory hierarchy and bandwidth are this project's own
// measurement of an H200 on 2026-11-28, results/nvidia-h200/ (raw/*.json, machine_model.json,
// sm_map.json; key [GP26-H200] in docs/FIGURES.md §2b). Tensor, async, launch, compute and sync
// costs are still the pre-measurement ones: GH200 latencies ([GB25] gh200.txt, FIGURES §2),
// gpu-benches bandwidths ([GB24]) and assumptions (results/nvidia-h200/PROVENANCE.md lists
// where the measurement disagrees with them).
// Every number cites docs/FIGURES.md (source key, confidence tag M/P/S/D/DER) or says that it is
// an assumption.
#include "harness/sim/presets/presets.hpp"
#include "harness/sim/presets/launch_costs.hpp"

namespace gpuprobe::sim::presets_detail {

Preset make_h200() {
  Preset p;
  p.name = "h200";
  p.info.name = "NVIDIA H200 (simulated)";
  p.info.cc = {9, 0};                             // M [GP26-H200] compute_capability 9.0
  p.info.sm_count = 132;                          // M [GP26-H200] cudaDevAttrMultiProcessorCount
  p.info.rated_sm_clock_mhz = 1980;               // M [GP26-H200] rated, and 1980 in every timed region
  p.info.rated_mem_clock_mhz = 3201;              // M [GP26-H200] cudaDevAttrMemoryClockRate
  p.info.memory_bus_bits = 6016;                  // M [GP26-H200] cudaDevAttrGlobalMemoryBusWidth
  p.info.l2_bytes = 62914560;                     // M [GP26-H200] cudaDevAttrL2CacheSize (60 MiB)
  p.info.global_memory_bytes = 150109880320ull;   // M [GP26-H200] totalGlobalMem
  p.info.shared_memory_per_sm_bytes = 228ull << 10;           // M [GP26-H200] 233,472 B; D [HPCTECH] 228 KB, §3
  p.info.shared_memory_per_block_optin_bytes = 227ull << 10;  // M [GP26-H200] 232,448 B; D [HPCTECH] 227 KB, §3
  p.info.ecc_enabled = true;                      // M [GP26-H200] ECC on
  p.info.driver_version = 0;                      // simulator
  p.info.runtime_version = 0;                     // simulator
  p.info.pci_bus_id = "sim";
  p.info.uuid = "sim-h200";
  p.info.simulated = true;
  p.info.sim_preset = p.name;
  p.launch = launch_costs_h200();          // FIGURES §7/§6, cited per field in presets/launch_costs.cpp

  p.caches = {
      {.name = "L1",
       .capacity_bytes = 232ull << 10,  // M [GP26-H200] 32.0 cycles to 215 KiB, knee to 256 KiB (fit
                                        // 240,100 B); 232 KiB: whole sets of the 4-way model
       .line_bytes = 128,               // M [GP26-H200] stride sweep; P [MT4G] (H100 SXM)
       .sector_bytes = 32,              // M [GP26-H200] stride sweep; P [MT4G] (H100 SXM)
       .ways = 4,                       // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 32.0,      // M [GP26-H200] plain ld.global 32.0 (16.2 ns)
       .hashed_sets = false},
      {.name = "L2",
       .capacity_bytes = 30ull << 20,   // DER M [GP26-H200] half the 60 MiB L2 (fit 28.1 MiB, knee
                                        // 26.9-34.9 MiB); P [MT4G] H100 NVL's 30 MiB of 60 (FIGURES §3)
       .line_bytes = 128,               // M [GP26-H200]; P [MT4G]
       .sector_bytes = 32,              // M [GP26-H200]; P [MT4G]
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 272.3,     // M [GP26-H200] sm_map fastest SM (99); SM 0 (+9.8) reads 282.1
       .hashed_sets = true,
       .hash_block_bytes = 4ull << 20,  // assumption: the H100 SXM's; gives the knee's start (0.90x
                                        // 3%) in [GP26-H200] memory_chase_default.json (ANALYSIS.md "soft knees")
       .replacement = Replacement::lru},  // assumption: no published policy; LRU over the hash blocks
                                          // follows the knee of [GP26-H200] memory_chase_default.json
                                          // (PLRU, the H100 SXM's, still hits at 1.5x; this one is flat)
      {.name = "L2-far",
       .capacity_bytes = 62914560,      // M [GP26-H200] whole L2 (fit 56.0 MiB, rise 53.8-69.8 MiB)
       .line_bytes = 128,               // M [GP26-H200]; P [MT4G]
       .sector_bytes = 32,              // M [GP26-H200]; P [MT4G]
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 504.4,     // M [GP26-H200] SM 0 far plateau 514.2 less its 9.8; SM 99 504.4
       .hashed_sets = true,
       .hash_block_bytes = 4ull << 20,  // assumption: as the near level's; the rise to DRAM then starts
                                        // at 0.9x as in [GP26-H200] memory_chase_default.json
       .replacement = Replacement::lru},  // assumption: no published policy (the H100 SXM's)
  };
  p.l2_partitioned = true;          // M [GP26-H200] near plateau to ~27 MiB, far to ~54 MiB; P [MT4G]
                                    // partition seen by one SM (FIGURES §3); home hash: assumption
  p.dram_latency_cycles = 650.3;    // M [GP26-H200] SM 0 plateau 64-240 MiB 660.1, less its 9.8
  p.shared_latency_cycles = 23.0;   // M [GP26-H200] memory/chase_shared 23.0 (ld.shared, all sizes)
  p.page_bytes = 2ull << 20;        // assumption: 2 MiB pages (memory/tlb's default), FIGURES §8
  // TLB: not rebuilt. [GP26-H200] memory_tlb.json rises ~8 cycles between 268 MB and 1 GB and
  // again past 57.8 GiB, as these reaches would; its fit is not stable (PROVENANCE.md there), so
  // the entries and costs stay the assumptions below.
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
                                    // times GH200's 684 (M [GB25], FIGURES §2), less TLB1's 12.1;
                                    // no GH100 figure, FIGURES §8
  // M [GP26-H200] sm_map.json (memory/chase --sm all, .cg at 7.5 MiB): each SM's near-L2 latency
  // less the fastest SM's (272.3 cycles, SMs 98-99); the slowest are SMs 44-47 at 294.8-295.0.
  p.l2_sm_offsets_cycles = {
      9.8, 10.1, 10.3, 10.3, 11.0, 11.0, 10.8, 10.8, 10.0, 10.0, 10.7, 10.7,
      13.8, 13.8, 10.2, 10.2, 13.0, 13.0, 13.0, 13.0, 13.7, 13.7, 13.8, 13.8,
      12.9, 12.8, 13.5, 13.5, 13.7, 13.7, 13.1, 13.1, 16.9, 16.9, 17.0, 17.0,
      17.6, 17.6, 17.7, 17.7, 16.8, 16.8, 17.4, 17.4, 22.5, 22.5, 22.1, 22.6,
      5.2, 5.1, 5.3, 5.3, 6.0, 6.0, 5.9, 5.9, 5.0, 5.0, 5.7, 5.7,
      7.8, 7.8, 5.2, 5.2, 8.0, 8.0, 8.7, 8.7, 8.8, 8.8, 7.9, 7.9,
      8.6, 8.6, 8.7, 8.7, 8.1, 8.1, 11.0, 11.0, 11.6, 11.6, 11.7, 11.7,
      10.8, 10.8, 11.5, 11.4, 17.5, 17.5, 17.1, 17.1, 0.3, 0.3, 0.9, 1.0,
      0.9, 0.9, 0.0, 0.0, 0.7, 0.7, 2.8, 2.8, 0.2, 0.2, 3.0, 3.0,
      3.7, 3.7, 3.8, 3.7, 2.8, 2.8, 3.5, 3.5, 3.7, 3.7, 3.1, 3.1,
      12.5, 12.5, 11.1, 11.1, 8.0, 8.0, 11.0, 10.9, 0.1, 0.1, 3.0, 3.0,
  };
  p.noise_rel = 0.004;              // assumption: per-hop jitter, no published distribution
  p.outlier_probability = 0.001;    // assumption: no published figure
  p.outlier_extra_cycles = 400;     // assumption: no published figure
  // Bandwidth per level (probes/bandwidth/stream_sim.cpp; FIGURES §4), M [GP26-H200] (the model's
  // `bandwidth`). Peak and queue are set so that the simulated probes read what the GPU's did:
  // the concurrency sweep's top and the bytes in flight per SM that reach 90% of it (Little's law,
  // harness/littles_law.hpp, with the chase latency as the unloaded one; docs/FIGURES.md §2b).
  // The loaded-latency probe fits other queues on this GPU (L2 2.1, DRAM 42.7 cycles, to peaks of
  // 9.51 and 4.86 TB/s): one queue per level cannot match both, and the ceilings come from these.
  p.bandwidth = {
      {.level = "L1", .peak_bytes_per_clk_per_sm = 109.5,    // M [GP26-H200] 28.6 TB/s at 1980 MHz
       .queue_cycles = 11.8,                                 // DER 90% at 13.6 KB/SM
       .source = "M [GP26-H200] bandwidth/l1 28.6 TB/s = 109.5 B/clk/SM; queue: DER its 90% crossing 13.6 KB/SM"},
      {.level = "shared", .peak_bytes_per_clk_per_sm = 128,  // DER 32 banks x 4 B [S-A100 BP];
       .queue_cycles = 4.9,                                  // M 127.7 B/clk/SM; DER 90% at 7.7 KB/SM
       .source = "DER [S-A100 BP] banks, M [GP26-H200] bandwidth/shared 33.4 TB/s = 127.7 B/clk/SM; queue: DER its 90% crossing 7.7 KB/SM"},
      {.level = "L2", .peak_bytes_per_clk_per_sm = 64,       // assumption: per-SM port
       .peak_bytes_per_s = 10.30e12,                         // M [GP26-H200] bandwidth/l2 at 15 MiB
       .queue_cycles = 30.7,                                 // DER 90% at 19.5 KB/SM
       .source = "M [GP26-H200] bandwidth/l2 10.3 TB/s; queue: DER its 90% crossing 19.5 KB/SM; port: assumption"},
      {.level = "L2-far", .peak_bytes_per_clk_per_sm = 64,   // assumption: per-SM port
       .peak_bytes_per_s = 0.713 * 10.30e12,                 // DER M [GP26-H200] footprint sweep: 10.49
       .queue_cycles = 30.7,                                 // TB/s at 28-51 MiB over 14.71 at 1-20 MiB
       .source = "DER M [GP26-H200] bandwidth/l2 footprint sweep 10.49 TB/s (28-51 MiB) over 14.71 (1-20 MiB), times 10.3; queue: the L2's"},
      {.level = "DRAM", .peak_bytes_per_s = 4.74e12,         // DER M [GP26-H200]: with this queue the
       .queue_cycles = 110,                                  // probe reads 4.61 TB/s, 90% at 25.5 KB/SM
       .write_fraction = 4.3768 / 4.6125,                    // M [GP26-H200] write / read
       .copy_fraction = 3.8467 / 4.6125,                     // M [GP26-H200] copy / read
       .source = "DER M [GP26-H200] bandwidth/dram read 4.61, write 4.38, copy 3.85 TB/s, 90% crossing 25.5 KB/SM: peak and queue fitted to them"},
  };
  p.max_threads_per_sm = 2048;      // D CUDA compute capability 9.0 limits
  p.max_blocks_per_sm = 32;         // D CUDA compute capability 9.0 limits
  return p;
}

}  // namespace gpuprobe::sim::presets_detail
