// GPU smoke test of the atomics family: on a machine with a GPU, atomics/ops runs every op in
// every pattern for real, each launch checking its final words against the host's count, with
// costs in the ranges any GPU of the supported generations shows; without a GPU the test only
// checks that the kernels are linked exactly when the build has CUDA. ctest -R gpu-smoke
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "harness/probe.hpp"
#include "tests/gpu.hpp"

namespace GPUPROBE_TEST_FILE {

// atomics.cpp's weak reference to one of its kernels: null unless atomics.cu is linked.
extern "C" __attribute__((weak)) void gpuprobe_atomics_global_add_u32_thr();

using namespace gpuprobe;

TEST_CASE("atomics/ops: its kernels are linked exactly when the build has CUDA", "[atomics][flavour]") {
  CHECK((&gpuprobe_atomics_global_add_u32_thr != nullptr) == gpuprobe::built_with_cuda());
}

TEST_CASE("gpu-smoke: atomics/ops runs every op on the GPU with its self-checks", "[gpu-smoke][atomics]") {
  if (!testing::gpu_or_skip()) return;
  auto dev = open_device("cuda:0");
  const ProbeSpec& probe = find_probe("atomics/ops");
  std::ostringstream log;
  const auto record = run_probe(*dev, probe, Params::parse(probe.params, {{"iterations", "8"}}),
                                RepeatPolicy{}, "", log);
  REQUIRE(record["status"] == "ok");
  int measured = 0;
  for (const auto& p : record["series"]) {
    INFO(p.dump());
    const std::string op = p["op"];
    // Every GPU from sm_75 has every op; red has no latency point.
    CHECK_FALSE(p.contains("skipped"));
    if (p["kind"] == "latency") CHECK(op.find("_red_add_") == std::string::npos);
    ++measured;
    CHECK(p["self_check"] == "passed");
    CHECK(p["launch"]["local_bytes_per_thread"] == 0);
    if (p["kind"] == "latency") {
      // From a shared-memory atomic (tens of cycles) to every SM queueing at one L2 word.
      CHECK(p["latency_cycles"].get<double>() > 5);
      CHECK(p["latency_cycles"].get<double>() < 1e5);
    } else {
      // At most a warp instruction's 32 lanes per clock per SM, a bit more for aggregated adds.
      CHECK(p["ops_per_clk_per_sm"].get<double>() > 0);
      CHECK(p["ops_per_clk_per_sm"].get<double>() < (p["lowering"] == "native" ? 64 : 1100));
    }
  }
  CHECK(measured == 2 * (8 * 3 + 9 * 2 + 2) - (2 * 3 + 2 * 2));
}

}  // namespace GPUPROBE_TEST_FILE
