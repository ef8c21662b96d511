// GPU smoke test of the launch family: on a machine with a GPU, launch/overhead, launch/graph and
// launch/small_kernels run for real, every sample passing its self-check (every kernel and graph
// node counted, stamps written, SCALE's output right), and the costs land in ranges any GPU of the
// supported generations shows; without a GPU it is Skipped; a test of its own checks that the CUDA operations are
// registered exactly when the build has CUDA. ctest -R gpu-smoke
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "analysis/machine_model.hpp"
#include "harness/ops.hpp"
#include "harness/probe.hpp"
#include "probes/launch/launch_ops.hpp"
#include "tests/gpu.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

TEST_CASE("launch: its CUDA operations are registered exactly when the build has CUDA", "[launch][flavour]") {
  bool cuda_ops = false;
  for (const auto& e : ops_registry())
    cuda_ops = cuda_ops || (e.family == probes::LaunchOps::kFamily && e.backend == "cuda");
  CHECK(cuda_ops == gpuprobe::built_with_cuda());
}

TEST_CASE("gpu-smoke: launch probes run on the GPU with their self-checks", "[gpu-smoke][launch]") {
  if (!testing::gpu_or_skip()) return;
  auto dev = open_device("cuda:0");
  const int sm = dev->info().cc.sm();
  std::vector<nlohmann::json> records;
  for (const auto& [id, params] : std::vector<std::pair<std::string, std::map<std::string, std::string>>>{
           {"launch/overhead", {{"launches", "100"}}},
           {"launch/graph", {{"nodes", "1,4,16,64"}, {"graphs", "10"}}},
           {"launch/small_kernels", {{"iterations", "200"}}}}) {
    const ProbeSpec& probe = find_probe(id);
    std::ostringstream log;
    const auto record = run_probe(*dev, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
    INFO(id << ": " << record.dump().substr(0, 2000));
    REQUIRE(record["status"] == "ok");
    for (const auto& p : record["series"]) {
      INFO(p.dump());
      if (p.contains("skipped")) {
        CHECK((p.value("measure", "") == "pdl_overlapped" && sm < 90));
        continue;
      }
      CHECK(p["self_check"] == "passed");
      const double ns = p["ns"].get<double>();
      if (p.value("measure", "") == "pdl_overlapped") {
        CHECK(ns < 0);  // the secondary started before the primary's end
      } else if (p.value("measure", "") == "gap" || p.value("measure", "") == "pdl_serialized") {
        CHECK(ns > -100);
        CHECK(ns < 50'000);
      } else {
        CHECK(ns > 100);        // no launch, graph or pass is faster than 0.1 us
        CHECK(ns < 5'000'000);  // nor slower than 5 ms
      }
    }
    records.push_back(record);
  }
  const auto model = analysis::build_machine_model(records, {"o", "g", "s"});
  REQUIRE(model.contains("launch"));
  const auto& sk = model["launch"]["small_kernels"];
  // gpu-benches: one graph costs about half a stream launch per kernel.
  CHECK(sk["graph"]["overhead_ns"].get<double>() < sk["stream"]["overhead_ns"].get<double>());
}

}  // namespace GPUPROBE_TEST_FILE
