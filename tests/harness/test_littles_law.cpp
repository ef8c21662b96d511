// harness/littles_law.hpp: the loaded-latency model the simulator produces and the fits recover.
#include <catch2/catch.hpp>

#include "harness/littles_law.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe::littles_law;

TEST_CASE("Little's law: bandwidth times loaded latency is the bytes in flight", "[littles_law]") {
  const LoadedLatency m{600.0, 80.0, 25.0};   // cycles, cycles, bytes/cycle
  for (double in_flight : {10.0, 1000.0, 10000.0, 15000.0, 1e6}) {
    const double b = bandwidth_for(m, in_flight);
    INFO("in flight " << in_flight);
    CHECK(b > 0);
    CHECK(b < m.peak);
    CHECK(b * latency_at(m, b) == Approx(in_flight).epsilon(1e-9));
  }
}

TEST_CASE("Little's law: the low-load slope is 1 / unloaded latency, and the peak is never reached",
          "[littles_law]") {
  const LoadedLatency m{500.0, 50.0, 40.0};
  CHECK(bandwidth_for(m, 5.0) == Approx(5.0 / 500.0).epsilon(1e-3));
  CHECK(bandwidth_for(m, 1e9) < m.peak);
  CHECK(bandwidth_for(m, 1e9) > 0.999 * m.peak);
  CHECK(bandwidth_for(m, 0.0) == 0.0);
  CHECK(latency_at(m, m.peak) == INFINITY);
}

TEST_CASE("Little's law: bytes in flight for a fraction of the peak round-trips",
          "[littles_law]") {
  const LoadedLatency m{300.0, 120.0, 64.0};
  const double need = bytes_in_flight_for(m, 0.9);
  CHECK(need == Approx(0.9 * 64.0 * (300.0 + 120.0 * 0.9 / 0.1)));
  CHECK(bandwidth_for(m, need) == Approx(0.9 * m.peak).epsilon(1e-9));
  // More queueing needs more bytes in flight for the same fraction.
  CHECK(bytes_in_flight_for({300.0, 240.0, 64.0}, 0.9) > need);
}

}  // namespace GPUPROBE_TEST_FILE
