#include <catch2/catch.hpp>

#include <set>
#include <sstream>

#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/preset.hpp"
#include "harness/sim/sim_device.hpp"

using namespace gpuprobe;

namespace {

ProbeSpec fake_probe(std::optional<ptx::Cap> needs, int* runs) {
  ProbeSpec p;
  p.id = "test/fake";
  p.summary = "a probe that records one point";
  p.needs = needs;
  p.run = [runs](ProbeContext& ctx) {
    ++*runs;
    ctx.add_point({{"footprint_bytes", 1}, {"latency_cycles", 1.0}});
  };
  return p;
}

DeviceInfo gpu(int major, int minor, bool simulated = false) {
  DeviceInfo d;
  d.name = "test GPU";
  d.cc = {major, minor};
  d.simulated = simulated;
  return d;
}

}  // namespace

TEST_CASE("probe ids are unique and hierarchical", "[registry]") {
  std::set<std::string> ids;
  for (const auto& p : probe_registry()) {
    CHECK(ids.insert(p.id).second);
    CHECK(p.id.find('/') != std::string::npos);
    CHECK_FALSE(p.summary.empty());
    CHECK(p.run);
    for (const auto& prm : p.params) {
      INFO(p.id << " --" << prm.name);
      CHECK_NOTHROW(Params::parse(p.params, {{prm.name, prm.default_value}}));
    }
  }
  CHECK(ids.count("memory/chase") == 1);
  CHECK_THROWS_WITH(find_probe("memory/none"), Catch::Contains("known: memory/chase"));
}

TEST_CASE("a probe needing an arch-specific capability is skipped with the reason", "[registry]") {
  int runs = 0;
  const ProbeSpec wgmma = fake_probe(ptx::Cap::wgmma, &runs);
  // The device lacks the instruction.
  auto reason = probe_unavailable_reason(wgmma, gpu(8, 0), "sm_80,sm_90a");
  REQUIRE(reason);
  CHECK_THAT(*reason, Catch::Contains("needs sm_90a") && Catch::Contains("is sm_80"));
  // A B300 (10.3) has tcgen05, but sm_100a code does not run on it.
  const ProbeSpec tc = fake_probe(ptx::Cap::tcgen05, &runs);
  reason = probe_unavailable_reason(tc, gpu(10, 3), "sm_90,sm_100a");
  REQUIRE(reason);
  CHECK(*reason == "this build has no sm_103f code for tcgen05: rebuild with "
                   "CMAKE_CUDA_ARCHITECTURES=103f");
  CHECK_FALSE(probe_unavailable_reason(tc, gpu(10, 3), "sm_100f"));  // the family cubin runs
  // The device has it and the build has the right cubin.
  CHECK_FALSE(probe_unavailable_reason(wgmma, gpu(9, 0), "sm_80,sm_90a"));
  CHECK(probe_unavailable_reason(wgmma, gpu(9, 0), "sm_80,sm_90,compute_90"));
  // Generic probes always can.
  CHECK_FALSE(probe_unavailable_reason(fake_probe(std::nullopt, &runs), gpu(7, 5), ""));
}

TEST_CASE("run_probe records a skip without launching anything", "[registry]") {
  int runs = 0;
  auto a100 = sim::make_sim_device(sim::find_preset("a100"));
  std::ostringstream log;
  const auto record = run_probe(*a100, fake_probe(ptx::Cap::wgmma, &runs), Params::parse({}, {}),
                                RepeatPolicy{}, "", log);
  CHECK(record["status"] == "skipped");
  CHECK_THAT(record["skip_reason"].get<std::string>(), Catch::Contains("sm_90a"));
  CHECK(runs == 0);
  // The simulated H100 has the capability (no cubin question for a model): it runs.
  auto h100 = sim::make_sim_device(sim::find_preset("h100"));
  const auto ran = run_probe(*h100, fake_probe(ptx::Cap::wgmma, &runs), Params::parse({}, {}),
                             RepeatPolicy{}, "", log);
  CHECK(ran["status"] == "ok");
  CHECK(runs == 1);
  CHECK(ran["series"].size() == 1);
}
