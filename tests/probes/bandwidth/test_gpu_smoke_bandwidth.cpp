// GPU smoke tests of the bandwidth family: on a machine with a GPU every bandwidth probe runs
// for real, each launch checking its checksum (and for writes and copies, every destination
// word), and the rates land in the ranges any GPU of the supported generations shows; without
// a GPU the test only checks that there is none. Run them first whenever a GPU is available:
// ctest -R gpu-smoke
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "analysis/machine_model.hpp"
#include "harness/ops.hpp"
#include "harness/probe.hpp"
#include "probes/bandwidth/stream_ops.hpp"
#include "tests/gpu.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

namespace {
nlohmann::json run(Device& dev, const std::string& id, std::map<std::string, std::string> params) {
  const ProbeSpec& probe = find_probe(id);
  std::ostringstream log;
  return run_probe(dev, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
}

double best_per_sm_clk(const nlohmann::json& record) {
  double best = 0;
  for (const auto& p : record["series"]) {
    CHECK(p["self_check"] == "passed");
    CHECK(p["launch"]["local_bytes_per_thread"] == 0);
    best = std::max(best, p["bytes_per_clk_per_sm"].get<double>());
  }
  return best;
}
}  // namespace

TEST_CASE("bandwidth: its CUDA operations are registered exactly when the build has CUDA", "[bandwidth][flavour]") {
  // Whatever the machine, a CUDA build carries the family's CUDA operations (and a host-only
  // build none): the probes can only skip on a GPU for a reason the run records.
  for (const char* family : {probes::StreamOps::kFamily, probes::LoadedLatencyOps::kFamily}) {
    bool cuda_ops = false;
    for (const auto& e : ops_registry()) cuda_ops = cuda_ops || (e.family == family && e.backend == "cuda");
    CHECK(cuda_ops == gpuprobe::built_with_cuda());
  }
}

TEST_CASE("gpu-smoke: every bandwidth probe runs on the GPU with its self-checks",
          "[gpu-smoke][bandwidth]") {
  if (!testing::gpu_or_skip()) return;
  auto dev = open_device("cuda:0");
  const DeviceInfo& info = dev->info();
  // Per SM per clock: L1 64-128 B (A40/L40 .. V100-H100), shared about 128, L2 well below L1;
  // DRAM between 100 GB/s and 10 TB/s for the whole GPU.
  const auto l1 = run(*dev, "bandwidth/l1", {{"max-window-bytes", "64K"}, {"points-per-octave", "1"}});
  REQUIRE(l1["status"] == "ok");
  const double l1_rate = best_per_sm_clk(l1);
  CHECK(l1_rate > 40);
  CHECK(l1_rate < 300);
  const auto shared = run(*dev, "bandwidth/shared", {{"strides", "1,2,32"}});
  REQUIRE(shared["status"] == "ok");
  CHECK(best_per_sm_clk(shared) > 60);
  const auto l2 = run(*dev, "bandwidth/l2",
                      {{"min-footprint-bytes", "1M"},
                       {"max-footprint-bytes", std::to_string(2 * info.l2_bytes)},
                       {"points-per-octave", "1"}});
  REQUIRE(l2["status"] == "ok");
  CHECK(best_per_sm_clk(l2) < l1_rate);
  const auto dram = run(*dev, "bandwidth/dram", {});
  REQUIRE(dram["status"] == "ok");
  double best = 0;
  for (const auto& p : dram["series"]) best = std::max(best, p["bandwidth_bytes_per_s"].get<double>());
  CHECK(best > 100e9);
  CHECK(best < 10e12);
  // The model joins them.
  const auto model = analysis::build_machine_model({l1, shared, l2, dram}, {});
  REQUIRE(model.contains("bandwidth"));
  CHECK_FALSE(model["bandwidth"].contains("errors"));
  CHECK(model["bandwidth"]["DRAM"]["read"]["concurrency"]["peak_bytes_per_s"].get<double>() > 100e9);
}

TEST_CASE("gpu-smoke: bandwidth/loaded_latency chases under load on the GPU with its self-checks",
          "[gpu-smoke][bandwidth][loaded]") {
  if (!testing::gpu_or_skip()) return;
  auto dev = open_device("cuda:0");
  for (const char* level : {"l2", "dram"}) {
    INFO(level);
    const auto record =
        run(*dev, "bandwidth/loaded_latency",
            {{"level", level}, {"hops", "2048"}, {"throttle-cycles", "65536,4096,0"}});
    REQUIRE(record["status"] == "ok");
    const auto& s = record["series"];
    REQUIRE(s.size() == 4);
    for (const auto& p : s) {
      INFO(p.dump());
      CHECK(p["self_check"] == "passed");
      CHECK(p["launch"]["smid"] == 0);
      CHECK(p["latency_cycles"].get<double>() > 100);    // an L2 hit costs 200 cycles or more
      CHECK(p["latency_cycles"].get<double>() < 100000);
    }
    // Idle streams nothing; the others stream on (nearly) every other SM, faster as the
    // throttle falls, and full rate waits longer than idle.
    CHECK(s[0]["achieved_bandwidth_bytes_per_s"].get<double>() == 0);
    CHECK(s[3]["streaming_sms"].get<int>() >= dev->info().sm_count / 2);
    CHECK(s[2]["achieved_bandwidth_bytes_per_s"].get<double>() >
          s[1]["achieved_bandwidth_bytes_per_s"].get<double>());
    CHECK(s[3]["achieved_bandwidth_bytes_per_s"].get<double>() > 50e9);
    CHECK(s[3]["latency_cycles"].get<double>() > s[0]["latency_cycles"].get<double>());
  }
}

}  // namespace GPUPROBE_TEST_FILE
