#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "harness/error.hpp"
#include "harness/timing.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

TEST_CASE("calibration grows the count until the target duration is reached", "[timing]") {
  // 30 ns per unit plus 500 ns of fixed cost; target 1 ms.
  int measured = 0;
  const auto ns_for = [&](uint64_t n) {
    ++measured;
    return 500.0 + 30.0 * static_cast<double>(n);
  };
  const uint64_t n = timing::calibrate_count(ns_for, 4096, 32, 1e6, uint64_t{1} << 24);
  CHECK(n % 32 == 0);
  CHECK(ns_for(n) >= 1e6);
  CHECK(n < 40000);        // the 10% margin, not a runaway
  CHECK(measured <= 5);
}

TEST_CASE("calibration keeps the minimum when it already lasts long enough", "[timing]") {
  int measured = 0;
  const uint64_t n = timing::calibrate_count([&](uint64_t) { ++measured; return 2e6; }, 4096, 32,
                                             1e6, uint64_t{1} << 24);
  CHECK(n == 4096);
  CHECK(measured == 1);
}

TEST_CASE("calibration stops at the maximum and refuses a timer that does not move",
          "[timing]") {
  CHECK(timing::calibrate_count([](uint64_t n) { return 1e-3 * static_cast<double>(n); }, 64, 32,
                                1e9, 4096) == 4096);
  CHECK_THROWS_WITH(timing::calibrate_count([](uint64_t) { return 0.0; }, 64, 32, 1e6, 4096),
                    Catch::Contains("did not advance"));
  CHECK_THROWS_AS(timing::calibrate_count([](uint64_t) { return 1.0; }, 64, 0, 1e6, 4096), Error);
}

TEST_CASE("the N / 2N difference cancels the region's fixed cost", "[timing]") {
  const double fixed = 740.0;
  const double per_unit = 31.5;
  const double t_n = fixed + per_unit * 1000;
  const double t_2n = fixed + per_unit * 2000;
  CHECK(timing::per_unit_from_difference(t_n, t_2n, 1000) == Approx(per_unit));
  CHECK(t_n / 1000 != Approx(per_unit));   // the plain mean keeps the fixed cost
  CHECK_THROWS_AS(timing::per_unit_from_difference(1, 2, 0), Error);
}

TEST_CASE("calibration never plans a run longer than the per-point time bound", "[timing]") {
  // Device time says 1 ns a unit, but each unit costs 1 us of wall time (a simulator): a 1 s
  // target would plan a run of about 20 minutes. The bound of 20 ms caps it by wall time.
  const auto wall_heavy = [](uint64_t n) {
    std::this_thread::sleep_for(std::chrono::microseconds(n));
    return static_cast<double>(n);
  };
  const auto start = std::chrono::steady_clock::now();
  const uint64_t n = timing::calibrate_count(wall_heavy, 256, 32, 1e9, uint64_t{1} << 30, 0.02);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(n % 32 == 0);
  CHECK(n >= 256);
  CHECK(n <= 20000);       // at most 20 ms of 1 us units
  CHECK(seconds < 0.2);    // the calibration itself stayed near the bound
  // The device's own time bounds it too: 1 ms a unit, bound 0.05 s: at most 50 units.
  CHECK(timing::calibrate_count([](uint64_t n) { return 1e6 * static_cast<double>(n); }, 8, 8,
                                1e9, 4096, 0.05) <= 50);
}

}  // namespace GPUPROBE_TEST_FILE
