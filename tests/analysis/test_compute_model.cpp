// The machine model's compute section (analysis/compute_model.cpp) in a closed loop: compute/alu
// on every simulator preset, then the model, which must give back the preset's compute table:
// issue rates within 2% (the simulator's noise is 0.4%), latencies within 2% of the larger of the
// table's latency and one warp's issue interval (a quarter of the SM's rate), FP32 and FP64 at
// their datasheet share, every op native except f32x2 off sm_100/103 (two FFMA), and the skipped
// ops named.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "analysis/compute_model.hpp"
#include "analysis/datasheet.hpp"
#include "analysis/machine_model.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/common/op_costs.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

TEST_CASE("compute model closed loop: every preset's rates and latencies come back", "[compute][model]") {
  for (const auto& preset : sim::presets()) {
    INFO(preset.name);
    auto device = sim::make_sim_device(preset);
    const ProbeSpec& probe = find_probe("compute/alu");
    std::ostringstream log;
    const auto record = run_probe(*device, probe, Params::parse(probe.params, {{"iterations", "64"}}),
                                  RepeatPolicy{}, "", log);
    REQUIRE(record["status"] == "ok");
    const auto model = analysis::build_machine_model({record}, {"alu.json"});
    REQUIRE(model.contains("compute"));
    const auto& compute = model["compute"];
    CHECK_FALSE(compute.contains("errors"));
    const auto sheet = analysis::datasheet_for(preset.info.name);
    const auto& costs = *preset.table<probes::OpCosts>("compute");
    for (const auto& m : costs) {
      INFO(m.op);
      const int sm = preset.info.cc.sm();
      if ((m.op == "tanh_approx_f32" && sm < 75) || (m.op == "fma_rn_bf16x2" && sm < 80)) continue;
      REQUIRE(compute["ops"].contains(m.op));
      const auto& o = compute["ops"][m.op];
      CHECK(o["ops_per_clk_per_sm"].get<double>() == Approx(m.rate).epsilon(0.02));
      const double floor = 32 * 4 / m.rate;
      CHECK(o["latency_cycles"].get<double>() == Approx(std::max(m.latency_cycles, floor)).epsilon(0.02));
      CHECK(o["ops_per_s"].get<double>() ==
            Approx(m.rate * preset.info.sm_count * preset.info.rated_sm_clock_mhz * 1e6)
                .epsilon(0.02));
      const bool emulated = m.op == "fma_rn_f32x2" && preset.info.cc.sm() != 100 && preset.info.cc.sm() != 103;
      CHECK(o["implementation"] == (emulated ? "emulated (2 FFMA)" : "native"));
      if (o["precision"] == "f32" && o["path"] == "fma" && sheet && sheet->fp32_flops_per_s > 0) {
        const double expected = 100.0 * 2 * m.rate * preset.info.sm_count *
                                preset.info.rated_sm_clock_mhz * 1e6 / sheet->fp32_flops_per_s;
        CHECK(o["percent_of_peak"].get<double>() == Approx(expected).epsilon(0.02));
      }
    }
    // Ops the preset has no model of, or the GPU lacks, are named with the reason.
    const bool has_f32x2 = std::any_of(costs.begin(), costs.end(),
                                       [](const probes::OpCost& m) { return m.op == "fma_rn_f32x2"; });
    CHECK(compute["skipped"].contains("fma_rn_f32x2") == !has_f32x2);
  }
}

TEST_CASE("compute model: f32x2 is native only on sm_100 and sm_103, and every op names its SASS", "[compute][model]") {
  CHECK(std::string(analysis::compute_implementation("fma_rn_f32x2", 100)) == "native");
  CHECK(std::string(analysis::compute_implementation("fma_rn_f32x2", 103)) == "native");
  CHECK(std::string(analysis::compute_implementation("fma_rn_f32x2", 120)) == "emulated (2 FFMA)");
  CHECK(std::string(analysis::compute_implementation("fma_rn_f32", 120)) == "native");
  CHECK(analysis::compute_sass_per_op("add_add_u32", 80) == "2 IADD3 (the adds are not fused before sm_90)");
  CHECK(analysis::compute_sass_per_op("add_add_u32", 90) == "1 IADD3");
  for (const auto& m : *sim::find_preset("h100").table<probes::OpCosts>("compute"))
    CHECK(analysis::compute_sass_per_op(m.op, 90) != "unknown");
}

TEST_CASE("compute model: a point without its numbers is an error under the probe, not a crash",
          "[compute][model]") {
  nlohmann::json run = {{"schema", "gpuprobe.run"}, {"probe", "compute/alu"},
                        {"device", {{"name", "x"}, {"compute_capability", "9.0"}}},
                        {"series", {{{"op", "fma_rn_f32"}, {"kind", "throughput"}, {"ptx", "fma.rn.f32"},
                                     {"path", "fma"}, {"precision", "f32"}}}}};
  nlohmann::json compute = nlohmann::json::object();
  CHECK_THROWS_WITH(analysis::add_compute_from_run(run, compute),
                    Catch::Contains("series[0] has no number ops_per_clk_per_sm"));
}

}  // namespace GPUPROBE_TEST_FILE
