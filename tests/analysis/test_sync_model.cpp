// The machine model's sync section (analysis/sync_model.cpp) in a closed loop: sync/primitives on
// every simulator preset, then the model, which must give back the preset's sync table: every
// latency point of every sweep within 2% of the table's curve at that x (the simulator's noise is
// 0.4%), the rate within 2%, ns at the clock, the sweep fits recovering the per-doubling or
// per-CTA slope, every op naming its SASS, and the ops a preset has no entry for named as skipped.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "analysis/machine_model.hpp"
#include "analysis/sync_model.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/sync/sync.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

TEST_CASE("sync model closed loop: every preset's latencies, sweeps and rates come back", "[sync][model]") {
  for (const auto& preset : sim::presets()) {
    INFO(preset.name);
    const auto& costs = *preset.table<probes::SyncCosts>("sync");
    REQUIRE_FALSE(costs.empty());
    auto device = sim::make_sim_device(preset);
    const ProbeSpec& probe = find_probe("sync/primitives");
    std::ostringstream log;
    const auto record = run_probe(*device, probe, Params::parse(probe.params, {{"iterations", "16"}}),
                                  RepeatPolicy{}, "", log);
    REQUIRE(record["status"] == "ok");
    const auto model = analysis::build_machine_model({record}, {"sync.json"});
    REQUIRE(model.contains("sync"));
    const auto& sync = model["sync"];
    CHECK_FALSE(sync.contains("errors"));
    for (const auto& m : costs) {
      INFO(m.op);
      REQUIRE(sync["ops"].contains(m.op));
      const auto& o = sync["ops"][m.op];
      CHECK(o["sass_per_op"] != "unknown");
      if (o.contains("sweep")) {
        for (const auto& p : o["sweep"]["points"]) {
          const double x = p["x"].get<double>();
          INFO("x = " << x);
          CHECK(p["latency_cycles"].get<double>() == Approx(probes::sync_latency_cycles(m, x)).epsilon(0.02));
        }
        const auto& fit = o["sweep"]["fit"];
        if (o["sweep"]["variable"] == "grid_blocks") {
          CHECK(fit["b_cycles_per_block"].get<double>() == Approx(m.per_unit_cycles).epsilon(0.05));
        } else if (m.saturates_at >= 8 && m.op != "bar_sync" && m.op != "bar_arrive" && m.op != "bar_red_popc") {
          // Cluster sizes 1 (or 2) to 8 lie within the saturation: the log fit is exact.
          CHECK(fit["b_cycles_per_doubling"].get<double>() == Approx(m.per_doubling_cycles).epsilon(0.05));
        }
      } else {
        CHECK(o["latency_cycles"].get<double>() == Approx(m.latency_cycles).epsilon(0.02));
      }
      CHECK(o["latency_ns"].get<double>() ==
            Approx(o["latency_cycles"].get<double>() / preset.info.rated_sm_clock_mhz * 1000).epsilon(0.01));
      if (m.rate > 0) {
        CHECK(o["ops_per_clk_per_sm"].get<double>() == Approx(m.rate).epsilon(0.02));
        CHECK(o["ops_per_s"].get<double>() ==
              Approx(m.rate * preset.info.sm_count * preset.info.rated_sm_clock_mhz * 1e6)
                  .epsilon(0.02));
      } else {
        CHECK_FALSE(o.contains("ops_per_clk_per_sm"));
      }
      if (m.op == "dsmem_ld")
        CHECK(o["bytes_per_clk_per_sm"].get<double>() == Approx(8 * m.rate).epsilon(0.02));
    }
    // Every op of the table is either measured or skipped with the reason.
    for (const auto& info : probes::sync::kSyncOps) {
      INFO(info.name);
      const bool modeled =
          std::any_of(costs.begin(), costs.end(), [&](const probes::SyncCost& m) { return m.op == info.name; });
      CHECK(sync["ops"].contains(info.name) == modeled);
      CHECK(sync.value("skipped", nlohmann::json::object()).contains(info.name) == !modeled);
    }
  }
}

TEST_CASE("sync model: each op names its SASS per target, emulations included", "[sync][model]") {
  CHECK(analysis::sync_sass_per_op("vote_all", 75) == "emulated: 1 VOTE.ANY + 1 LOP3 + 1 ISETP");
  CHECK(analysis::sync_sass_per_op("vote_all", 90) == "1 VOTE.ALL (the predicate chain folds into it)");
  CHECK(analysis::sync_sass_per_op("redux_min", 100) == "1 CREDUX.MIN + a move");
  CHECK(analysis::sync_sass_per_op("redux_min", 120).rfind("1 REDUX.MIN", 0) == 0);
  for (const auto& info : probes::sync::kSyncOps) CHECK(analysis::sync_sass_per_op(info.name, 90) != "unknown");
}

TEST_CASE("sync model: a point without its numbers is an error under the probe, not a crash", "[sync][model]") {
  nlohmann::json run = {{"schema", "gpuprobe.run"}, {"schema_version", 1}, {"probe", "sync/primitives"},
                        {"status", "ok"},
                        {"device", {{"name", "x"}, {"compute_capability", "9.0"}}},
                        {"series", {{{"op", "shfl_idx"}, {"kind", "throughput"}, {"ptx", "shfl.sync.idx.b32"},
                                     {"scope", "warp"}, {"unit", "warp"}}}}};
  nlohmann::json sync = nlohmann::json::object();
  CHECK_THROWS_WITH(analysis::add_sync_from_run(run, sync),
                    Catch::Contains("series[0] has no number ops_per_clk_per_sm"));
  const auto model = analysis::build_machine_model({run}, {"sync.json"});
  CHECK(model["sync"]["errors"]["sync/primitives"].get<std::string>().find("ops_per_clk_per_sm") !=
        std::string::npos);
}

}  // namespace GPUPROBE_TEST_FILE
