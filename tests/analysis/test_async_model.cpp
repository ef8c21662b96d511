// The machine model's async_copy section (analysis/async_model.cpp) in a closed loop: async/copy on
// every simulator preset with an async table, then the model, which must give back the preset's
// table: each op's latency from the L2 within 2% (the simulator's noise is 0.4%), the bulk/TMA size
// sweep's slope, the concurrency fit's peak within 5% of the level the source lives in (the
// preset's DRAM bandwidth) and its 90% bytes in flight near Little's law's, the TMA chase's levels
// at the preset's L2 and DRAM latencies plus the TMA's extra cycles, every op naming its SASS, and
// the ops a preset lacks named as skipped with the reason.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "analysis/async_model.hpp"
#include "analysis/machine_model.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/async/async.hpp"
#include "probes/sync/sync.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

namespace {

double level(const sim::Preset& p, const char* name) {
  for (const auto& c : p.caches)
    if (c.name == name) return c.hit_latency_cycles;
  return 0;
}

double dram_bytes_per_s(const sim::Preset& p) {
  for (const auto& b : p.bandwidth)
    if (b.level == "DRAM") return b.peak_bytes_per_s;
  return 0;
}

}  // namespace

TEST_CASE("async model closed loop: every preset's copy latencies, bandwidth and TMA chase come back",
          "[async][model]") {
  int checked = 0;
  for (const auto& preset : sim::presets()) {
    const auto& costs = *preset.table<probes::AsyncCosts>("async");
    if (costs.empty()) continue;
    INFO(preset.name);
    ++checked;
    auto device = sim::make_sim_device(preset);
    const ProbeSpec& probe = find_probe("async/copy");
    std::ostringstream log;
    const auto record = run_probe(*device, probe,
                                  Params::parse(probe.params, {{"iterations", "16"}, {"chase-hops", "256"}}),
                                  RepeatPolicy{}, "", log);
    REQUIRE(record["status"] == "ok");
    const auto model = analysis::build_machine_model({record}, {"async.json"});
    REQUIRE(model.contains("async_copy"));
    const auto& section = model["async_copy"];
    CHECK_FALSE(section.contains("errors"));
    const int sm = preset.info.cc.sm();
    for (const auto& m : costs) {
      INFO(m.op);
      const bool bulk = m.op == "bulk" || m.op.rfind("tma_", 0) == 0;
      if ((m.op.rfind("cp_async", 0) == 0 && sm < 80) || (bulk && sm < 90)) {
        CHECK(section["skipped"].contains(m.op));
        continue;
      }
      REQUIRE(section["ops"].contains(m.op));
      const auto& o = section["ops"][m.op];
      CHECK(o["sass_per_copy"] != "unknown");
      CHECK(o["synchronous"] == (m.op.rfind("ld_st", 0) == 0));
      // Latency of the first (smallest) copy: the table's, plus its size beyond the first KiB.
      const auto& lat = o["latency"];
      const double kib = lat["copy_bytes"].get<double>() / 1024;
      CHECK(lat["latency_cycles"].get<double>() ==
            Approx(m.latency_cycles + m.cycles_per_kib * std::max(0.0, kib - 1)).epsilon(0.02));
      CHECK(lat["latency_ns"].get<double>() ==
            Approx(lat["latency_cycles"].get<double>() / preset.info.rated_sm_clock_mhz * 1000).epsilon(0.01));
      if (m.op == "bulk" || m.op == "tma_2d") {
        // The size sweep reaches 64 KiB: the slope comes back (the first KiB is flat, so the line
        // through all points is a little shallower).
        REQUIRE(lat.contains("fit"));
        CHECK(lat["fit"]["b_cycles_per_kib"].get<double>() == Approx(m.cycles_per_kib).epsilon(0.1));
        CHECK(lat["fit"]["confidence"].get<double>() > 0.5);
      }
      // Bandwidth against bytes in flight: the source is 4x the L2, so the DRAM peak is the ceiling.
      const auto& fit = o["throughput"]["fit"];
      REQUIRE(fit.contains("peak_bytes_per_s"));
      CHECK(fit["peak_bytes_per_s"].get<double>() == Approx(dram_bytes_per_s(preset)).epsilon(0.05));
      CHECK(fit["confidence"].get<double>() > 0.2);
      // Little's law at the DRAM latency: peak per SM x latency.
      const double per_sm_clk = dram_bytes_per_s(preset) / preset.info.sm_count / (preset.info.rated_sm_clock_mhz * 1e6);
      const double dram_latency = m.latency_cycles + preset.dram_latency_cycles - level(preset, "L2");
      CHECK(fit["crossing_measured"] == true);
      CHECK(fit["bytes_in_flight_per_sm_for_90pct"].get<double>() < 2.5 * per_sm_clk * dram_latency);
      CHECK(fit["bytes_in_flight_per_sm_for_90pct"].get<double>() > 0.4 * per_sm_clk * dram_latency);
    }
    if (sm == 90 || sm == 100) {
      // The multicast: a round is one cluster barrier (the sync table's, at the cluster size) and
      // one TMA 2D copy of 4 KiB from DRAM.
      const auto& mc = section["ops"]["tma_2d"]["multicast"]["points"];
      REQUIRE(mc.size() == 4);
      const auto tma2d =
          std::find_if(costs.begin(), costs.end(), [](const probes::AsyncCost& m) { return m.op == "tma_2d"; });
      const auto& sync = *preset.table<probes::SyncCosts>("sync");
      const auto barrier =
          std::find_if(sync.begin(), sync.end(), [](const probes::SyncCost& m) { return m.op == "barrier_cluster"; });
      REQUIRE(barrier != sync.end());
      for (const auto& p : mc) {
        const double n = p["cluster_size"].get<double>();
        INFO("cluster " << n);
        CHECK(p["latency_cycles"].get<double>() ==
              Approx(tma2d->latency_cycles + 3 * tma2d->cycles_per_kib + preset.dram_latency_cycles -
                     level(preset, "L2") + probes::sync_latency_cycles(*barrier, n)).epsilon(0.02));
        CHECK(p["bytes_per_s"].get<double>() > 0);
      }
    } else {
      CHECK(section["skipped"].contains("tma_2d"));
    }
    if (sm >= 90) {
      // The TMA chase through the hierarchy fit from the L2: L2 and DRAM plateaus, each the
      // preset's load latency plus the TMA's extra cycles.
      REQUIRE(section.contains("tma_chase"));
      const auto& chase = section["tma_chase"];
      REQUIRE(chase.contains("levels"));
      const auto tma =
          std::find_if(costs.begin(), costs.end(), [](const probes::AsyncCost& m) { return m.op == "tma_1d"; });
      REQUIRE(tma != costs.end());
      REQUIRE(chase["levels"].size() >= 2);
      // The chase runs on SM 0: its distance to the L2 slices adds to every L2 and DRAM hop.
      const double distance = dynamic_cast<sim::SimDevice&>(*device).l2_distance_cycles(0);
      CHECK(chase["levels"][0]["name"] == "L2");
      CHECK(chase["levels"][0]["latency_cycles"].get<double>() ==
            Approx(level(preset, "L2") + distance + tma->chase_extra_cycles).epsilon(0.05));
      CHECK(chase["levels"].back()["name"] == "DRAM");
      CHECK(chase["levels"].back()["latency_cycles"].get<double>() ==
            Approx(preset.dram_latency_cycles + distance + tma->chase_extra_cycles).epsilon(0.05));
    } else {
      CHECK_FALSE(section.contains("tma_chase"));
      CHECK(section["skipped"].contains("tma_1d"));
    }
  }
  CHECK(checked >= 5);  // v100, a100, h100, h100-sxm, l40
}

