// harness/points.cpp: points are added as they are measured, and a point measured while the SM
// clock was off is measured again, for any family.
#include <catch2/catch.hpp>

#include <sstream>

#include "harness/points.hpp"

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
