// GPU smoke test of tensor/mma: on a machine with a GPU, every mma.sync form the GPU has runs for
// real, each checking one tile against the host's float64 reference first, and the rates land in
// the ranges any supported GPU shows; without a GPU it is Skipped; a test of its own checks that
// the kernels are linked exactly when the build has CUDA. ctest -R gpu-smoke
#include <catch2/catch.hpp>

#include <sstream>

#include "harness/probe.hpp"
#include "probes/tensor/mma.hpp"
#include "tests/gpu.hpp"

namespace GPUPROBE_TEST_FILE {

// mma.cpp's weak reference to one of its kernels: null unless mma.cu is linked.
extern "C" __attribute__((weak)) void gpuprobe_mma_m16n8k16_f16_f32_thr();

using namespace gpuprobe;

TEST_CASE("tensor/mma: its kernels are linked exactly when the build has CUDA", "[tensor][flavour]") {
  CHECK((&gpuprobe_mma_m16n8k16_f16_f32_thr != nullptr) == gpuprobe::built_with_cuda());
}

TEST_CASE("gpu-smoke: tensor/mma runs every form on the GPU with its tile self-check",
          "[gpu-smoke][tensor]") {
  if (!testing::gpu_or_skip()) return;
  auto dev = open_device("cuda:0");
  const ProbeSpec& probe = find_probe("tensor/mma");
  std::ostringstream log;
  const auto record = run_probe(*dev, probe, Params::parse(probe.params, {{"iterations", "64"}}),
                                RepeatPolicy{}, "", log);
  REQUIRE(record["status"] == "ok");
  const int sm = dev->info().cc.sm();
  for (const auto& p : record["series"]) {
    INFO(p.dump());
    const std::string op = p["op"];
    if (p.contains("skipped")) {
      // Only the forms this GPU lacks.
      CHECK(probes::mma_info(probes::parse_mma_op(op)).min_sm > sm);
      continue;
    }
    CHECK(p["self_check"]["passed"] == true);
    CHECK(p["launch"]["local_bytes_per_thread"] == 0);
    CHECK(p["implementation"] == probes::mma_implementation(probes::parse_mma_op(op), sm));
    if (p["kind"] == "latency") {
      CHECK(p["latency_cycles"].get<double>() > 4);
      CHECK(p["latency_cycles"].get<double>() < 2000);  // emulated s4: a subroutine per mma
    } else {
      // From Ada's FP64 tensor path to Hopper's s8 (8192 FLOP/clk/SM at its dense peak); per SM
      // clock, so no clock lifts it over that: at most 2% above.
      CHECK(p["flops_per_clk_per_sm"].get<double>() > 1);
      CHECK(p["flops_per_clk_per_sm"].get<double>() <= 8192 * 1.02);
    }
  }
}

}  // namespace GPUPROBE_TEST_FILE
