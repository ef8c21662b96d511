// One factory per simulator preset; each lives in harness/sim/presets/<name>.cpp and cites the
// source of every number it sets (keys and confidence tags of docs/FIGURES.md).
#pragma once
#include <string>
#include <vector>

#include "harness/sim/preset.hpp"

namespace gpuprobe::sim::presets_detail {

Preset make_v100();
Preset make_a100();
Preset make_h100();
Preset make_h100_sxm();
Preset make_l40();
Preset make_h200();
Preset make_b200();
Preset make_rtx5090();

// The wgmma forms of tensor/wgmma (probes/tensor/wgmma.cuh: f16, bf16, tf32, e4m3, e5m2 and s8
// at N = 64, 128, 256, SS and RS) on the GH100 SM: f16/bf16 4096, tf32 2048, fp8/s8 8192 dense
// FLOP/clk/SM (`rate_source` cites them for the preset); latencies are assumptions.
std::vector<TensorOpModel> hopper_wgmma_ops(const std::string& rate_source);

// The mma.sync forms of tensor/mma (ptx/mma_forms.def) a preset's GPU runs: f16/bf16 (f16 and f32
// accumulate) at f16_flops_per_clk_per_sm, tf32, s8, s4 and fp8 at the GPU's published ratios to
// f16 (FIGURES §1), f64 where given; fp8 on sm_90-110 and s4 on sm_90+ marked emulated
// (tests/probes/tensor/test_sass_mma.py) at the rate of the instructions they become (assumption).
// The sm_70/75 shapes: m8n8k4 f16 (from sm_70; emulated on CUDA cores from sm_80), m16n8k8 f16,
// m8n8k16 s8 (emulated from sm_100), m8n8k32 s4 (emulated from sm_90). presets/mma_sync.cpp.
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
std::vector<TensorOpModel> mma_sync_ops(const MmaSyncRates& rates);

}  // namespace gpuprobe::sim::presets_detail
