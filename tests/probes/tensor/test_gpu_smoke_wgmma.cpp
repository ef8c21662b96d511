// GPU smoke test of tensor/wgmma: on a machine with an sm_90 GPU and a build with sm_90a code, the
// probe runs every op for real, each measurement first checking one tile against the float64
// reference, and the numbers land where a Hopper GPU can put them; on another GPU or without
// sm_90a code the probe must be skipped with the reason; without a GPU the test is Skipped; a test
// of its own checks that the kernels are linked exactly when the build has sm_90a code.
// ctest -R gpu-smoke
#include <catch2/catch.hpp>

#include <sstream>

#include "harness/arch.hpp"
#include "harness/probe.hpp"
#include "tests/gpu.hpp"
#include "tests/probes/tensor/smoke_bounds.hpp"

namespace GPUPROBE_TEST_FILE {

// wgmma.cpp's weak reference to one of its kernels: null unless wgmma.sm90a.cu is linked.
extern "C" __attribute__((weak)) void gpuprobe_wgmma_baseline_lat();

using namespace gpuprobe;

TEST_CASE("tensor/wgmma: its kernels are linked exactly when the build has sm_90a code",
          "[tensor][wgmma][flavour]") {
  CHECK((&gpuprobe_wgmma_baseline_lat != nullptr) ==
        (std::string(built_cuda_targets()).find("sm_90a") != std::string::npos));
}

// Dense peaks: 2048 (tf32), 4096 (f16/bf16), 8192 (fp8/s8) FLOP/clk/SM, each measured.
std::string rate_problem(const nlohmann::json& p) {
  const std::string in = p["precision"];
  const double peak = in == "tf32" ? 2048 : (in == "f16" || in == "bf16") ? 4096 : 8192;
  return testing::tensor_rate_problem(p, peak, true);
}

void check_point(const nlohmann::json& p) {
  if (p["kind"] == "latency") {
    CHECK(p["latency_cycles"].get<double>() > 4);
    CHECK(p["latency_cycles"].get<double>() < 2000);
  } else {
    CHECK(rate_problem(p) == "");
  }
}

TEST_CASE("gpu-smoke: tensor/wgmma runs every op on an sm_90 GPU with its self-checks, or is skipped",
          "[gpu-smoke][tensor][wgmma]") {
  if (!testing::gpu_or_skip()) return;
  auto dev = open_device("cuda:0");
  const ProbeSpec& probe = find_probe("tensor/wgmma");
  std::ostringstream log;
  const auto record = run_probe(*dev, probe, Params::parse(probe.params, {{"iterations", "256"}}),
                                RepeatPolicy{}, "", log);
  const bool runs = dev->info().cc.sm() == 90 &&
                    std::string(built_cuda_targets()).find("sm_90a") != std::string::npos;
  if (!runs) {
    CHECK(record["status"] == "skipped");
    CHECK(record["skip_reason"].get<std::string>().find("sm_90") != std::string::npos);
    return;
  }
  REQUIRE(record["status"] == "ok");
  for (const auto& p : record["series"]) {
    INFO(p.dump());
    REQUIRE_FALSE(p.contains("skipped"));
    CHECK(p["self_check"]["passed"] == true);
    CHECK(p["launch"]["local_bytes_per_thread"] == 0);
    check_point(p);
  }
}

// The bounds hold a simulated H100 SXM (the preset at the dense peaks, SS N 64 bound by shared
// memory) and are tight (smoke_bounds.hpp).
TEST_CASE("tensor/wgmma: a simulated H100 run meets the smoke test's bounds", "[tensor][wgmma]") {
  auto dev = open_device("sim:h100-sxm");
  const ProbeSpec& probe = find_probe("tensor/wgmma");
  std::ostringstream log;
  const auto record = run_probe(*dev, probe, Params::parse(probe.params, {{"iterations", "256"}}),
                                RepeatPolicy{}, "", log);
  testing::check_bounds_tight(record, rate_problem, [](const nlohmann::json&) { return true; });
}

}  // namespace GPUPROBE_TEST_FILE
