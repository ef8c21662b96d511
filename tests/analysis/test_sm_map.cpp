// The per-SM L2 map (analysis/machine_model.cpp sm_map_from_run) on the map a real H100 SXM gave
// (tests/data/real/gpuprobe/h100_sxm_sm_map.json), and the simulated h100-sxm against it.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include "analysis/machine_model.hpp"
#include "harness/probe.hpp"
#include "harness/results.hpp"
#include "harness/sim/sim_device.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

namespace {
const nlohmann::json& real_map_run() {
  static const nlohmann::json run =
      read_json_file(std::string(GPUPROBE_TEST_DATA_DIR) + "/real/gpuprobe/h100_sxm_sm_map.json");
  return run;
}
}  // namespace

TEST_CASE("sm map: the real H100 SXM map reads as the GPU showed it", "[sm-map][real]") {
  const auto map = analysis::sm_map_from_run(real_map_run());
  REQUIRE(map["sms"].size() == 132);
  // What the raw points show (read off the file): near L2 from 268.5 cycles (SMs 92-101) to
  // 300.7 (SMs 16-17); far L2 from 512.6 to 546.8.
  CHECK(map["l2"]["min_cycles"].get<double>() == Approx(268.5).margin(0.1));
  CHECK(map["l2"]["max_cycles"].get<double>() == Approx(300.7).margin(0.1));
  CHECK(map["l2"]["spread_cycles"].get<double>() == Approx(32.2).margin(0.2));
  CHECK(map["l2_far"]["min_cycles"].get<double>() == Approx(512.6).margin(0.1));
  CHECK(map["l2_far"]["max_cycles"].get<double>() == Approx(546.8).margin(0.1));
  CHECK(map["fastest_sm"] == 93);
  const int slowest = map["slowest_sm"].get<int>();
  CHECK((slowest == 16 || slowest == 17));
  // Every SM's far latency exceeds its near latency by about the far partition's extra cost.
  for (const auto& sm : map["sms"]) {
    const double gap = sm["l2_far_cycles"].get<double>() - sm["l2_cycles"].get<double>();
    CHECK(gap > 220);
    CHECK(gap < 270);
  }
}

TEST_CASE("sm map: a point pinned to one SM that ran on another is refused", "[sm-map]") {
  nlohmann::json run = real_map_run();
  run["series"][3]["sm"] = run["series"][3]["pinned_sm"].get<int>() + 1;
  CHECK_THROWS_WITH(analysis::sm_map_from_run(run), Catch::Contains("ran on SM"));
}

TEST_CASE("sm map: the simulated h100-sxm reproduces the real map SM by SM", "[sm-map][sim]") {
  auto device = sim::make_sim_device(sim::find_preset("h100-sxm"), 1);
  const ProbeSpec& probe = find_probe("memory/chase");
  RepeatPolicy policy;
  policy.min_repeats = 1;
  policy.max_repeats = 1;
  std::ostringstream log;
  // Near points only: the far ones cost the simulator a 37.5 MB walk per SM.
  const auto sim_run = run_probe(*device, probe,
                                 Params::parse(probe.params, {{"sm", "all"},
                                                              {"sampled-hops", "0"},
                                                              {"map-near-bytes", "4M"},
                                                              {"map-far-bytes", "5M"}}),
                                 policy, "", log);
  const auto sim_map = analysis::sm_map_from_run(sim_run);
  const auto real_map = analysis::sm_map_from_run(real_map_run());
  std::map<int, double> real_near;
  for (const auto& sm : real_map["sms"]) real_near[sm["sm"]] = sm["l2_cycles"];
  REQUIRE(sim_map["sms"].size() == real_near.size());
  for (const auto& sm : sim_map["sms"]) {
    INFO("SM " << sm["sm"]);
    CHECK(sm["l2_cycles"].get<double>() == Approx(real_near[sm["sm"]]).margin(2.0));
  }
}

}  // namespace GPUPROBE_TEST_FILE
