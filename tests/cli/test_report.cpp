// The terminal summary (cli/report.cpp): per family of the model, its metrics[] rows, what its
// section could not measure, and the structure a metric cannot hold.
#include "cli/report.hpp"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>

namespace GPUPROBE_TEST_FILE {

namespace {

nlohmann::json metric(const char* family, const char* id, const char* label, nlohmann::json value, const char* unit) {
  return {{"id", id}, {"family", family}, {"label", label}, {"value", value}, {"unit", unit},
          {"per_sm_per_clock", nullptr}, {"datasheet", nullptr}};
}

}  // namespace

TEST_CASE("each family prints its metrics, per SM per clock and % of the datasheet, in its order",
          "[cli][report]") {
  auto rate = metric("compute", "compute.fma_rn_f32.ops_per_s", "fma_rn_f32 throughput", 7.06e12, "ops/s");
  rate["per_sm_per_clock"] = {{"value", 64.0}, {"unit", "ops/clk/SM"}};
  auto flops = metric("compute", "compute.fma_rn_f32.flops_per_s", "fma_rn_f32 FLOP rate", 14.1e12, "flop/s");
  flops["datasheet"] = {{"value", 15.7e12}, {"unit", "flop/s"}, {"percent", 90.0}};
  const nlohmann::json model = {
      {"families", {{{"name", "memory"}, {"title", "Memory hierarchy"}, {"section", "memory"}},
                    {{"name", "compute"}, {"title", "CUDA-core compute"}, {"section", "compute"}},
                    {{"name", "tensor"}, {"title", "Tensor cores"}, {"section", "compute"}}}},
      {"memory", {{"levels_from", "memory/chase cache-op=default"},
                  {"far_l2", {{"reason", "no far-L2 plateau"}}},
                  {"rejected", {{{"reason", "plateau at 400.0 cycles ..."}}}},
                  {"line_sector", {{"line_bytes", 128.0}, {"sector_bytes", 32.0}, {"confidence", 0.9},
                                   {"note", "8 of 8 agree"}}}}},
      {"compute", {{"skipped", {{"fma_rn_f32x2", "fma.rn.f32x2 needs sm_100+"}}}}},
      {"metrics", {metric("memory", "memory.L1.latency_cycles", "L1 load-to-use latency", 33.0, "cycles"),
                   metric("memory", "memory.L1.latency_ns", "L1 load-to-use latency", nullptr, "ns"), rate, flops,
                   metric("tensor", "tensor.s8.ops_per_s", "s8 tensor-core peak (int)", 1.979e15, "op/s"),
                   metric("roofline", "roofline.f32.ridge_DRAM_flop_per_byte", "f32 ridge", 24.1, "flop/byte")}}};
  std::ostringstream out;
  gpuprobe::print_model(out, model);
  CHECK(out.str() ==
        "Memory hierarchy:\n"
        "  hierarchy from memory/chase cache-op=default\n"
        "  far L2: no far-L2 plateau\n"
        "  not a level: plateau at 400.0 cycles ...\n"
        "  cache line 128 B, sector 32 B (confidence 0.90)\n"
        "  8 of 8 agree\n"
        "  L1 load-to-use latency  33.0 cycles\n"
        "  L1 load-to-use latency  -\n"
        "CUDA-core compute:\n"
        "  fma_rn_f32 throughput  7.06 Top/s  (64.0 ops/clk/SM)\n"
        "  fma_rn_f32 FLOP rate   14.1 TFLOP/s  90.0% of the datasheet's 15.7 TFLOP/s\n"
        "  fma_rn_f32x2: not measured: fma.rn.f32x2 needs sm_100+\n"
        "Tensor cores:\n"
        "  s8 tensor-core peak (int)  1.98 POP/s\n");
}

TEST_CASE("the bandwidth section's structure: plateaus, bank conflicts, the loaded-latency model",
          "[cli][report]") {
  const nlohmann::json bandwidth = {
      {"L2", {{"concurrency", {{"error", "fit_concurrency_sweep: 2 points"}}},
              {"loaded_latency", {{"source", "bandwidth/loaded_latency"}, {"unloaded_latency_ns", 153.4},
                                  {"queue_ns", 57.0}, {"peak_bandwidth_bytes_per_s", 7.4e12}}},
              {"footprint_sweep", {{"levels", {{{"name", "L2"}, {"bandwidth_bytes_per_s", 7.2e12},
                                                {"ends_at_bytes", 26214400.0}}}}}}}},
      {"shared", {{"bank_conflicts", {{"word_bytes", 4},
                                      {"strides", {{{"stride_elems", 1}, {"slowdown", 1.0}},
                                                   {{"stride_elems", 2}, {"slowdown", 2.0}}}}}}}}};
  std::ostringstream out;
  gpuprobe::print_model(out, {{"families", {{{"name", "bandwidth"}, {"title", "Bandwidth"}, {"section", "bandwidth"}}}},
                              {"bandwidth", bandwidth}});
  CHECK(out.str() ==
        "Bandwidth:\n"
        "  L2 footprint plateau L2: 7.20 TB/s up to 25 MiB\n"
        "  L2 loaded latency (bandwidth/loaded_latency): 153 ns unloaded + 57.0 ns x B / "
        "(asymptote 7.40 TB/s - B)\n"
        "  shared bank conflicts (4-byte words), slowdown by stride: 1: 1.00x 2: 2.00x\n");
}

TEST_CASE("a model without results says so, and families come from the metrics when the model lists none",
          "[cli][report]") {
  std::ostringstream empty;
  gpuprobe::print_model(empty, {{"memory", nlohmann::json::object()}});
  CHECK(empty.str() == "the model holds no result: no run record measured anything\n");
  std::ostringstream published;
  gpuprobe::print_model(published, {{"metrics", {metric("memory", "memory.L2.latency_cycles", "L2 latency", 280.0, "cycles")}}});
  CHECK(published.str() == "memory:\n  L2 latency            280 cycles\n");
}

TEST_CASE("an errored section says which probe gave no result", "[cli][report]") {
  std::ostringstream out;
  gpuprobe::print_model(out, {{"families", {{{"name", "sync"}, {"title", "Synchronization"}, {"section", "sync"}}}},
                              {"sync", {{"errors", {{"sync/primitives", "series[0] has no number latency_cycles"}}}}}});
  CHECK(out.str() == "Synchronization:\n  sync/primitives: no result: series[0] has no number latency_cycles\n");
}

}  // namespace GPUPROBE_TEST_FILE
