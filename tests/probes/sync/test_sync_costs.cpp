// The sync family's simulator cost tables (probes/sync/sync_costs.cpp): every entry names an op of
// probes/sync/sync.def that the preset's SM has, cites FIGURES.md (a [KEY]) or says it is an
// assumption, and has a usable curve; every op the SM has is in the table (so a simulated run-all
// fills the whole sync section); and the cited figures come out of the curves.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "harness/sim/preset.hpp"
#include "probes/sync/sync.hpp"
#include "ptx/capability.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

TEST_CASE("sync costs: every preset covers exactly the ops its SM has, each entry cited", "[sync][sim]") {
  for (const auto& preset : sim::presets()) {
    INFO(preset.name);
    const int sm = preset.info.cc.sm();
    const auto& costs = *preset.table<probes::SyncCosts>("sync");
    for (const auto& info : probes::sync::kSyncOps) {
      INFO(info.name);
      const bool has = ptx::device_has(info.cap, sm);
      const auto entry = std::find_if(costs.begin(), costs.end(),
                                      [&](const probes::SyncCost& m) { return m.op == info.name; });
      CHECK((entry != costs.end()) == has);
    }
    for (const auto& m : costs) {
      INFO(m.op);
      CHECK(std::any_of(std::begin(probes::sync::kSyncOps), std::end(probes::sync::kSyncOps),
                        [&](const probes::sync::SyncOpInfo& i) { return m.op == i.name; }));
      CHECK((m.source.find("assumption") != std::string::npos || m.source.find('[') != std::string::npos));
      CHECK(m.latency_cycles > 0);
      CHECK(m.saturates_at >= 1);
      CHECK(m.per_doubling_cycles >= 0);
      CHECK(m.per_unit_cycles >= 0);
      CHECK(m.rate >= 0);
      // Only the grid barrier has no rate.
      CHECK((m.rate > 0) == (m.op != "grid_sync"));
    }
  }
}

TEST_CASE("sync costs: the cited figures come out of the curves", "[sync][sim]") {
  const auto entry = [](const std::string& preset, const std::string& op) {
    const auto& table = *sim::find_preset(preset).table<probes::SyncCosts>("sync");
    const auto it = std::find_if(table.begin(), table.end(), [&](const probes::SyncCost& m) { return m.op == op; });
    REQUIRE(it != table.end());
    return *it;
  };
  // [R6000D] GB202 __syncthreads: 5.0 / 7.0 / 11.0 / 14.2 cycles at 1 / 2 / 4 / 8 warps, flat after.
  const auto bar = entry("h100", "bar_sync");
  CHECK(probes::sync_latency_cycles(bar, 1) == Approx(5.0));
  CHECK(probes::sync_latency_cycles(bar, 4) == Approx(11.0).epsilon(0.05));
  CHECK(probes::sync_latency_cycles(bar, 8) == Approx(14.2).epsilon(0.01));
  CHECK(probes::sync_latency_cycles(bar, 32) == probes::sync_latency_cycles(bar, 8));
  // [HPMLL DSM log] H800: 181 cycles at cluster size 2, within 180-213 up to 8.
  const auto dsmem = entry("h100", "dsmem_ld");
  CHECK(probes::sync_latency_cycles(dsmem, 2) == Approx(181));
  CHECK(probes::sync_latency_cycles(dsmem, 8) >= 180);
  CHECK(probes::sync_latency_cycles(dsmem, 8) <= 213);
  // [GB24 a100_gsync] <= 1.34 us per grid.sync iteration at 1410 MHz, taken at 4 CTAs per SM.
  const auto grid = entry("a100", "grid_sync");
  CHECK(probes::sync_latency_cycles(grid, 4 * 108) == Approx(1.34 * 1410).epsilon(0.01));
}

}  // namespace GPUPROBE_TEST_FILE
