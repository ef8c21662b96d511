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
  // mma.sync (probes/tensor/mma_sim.cpp): FIGURES has no mma.sync figure for datacenter Blackwell
  // (tcgen05 is its tensor path); assumption: Hopper's mma.sync rate per SM (S [LUO25] x 4096), at
  // the B200's precision ratios; no FP64 model (the B200's FP64 figure is uncertain, FIGURES §1).
  for (auto& op : mma_sync_ops({.sm = 100, .f16_flops_per_clk_per_sm = 2576, .tf32_ratio = 0.5,
                                .s8_ratio = 2, .latency_cycles = 32, .s8_latency_cycles = 32,
                                .rate_source = "assumption: Hopper's mma.sync rate, DER 0.629 S [LUO25] x 4096",
                                .ratio_source = "D [MLE] B200 TF32 1125, INT8 4500 to FP16 2250",
                                .latency_source = "assumption"}))
    p.tensor.push_back(std::move(op));
  p.max_threads_per_sm = 2048;      // D CUDA compute capability 10.0 limits (not in FIGURES)
  p.max_blocks_per_sm = 32;         // D CUDA compute capability 10.0 limits (not in FIGURES)
  // tcgen05.mma (probes/tensor/tcgen05_sim.cpp): dense FLOP per clock per SM (a cta_group::2 MMA
  // counts half on each SM of its pair) and single-MMA latency (commit/wait baseline subtracted),
  // per input at N = 64 and 256, SS and TS (fp6/fp4: SS only), cta_group::1 (M 128) and ::2
  // (M 256).
  struct TcInput {
    const char* input;
    const char* acc;
    int k;
    double flops_per_clk_per_sm;
    const char* rate_source;
    const char* latency_source;
    bool ss_only = false;
  };
  const TcInput tc_inputs[] = {
      {"f16", "f32", 16, 8192,
       "M [SA umma_throughput] BF16 8153-8161 of 8192 FLOP/clk/SM, FIGURES §5a; f16 as bf16: D [MLE] "
       "one FP16/BF16 tensor peak (§1)",
       "M [SA umma_latency] BF16 SS M128 (FIGURES §5b), f16 as bf16 (assumption)"},
      {"bf16", "f32", 16, 8192, "M [SA umma_throughput] BF16 8153-8161 of 8192 FLOP/clk/SM, FIGURES §5a",
       "M [SA umma_latency] BF16 SS M128, FIGURES §5b"},
      {"tf32", "f32", 8, 4096,
       "DER D [MLE] TF32 1125 = half the FP16/BF16 2250 TFLOPS (FIGURES §1) x M [SA] BF16 8192",
       "assumption: as M [SA umma_latency] BF16 (FIGURES §5b)"},
      {"e4m3", "f32", 32, 16384, "M [SA umma_throughput] FP8 ~16,345 of 16,384 FLOP/clk/SM, FIGURES §5a",
       "M [SA umma_latency] 'same for BF16/FP8/FP4', FIGURES §5b"},
      {"e5m2", "f32", 32, 16384, "M [SA umma_throughput] FP8 ~16,345 of 16,384 FLOP/clk/SM, FIGURES §5a",
       "M [SA umma_latency] 'same for BF16/FP8/FP4', FIGURES §5b"},
      {"s8", "s32", 32, 16384, "M [SA umma_throughput] INT8 ~16,345 of 16,384 FLOP/clk/SM, FIGURES §5a",
       "assumption: as M [SA umma_latency] BF16/FP8 (FIGURES §5b)"},
      {"f16", "f16", 16, 8192,
       "assumption: f16 accumulate at the f32-accumulate rate, M [SA umma_throughput] BF16 8192 "
       "FLOP/clk/SM (FIGURES §5a has no f16-accumulate figure)",
       "assumption: as M [SA umma_latency] BF16 (FIGURES §5b)"},
      // fp6/fp4 under kind::f8f6f4: K = 32 per MMA as FP8, so the FP8 data path's rate is
      // assumed; FIGURES' FP4 32768 (M [SA]) is for the block-scaled/packed FP4 kinds.
      {"e3m2", "f32", 32, 16384,
       "assumption: fp6 through kind::f8f6f4 (K 32, as FP8) at M [SA umma_throughput] FP8 16,384 "
       "FLOP/clk/SM (FIGURES §5a)",
       "M [SA umma_latency] 'same for BF16/FP8/FP4', FIGURES §5b (fp6: assumption)", true},
      {"e2m3", "f32", 32, 16384,
       "assumption: fp6 through kind::f8f6f4 (K 32, as FP8) at M [SA umma_throughput] FP8 16,384 "
       "FLOP/clk/SM (FIGURES §5a)",
       "M [SA umma_latency] 'same for BF16/FP8/FP4', FIGURES §5b (fp6: assumption)", true},
      {"e2m1", "f32", 32, 16384,
       "assumption: fp4 through kind::f8f6f4 (K 32 per MMA, as FP8) at M [SA "
       "umma_throughput] FP8 16,384 FLOP/clk/SM; the FP4 32,768 of FIGURES §5a is taken as the "
       "block-scaled/packed kinds'",
       "M [SA umma_latency] 'same for BF16/FP8/FP4', FIGURES §5b", true},
  };
  for (int cg : {1, 2})
    for (int n : {64, 256})
      for (bool ts : {false, true})
        for (const TcInput& in : tc_inputs) {
          if (ts && in.ss_only) continue;
          // SS latency: M [SA umma_latency] BF16 M128 N64 168, N256 264 cycles; TS: DER 24 lower,
          // the middle of "TS 16-32 cyc lower" (FIGURES §5b).
          const double latency = (n == 64 ? 168 : 264) - (ts ? 24 : 0);
          p.tensor.push_back(
              {.op = std::string("tcgen05_m") + (cg == 1 ? "128" : "256") + "n" + std::to_string(n) +
                     "k" + std::to_string(in.k) + "_" + in.input + "_" + in.acc + (ts ? "_ts" : "_ss") +
                     "_cg" + std::to_string(cg),
               .flops_per_clk_per_sm = in.flops_per_clk_per_sm,
               .latency_cycles = latency,
               .source = std::string(in.rate_source) +
                         (n == 64 ? "; N 64 at the N 256 rate: assumption (FIGURES has M128 N256 only)"
                                  : "") +
                         (cg == 2 ? "; cta_group::2 per SM as ::1: M [SA] 'doubles per SM pair'" : "") +
                         "; latency " + in.latency_source + (ts ? ", TS DER 24 lower (16-32)" : "") +
                         (cg == 2 ? ", cta_group::2 as ::1: assumption" : "")});
        }
  // Block-scaled (SS, cta_group::1 only): kind::mxf8f6f4 e4m3 with ue8m0 scales (K 32), kind::mxf4
  // (MXFP4) and kind::mxf4nvf4 scale_vec::4X (NVFP4), e2m1 packed, K 64.
  struct BsInput {
    const char* name;   // <k>_<input>
    double flops_per_clk_per_sm;
    const char* rate_source;
  };
  const BsInput bs_inputs[] = {
      {"k32_mxf8_e4m3", 16384,
       "M [SA umma_throughput] MXF8 ~16,345 of 16,384 FLOP/clk/SM, FIGURES §5a"},
      {"k64_mxf4", 32768, "M [SA umma_throughput] FP4/MXF4 ~32,730 of 32,768 FLOP/clk/SM, FIGURES §5a"},
      {"k64_nvf4", 32768,
       "assumption: NVFP4 at M [SA umma_throughput] FP4/MXF4 ~32,730 of 32,768 FLOP/clk/SM "
       "(FIGURES §5a names no NVFP4 figure; §1 D [MLE] gives one dense FP4 9000 TFLOPS)"},
  };
  for (const BsInput& in : bs_inputs)
    for (int n : {64, 256})
      p.tensor.push_back(
          {.op = "tcgen05_m128n" + std::to_string(n) + in.name + "_f32_ss_cg1",
           .flops_per_clk_per_sm = in.flops_per_clk_per_sm,
           .latency_cycles = n == 64 ? 168.0 : 264.0,
           .source = std::string(in.rate_source) +
                     (n == 64 ? "; N 64 at the N 256 rate: assumption" : "") +
                     "; latency as M [SA umma_latency] BF16/FP8/FP4 SS M128 (FIGURES §5b): "
                     "assumption"});
  return p;
}

}  // namespace gpuprobe::sim::presets_detail
