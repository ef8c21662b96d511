// harness/points.cpp: points are added as they are measured, and a point measured while the SM
// clock was off is measured again, for any family.
#include <catch2/catch.hpp>

#include <sstream>

#include "harness/points.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

namespace {
struct Fixture {
  std::unique_ptr<Device> device = open_device("sim:v100");
  std::ostringstream log;
  int saves = 0;
  ProbeContext ctx{*device, Params::parse({}, {}), RepeatPolicy{}, log,
                   [this](const nlohmann::json&) { ++saves; }};
};
}  // namespace

TEST_CASE("points: each is saved as it is measured, with its axes", "[points]") {
  Fixture f;
  std::vector<PlannedPoint> points;
  for (int i = 0; i < 3; ++i)
    points.push_back({{{"x", i}}, [] { return nlohmann::json{{"region_sm_clock_mhz", 1380.0}}; }});
  measure_points(f.ctx, points);
  REQUIRE(f.ctx.series().size() == 3);
  CHECK(f.ctx.series()[2]["x"] == 2);
  CHECK(f.saves == 3);
  CHECK(f.ctx.extra()["clock_outliers_remeasured"] == 0);
  CHECK(f.ctx.extra()["sm_clock_mhz"].contains("before"));
  CHECK(f.ctx.extra()["sm_clock_mhz"].contains("after"));
}

TEST_CASE("points: a clock more than 2% off is measured again, and flagged if still off",
          "[points]") {
  Fixture f;
  int second_calls = 0;
  int third_calls = 0;
  const std::vector<PlannedPoint> points = {
      {{{"x", 0}}, [] { return nlohmann::json{{"region_sm_clock_mhz", 1380.0}}; }},
      // Throttled the first time only: re-measured, then fine.
      {{{"x", 1}}, [&] {
         return nlohmann::json{{"region_sm_clock_mhz", second_calls++ == 0 ? 1200.0 : 1379.0}};
       }},
      {{{"x", 2}}, [] { return nlohmann::json{{"region_sm_clock_mhz", 1381.0}}; }},
      // Always 1.5% off: inside the bound, never re-measured.
      {{{"x", 3}}, [&] {
         ++third_calls;
         return nlohmann::json{{"region_sm_clock_mhz", 1359.3}};
       }},
      // Always 3% off: re-measured and flagged.
      {{{"x", 4}}, [] { return nlohmann::json{{"region_sm_clock_mhz", 1421.4}}; }},
  };
  measure_points(f.ctx, points);
  const auto& s = f.ctx.series();
  CHECK(second_calls == 2);
  CHECK(s[1]["remeasured_for_clock"] == true);
  CHECK(s[1]["clock_outlier"] == false);
  CHECK(s[1]["x"] == 1);
  CHECK(third_calls == 1);
  CHECK_FALSE(s[3].contains("remeasured_for_clock"));
  CHECK(s[4]["clock_outlier"] == true);
  CHECK(f.ctx.extra()["clock_outliers_remeasured"] == 2);
  CHECK(f.ctx.extra()["median_region_sm_clock_mhz"] == 1380.0);
}

TEST_CASE("points: the shared launch parameters are checked, each bad value one line naming its range",
          "[points]") {
  using K = ParamSpec::Kind;
  const std::vector<ParamSpec> specs = {{"iterations", K::integer, "16", "", {}, 0},
                                        {"block-threads", K::integer, "256", "", {}, 0},
                                        {"blocks-per-sm", K::integer, "4", "", {}, 0}};
  const Params good = Params::parse(specs, {});
  CHECK(read_iterations(good, 16) == 16);
  CHECK(read_block_threads(good) == 256);
  CHECK(read_blocks_per_sm(good) == 4);
  const auto with = [&](const char* name, const char* value) { return Params::parse(specs, {{name, value}}); };
  CHECK_THROWS_WITH(read_iterations(with("iterations", "0"), 16), "--iterations must be 1 to 16");
  CHECK_THROWS_WITH(read_iterations(good, 15), "--iterations must be 1 to 15");
  CHECK_THROWS_WITH(read_block_threads(with("block-threads", "48")),
                    "--block-threads must be a multiple of 32 from 32 to 1024");
  CHECK_THROWS_WITH(read_block_threads(good, 128), "--block-threads must be a multiple of 32 from 32 to 128");
  CHECK(read_block_threads(with("block-threads", "512"), 512) == 512);
  CHECK_THROWS_WITH(read_blocks_per_sm(with("blocks-per-sm", "0")), "--blocks-per-sm must be 1 to 32");
  CHECK_THROWS_WITH(read_blocks_per_sm(with("blocks-per-sm", "33")), "--blocks-per-sm must be 1 to 32");
}

}  // namespace GPUPROBE_TEST_FILE
