#include <catch2/catch.hpp>

#include <chrono>
#include <thread>
#include <vector>

#include "harness/repeat.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

TEST_CASE("a steady measurement stops at the minimum repeats", "[repeat]") {
  int calls = 0;
  RepeatPolicy p;
  p.min_repeats = 3;
  const auto out = repeat_until_stable([&] { ++calls; return 100.0; }, p);
  CHECK(out.converged);
  CHECK(calls == 3);
  CHECK(out.summary.median == 100.0);
}

TEST_CASE("a noisy measurement repeats until the median's interval is tight", "[repeat]") {
  // Mostly 100 with a 104 every fourth call, first: the half-range says 2% at first; once there are
  // enough values the order-statistics interval of the median closes on [100, 100].
  int calls = 0;
  RepeatPolicy p;
  p.min_repeats = 3;
  p.max_repeats = 200;
  p.target_rel_ci = 0.01;
  const auto out = repeat_until_stable([&] { return (calls++ % 4 == 0) ? 104.0 : 100.0; }, p);
  CHECK(out.converged);
  CHECK(calls > 6);
  CHECK(calls < 60);
  CHECK(out.summary.median == 100.0);
  CHECK(out.summary.rel_ci_halfwidth <= 0.01);
}

TEST_CASE("a bimodal median never converges: its interval spans both modes", "[repeat]") {
  int calls = 0;
  RepeatPolicy p;
  p.max_repeats = 50;
  const auto out = repeat_until_stable([&] { return (calls++ % 2) ? 104.0 : 100.0; }, p);
  CHECK_FALSE(out.converged);
  CHECK(calls == 50);
}

TEST_CASE("noise that never settles stops at max_repeats, not converged", "[repeat]") {
  int calls = 0;
  RepeatPolicy p;
  p.min_repeats = 3;
  p.max_repeats = 7;
  const auto out = repeat_until_stable([&] { return (calls++ % 2) ? 200.0 : 100.0; }, p);
  CHECK_FALSE(out.converged);
  CHECK(calls == 7);
  CHECK(out.values.size() == 7);
}

TEST_CASE("the time bound stops a slow, noisy measurement", "[repeat]") {
  int calls = 0;
  RepeatPolicy p;
  p.min_repeats = 2;
  p.max_repeats = 1000;
  p.max_seconds = 0.05;
  const auto out = repeat_until_stable(
      [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return (calls++ % 2) ? 200.0 : 100.0;
      },
      p);
  CHECK_FALSE(out.converged);
  CHECK(calls >= 2);
  CHECK(calls <= 5);
}

TEST_CASE("rejected repeats do not count, and the time bound still holds", "[repeat]") {
  int calls = 0;
  RepeatPolicy p;
  p.min_repeats = 3;
  // Every other call is rejected: three accepted values take five calls.
  const auto out = repeat_until_stable_rejecting(
      [&]() -> std::optional<double> {
        return (calls++ % 2 == 1) ? std::nullopt : std::optional<double>(50.0);
      },
      p);
  CHECK(out.converged);
  CHECK(out.values.size() == 3);
  CHECK(calls == 5);
  // A measurement that only ever rejects stops at the time bound once it has a value.
  int tries = 0;
  RepeatPolicy fast;
  fast.min_repeats = 3;
  fast.max_seconds = 0.05;
  const auto stuck = repeat_until_stable_rejecting(
      [&]() -> std::optional<double> {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return tries++ == 0 ? std::optional<double>(7.0) : std::nullopt;
      },
      fast);
  CHECK(stuck.values.size() == 1);
  CHECK_FALSE(stuck.converged);
}

TEST_CASE("the time bound holds before the minimum number of repeats", "[repeat]") {
  int calls = 0;
  RepeatPolicy p;
  p.min_repeats = 10;
  p.max_seconds = 0.05;
  const auto out = repeat_until_stable(
      [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        ++calls;
        return 100.0;
      },
      p);
  CHECK(calls == 2);  // 30 ms, 60 ms: past the bound, long before 10 repeats
  CHECK(out.values.size() == 2);
  CHECK_FALSE(out.converged);
}

// calibrate_point over a fake run whose duration is 1 us per unit: each run records its count.
TEST_CASE("calibrate_point keeps the calibration's last run as the first repeat, once", "[repeat]") {
  std::vector<uint64_t> runs;
  const auto run = [&](uint64_t n) {
    runs.push_back(n);
    return n;  // the result: its count
  };
  RepeatPolicy policy;
  policy.max_seconds = 5;
  auto c = calibrate_point(policy, policy.max_seconds, run, [](uint64_t n) { return 1000.0 * n; }, 1, 1,
                           1e6, 1u << 20);
  REQUIRE(!runs.empty());
  CHECK(c.count * 1000.0 >= 1e6);  // the count reaches the target
  CHECK(c.policy.max_seconds <= policy.max_seconds);
  CHECK(c.policy.max_seconds >= 0);
  const std::size_t calibration_runs = runs.size();
  // Kept exactly when the calibration's last run had the chosen count.
  const bool kept = c.kept.has_value();
  CHECK(kept == (runs.back() == c.count));
  CHECK(kept);  // a linear run: the second calibration run lands on the count
  CHECK(c.take_or_run(run) == c.count);
  CHECK(runs.size() == calibration_runs + (kept ? 0 : 1));
  // The second repeat always runs.
  const std::size_t before = runs.size();
  CHECK(c.take_or_run(run) == c.count);
  CHECK(runs.size() == before + 1);
  CHECK_FALSE(c.kept.has_value());
}

TEST_CASE("CalibratedPoint runs the count when it keeps nothing, and hands a kept run back once", "[repeat]") {
  CalibratedPoint<int> c;
  c.count = 8;
  int calls = 0;
  CHECK(c.take_or_run([&](uint64_t n) { ++calls; return static_cast<int>(n); }) == 8);
  CHECK(calls == 1);
  c.kept = 3;  // a kept run is handed back once, without running
  CHECK(c.take_or_run([&](uint64_t n) { ++calls; return static_cast<int>(n); }) == 3);
  CHECK(calls == 1);
  CHECK_FALSE(c.kept.has_value());
}

}  // namespace GPUPROBE_TEST_FILE