TEST_CASE("async model: the SASS per copy names each path's instructions", "[async][model]") {
  CHECK(analysis::async_sass_per_copy("cp_async_cg_16", 90).find("LDGSTS.E.BYPASS.128") != std::string::npos);
  CHECK(analysis::async_sass_per_copy("cp_async_ca_4", 80).find("LDGSTS.E +") != std::string::npos);
  CHECK(analysis::async_sass_per_copy("cp_async_ca_4", 70).find("none") != std::string::npos);
  CHECK(analysis::async_sass_per_copy("bulk", 90).find("UBLKCP.S.G") != std::string::npos);
  CHECK(analysis::async_sass_per_copy("tma_2d", 100).find("UTMALDG.2D") != std::string::npos);
  CHECK(analysis::async_sass_per_copy("tma_1d", 80).find("none") != std::string::npos);
  CHECK(analysis::async_sass_per_copy("ld_st_16", 75) == "1 LDG.E.128 + 1 STS.128 per thread");
  CHECK(analysis::async_sass_per_copy("nope", 90) == "unknown");
}

TEST_CASE("async model: a point without its numbers is a one-line error under the probe", "[async][model]") {
  nlohmann::json run = {{"schema", "gpuprobe.run/1"}, {"probe", "async/copy"},
                        {"device", {{"compute_capability", "9.0"}, {"sm_count", 2}}},
                        {"series", {{{"op", "bulk"}, {"kind", "latency"}, {"ptx", "x"}}}}};
  nlohmann::json section = nlohmann::json::object();
  CHECK_THROWS_WITH(analysis::add_async_copy_from_run(run, section),
                    Catch::Contains("series[0] has no number copy_bytes"));
  run["series"][0]["kind"] = "sideways";
  CHECK_THROWS_WITH(analysis::add_async_copy_from_run(run, section), Catch::Contains("not latency, throughput, chase or multicast"));
}

}  // namespace GPUPROBE_TEST_FILE
