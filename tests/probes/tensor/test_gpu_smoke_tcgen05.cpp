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

namespace GPUPROBE_TEST_FILE {

// tcgen05.cpp's weak reference to one of its kernels: null unless tcgen05.sm100a.cu is linked.
extern "C" __attribute__((weak)) void gpuprobe_tcgen05_baseline_cg1_lat();

using namespace gpuprobe;

TEST_CASE("tensor/tcgen05: its kernels are linked exactly when the build has sm_100a code",
          "[tensor][flavour]") {
  CHECK((&gpuprobe_tcgen05_baseline_cg1_lat != nullptr) ==
        (std::string(built_cuda_targets()).find("sm_100a") != std::string::npos));
}

// What is wrong with a throughput point of a real sm_100 run ("" if nothing), also applied to a
// simulated B200's below. At most the M [SA] peak per SM +2% (the rate is per SM clock, so no clock
// lifts it over the peak; a FLOP-count bug shows); at least half of it with zero operands at
// N >= 128 (not bound by shared memory) where the peak was measured, a tenth otherwise. Peaks:
// FP8, MXF8 and INT8 16384; the block-scaled FP4 (mxf4, nvf4) the FP4/MXF4 32768; fp6/fp4
// through kind::f8f6f4 at most the FP4 32768 too (their rate, and NVFP4's, is not known).
std::string rate_problem(const nlohmann::json& p) {
  const std::string precision = p["precision"];
  const bool fp8 = precision == "e4m3" || precision == "e5m2" || precision == "s8" || precision == "mxf8_e4m3";
  const bool fp6_fp4 = precision == "e3m2" || precision == "e2m3" || precision == "e2m1" ||
                       precision == "mxf4" || precision == "nvf4";
  const bool known = !(precision == "e3m2" || precision == "e2m3" || precision == "e2m1" || precision == "nvf4");
  const double peak = precision == "tf32" ? 4096 : fp8 ? 16384 : fp6_fp4 ? 32768 : 8192;
  const bool at_full_rate = known && p["operands"] == "zeros" && testing::tensor_shape_n(p["shape"]) >= 128;
  const double rate = p["flops_per_clk_per_sm"].get<double>();
  if (rate > 1.02 * peak) return "above 1.02x the peak " + std::to_string(peak);
  if (rate < (at_full_rate ? 0.5 : 0.1) * peak) return "below the least share of the peak " + std::to_string(peak);
  return "";
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

// The bounds are no looser than a perfect run needs: a simulated B200 (the preset at the M [SA]
// peaks, SS N 64 bound by shared memory) meets them; 3% more FLOP, or a third of the rate, does not.
TEST_CASE("tensor/tcgen05: a simulated B200 run meets the smoke test's bounds", "[tensor]") {
  auto dev = open_device("sim:b200");
  const ProbeSpec& probe = find_probe("tensor/tcgen05");
  std::ostringstream log;
  const auto record = run_probe(*dev, probe, Params::parse(probe.params, {{"iterations", "64"}}),
                                RepeatPolicy{}, "", log);
  REQUIRE(record["status"] == "ok");
  REQUIRE(record["series"].size() > 0);
  int near_peak = 0;
  for (const auto& p : record["series"]) {
    INFO(p.dump());
    check_point(p);
    if (p["kind"] != "throughput" || testing::tensor_shape_n(p["shape"]) < 128) continue;
    // The same point with a FLOP count 3% high, or at a third of its rate, fails the bounds.
    nlohmann::json high = p, slow = p;
    high["flops_per_clk_per_sm"] = 1.03 * p["flops_per_clk_per_sm"].get<double>();
    slow["flops_per_clk_per_sm"] = p["flops_per_clk_per_sm"].get<double>() / 3;
    // fp6/fp4 through kind::f8f6f4 and NVFP4 have no measured peak (the bounds allow FP4's).
    const std::string in = p["precision"];
    if (in == "e3m2" || in == "e2m3" || in == "e2m1" || in == "nvf4") continue;
    CHECK(rate_problem(high) != "");
    if (p["operands"] == "zeros") {
      CHECK(rate_problem(slow) != "");
      ++near_peak;
    }
  }
  CHECK(near_peak > 0);
}

}  // namespace GPUPROBE_TEST_FILE
