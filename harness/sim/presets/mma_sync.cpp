// The mma.sync forms of tensor/mma (ptx/mma_forms.def) for a preset: rates from a preset's cited
// f16 mma.sync rate and its GPU's published precision ratios (harness/sim/presets/presets.hpp).
#include <string>

#include "harness/sim/presets/presets.hpp"

namespace gpuprobe::sim::presets_detail {

std::vector<TensorOpModel> mma_sync_ops(const MmaSyncRates& r) {
  const double f16 = r.f16_flops_per_clk_per_sm;
  const std::string ratios = "; " + r.ratio_source;
  const std::string lat = "; latency: " + r.latency_source;
  // Where ptxas emulates a form (tests/probes/tensor/test_sass_mma.py): fp8 on sm_90/100/103/110
  // becomes two HMMA.16816.F32 per mma (the FLOP of one f16 mma each: the f16 rate), s4 on sm_90+
  // a call to a subroutine of two IMMA.16832.S8 (the s8 rate); the conversions and the call are
  // not modelled (assumption), their latency is two dependent mmas and a margin (assumption).
  const bool fp8_native = r.sm == 89 || r.sm >= 120;
  const bool s4_native = r.sm < 90;
  std::vector<TensorOpModel> ops;
  auto add = [&](const char* op, double rate, double latency, bool emulated, std::string source) {
    ops.push_back({.op = op, .flops_per_clk_per_sm = rate, .latency_cycles = latency,
                   .emulated = emulated, .source = std::move(source)});
  };
  const std::string base = r.rate_source;
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
    const double s8 = f16 * r.s8_ratio;
    add("mma_m16n8k32_s8_s32", s8, r.s8_latency_cycles, false, base + ratios + lat);
    if (s4_native)
      add("mma_m16n8k64_s4_s32", f16 * r.s4_ratio, r.s8_latency_cycles, false, base + ratios + lat);
    else
      add("mma_m16n8k64_s4_s32", s8, 2 * r.s8_latency_cycles + 20, true,
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

}  // namespace gpuprobe::sim::presets_detail
