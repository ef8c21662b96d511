// What the presets share: the CUDA-core ops whose rate and latency no FIGURES source gives for
// any of these GPUs, assumed alike from sm_80 on (harness/sim/presets/presets.hpp).
#include "harness/sim/presets/presets.hpp"

namespace gpuprobe::sim::presets_detail {

std::vector<AluOpModel> assumed_alu_ops() {
  return {
      {.op = "mad_lo_s32", .ops_per_clk_per_sm = 64, .latency_cycles = 4,
       .source = "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES); latency: assumption (P [R6000D] measures FFMA and IMAD at 4.44 on GB202)"},
      {.op = "add_add_u32", .ops_per_clk_per_sm = 64, .latency_cycles = 4,
       .source = "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES); latency: assumption"},
      {.op = "ex2_approx_ftz_f32", .ops_per_clk_per_sm = 16, .latency_cycles = 18,
       .source = "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES) (16 MUFU/clk/SM); latency: assumption"},
      {.op = "rsqrt_approx_ftz_f32", .ops_per_clk_per_sm = 16, .latency_cycles = 18,
       .source = "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES) (16 MUFU/clk/SM); latency: assumption"},
      {.op = "sin_approx_ftz_f32", .ops_per_clk_per_sm = 16, .latency_cycles = 22,
       .source = "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES) (16 MUFU/clk/SM); latency: assumption"},
      {.op = "tanh_approx_f32", .ops_per_clk_per_sm = 16, .latency_cycles = 18,
       .source = "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES) (16 MUFU/clk/SM); latency: assumption"},
      {.op = "cvt_f16_f32", .ops_per_clk_per_sm = 16, .latency_cycles = 10,
       .source = "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES) (conversions 16/clk/SM, a round trip's F2FP/HADD2 pair); latency: assumption"},
      {.op = "cvt_s32_f32", .ops_per_clk_per_sm = 8, .latency_cycles = 14,
       .source = "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES) (two 16/clk/SM conversions per round trip); latency: assumption"},
  };
}

std::vector<AluOpModel> with_assumed_alu_ops(std::vector<AluOpModel> cited) {
  for (auto& op : assumed_alu_ops()) cited.push_back(std::move(op));
  return cited;
}

}  // namespace gpuprobe::sim::presets_detail
