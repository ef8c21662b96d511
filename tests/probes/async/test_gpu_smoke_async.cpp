// GPU smoke test of the async family: on a machine with a GPU, async/copy runs every op the GPU has
// for real (cp.async at every size and cache op, the bulk copy, TMA 1D and 2D with the driver's
// tensor maps, the ld+st comparison and the TMA chase), each launch checking that its slots hold
// the source's data (or that the chase ended where the host's walk does), and the costs land in the
// ranges any GPU of the supported generations shows; without a GPU it is Skipped; a test of its own
// checks that the kernels are linked exactly when the build has CUDA. ctest -R gpu-smoke
#include <catch2/catch.hpp>

#include <sstream>

#include "harness/probe.hpp"
#include "tests/gpu.hpp"

namespace GPUPROBE_TEST_FILE {

// async.cpp's weak reference to one of its kernels: null unless async.cu is linked.
extern "C" __attribute__((weak)) void gpuprobe_async_cp_async_ca_16_d1();

using namespace gpuprobe;

TEST_CASE("async/copy: its kernels are linked exactly when the build has CUDA", "[async][flavour]") {
  CHECK((&gpuprobe_async_cp_async_ca_16_d1 != nullptr) == gpuprobe::built_with_cuda());
}

TEST_CASE("gpu-smoke: async/copy runs every copy on the GPU with its data checks", "[gpu-smoke][async]") {
  if (!testing::gpu_or_skip()) return;
  auto dev = open_device("cuda:0");
  const ProbeSpec& probe = find_probe("async/copy");
  std::ostringstream log;
  const auto record = run_probe(*dev, probe,
                                Params::parse(probe.params, {{"iterations", "16"}, {"chase-hops", "256"}}),
                                RepeatPolicy{}, "", log);
  REQUIRE(record["status"] == "ok");
  const int sm = dev->info().cc.sm();
  for (const auto& p : record["series"]) {
    INFO(p.dump());
    const std::string op = p["op"];
    if (p.contains("skipped")) {
      // Only what this GPU lacks: cp.async before sm_80, bulk and TMA before sm_90, and the
      // multicast (its kernel is built for sm_90a alone) anywhere but sm_90.
      if (p["kind"] == "multicast")
        CHECK(sm != 90);
      else
        CHECK((op.rfind("cp_async", 0) == 0 ? sm < 80 : sm < 90));
      CHECK(op.rfind("ld_st", 0) != 0);
      continue;
    }
    CHECK(p["self_check"] == "passed");
    CHECK(p["launch"]["local_bytes_per_thread"] == 0);
    if (p["kind"] == "throughput") {
      // Some bandwidth, below any GPU's DRAM (at most ~8 TB/s).
      CHECK(p["bytes_per_s"].get<double>() > 1e9);
      CHECK(p["bytes_per_s"].get<double>() < 10e12);
    } else {
      // From an L2 hit (~200 cycles) to a 64 KiB TMA box or a DRAM hop under TLB misses.
      CHECK(p["latency_cycles"].get<double>() > 100);
      CHECK(p["latency_cycles"].get<double>() < 20000);
    }
  }
}

}  // namespace GPUPROBE_TEST_FILE
