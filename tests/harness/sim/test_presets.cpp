// harness/sim/presets.cpp: the slowdown modifier of a simulator device spec (an injected slow
// device for fleet tests): every rate divided, every latency multiplied, the modifier visible in
// the device's identity, and a bad factor refused in one line.
#include <catch2/catch.hpp>

#include <string>

#include "harness/device.hpp"
#include "harness/error.hpp"
#include "harness/sim/preset.hpp"
#include "probes/async/async.hpp"
#include "probes/common/op_costs.hpp"
#include "probes/sync/sync.hpp"
#include "probes/tensor/tensor_point.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

TEST_CASE("sim:h100,slowdown=2 halves every rate and doubles every latency of the preset", "[sim][slowdown]") {
  const sim::Preset& base = sim::find_preset("h100");
  const sim::Preset slow = sim::preset_from_spec("h100,slowdown=2");
  REQUIRE(slow.caches.size() == base.caches.size());
  for (std::size_t i = 0; i < base.caches.size(); ++i)
    CHECK(slow.caches[i].hit_latency_cycles == Approx(2 * base.caches[i].hit_latency_cycles));
  CHECK(slow.dram_latency_cycles == Approx(2 * base.dram_latency_cycles));
  CHECK(slow.shared_latency_cycles == Approx(2 * base.shared_latency_cycles));
  REQUIRE(!base.bandwidth.empty());
  for (std::size_t i = 0; i < base.bandwidth.size(); ++i) {
    CHECK(slow.bandwidth[i].peak_bytes_per_clk_per_sm == Approx(base.bandwidth[i].peak_bytes_per_clk_per_sm / 2));
    CHECK(slow.bandwidth[i].peak_bytes_per_s == Approx(base.bandwidth[i].peak_bytes_per_s / 2));
  }
  // The families' own tables, scaled by what each registered (probes/common/op_costs.hpp).
  for (const char* family : {"compute", "atomics"}) {
    INFO(family);
    const auto& b = *base.table<probes::OpCosts>(family);
    const auto& s = *slow.table<probes::OpCosts>(family);
    REQUIRE(!b.empty());
    CHECK(s[0].rate == Approx(b[0].rate / 2));
    CHECK(s[0].latency_cycles == Approx(2 * b[0].latency_cycles));
  }
  {  // sync's (probes/sync/sync_costs.cpp): the sweeps' slopes are latencies too.
    const auto& b = *base.table<probes::SyncCosts>("sync");
    const auto& s = *slow.table<probes::SyncCosts>("sync");
    REQUIRE(!b.empty());
    CHECK(s[0].latency_cycles == Approx(2 * b[0].latency_cycles));
    CHECK(s[0].rate == Approx(b[0].rate / 2));
    for (std::size_t i = 0; i < b.size(); ++i) {
      CHECK(s[i].per_doubling_cycles == Approx(2 * b[i].per_doubling_cycles));
      CHECK(s[i].per_unit_cycles == Approx(2 * b[i].per_unit_cycles));
    }
  }
  {  // async's (probes/async/async_costs.cpp): the size slope and the chase's extra are latencies too.
    const auto& b = *base.table<probes::AsyncCosts>("async");
    const auto& s = *slow.table<probes::AsyncCosts>("async");
    REQUIRE(!b.empty());
    for (std::size_t i = 0; i < b.size(); ++i) {
      CHECK(s[i].rate == Approx(b[i].rate / 2));
      CHECK(s[i].latency_cycles == Approx(2 * b[i].latency_cycles));
      CHECK(s[i].cycles_per_kib == Approx(2 * b[i].cycles_per_kib));
      CHECK(s[i].chase_extra_cycles == Approx(2 * b[i].chase_extra_cycles));
    }
  }
  {  // tensor's (probes/tensor/tensor_costs.cpp).
    const auto& b = *base.table<probes::tensor::TensorCosts>(probes::tensor::kCostTable);
    const auto& s = *slow.table<probes::tensor::TensorCosts>(probes::tensor::kCostTable);
    REQUIRE(!b.empty());
    CHECK(s[0].flops_per_clk_per_sm == Approx(b[0].flops_per_clk_per_sm / 2));
    CHECK(s[0].latency_cycles == Approx(2 * b[0].latency_cycles));
  }
  CHECK(slow.launch.round_trip_ns == Approx(2 * base.launch.round_trip_ns));
  // What is not a rate or a latency stays.
  CHECK(slow.info.rated_sm_clock_mhz == base.info.rated_sm_clock_mhz);
  CHECK(slow.caches[0].capacity_bytes == base.caches[0].capacity_bytes);
  CHECK(slow.noise_rel == base.noise_rel);
}

TEST_CASE("a slowed device says so in sim_preset and uuid, and keeps the GPU model's name", "[sim][slowdown]") {
  const auto device = open_device("sim:h100,slowdown=1.25");
  const DeviceInfo& info = device->info();
  CHECK(info.sim_preset == "h100,slowdown=1.25");
  CHECK(info.uuid == "sim-h100-slowdown-1.25");
  CHECK(info.name == sim::find_preset("h100").info.name);
  CHECK(open_device("sim:h100")->info().sim_preset == "h100");
  // An alias still works before the modifier.
  CHECK(sim::preset_from_spec("h100_pcie,slowdown=1.5").info.sim_preset == "h100,slowdown=1.5");
}

TEST_CASE("a bad slowdown or an unknown modifier is refused in one line", "[sim][slowdown]") {
  for (const std::string spec : {"sim:h100,slowdown=0.5", "sim:h100,slowdown=0", "sim:h100,slowdown=-2",
                                 "sim:h100,slowdown=abc", "sim:h100,slowdown=", "sim:h100,slowdown=1.3x",
                                 "sim:h100,slowdown=nan", "sim:h100,slowdown=inf", "sim:h100,slowdown=101",
                                 "sim:h100,fast=2", "sim:h100,", "sim:nope,slowdown=2"}) {
    INFO(spec);
    try {
      open_device(spec);
      FAIL("accepted");
    } catch (const Error& e) {
      const std::string what = e.what();
      CHECK(what.find('\n') == std::string::npos);
      CHECK(!what.empty());
    }
  }
}

}  // namespace GPUPROBE_TEST_FILE
