// GPU smoke tests: on a machine with a GPU they run every chase kernel for real, with the
// self-checks (elsewhere Skipped); without one, the CUDA backend says why in one line.
// Run them first whenever a GPU is available: ctest -R gpu-smoke
#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>
#include <sstream>

#include "analysis/machine_model.hpp"
#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "ptx/load_variants.hpp"
#include "tests/gpu.hpp"
#if GPUPROBE_WITH_CUDA
#include "harness/cuda/timing.hpp"
#endif

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

namespace {
bool gpu_present() { return std::filesystem::exists("/dev/nvidia0"); }

nlohmann::json run(Device& dev, const std::string& id, std::map<std::string, std::string> params) {
  const ProbeSpec& probe = find_probe(id);
  std::ostringstream log;
  return run_probe(dev, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
}
}  // namespace

TEST_CASE("without a GPU the CUDA backend says why in one line, naming the simulator", "[cuda][flavour]") {
  if (GPUPROBE_WITH_CUDA && gpu_present()) {
    std::cout << testing::kSkippedMarker << ": this machine has a GPU" << std::endl;
    return;
  }
  try {
    static_cast<void>(open_device("cuda:0"));
    FAIL("a CUDA device opened on a machine without /dev/nvidia0 or without CUDA support");
  } catch (const DeviceUnavailable& e) {
    const std::string what = e.what();
    CHECK(what.find('\n') == std::string::npos);
    CHECK(what.find("--device sim:h100") != std::string::npos);
  }
}

TEST_CASE("gpu-smoke: the CUDA backend runs every chase kernel", "[gpu-smoke]") {
  if (!testing::gpu_or_skip()) return;
  auto dev = open_device("cuda:0");
  const DeviceInfo& info = dev->info();
  CHECK_FALSE(info.simulated);
  CHECK(info.sm_count > 0);
  CHECK(info.l2_bytes > 0);
  const double clock_mhz = dev->measure_sm_clock_mhz(200'000);
  CHECK(clock_mhz > 300);
  CHECK(clock_mhz < 4000);
  const nlohmann::json warm = dev->warm_up(2.0);
  CHECK(warm["sm_clock_mhz_after"].get<double>() > 300);
  // Every load variant: a footprint that fits L1 and one far past L2; each point self-checks
  // (final slot and executed iterations) and records its SM, clock and launch configuration.
  for (const auto& variant : ptx::kLoadVariants) {
    const std::string op(variant.name);
    INFO("cache-op " << op);
    const auto r = run(*dev, "memory/chase",
                       {{"cache-op", op}, {"min-footprint-bytes", "4K"},
                        {"max-footprint-bytes", std::to_string(4 * info.l2_bytes)},
                        {"points-per-octave", "1"}, {"sm", "3"}});
    REQUIRE(r["status"] == "ok");
    const auto& s = r["series"];
    const double small = s.front()["latency_cycles"].get<double>();
    const double large = s.back()["latency_cycles"].get<double>();
    CHECK(small > 10);
    CHECK(large > 2 * small);   // DRAM is far slower than any cache hit
    CHECK(large < 5000);
    for (const auto& p : s) {
      CHECK(p["self_check"] == "passed");
      CHECK(p["sm"] == 3);                                  // pinned
      CHECK(p["launch"]["smid"] == 3);
      CHECK(p["launch"]["local_bytes_per_thread"] == 0);
      CHECK(p["timed_region_ns"].get<double>() >= 1e6);     // calibrated to 1 ms
      CHECK(p["region_sm_clock_mhz"].get<double>() > 300);
      CHECK(p["sample_overhead_cycles"].get<double>() < 40);
    }
  }
  const auto shared = run(*dev, "memory/chase_shared", {{"max-footprint-bytes", "16K"}});
  REQUIRE(shared["status"] == "ok");
  CHECK(shared["series"][0]["latency_cycles"].get<double>() > 5);
  CHECK(shared["series"][0]["latency_cycles"].get<double>() < 100);
  CHECK(shared["series"][0]["sm"] == 0);
#if GPUPROBE_WITH_CUDA
  // The timing layer: a 2 ms spin timed with events behind a spin kernel and after an L2 flush.
  const double ms = cuda::time_with_events_ms(
      [](cudaStream_t s) { cuda::enqueue_spin(s, 2'000'000); }, {20'000, true});
  CHECK(ms > 1.9);
  CHECK(ms < 3.0);
#endif
  // A pinned launch on an SM that does not exist is refused in one line.
  CHECK_THROWS_WITH(run(*dev, "memory/chase", {{"sm", std::to_string(info.sm_count)},
                                               {"max-footprint-bytes", "8K"}}),
                    Catch::Contains("does not exist"));
}

}  // namespace GPUPROBE_TEST_FILE
