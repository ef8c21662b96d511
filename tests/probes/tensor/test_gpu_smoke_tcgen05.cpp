// GPU smoke test of tensor/tcgen05: on a B200-class GPU (compute capability 10.0) with sm_100a code
// built, every op runs for real, each measurement first checking one tile read back from TMEM
// against the float64 reference, and the numbers land in the ranges FIGURES §5a/§5b give
// (M [SA]: BF16 8192, FP8/INT8 16384, FP4 32768 FLOP/clk/SM; single-MMA latency 136-301
// cycles); on another GPU the probe is skipped with the reason; without a GPU the test is Skipped;
// a test of its own checks that the kernels are linked exactly when the build has sm_100a code.
// ctest -R gpu-smoke
#include <catch2/catch.hpp>

#include <sstream>

#include "harness/arch.hpp"
#include "harness/probe.hpp"
#include "tests/gpu.hpp"
#include "tests/probes/tensor/smoke_bounds.hpp"

namespace GPUPROBE_TEST_FILE {

// tcgen05.cpp's weak reference to one of its kernels: null unless tcgen05.sm100a.cu is linked.
extern "C" __attribute__((weak)) void gpuprobe_tcgen05_baseline_cg1_lat();

using namespace gpuprobe;

TEST_CASE("tensor/tcgen05: its kernels are linked exactly when the build has sm_100a code",
          "[tensor][flavour]") {
  CHECK((&gpuprobe_tcgen05_baseline_cg1_lat != nullptr) ==
        (std::string(built_cuda_targets()).find("sm_100a") != std::string::npos));
}

// Peaks (M [SA]): FP8, MXF8 and INT8 16384; the block-scaled FP4 (mxf4, nvf4) the FP4/MXF4 32768;
// fp6/fp4 through kind::f8f6f4 at most the FP4 32768 too. Those and NVFP4 were never measured.
bool peak_measured(const nlohmann::json& p) {
  const std::string in = p["precision"];
  return !(in == "e3m2" || in == "e2m3" || in == "e2m1" || in == "nvf4");
}

std::string rate_problem(const nlohmann::json& p) {
  const std::string in = p["precision"];
  const bool fp8 = in == "e4m3" || in == "e5m2" || in == "s8" || in == "mxf8_e4m3";
  const bool fp6_fp4 = in == "e3m2" || in == "e2m3" || in == "e2m1" || in == "mxf4" || in == "nvf4";
  const double peak = in == "tf32" ? 4096 : fp8 ? 16384 : fp6_fp4 ? 32768 : 8192;
  return testing::tensor_rate_problem(p, peak, peak_measured(p));
}

void check_point(const nlohmann::json& p) {
  if (p["kind"] == "latency") {
    CHECK(p["latency_cycles"].get<double>() > 50);
    CHECK(p["latency_cycles"].get<double>() < 1000);
  } else {
    CHECK(rate_problem(p) == "");
  }
}

TEST_CASE("gpu-smoke: tensor/tcgen05 runs every op on an sm_100 GPU with its self-checks, or skips",
          "[gpu-smoke][tensor]") {
  if (!testing::gpu_or_skip()) return;
  auto dev = open_device("cuda:0");
  const ProbeSpec& probe = find_probe("tensor/tcgen05");
  std::ostringstream log;
  const auto record = run_probe(*dev, probe, Params::parse(probe.params, {{"iterations", "64"}}),
                                RepeatPolicy{}, "", log);
  if (dev->info().cc.sm() != 100) {
    CHECK(record["status"] == "skipped");
    return;
  }
  if (record["status"] == "skipped") {
    // An sm_100 GPU and a build without sm_100a code: the reason says how to rebuild.
    CHECK(record["skip_reason"].get<std::string>().find("CMAKE_CUDA_ARCHITECTURES") != std::string::npos);
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

// The bounds hold a simulated B200 (the preset at the M [SA] peaks, SS N 64 bound by shared
// memory) and are tight (smoke_bounds.hpp).
TEST_CASE("tensor/tcgen05: a simulated B200 run meets the smoke test's bounds", "[tensor]") {
  auto dev = open_device("sim:b200");
  const ProbeSpec& probe = find_probe("tensor/tcgen05");
  std::ostringstream log;
  const auto record = run_probe(*dev, probe, Params::parse(probe.params, {{"iterations", "64"}}),
                                RepeatPolicy{}, "", log);
  testing::check_bounds_tight(record, rate_problem, peak_measured);
}

}  // namespace GPUPROBE_TEST_FILE
