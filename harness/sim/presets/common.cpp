// What the presets share: the wgmma table of the GH100 SM (harness/sim/presets/presets.hpp).
#include "harness/sim/presets/presets.hpp"

#include <string>

namespace gpuprobe::sim::presets_detail {

std::vector<TensorOpModel> hopper_wgmma_ops(const std::string& rate_source) {
  // Dense FLOP per clock per SM of the GH100 SM's tensor cores per input format; every N and
  // both forms (SS, RS) at that rate (assumption: FIGURES has no per-N or per-form figure).
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
  std::vector<TensorOpModel> ops;
  for (const char* form : {"ss", "rs"}) {
    for (uint32_t n : {64u, 128u, 256u}) {
      for (const Input& in : inputs) {
        // One wgmma's own time at the peak rate (2 x 64 x N x K FLOP) plus 40 cycles.
        const double issue = 2.0 * 64 * n * in.k / in.flops_per_clk_per_sm;
        ops.push_back({.op = "wgmma_m64n" + std::to_string(n) + "k" + std::to_string(in.k) + "_" +
                             in.input + "_" + in.acc + "_" + form,
                       .flops_per_clk_per_sm = in.flops_per_clk_per_sm,
                       .latency_cycles = issue + 40,
                       .emulated = false,
                       .source = rate_source +
                                 "; latency: assumption (the wgmma's issue time at that rate + 40 "
                                 "cycles; not in FIGURES)"});
      }
    }
  }
  return ops;
}

}  // namespace gpuprobe::sim::presets_detail
