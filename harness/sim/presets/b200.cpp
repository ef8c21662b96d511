// B200 (SXM) at 1965 MHz, the clock its SemiAnalysis run implies (FIGURES §1): two dies of 74 SMs
// whose L2 halves are modelled as the H100's two partitions (a near half, the other die's behind
// it). No pointer chase of a B200 was read (FIGURES §2 has L1 and a local-die L2 in ns; its DRAM
// latency is disputed, §9 trap 4): most latencies are assumptions, said so below.
// Every number cites docs/FIGURES.md (source key, confidence tag M/P/S/D/DER) or says that it is
// an assumption.
#include "harness/sim/presets/presets.hpp"
#include "harness/sim/presets/launch_costs.hpp"

namespace gpuprobe::sim::presets_detail {

Preset make_b200() {
  Preset p;
  p.name = "b200";
  p.info.name = "NVIDIA B200 (simulated)";
  p.info.cc = {10, 0};                            // D, CUDA compute capability of GB100 (sm_100; not in FIGURES)
  p.info.sm_count = 148;                          // S [CC-B200],[JAR25b] 2 dies x 74, FIGURES §1
  p.info.rated_sm_clock_mhz = 1965;               // DER FIGURES §1: implied by the M [SA] run
  p.info.rated_mem_clock_mhz = 3906;              // DER: 8000 GB/s D [MLE] over an assumed 8192-bit bus, x2
  p.info.memory_bus_bits = 8192;                  // assumption: eight HBM3e stacks (not in FIGURES)
  p.info.l2_bytes = 126ull << 20;                 // S [CC-B200],[JAR25b] 126 MB, FIGURES §1
  p.info.global_memory_bytes = 180ull * 1000 * 1000 * 1000;  // assumption: 180 GB (not in FIGURES)
  p.info.shared_memory_per_sm_bytes = 228ull << 10;           // assumption: Hopper's 228 KB carried to the
                                                              // B200's 256 KB L1/smem (FIGURES §3 D [MLE])
  p.info.shared_memory_per_block_optin_bytes = 227ull << 10;  // assumption: 227 KB/block as H100 (§3)
  p.info.ecc_enabled = true;                      // assumption: datacenter default (not in FIGURES)
  p.info.driver_version = 0;                      // simulator
  p.info.runtime_version = 0;                     // simulator
  p.info.pci_bus_id = "sim";
  p.info.uuid = "sim-b200";
  p.info.simulated = true;
  p.info.sim_preset = p.name;
  p.launch = launch_costs_b200();          // FIGURES §7/§6, cited per field in presets/launch_costs.cpp

  p.caches = {
      {.name = "L1",
       .capacity_bytes = 224ull << 10,  // assumption: the H100 SXM's M [GP26] (256 KB L1/smem per SM
                                        // on both, FIGURES §3 D [MLE]); no B200 size probe read
       .line_bytes = 128,               // assumption: as every MT4G GPU, P [MT4G]
       .sector_bytes = 32,              // assumption: as every MT4G GPU, P [MT4G]
       .ways = 4,                       // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 39.0,      // S [CC-B200] 39 cycles (19.6 ns), FIGURES §2
       .hashed_sets = false},
      {.name = "L2",
       .capacity_bytes = 63ull << 20,   // DER: half of the 126 MB (one die's), FIGURES §1 S [CC-B200]
       .line_bytes = 128,               // assumption: as every MT4G GPU, P [MT4G]
       .sector_bytes = 32,              // assumption: as every MT4G GPU, P [MT4G]
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 295.0,     // DER S [CC-B200] ~150 ns (local die) x 1965 MHz, FIGURES §2
       .hashed_sets = true,
       .hash_block_bytes = 8ull << 20,  // assumption: the H100 SXM's soft knee (4 MiB on 25 MiB),
                                        // a power of two of at least one way (63 MiB / 16)
       .replacement = Replacement::plru},  // assumption: the H100 SXM's (no published policy)
      {.name = "L2-far",
       .capacity_bytes = 126ull << 20,  // S [CC-B200],[JAR25b] whole L2 126 MB, FIGURES §1
       .line_bytes = 128,               // assumption: as every MT4G GPU, P [MT4G]
       .sector_bytes = 32,              // assumption: as every MT4G GPU, P [MT4G]
       .ways = 16,                      // assumption: no published figure, FIGURES §3
       .hit_latency_cycles = 564.0,     // assumption: the H100 SXM's far/near ratio (513.2 / 268.5,
                                        // M [GP26]) times 295; the remote die's figure was not
                                        // retrieved (FIGURES §2)
       .hashed_sets = true,
       .replacement = Replacement::lru},  // assumption: the H100 SXM's (no published policy)
  };
  p.l2_partitioned = true;          // assumption: one L2 half per die, the remote half behind the
                                    // local one like the H100's partitions (S [CC-B200] local vs
                                    // remote die latency, FIGURES §2)
  p.dram_latency_cycles = 738.0;    // assumption: the H100 SXM's DRAM/near-L2 ratio (672.2 / 268.5,
                                    // M [GP26]) times 295, "higher than H100" S [CC-B200]; FIGURES
                                    // §9 trap 4: disputed, no accepted figure
  p.shared_latency_cycles = 23.0;   // assumption: the H100 SXM's M [GP26] (no B200 figure, §2)
  p.page_bytes = 2ull << 20;        // assumption: 2 MiB pages (memory/tlb's default), FIGURES §8
  p.tlbs = {
      {.name = "TLB1",
       .entries = 256,              // assumption: no published figure; a 512 MiB reach, past
       .ways = 16,                  // twice the 126 MB L2 as on every other preset (FIGURES §8)
       .miss_penalty_cycles = 12.1},// assumption: the H100 SXM's M [GP26] memory/tlb fit
      {.name = "TLB2",
       .entries = 32768,            // assumption: A100's 64 GB reach S [WALKER]
       .ways = 16,                  // assumption: no published figure, FIGURES §8
       .miss_penalty_cycles = 0.0}, // the cost of missing TLB2 is all in page_walk_cycles
  };
  p.page_walk_cycles = 1117.0;      // assumption: V100's full-miss/DRAM ratio 1.53 (DER S [JIA18])
                                    // times 738, less TLB1's 12.1; no B200 figure, FIGURES §8
  p.l2_sm_spread_cycles = 32.0;     // assumption: the H100 SXM's per-SM spread (M [GP26] sm_map)
  p.noise_rel = 0.004;              // assumption: per-hop jitter, no published distribution
  p.outlier_probability = 0.001;    // assumption: no published figure
  p.outlier_extra_cycles = 400;     // assumption: no published figure
  // Bandwidth per level (probes/bandwidth/stream_sim.cpp; FIGURES §4). Queue growth: assumption
  // (no published loaded-latency curve).
  p.bandwidth = {
      {.level = "L1", .peak_bytes_per_clk_per_sm = 128,      // assumption: Hopper's ~128 B/clk/SM
       .queue_cycles = 8,                                    // (FIGURES §4 pattern; B200 L1 "~?")
       .source = "assumption: the H100/H200 SM's ~128 B/clk (DER FIGURES §4); queue: assumption"},
      {.level = "shared", .peak_bytes_per_clk_per_sm = 128,  // DER 32 banks x 4 B [S-A100 BP]
       .queue_cycles = 4, .source = "DER [S-A100 BP] banks; queue: assumption"},
      {.level = "L2", .peak_bytes_per_clk_per_sm = 128,      // assumption: a port wide enough that
       .peak_bytes_per_s = 21e12,                            // the device peak binds (21 TB/s is 72
       .queue_cycles = 100,                                  // B/clk/SM); S [CC-B200] 21 TB/s
       .source = "S [CC-B200] 21 TB/s (the higher of 21 / 16.8, read as the local die's); port and queue: assumption"},
      {.level = "L2-far", .peak_bytes_per_clk_per_sm = 128,
       .peak_bytes_per_s = 16.8e12,                          // S [CC-B200] 16.8 TB/s
       .queue_cycles = 150,
       .source = "S [CC-B200] 16.8 TB/s (read as the whole L2's: assumption); port and queue: assumption"},
      {.level = "DRAM", .peak_bytes_per_s = 6.69e12,         // M [SA] LDGSTS 6.69 TB/s (TMA-2D 7.26)
       .queue_cycles = 300,
       .write_fraction = 0.95,                               // assumption: no published write rate
       .copy_fraction = 0.91,                                // assumption: the H100 SXM's P [AZ] copy/dot
       .source = "M [SA] cp.async (LDGSTS) 6.69 TB/s, the measured path nearest plain loads (FIGURES §4, §9 trap 5); write, copy and queue: assumption"},
  };
  p.max_threads_per_sm = 2048;      // D CUDA compute capability 10.0 limits (not in FIGURES)
  p.max_blocks_per_sm = 32;         // D CUDA compute capability 10.0 limits (not in FIGURES)
  return p;
}

}  // namespace gpuprobe::sim::presets_detail
