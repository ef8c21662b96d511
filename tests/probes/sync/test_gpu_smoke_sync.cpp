// GPU smoke test of the sync family: on a machine with a GPU, sync/primitives runs every op the
// GPU has for real (clusters, the cooperative grid barrier, mbarriers included), each launch
// checking its chains' values against the host's simulation of the warp, and the costs land in
// the ranges any GPU of the supported generations shows; without a GPU the test only checks that
// the kernels are linked exactly when the build has CUDA. ctest -R gpu-smoke
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "harness/probe.hpp"
#include "probes/sync/sync.hpp"
#include "tests/gpu.hpp"

namespace GPUPROBE_TEST_FILE {

// sync.cpp's weak reference to one of its kernels: null unless sync.cu is linked.
extern "C" __attribute__((weak)) void gpuprobe_sync_shfl_idx_thr();

using namespace gpuprobe;

TEST_CASE("sync/primitives: its kernels are linked exactly when the build has CUDA", "[sync][flavour]") {
  CHECK((&gpuprobe_sync_shfl_idx_thr != nullptr) == gpuprobe::built_with_cuda());
}

TEST_CASE("gpu-smoke: sync/primitives runs every op on the GPU with its self-checks", "[gpu-smoke][sync]") {
  if (!testing::gpu_or_skip()) return;
  auto dev = open_device("cuda:0");
  const ProbeSpec& probe = find_probe("sync/primitives");
  std::ostringstream log;
  const auto record = run_probe(*dev, probe, Params::parse(probe.params, {{"iterations", "32"}}),
                                RepeatPolicy{}, "", log);
  REQUIRE(record["status"] == "ok");
  const int sm = dev->info().cc.sm();
  for (const auto& p : record["series"]) {
    INFO(p.dump());
    const std::string op = p["op"];
    const auto& info = probes::sync_info(probes::parse_sync_op(op));
    // Only what this GPU lacks (redux and mbarrier before sm_80, the sm_90 forms before sm_90).
    CHECK(p.contains("skipped") == !ptx::device_has(info.cap, sm));
    if (p.contains("skipped")) continue;
    CHECK(p["self_check"] == "passed");
    CHECK(p["launch"]["local_bytes_per_thread"] == 0);
    if (p["kind"] == "latency") {
      // From a dropped bar.warp.sync (about a cycle) to a grid barrier over 4 CTAs per SM.
      CHECK(p["latency_cycles"].get<double>() > 0.5);
      CHECK(p["latency_cycles"].get<double>() < (op == "grid_sync" || op == "membar_sys" ? 1e6 : 5000));
    } else {
      CHECK(p["ops_per_clk_per_sm"].get<double>() > 0);
      CHECK(p["ops_per_clk_per_sm"].get<double>() < 1100);
    }
  }
  // A shuffle: tens of cycles, and at most a few warp-wide SHFL per clock per SM.
  for (const auto& p : record["series"]) {
    if (p["op"] != "shfl_idx") continue;
    if (p["kind"] == "latency") CHECK(p["latency_cycles"].get<double>() > 5);
    else CHECK(p["ops_per_clk_per_sm"].get<double>() < 4.5);
  }
}

}  // namespace GPUPROBE_TEST_FILE
