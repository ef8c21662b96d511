// H100 SXM (80GB HBM3) at 1980 MHz: the GPU measured by this project on 2026-11-23,
// results/nvidia-h100-80gb-hbm3/ (machine_model.json, raw/*.json; key [GP26] in docs/FIGURES.md).
// Every number cites that run (M [GP26]), docs/FIGURES.md, or says that it is an assumption.
#include "harness/sim/presets/presets.hpp"
#include "harness/sim/presets/launch_costs.hpp"

namespace gpuprobe::sim::presets_detail {

Preset make_h100_sxm() {
  Preset p;
  p.name = "h100-sxm";
  p.info.name = "NVIDIA H100 80GB HBM3 (simulated)";
  p.info.cc = {9, 0};                             // D, CUDA compute capability of GH100 (not in FIGURES)
  p.info.sm_count = 132;                          // M [GP26] cudaDevAttrMultiProcessorCount
  p.info.rated_sm_clock_mhz = 1980;               // M [GP26] rated and measured (1979.5-1980.5)
  p.info.rated_mem_clock_mhz = 2619;              // M [GP26] cudaDevAttrMemoryClockRate
  p.info.memory_bus_bits = 5120;                  // M [GP26] cudaDevAttrGlobalMemoryBusWidth
  p.info.l2_bytes = 50ull << 20;                  // P [CC-H100], D [HPCTECH] 50 MB, FIGURES §1
  p.info.global_memory_bytes = 85017493504ull;    // M [GP26] totalGlobalMem
  p.info.shared_memory_per_sm_bytes = 228ull << 10;           // D [HPCTECH] smem <= 228 KB, §3
  p.info.shared_memory_per_block_optin_bytes = 227ull << 10;  // D [HPCTECH] 227 KB/block, §3
  p.info.ecc_enabled = true;                      // assumption: datacenter default (not in FIGURES)
  p.info.driver_version = 0;                      // simulator
  p.info.runtime_version = 0;                     // simulator
  p.info.pci_bus_id = "sim";
  p.info.uuid = "sim-h100-sxm";
  p.info.simulated = true;
  p.info.sim_preset = p.name;
  p.launch = launch_costs_h100();          // FIGURES §7/§6, cited per field in presets/launch_costs.cpp

  p.caches = {
      {.name = "L1",
       .capacity_bytes = 224ull << 10,  // M [GP26] knee between 220 and 262 kB (fit 227 kB); P [MT4G]
                                        // 233 KiB (SXM); 224 KiB: whole sets of the 4-way model
       .line_bytes = 128,               // P [MT4G] (H100 SXM)
       .sector_bytes = 32,              // P [MT4G] (H100 SXM)
       .ways = 4,                       // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 32.0,      // M [GP26] plain ld.global (LDG.E.64) 32.0; .ca 32.2 in run 1
       .hashed_sets = false},
      {.name = "L2",
       .capacity_bytes = 25ull << 20,   // P [MT4G] 25 MiB partition of 50 (SXM), P [GB24 README]
                                        // "H100 2x25MB"; M near plateau to ~22 MB (FIGURES §3)
       .line_bytes = 128,               // P [MT4G]
       .sector_bytes = 32,              // P [MT4G]
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 268.5,     // M [GP26] fastest SM; SM 0 (+21.1) reads 289.4-289.7
       .hashed_sets = true,
       .hash_block_bytes = 4ull << 20,  // assumption: fitted to the knee's start (~0.9x) in
                                        // [GP26] memory_chase_default.json, docs/ANALYSIS.md "soft knees"
       .replacement = Replacement::plru},  // assumption: no published policy; PLRU matches the
                                           // knee's width in [GP26] memory_chase_default.json
      {.name = "L2-far",
       .capacity_bytes = 50ull << 20,   // P [CC-H100] whole L2; M far plateau ~30-47 MB
       .line_bytes = 128,               // P [MT4G]
       .sector_bytes = 32,              // P [MT4G]
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 513.2,     // M [GP26] SM 0 far plateau 534.3 less its 21.1; fastest 512.6
       .hashed_sets = true,
       .replacement = Replacement::lru},  // assumption: no published policy; matches
                                           // the rise 52-56 MB of [GP26] memory_chase_default.json
  };
  p.l2_partitioned = true;          // P [GB24 README] "2x20MB"/"2x25MB", P [MT4G] partition seen
                                    // by one SM (FIGURES §3); home hash and SM map: assumption
  p.dram_latency_cycles = 672.2;    // M [GP26] SM 0 plateau 62-207 MB 690.9-693.3, less its 21.1
  p.shared_latency_cycles = 23.0;   // M [GP26] memory/chase_shared 23.01 (ld.shared, all sizes)
  p.page_bytes = 2ull << 20;        // assumption: 2 MiB pages (memory/tlb's default), FIGURES §8
  p.tlbs = {
      {.name = "TLB1",
       .entries = 128,              // DER [GB24] h100_pcie.txt: DRAM creeps from ~300 MB on, fits a
       .ways = 16,                  // 256 MiB reach; ways: assumption, no published figure
       .miss_penalty_cycles = 12.1},// M [GP26] memory/tlb fit: reach 274 MB, miss cost 12.1 cycles
      {.name = "TLB2",
       .entries = 32768,            // assumption: A100's 64 GB reach S [WALKER] carried to GH100
       .ways = 16,                  // assumption: no published figure, FIGURES §8
       .miss_penalty_cycles = 0.0}, // the cost of missing TLB2 is all in page_walk_cycles
  };
  p.page_walk_cycles = 1044.0;      // assumption: V100's full-miss/DRAM ratio 1.53 (DER S [JIA18])
                                    // times 688.2, less TLB1's 9; not reached by the 8 GiB sweep
    // M [GP26] sm_map.json (memory/chase --sm all, .cg at 6.25 MB): each SM's near-L2 latency less
  // the fastest SM's (268.5 cycles, SMs 92-101); the slowest are SMs 16-17 at 300.7.
  p.l2_sm_offsets_cycles = {
      21.3, 21.3, 10.0, 10.0, 15.0, 15.0, 15.7, 15.7, 13.9, 13.9, 10.2, 10.2,
      11.0, 11.0, 15.0, 15.0, 32.2, 32.2, 12.1, 12.1, 20.6, 20.6, 21.3, 21.3,
      12.7, 12.7, 12.3, 12.3, 12.9, 12.9, 20.5, 20.5, 16.3, 16.3, 15.7, 15.7,
      26.6, 26.6, 27.1, 27.2, 21.1, 21.1, 21.0, 21.0, 21.2, 21.2, 31.5, 31.5,
      27.2, 27.2, 5.0, 5.0, 10.0, 10.0, 10.7, 10.7, 7.9, 7.9, 5.2, 5.2,
      6.0, 6.0, 10.0, 10.0, 7.1, 7.1, 15.6, 15.6, 16.3, 16.3, 7.8, 7.8,
      7.3, 7.3, 7.9, 7.9, 15.5, 15.5, 9.8, 9.7, 20.6, 20.6, 21.2, 21.2,
      16.1, 16.1, 16.0, 16.0, 16.2, 16.2, 26.5, 26.5, 0.1, 0.0, 5.0, 5.0,
      5.6, 5.7, 2.9, 2.9, 0.2, 0.2, 1.0, 1.0, 5.0, 5.0, 2.1, 2.1,
      10.6, 10.6, 11.3, 11.3, 2.8, 2.8, 2.4, 2.4, 3.0, 3.0, 10.6, 10.5,
      10.2, 10.2, 20.5, 20.5, 11.3, 11.3, 11.0, 11.0, 10.0, 10.0, 21.2, 21.2,
  };
  p.noise_rel = 0.004;              // assumption: per-hop jitter, no published distribution
  p.outlier_probability = 0.001;    // assumption: no published figure
  p.outlier_extra_cycles = 400;     // assumption: no published figure
  // Bandwidth per level (probes/bandwidth/stream_sim.cpp; FIGURES §4). Not yet measured by
  // gpuprobe on this GPU; queue growth: assumption (no published loaded-latency curve).
  p.bandwidth = {
      {.level = "L1", .peak_bytes_per_clk_per_sm = 128,      // assumption: the SM of H100 PCIe
       .queue_cycles = 8, .source = "assumption: same SM as DER M [GB24] H100 PCIe"},
      {.level = "shared", .peak_bytes_per_clk_per_sm = 128,  // DER 32 banks x 4 B [S-A100 BP]
       .queue_cycles = 4, .source = "DER [S-A100 BP] banks; queue: assumption"},
      {.level = "L2", .peak_bytes_per_clk_per_sm = 64,       // assumption: per-SM port
       .peak_bytes_per_s = 4529.0 * 1073741824.0,            // P [MT4G] read 4529 GiB/s
       .queue_cycles = 100, .source = "P [MT4G]; port and queue: assumption"},
      {.level = "L2-far", .peak_bytes_per_clk_per_sm = 64,
       .peak_bytes_per_s = 0.77 * 4529.0 * 1073741824.0,     // assumption: H100 PCIe's far/near
       .queue_cycles = 150, .source = "assumption: far/near ratio of M [GB24] h100_pcie"},
      {.level = "DRAM", .peak_bytes_per_s = 3.18e12,         // P [AZ] STREAM dot (reads)
       .queue_cycles = 300,
       .write_fraction = 0.95,                               // assumption: no published write rate
       .copy_fraction = 2.90 / 3.18,                         // P [AZ] STREAM copy / dot
       .source = "P [AZ] STREAM; write and queue: assumption"},
  };
  p.max_threads_per_sm = 2048;      // D CUDA compute capability 9.0 limits
  p.max_blocks_per_sm = 32;         // D CUDA compute capability 9.0 limits
  return p;
}

}  // namespace gpuprobe::sim::presets_detail
