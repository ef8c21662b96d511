// The machine model's atomics section (analysis/atomics_model.cpp) in a closed loop: atomics/ops on
// every simulator preset, then the model, which must give back the preset's atomics table: every
// op/pattern's latency and rate within 2% (the simulator's noise is 0.4%), ns and ops/s at the
// clock, each op's space, width and lowering, and no latency for red (it returns nothing).
#include <catch2/catch.hpp>

#include <sstream>

#include "analysis/machine_model.hpp"
#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/atomics/atomics.hpp"
#include "probes/common/op_costs.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

TEST_CASE("atomics model closed loop: every preset's latencies and rates come back", "[atomics][model]") {
  for (const auto& preset : sim::presets()) {
    INFO(preset.name);
    const auto& costs = *preset.table<probes::OpCosts>("atomics");
    REQUIRE_FALSE(costs.empty());
    auto device = sim::make_sim_device(preset);
    const ProbeSpec& probe = find_probe("atomics/ops");
    std::ostringstream log;
    const auto record = run_probe(*device, probe, Params::parse(probe.params, {{"iterations", "4"}}),
                                  RepeatPolicy{}, "", log);
    REQUIRE(record["status"] == "ok");
    const auto model = analysis::build_machine_model({record}, {"atomics.json"});
    REQUIRE(model.contains("atomics"));
    const auto& atomics = model["atomics"];
    CHECK_FALSE(atomics.contains("errors"));
    const double mhz = preset.info.rated_sm_clock_mhz;
    for (const auto& m : costs) {
      INFO(m.op);
      // "<op> (<pattern>)"
      const std::string op = m.op.substr(0, m.op.find(' '));
      const std::string pattern = m.op.substr(op.size() + 2, m.op.size() - op.size() - 3);
      REQUIRE(atomics["ops"].contains(op));
      const auto& o = atomics["ops"][op];
      const auto& info = probes::atomics_info(probes::parse_atomics_op(op));
      CHECK(o["space"] == (info.shared ? "shared" : "global"));
      CHECK(o["bytes"] == info.bytes);
      CHECK(o["lowering"] == probes::atomics_lowering_name(info.lowering));
      REQUIRE(o["patterns"].contains(pattern));
      const auto& at = o["patterns"][pattern];
      if (m.latency_cycles > 0) {
        CHECK(at["latency_cycles"].get<double>() == Approx(m.latency_cycles).epsilon(0.02));
        CHECK(at["latency_ns"].get<double>() == Approx(m.latency_cycles / mhz * 1000).epsilon(0.02));
      } else {
        CHECK_FALSE(at.contains("latency_cycles"));  // red: no latency point
      }
      CHECK(at["ops_per_clk_per_sm"].get<double>() == Approx(m.rate).epsilon(0.02));
      CHECK(at["ops_per_s"].get<double>() ==
            Approx(m.rate * preset.info.sm_count * mhz * 1e6).epsilon(0.02));
    }
  }
}

TEST_CASE("atomics model: a point without its numbers is an error of the section", "[atomics][model]") {
  auto device = sim::make_sim_device(sim::find_preset("h100"));
  const ProbeSpec& probe = find_probe("atomics/ops");
  std::ostringstream log;
  auto record = run_probe(*device, probe,
                          Params::parse(probe.params, {{"op", "global_add_u32"}, {"pattern", "same"},
                                                      {"kind", "latency"}, {"iterations", "2"}}),
                          RepeatPolicy{}, "", log);
  REQUIRE(record["status"] == "ok");
  REQUIRE(record["series"].size() == 1);
  const auto good = analysis::build_machine_model({record}, {"atomics.json"});
  CHECK_FALSE(good["atomics"].contains("errors"));
  record["series"][0].erase("latency_cycles");
  const auto model = analysis::build_machine_model({record}, {"atomics.json"});
  REQUIRE(model["atomics"].contains("errors"));
  CHECK(model["atomics"]["errors"]["atomics/ops"].get<std::string>().find("latency_cycles") != std::string::npos);
}

}  // namespace GPUPROBE_TEST_FILE
