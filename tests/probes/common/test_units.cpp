// The launch-record helpers every op-table family shares (probes/common/units.hpp): the units'
// checks, the per-SM rates, a launch's summary and configuration, and the simulator's units.
#include <catch2/catch.hpp>

#include <vector>

#include "harness/sim/preset.hpp"
#include "probes/common/units.hpp"
#include "probes/common/value_chain.cuh"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using probes::ValueChainOut;

namespace {

// 8 warps on 2 SMs, each running 128 x 4 cycles from cycle 1000.
std::vector<ValueChainOut> good_warps() {
  std::vector<ValueChainOut> warps(8);
  for (std::size_t w = 0; w < warps.size(); ++w) {
    warps[w].start_cycles = 1000;
    warps[w].end_cycles = 1000 + 128 * 4;
    warps[w].smid = static_cast<uint32_t>(w % 2);
    warps[w].ran = 1;
  }
  return warps;
}

}  // namespace

TEST_CASE("units: per-SM spans and rates from the stamps", "[units]") {
  const auto warps = good_warps();
  const auto per_sm = probes::check_units(warps, 8, "k", "warp");
  REQUIRE(per_sm.size() == 2);
  CHECK(per_sm.at(0).units == 4);
  CHECK(per_sm.at(1).cycles() == 512);
  CHECK(probes::units_per_sm(per_sm) == 4);
  // 4 warps x 32 threads x 8 chains x 128 ops over 512 cycles per SM.
  const auto rates = probes::sm_rates(per_sm, [](const probes::SmSpan& s) {
    return double(s.units) * 32 * 8 * 128 / s.cycles();
  });
  CHECK(rates.median == Approx(4.0 * 32 * 8 * 128 / 512));
  CHECK(rates.min == rates.max);
}

TEST_CASE("units: a launch's summary, its median and slowest unit and its SMs' rates", "[units]") {
  auto warps = good_warps();
  warps[3].end_cycles = 1000 + 128 * 6;  // SM 1's last warp is slower: 6 cycles per op
  const auto r = probes::summarize_units(warps, 8, "k", "warp", 128, [](const probes::SmSpan& s) {
    return double(s.units) * 128 / s.cycles();
  });
  CHECK(r.ops_per_chain == 128);
  CHECK(r.latency_cycles == 4);
  CHECK(r.latency_cycles_max == 6);
  CHECK(r.sms == 2);
  CHECK(r.warps_per_sm == 4);
  CHECK(r.ops_per_clk_per_sm_max == Approx(4.0 * 128 / 512));  // SM 0
  CHECK(r.ops_per_clk_per_sm_min == Approx(4.0 * 128 / 768));  // SM 1
  CHECK(r.ops_per_clk_per_sm == Approx((4.0 * 128 / 512 + 4.0 * 128 / 768) / 2));
  warps.pop_back();
  const auto none = [](const probes::SmSpan&) { return 0.0; };
  CHECK_THROWS_WITH(probes::summarize_units(warps, 8, "k", "warp", 128, none),
                    Catch::Contains("reported 7 warps, expected 8"));
}

TEST_CASE("units: a launch's configuration, and the hex of the self-checks' messages", "[units]") {
  const LaunchConfig plain = probes::launch_config(6, 64);
  CHECK(plain.grid.x == 6);
  CHECK(plain.block.x == 64);
  CHECK(plain.dynamic_smem_bytes == 0);
  CHECK(plain.cluster.x == 0);  // no cluster attribute
  const LaunchConfig clustered = probes::launch_config(8, 32, 4096, 2);
  CHECK(clustered.dynamic_smem_bytes == 4096);
  CHECK(clustered.cluster.x == 2);
  CHECK(clustered.cluster.y == 1);
  CHECK(probes::hex_of(0xA5C0) == "a5c0");
  CHECK(probes::hex_of(~uint64_t{0}) == "ffffffffffffffff");
}

TEST_CASE("units: a missing, idle or backwards unit fails the self-check, naming it", "[units]") {
  auto lost = good_warps();
  lost[2].ran = 0;
  CHECK_THROWS_WITH(probes::check_units(lost, 8, "gpuprobe_k", "warp"),
                    Catch::Contains("self-check failed: gpuprobe_k warp 2 did not run"));
  auto backwards = good_warps();
  backwards[5].end_cycles = 900;
  CHECK_THROWS_WITH(probes::check_units(backwards, 8, "k", "CTA"), Catch::Contains("CTA 5 ended before it started"));
  auto short_list = good_warps();
  short_list.pop_back();
  CHECK_THROWS_WITH(probes::check_units(short_list, 8, "k", "warp"), Catch::Contains("reported 7 warps, expected 8"));
}

TEST_CASE("units: the simulator spreads blocks round robin, one noisy span per SM, repeatably", "[units]") {
  sim::Preset p;
  p.info.sm_count = 4;
  p.noise_rel = 0.01;
  const auto cycles = [](uint32_t sm, uint32_t units) { return 1000.0 * units + sm; };
  const auto a = probes::simulate_units<ValueChainOut>(p, 6, 2, 42, cycles);
  REQUIRE(a.size() == 12);
  // Blocks 0..5 on SMs 0,1,2,3,0,1: SM 0 holds 4 warps, SM 2 holds 2.
  CHECK(a[0].smid == 0);
  CHECK(a[9].smid == 0);
  CHECK(a[11].smid == 1);
  CHECK(double(a[0].end_cycles - a[0].start_cycles) == Approx(4000).epsilon(0.05));
  CHECK(double(a[4].end_cycles - a[4].start_cycles) == Approx(2002).epsilon(0.05));
  for (const auto& w : a) CHECK(w.ran == 1);
  const auto b = probes::simulate_units<ValueChainOut>(p, 6, 2, 42, cycles);
  CHECK(a[3].end_cycles == b[3].end_cycles);
  const auto c = probes::simulate_units<ValueChainOut>(p, 6, 2, 43, cycles);
  CHECK(a[3].end_cycles != c[3].end_cycles);
}

}  // namespace GPUPROBE_TEST_FILE
