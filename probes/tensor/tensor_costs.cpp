// The tensor family's simulator costs: per preset, each tensor-core instruction form's dense FLOP
// per clock per SM and dependent latency, one table for tensor/mma, tensor/wgmma and
// tensor/tcgen05 (registered as "tensor"; goodput's tile model reads mma_m16n8k16_f16_f32 from it).
// Every number cites docs/FIGURES.md (source key, confidence tag M/P/S/D/DER) or says that it is
// an assumption. slowdown=F divides every rate by F and multiplies every latency by it.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "harness/sim/preset.hpp"
#include "probes/common/op_costs.hpp"
#include "probes/tensor/tensor_point.hpp"

namespace gpuprobe::probes::tensor {

const TensorCost& tensor_cost(const sim::Preset& p, const std::string& op) {
  return op_cost(p, op_costs<TensorCost>(p, kCostTable), op);
}

SharedBound ss_shared_bound(double shared_bytes_per_clk, double rows_a, double rows_b, double flops,
                            double peak_flops_per_clk) {
  constexpr double kRowBytes = 32;  // one row of A or B per instruction (the comment of shared_bound)
  SharedBound b{.needed_bytes_per_clk = (rows_a + rows_b) * kRowBytes / (flops / peak_flops_per_clk),
                .shared_bytes_per_clk = shared_bytes_per_clk};
  if (shared_bytes_per_clk > 0) b.fraction = std::min(1.0, shared_bytes_per_clk / b.needed_bytes_per_clk);
  return b;
}

namespace {

// The mma.sync forms of tensor/mma (ptx/mma_forms.def) a preset's GPU runs: f16/bf16 (f16 and f32
// accumulate) at f16_flops_per_clk_per_sm, tf32, s8, s4 and fp8 at the GPU's published ratios to
// f16 (FIGURES §1), f64 where given; fp8 on sm_90-110 and s4 on sm_90+ marked emulated
// (tests/probes/tensor/test_sass_mma.py) at the rate of the instructions they become (assumption).
// The sm_70/75 shapes: m8n8k4 f16 (from sm_70; emulated on CUDA cores from sm_80), m16n8k8 f16,
// m8n8k16 s8 (emulated from sm_100), m8n8k32 s4 (emulated from sm_90).
struct MmaSyncRates {
  int sm = 80;                            // the forms this SM accepts and which it emulates
  double f16_flops_per_clk_per_sm = 0;    // dense FLOP/clk/SM of an f16 mma.sync
  double tf32_ratio = 0.5, s8_ratio = 2, s4_ratio = 4, fp8_ratio = 2;
  double latency_cycles = 0;              // dependent f16/bf16/tf32/fp8 mma
  double s8_latency_cycles = 0;           // dependent s8/s4 mma
  double f64_flops_per_clk_per_sm = 0;    // 0: no f64 model (the forms are skipped)
  double f64_latency_cycles = 0;
  std::string rate_source, ratio_source, latency_source, f64_source;
};
TensorCosts mma_sync_costs(const MmaSyncRates& r) {
  const double f16 = r.f16_flops_per_clk_per_sm;
  const std::string ratios = "; " + r.ratio_source;
  const std::string lat = "; latency: " + r.latency_source;
  // Where ptxas emulates a form (tests/probes/tensor/test_sass_mma.py): fp8 on sm_90/100/103/110
  // becomes two HMMA.16816.F32 per mma (the FLOP of one f16 mma each: the f16 rate), s4 on sm_90+
  // a call to a subroutine of two IMMA.16832.S8 (the s8 rate); the conversions and the call are
  // not modelled (assumption), their latency is two dependent mmas and a margin (assumption).
  const bool fp8_native = r.sm == 89 || r.sm >= 120;
  TensorCosts ops;
  auto add = [&](const char* op, double rate, double latency, bool emulated, std::string source) {
    ops.push_back({.op = op, .flops_per_clk_per_sm = rate, .latency_cycles = latency,
                   .emulated = emulated, .source = std::move(source)});
  };
  const std::string& base = r.rate_source;
  // Volta's m8n8k4 f16 (4 products per warp, 2048 FLOP per mma): native on sm_70/75 at the f16
  // rate; from sm_80 on ptxas 13.0 calls a subroutine of SHFL, FFMA and HADD2.F32 per mma (no tensor
  // instruction): 56 FP32-pipe instructions per mma with f32 accumulate (32 FFMA + 24 HADD2.F32),
  // 60 with f16 (16 + 44), at 64 FP32 lanes per clock per SM on sm_80 and 128 from sm_86 on (each
  // preset's fma_rn_f32 entry). Rates and latency there: assumption.
  for (const auto& [op, pipe_instructions] :
       {std::pair{"mma_m8n8k4_f16_f16", 60.0}, std::pair{"mma_m8n8k4_f16_f32", 56.0}}) {
    if (r.sm < 80) {
      add(op, f16, r.latency_cycles, false,
          base + " (m8n8k4: the tensor core's f16 rate, assumption for the shape)" + lat);
    } else {
      const double fp32_lanes = r.sm == 80 ? 64 : 128;
      add(op, 2048 / (pipe_instructions * 32 / fp32_lanes), 64, true,
          "assumption: emulated on CUDA cores, " + std::to_string(int(pipe_instructions)) +
              " FP32-pipe instructions per 2048-FLOP mma at " + std::to_string(int(fp32_lanes)) +
              " FP32 lanes/clk/SM; latency: assumption");
    }
  }
  if (r.sm < 75) return ops;
  add("mma_m16n8k8_f16_f32", f16, r.latency_cycles, false,
      base + " (assumption: the k8 shape at the k16 shape's FLOP rate)" + lat);
  add("mma_m16n8k8_f16_f16", f16, r.latency_cycles, false,
      base + " (assumption: the k8 shape at the k16 shape's FLOP rate, f16 accumulate alike)" + lat);
  // Turing's integer shapes: IMMA.8816.S8 (sm_75-90) and IMMA.8832.S4 (sm_75-89) at the s8 / s4
  // rate per FLOP (assumption for the shapes). Later, ptxas 13.0 runs m8n8k16 s8 as one
  // IMMA.16816.S8 (sm_100+: twice its FLOP, half the s8 rate) and m8n8k32 s4 as a call to two
  // IMMA.8816.S8 (sm_90: the s8 rate) or two IMMA.16816.S8 (sm_100+: half of it); assumption.
  const double s8_rate = f16 * r.s8_ratio;
  if (r.sm < 100)
    add("mma_m8n8k16_s8_s32", s8_rate, r.s8_latency_cycles, false,
        base + ratios + " (assumption: the m8n8k16 shape at the s8 rate)" + lat);
  else
    add("mma_m8n8k16_s8_s32", s8_rate / 2, r.s8_latency_cycles, true,
        "assumption: one IMMA.16816.S8 of twice the FLOP per mma at the s8 rate (" + base + ratios +
            "); latency: assumption");
  if (r.sm < 90)
    add("mma_m8n8k32_s4_s32", f16 * r.s4_ratio, r.s8_latency_cycles, false,
        base + ratios + " (assumption: the m8n8k32 shape at the s4 rate)" + lat);
  else
    add("mma_m8n8k32_s4_s32", r.sm >= 100 ? s8_rate / 2 : s8_rate, 2 * r.s8_latency_cycles + 20, true,
        std::string("assumption: emulated by two ") + (r.sm >= 100 ? "IMMA.16816" : "IMMA.8816") +
            ".S8 per mma at the s8 rate (" + base + ratios + "); latency: assumption");
  if (r.sm >= 80) {
    add("mma_m16n8k16_f16_f16", f16, r.latency_cycles, false, base + " (f16 accumulate alike)" + lat);
    add("mma_m16n8k16_f16_f32", f16, r.latency_cycles, false, base + lat);
    add("mma_m16n8k16_bf16_f32", f16, r.latency_cycles, false, base + " (bf16 = f16)" + lat);
    add("mma_m16n8k8_tf32_f32", f16 * r.tf32_ratio, r.latency_cycles, false, base + ratios + lat);
    add("mma_m16n8k32_s8_s32", s8_rate, r.s8_latency_cycles, false, base + ratios + lat);
    if (r.sm < 90)
      add("mma_m16n8k64_s4_s32", f16 * r.s4_ratio, r.s8_latency_cycles, false, base + ratios + lat);
    else
      add("mma_m16n8k64_s4_s32", s8_rate, 2 * r.s8_latency_cycles + 20, true,
          "assumption: emulated by two IMMA.16832.S8 per mma at the s8 rate (" + base +
              "); latency: assumption");
    if (r.f64_flops_per_clk_per_sm > 0) {
      add("mma_m8n8k4_f64_f64", r.f64_flops_per_clk_per_sm, r.f64_latency_cycles, false,
          r.f64_source);
      if (r.sm >= 90)
        add("mma_m16n8k16_f64_f64", r.f64_flops_per_clk_per_sm, r.f64_latency_cycles, false,
            r.f64_source + " (the m16n8k16 shape alike: assumption)");
    }
  }
  if (r.sm >= 89) {
    for (const char* op : {"mma_m16n8k32_e4m3_f32", "mma_m16n8k32_e5m2_f32"}) {
      if (fp8_native)
        add(op, f16 * r.fp8_ratio, r.latency_cycles, false, base + ratios + lat);
      else
        add(op, f16, 2 * r.latency_cycles + 8, true,
            "assumption: emulated by two HMMA.16816.F32 per mma at the f16 rate (" + base +
                "); latency: assumption");
    }
  }
  return ops;
}

// The fraction of its tensor peak an SS form reaches when shared memory cannot feed it faster.
// An SS instruction reads A and B from shared memory through its descriptors (PTX ISA,
// "Asynchronous Warpgroup Level Matrix Multiply-Accumulate" and "TensorCore 5th Generation Family
// Instructions": SS takes both matrix descriptors); RS/TS read A from registers or tensor memory
// and B alone. The ISA sizes K so that one row of A or B is 32 bytes per instruction for every kind
// here (k16 for 16-bit, k8 for tf32, k32 for 8-bit and the one-byte containers of fp6/fp4 under
// kind::f8f6f4, k64 for packed e2m1), and an SM reads each row of its operands once (B reaches the
// warpgroup's 4 sub-partitions, and a cta_group::2 pair, by one read: assumption, as N 256 runs at
// peak, M [SA umma_throughput], S [LUO25 §6.2]). At the peak an M x N x K instruction takes
// 2 M N K / peak cycles, so it needs (rows_a + rows_b) x 32 B over those cycles, against the SM's
// shared-memory bandwidth (the preset's "shared" level: 32 banks of 4 B per clock, CUDA C++
// Programming Guide, "Shared Memory" of compute capability 5.x and later; 128 B/clk/SM):
//   wgmma m64nNk (A 64 rows, B N):                 4096/N + 64 B/clk: N 64 128, N 128 96, N 256 80
//   tcgen05 cta_group::1 (A 128 rows, B N):        8192/N + 64 B/clk: N 64 192 (128/192 = 2/3)
//   tcgen05 cta_group::2, per SM (A 128, B N/2):   8192/N + 32 B/clk: N 64 160 (128/160 = 0.8)
//   RS, TS: B only, 64 (cta_group::2: 32) B/clk: never bound.
// wgmma SS N 64 needs exactly the 128 B/clk there is: at the bound, with no slack, not above it
// (no measured figure says how close to the bound it runs; the model takes it at the bound).
SharedBound shared_bound(const sim::Preset& p, double rows_a, double rows_b, double flops,
                         double peak_flops_per_clk) {
  double shared = 0;
  for (const sim::LevelBandwidthModel& l : p.bandwidth)
    if (l.level == "shared") shared = l.peak_bytes_per_clk_per_sm;
  return ss_shared_bound(shared, rows_a, rows_b, flops, peak_flops_per_clk);
}

// What a cost's source adds for the bound: nothing below it, else the derivation.
std::string shared_bound_source(const SharedBound& b) {
  if (b.shared_bytes_per_clk <= 0 || b.needed_bytes_per_clk < b.shared_bytes_per_clk) return "";
  const auto num = [](double v) {
    std::ostringstream o;
    o << v;
    return o.str();
  };
  return "; SS bound by shared memory: DER " + num(b.needed_bytes_per_clk) + " B/clk needed at the peak of " +
         num(b.shared_bytes_per_clk) + " B/clk/SM, x" + num(std::round(b.fraction * 1e4) / 1e4) +
         " (probes/tensor/tensor_costs.cpp, shared_bound)";
}

// The wgmma forms of tensor/wgmma (probes/tensor/wgmma.cuh: f16, bf16, tf32, e4m3, e5m2 and s8
// at N = 64, 128, 256, SS and RS) on the GH100 SM: f16/bf16 4096, tf32 2048, fp8/s8 8192 dense
// FLOP/clk/SM (`rate_source` cites them for the preset); latencies are assumptions.
TensorCosts hopper_wgmma_costs(const sim::Preset& p, const std::string& rate_source) {
  // Dense FLOP per clock per SM of the GH100 SM's tensor cores per input format; every N and
  // both forms (SS, RS) at that rate (assumption: FIGURES has no per-N or per-form figure), SS
  // no faster than shared memory feeds it (shared_bound: at the bound, not above it, at N 64).
  struct Input {
    const char* input;
    const char* acc;
    uint32_t k;
    double flops_per_clk_per_sm;
  };
  // DER from FIGURES §1 (H100 SXM dense peaks at 1830 MHz over 132 SMs; the caller cites them).
  const Input inputs[] = {{"f16", "f32", 16, 4096}, {"f16", "f16", 16, 4096},
                          {"bf16", "f32", 16, 4096}, {"tf32", "f32", 8, 2048},
                          {"e4m3", "f32", 32, 8192}, {"e5m2", "f32", 32, 8192},
                          {"s8", "s32", 32, 8192}};
  TensorCosts ops;
  for (const char* form : {"ss", "rs"}) {
    for (uint32_t n : {64u, 128u, 256u}) {
      for (const Input& in : inputs) {
        // One wgmma's own time at the peak rate (2 x 64 x N x K FLOP) plus 40 cycles.
        const double flops = 2.0 * 64 * n * in.k;
        const double issue = flops / in.flops_per_clk_per_sm;
        const bool ss = std::string(form) == "ss";
        const SharedBound bound = shared_bound(p, ss ? 64 : 0, n, flops, in.flops_per_clk_per_sm);
        ops.push_back({.op = "wgmma_m64n" + std::to_string(n) + "k" + std::to_string(in.k) + "_" +
                             in.input + "_" + in.acc + "_" + form,
                       .flops_per_clk_per_sm = in.flops_per_clk_per_sm * bound.fraction,
                       .latency_cycles = issue + 40,
                       .source = rate_source + shared_bound_source(bound) +
                                 "; latency: assumption (the wgmma's issue time at that rate + 40 "
                                 "cycles; not in FIGURES)"});
      }
    }
  }
  return ops;
}

// tcgen05.mma on the B200: dense FLOP per clock per SM (a cta_group::2 MMA counts half on each
// SM of its pair) and single-MMA latency (commit/wait baseline subtracted), per input at N = 64
// and 256, SS and TS (fp6/fp4: SS only), cta_group::1 (M 128) and ::2 (M 256); the block-scaled
// kinds SS, cta_group::1 only: kind::mxf8f6f4 e4m3 with ue8m0 scales (K 32), kind::mxf4 (MXFP4)
// and kind::mxf4nvf4 scale_vec::4X (NVFP4), e2m1 packed, K 64.
TensorCosts tcgen05_costs_b200(const sim::Preset& p) {
  TensorCosts t;
  struct TcInput {
    const char* input;
    const char* acc;
    int k;
    double flops_per_clk_per_sm;
    const char* rate_source;
    const char* latency_source;
    bool ss_only = false;
    bool block_scaled = false;  // also cta_group::1 only
  };
  const char* fp8_rate = "M [SA umma_throughput] FP8 ~16,345 of 16,384 FLOP/clk/SM, FIGURES §5a";
  const char* same_latency = "M [SA umma_latency] 'same for BF16/FP8/FP4', FIGURES §5b";
  const char* fp6_rate = "assumption: fp6 through kind::f8f6f4 (K 32, as FP8) at M [SA umma_throughput] FP8 "
                         "16,384 FLOP/clk/SM (FIGURES §5a)";
  const char* fp6_latency = "M [SA umma_latency] 'same for BF16/FP8/FP4', FIGURES §5b (fp6: assumption)";
  const char* bs_latency = "as M [SA umma_latency] BF16/FP8/FP4 SS M128 (FIGURES §5b): assumption";
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
      {"e4m3", "f32", 32, 16384, fp8_rate, same_latency},
      {"e5m2", "f32", 32, 16384, fp8_rate, same_latency},
      {"s8", "s32", 32, 16384, "M [SA umma_throughput] INT8 ~16,345 of 16,384 FLOP/clk/SM, FIGURES §5a",
       "assumption: as M [SA umma_latency] BF16/FP8 (FIGURES §5b)"},
      {"f16", "f16", 16, 8192,
       "assumption: f16 accumulate at the f32-accumulate rate, M [SA umma_throughput] BF16 8192 "
       "FLOP/clk/SM (FIGURES §5a has no f16-accumulate figure)",
       "assumption: as M [SA umma_latency] BF16 (FIGURES §5b)"},
      // fp6/fp4 under kind::f8f6f4: K = 32 per MMA as FP8, so the FP8 data path's rate is
      // assumed; FIGURES' FP4 32768 (M [SA]) is for the block-scaled/packed FP4 kinds.
      {"e3m2", "f32", 32, 16384, fp6_rate, fp6_latency, true},
      {"e2m3", "f32", 32, 16384, fp6_rate, fp6_latency, true},
      {"e2m1", "f32", 32, 16384,
       "assumption: fp4 through kind::f8f6f4 (K 32 per MMA, as FP8) at M [SA "
       "umma_throughput] FP8 16,384 FLOP/clk/SM; the FP4 32,768 of FIGURES §5a is taken as the "
       "block-scaled/packed kinds'",
       same_latency, true},
      // Block-scaled: K 32 (mxf8) or 64 (packed e2m1); SS N 64 bound by shared memory as above.
      {"mxf8_e4m3", "f32", 32, 16384,
       "M [SA umma_throughput] MXF8 ~16,345 of 16,384 FLOP/clk/SM, FIGURES §5a", bs_latency, true, true},
      {"mxf4", "f32", 64, 32768,
       "M [SA umma_throughput] FP4/MXF4 ~32,730 of 32,768 FLOP/clk/SM, FIGURES §5a", bs_latency, true, true},
      {"nvf4", "f32", 64, 32768,
       "assumption: NVFP4 at M [SA umma_throughput] FP4/MXF4 ~32,730 of 32,768 FLOP/clk/SM "
       "(FIGURES §5a names no NVFP4 figure; §1 D [MLE] gives one dense FP4 9000 TFLOPS)",
       bs_latency, true, true},
  };
  for (int cg : {1, 2})
    for (int n : {64, 256})
      for (bool ts : {false, true})
        for (const TcInput& in : tc_inputs) {
          if ((ts && in.ss_only) || (cg == 2 && in.block_scaled)) continue;
          // SS latency: M [SA umma_latency] BF16 M128 N64 168, N256 264 cycles; TS: DER 24 lower,
          // the middle of "TS 16-32 cyc lower" (FIGURES §5b).
          const double latency = (n == 64 ? 168 : 264) - (ts ? 24 : 0);
          // Per SM: A's 128 rows (SS) and B's N / cta_group, 2 x 128 x N x K FLOP (shared_bound).
          const SharedBound bound = shared_bound(p, ts ? 0 : 128, double(n) / cg, 2.0 * 128 * n * in.k,
                                                 in.flops_per_clk_per_sm);
          t.push_back(
              {.op = std::string("tcgen05_m") + (cg == 1 ? "128" : "256") + "n" + std::to_string(n) +
                     "k" + std::to_string(in.k) + "_" + in.input + "_" + in.acc + (ts ? "_ts" : "_ss") +
                     "_cg" + std::to_string(cg),
               .flops_per_clk_per_sm = in.flops_per_clk_per_sm * bound.fraction,
               .latency_cycles = latency,
               .source = std::string(in.rate_source) +
                         (n == 64 ? std::string("; N 64 at the N 256 rate where shared memory allows: "
                                                "assumption") +
                                        (in.block_scaled ? "" : " (FIGURES has M128 N256 only)")
                                  : "") +
                         shared_bound_source(bound) +
                         (cg == 2 ? "; cta_group::2 per SM as ::1: M [SA] 'doubles per SM pair'" : "") +
                         "; latency " + in.latency_source + (ts ? ", TS DER 24 lower (16-32)" : "") +
                         (cg == 2 ? ", cta_group::2 as ::1: assumption" : "")});
        }
  return t;
}

TensorCosts joined(TensorCosts a, const TensorCosts& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// mma.sync on the GH100 SM: 62.9% of the 4096 FLOP/clk/SM tensor peak, the average mma.sync
// reaches on an H800 PCIe (S [LUO25 §6.2], FIGURES §5a; wgmma gets the rest). `peak` cites the
// preset's 4096, `f64` its FP64 tensor rate.
TensorCosts hopper_mma_sync_costs(const std::string& peak, const std::string& ratio_source,
                                  const std::string& f64) {
  return mma_sync_costs({.sm = 90, .f16_flops_per_clk_per_sm = 2576, .latency_cycles = 32,
                         .s8_latency_cycles = 32, .f64_flops_per_clk_per_sm = 256, .f64_latency_cycles = 32,
                         .rate_source = "DER 0.629 S [LUO25] x 4096 (" + peak + ")",
                         .ratio_source = ratio_source,
                         .latency_source = "assumption",
                         .f64_source = f64 + " (no wgmma for FP64: the full rate, assumption); latency: assumption"});
}

TensorCosts preset_costs(const sim::Preset& p) {
  if (p.name == "v100")
    // mma.sync: Volta runs only the m8n8k4 f16 forms (f16 and f32 accumulate, both at the
    // mixed-precision rate). 125 TFLOPS over 80 SMs at the SXM2's 1530 MHz boost is 1021
    // FLOP/clk/SM, taken as 1024 (8 tensor cores x 64 FMA x 2); per clock, so the same for this
    // 1380 MHz PCIe card. FIGURES has no Volta mma latency: assumption.
    return mma_sync_costs({.sm = 70, .f16_flops_per_clk_per_sm = 1024, .latency_cycles = 32,
                           .rate_source = "DER D [NVBLOG-TC9] 125 TF / (80 SMs x 1530 MHz, D [TPU-DB]) = 1021",
                           .latency_source = "assumption"});
  if (p.name == "a100")
    // mma.sync: Ampere's tensor path, modelled at the dense peak (assumption: cuBLAS, built on it,
    // reaches 86.9% P [MLE-MAMF], FIGURES §5a).
    return mma_sync_costs({.sm = 80, .f16_flops_per_clk_per_sm = 2048, .latency_cycles = 32,
                           .s8_latency_cycles = 32, .f64_flops_per_clk_per_sm = 128, .f64_latency_cycles = 32,
                           .rate_source = "DER D [A100-DS via GLK] 312 TF / (108 SMs x 1410 MHz) = 2049",
                           .ratio_source = "D [A100-DS via GLK] TF32 156, INT8 624, INT4 1248 to FP16 312",
                           .latency_source = "assumption",
                           .f64_source = "DER D [A100-DS via GLK] FP64-TC 19.5 TF / (108 x 1410 MHz) = 128; latency: assumption"});
  if (p.name == "h100")
    // wgmma: the GH100 SM's per-clock rates, DER from the SXM's dense peaks (989 TF FP16 / (132
    // SMs x 1830 MHz) = 4094, FIGURES §1); the PCIe part's 756 TF over 114 SMs is the same 4096
    // FLOP/clk/SM at a 1620 MHz tensor clock (DER).
    return joined(hopper_wgmma_costs(p, "DER D [HPCTECH] H100 SXM 989/494.5/1979 TFLOPS / (132 SMs x "
                                     "1830 MHz); PCIe 756 TF = 114 x 4096 x 1620 MHz"),
                  hopper_mma_sync_costs("D [HPCTECH] 756 TF = 114 SMs x 4096 x 1620 MHz",
                                        "D [HPCTECH] TF32 378, INT8 1513 to FP16 756",
                                        "DER D [HPCTECH] FP64-TC 51 TF / (114 x 1755 MHz) = 255"));
  if (p.name == "h100-sxm")
    // wgmma: DER D [HPCTECH]/[MLE] dense tensor peaks at the 1830 MHz tensor spec clock over 132
    // SMs: FP16/BF16 989 TF -> 4094, TF32 494.5 -> 2047, FP8/INT8 1979 -> 8193 FLOP/clk/SM
    // (4096/2048/8192 = 512 FP16 FMA/clk per tensor core x 4, FIGURES §1). S [LUO25 §6.2] (H800)
    // measures wgmma above 95% of this peak with zeros, lower with random data.
    return joined(hopper_wgmma_costs(p, "DER D [HPCTECH] 989/494.5/1979 TFLOPS / (132 SMs x 1830 MHz)"),
                  hopper_mma_sync_costs("D [HPCTECH] 989 TF / (132 SMs x 1830 MHz) = 4094",
                                        "D [HPCTECH] TF32 494.5, INT8 1979 to FP16 989",
                                        "DER D [HPCTECH] FP64-TC 67 TF / (132 x 1980 MHz) = 256"));
  if (p.name == "l40")
    // mma.sync: Ada's only tensor path, at the dense peak (assumption). FIGURES has no L40 tensor
    // figures: the L40S's (same AD102, 142 SMs, D [MLE]) at this preset's clock; INT4 at 2x INT8
    // as on the A40 (D [A40-DS via ecer]); no FP64 tensor model.
    return mma_sync_costs({.sm = 89, .f16_flops_per_clk_per_sm = 1024, .latency_cycles = 32,
                           .s8_latency_cycles = 32,
                           .rate_source = "DER D [MLE] L40S 362 TF / (142 SMs x 2490 MHz) = 1024 (assumption: the L40 alike)",
                           .ratio_source = "D [MLE] L40S TF32 183, FP8 733, INT8 733 to FP16 362; INT4 2x INT8 D [A40-DS via ecer]",
                           .latency_source = "assumption"});
  if (p.name == "h200")
    // wgmma: the GH100 SM's rates, DER D [MLE] H200 SXM dense peaks (FIGURES §1: FP16/BF16 989,
    // TF32 494.5, FP8/INT8 1979 TFLOPS, as the H100 SXM) over 132 SMs at the 1830 MHz tensor spec
    // clock of the H100 SXM ([MLE]; assumption that the H200 shares it): 4096/2048/8192
    // FLOP/clk/SM.
    return joined(hopper_mma_sync_costs("D [MLE] H200 989 TF / (132 SMs x 1830 MHz) = 4094",
                                        "D [MLE] H200 TF32 494.5, INT8 1979 to FP16 989",
                                        "DER D [MLE] H200 FP64-TC 67 TF / (132 x 1980 MHz) = 256"),
                  hopper_wgmma_costs(p, "DER D [MLE] H200 989/494.5/1979 TFLOPS / (132 SMs x 1830 MHz, "
                                     "the H100 SXM's tensor clock: assumption)"));
  if (p.name == "b200")
    // mma.sync: FIGURES has no mma.sync figure for datacenter Blackwell (tcgen05 is its tensor
    // path); assumption: Hopper's mma.sync rate per SM (S [LUO25] x 4096), at the B200's precision
    // ratios; no FP64 model (the B200's FP64 figure is uncertain, FIGURES §1).
    return joined(mma_sync_costs({.sm = 100, .f16_flops_per_clk_per_sm = 2576, .latency_cycles = 32,
                                  .s8_latency_cycles = 32,
                                  .rate_source = "assumption: Hopper's mma.sync rate, DER 0.629 S [LUO25] x 4096",
                                  .ratio_source = "D [MLE] B200 TF32 1125, INT8 4500 to FP16 2250",
                                  .latency_source = "assumption"}),
                  tcgen05_costs_b200(p));
  if (p.name != "rtx5090") return {};
  // mma.sync, the only tensor path on sm_120: the RTX 6000D's measured mma.sync rates on GB202
  // (P [R6000D], FIGURES §5a: 156 SMs at 2.30 GHz), per SM per clock; no FP64 tensor model
  // (R6000D's 1.21 TF FP64 is not an mma figure).
  TensorCosts t = mma_sync_costs({.sm = 120, .f16_flops_per_clk_per_sm = 399, .tf32_ratio = 72.0 / 143.2,
                                  .s8_ratio = 288.1 / 143.2, .fp8_ratio = 287.5 / 143.2,
                                  .latency_cycles = 29.7, .s8_latency_cycles = 27.7,
                                  .rate_source = "DER P [R6000D] mma.sync FP16 143.2 TF / (156 SMs x 2.30 GHz) = 399",
                                  .ratio_source = "P [R6000D] mma.sync TF32 72.0, FP8 287.5, INT8 288.1 to FP16 143.2",
                                  .latency_source = "P [R6000D] 29.7 cycles (INT8 27.7), FIGURES §5b"});
  // The sm_120a forms (ptx/mma_forms.def), one QMMA or OMMA each; latency P [R6000D] 29.7 cycles
  // for all precisions (FIGURES §5b).
  const auto add = [&](const char* op, double rate, const char* source) {
    t.push_back({.op = op, .flops_per_clk_per_sm = rate, .latency_cycles = 29.7, .source = source});
  };
  // kind::f8f6f4 fp4/fp6 in 8-bit containers. R6000D's mma.sync FP4 figure is taken as e2m1 under
  // kind::f8f6f4 (FIGURES §5a: "FP4 via QMMA unless block-scaled -> OMMA"; QMMA is this form).
  add("mma_m16n8k32_e2m1_f32", 375.9e12 / (156 * 2.30e9),
      "DER P [R6000D] mma.sync FP4 375.9 TF / (156 SMs x 2.30 GHz) = 1047.6 "
      "(FIGURES §5a; that FP4 is this QMMA form: assumption); latency P [R6000D] "
      "29.7 cycles for all precisions (FIGURES §5b)");
  for (const char* op : {"mma_m16n8k32_e3m2_f32", "mma_m16n8k32_e2m3_f32"})
    add(op, 399 * 287.5 / 143.2,
        "assumption: fp6 at the FP8 mma.sync rate (no fp6 figure; DER P [R6000D] "
        "FP8 287.5 / FP16 143.2 x 399); latency P [R6000D] 29.7 cycles (FIGURES §5b)");
  // Block-scaled kinds: QMMA.SF / OMMA.SF (FIGURES §5a: "FP4 via QMMA unless block-scaled ->
  // OMMA"). No mma.sync figure for either.
  for (const char* op : {"mma_m16n8k32_mxf8f6f4_e4m3_f32", "mma_m16n8k32_mxf8f6f4_e5m2_f32",
                         "mma_m16n8k32_mxf8f6f4_e3m2_f32"})
    add(op, 399 * 287.5 / 143.2,
        "assumption: the ue8m0 scales cost nothing over QMMA, so the FP8 mma.sync "
        "rate (DER P [R6000D] FP8 287.5 / FP16 143.2 x 399, FIGURES §5a); latency P "
        "[R6000D] 29.7 cycles (FIGURES §5b)");
  // The OMMA forms (kind::mxf4 and mxf4nvf4 2X are the same OMMA.SF...E8, ptxas 13.0; the ue4m3
  // scale_vec::4X form is NVFP4 itself, what CUTLASS's nvfp4 GEMM runs) at that GEMM's rate.
  for (const char* op : {"mma_m16n8k64_mxf4nvf4_ue4m3_e2m1_f32", "mma_m16n8k64_mxf4nvf4_e2m1_f32",
                         "mma_m16n8k64_mxf4_e2m1_f32"})
    add(op, 651.6e12 / (156 * 2.30e9),
        "DER P [R6000D] CUTLASS nvfp4 651.6 TF / (156 SMs x 2.30 GHz) = 1816.1 "
        "(FIGURES §5a): a GEMM of the 4X ue4m3 form, a lower bound of the OMMA "
        "mma.sync peak taken as it, for the ue8m0 OMMA forms too (assumption); "
        "latency P [R6000D] 29.7 cycles (FIGURES §5b; assumption for OMMA)");
  return t;
}

const sim::PresetTable<TensorCosts> kTables(kCostTable, preset_costs, [](TensorCosts& costs, double factor) {
  for (TensorCost& c : costs) {
    c.flops_per_clk_per_sm /= factor;
    c.latency_cycles *= factor;
  }
});

}  // namespace
}  // namespace gpuprobe::probes::tensor
