// GPU smoke test of the compute family: on a machine with a GPU, compute/alu runs every op the
// GPU has for real, each launch checking its chains' results, and the rates land in the ranges
// any GPU of the supported generations shows; without a GPU it is Skipped; a test of its own checks that the
// kernels are linked exactly when the build has CUDA. ctest -R gpu-smoke
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "harness/probe.hpp"
#include "tests/gpu.hpp"

namespace GPUPROBE_TEST_FILE {

// compute.cpp's weak reference to one of its kernels: null unless compute.cu is linked.
extern "C" __attribute__((weak)) void gpuprobe_alu_fma_rn_f32_thr();

using namespace gpuprobe;

TEST_CASE("compute/alu: its kernels are linked exactly when the build has CUDA", "[compute][flavour]") {
  CHECK((&gpuprobe_alu_fma_rn_f32_thr != nullptr) == gpuprobe::built_with_cuda());
}

TEST_CASE("gpu-smoke: compute/alu runs every op on the GPU with its self-checks",
          "[gpu-smoke][compute]") {
  if (!testing::gpu_or_skip()) return;
  auto dev = open_device("cuda:0");
  const ProbeSpec& probe = find_probe("compute/alu");
  std::ostringstream log;
  const auto record = run_probe(*dev, probe, Params::parse(probe.params, {{"iterations", "256"}}),
                                RepeatPolicy{}, "", log);
  REQUIRE(record["status"] == "ok");
  const int sm = dev->info().cc.sm();
  for (const auto& p : record["series"]) {
    INFO(p.dump());
    if (p.contains("skipped")) {
      // Only the ops this GPU lacks: bf16x2 before sm_80, f32x2 before sm_100.
      CHECK(((p["op"] == "fma_rn_bf16x2" && sm < 80) || (p["op"] == "fma_rn_f32x2" && sm < 100)));
      continue;
    }
    CHECK(p["self_check"] == "passed");
    CHECK(p["launch"]["local_bytes_per_thread"] == 0);
    if (p["kind"] == "latency") {
      // From a 2-cycle integer add to a NOP-padded FP64 chain on consumer parts.
      CHECK(p["latency_cycles"].get<double>() > 1.5);
      CHECK(p["latency_cycles"].get<double>() < 200);
    } else {
      CHECK(p["ops_per_clk_per_sm"].get<double>() > 0.5);  // FP64 on consumer parts: 2/clk/SM
      CHECK(p["ops_per_clk_per_sm"].get<double>() <= 260);
    }
  }
  // FP32 FMA: 64 (V100, A100) or 128 (A40, L40, H100, B200) per clock per SM, within 10%.
  for (const auto& p : record["series"])
    if (p["op"] == "fma_rn_f32" && p["kind"] == "throughput")
      CHECK(p["ops_per_clk_per_sm"].get<double>() > 57);
}

}  // namespace GPUPROBE_TEST_FILE
