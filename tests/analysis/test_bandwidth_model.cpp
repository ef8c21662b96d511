// The machine model's bandwidth section (analysis/bandwidth_model.cpp) in a closed loop: the
// bandwidth probes run on every simulated preset, and the model must recover the preset's
// peaks within 3% and the bytes in flight per SM that reach 90% of them within 10%
// (the preset's queueing model through harness/littles_law.hpp is the truth).
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>

#include "analysis/datasheet.hpp"
#include "analysis/machine_model.hpp"
#include "harness/littles_law.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"

using namespace gpuprobe;

namespace {

nlohmann::json run(Device& device, const std::string& id,
                   std::map<std::string, std::string> params) {
  const ProbeSpec& probe = find_probe(id);
  std::ostringstream log;
  return run_probe(device, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
}

const sim::LevelBandwidthModel& level(const sim::Preset& p, const std::string& name) {
  for (const auto& m : p.bandwidth)
    if (m.level == name) return m;
  FAIL("preset " << p.name << " has no " << name);
  throw;
}

double cache_latency(const sim::Preset& p, const std::string& name) {
  for (const auto& c : p.caches)
    if (c.name == name) return c.hit_latency_cycles;
  return 0;
}

struct Truth {
  double peak_bytes_per_s;
  double in_flight_per_sm_90;
};

// What the simulator's queueing model says for a level with every SM streaming.
Truth truth(const sim::Preset& p, const std::string& name, double unloaded_cycles,
            double fraction = 1.0) {
  const auto& m = level(p, name);
  const double hz = p.info.rated_sm_clock_mhz * 1e6;
  double peak = m.peak_bytes_per_clk_per_sm > 0 ? p.info.sm_count * m.peak_bytes_per_clk_per_sm
                                                : INFINITY;
  if (m.peak_bytes_per_s > 0) peak = std::min(peak, m.peak_bytes_per_s / hz);
  peak *= fraction;
  const littles_law::LoadedLatency model{unloaded_cycles, m.queue_cycles, peak};
  return {peak * hz, littles_law::bytes_in_flight_for(model, 0.9) / p.info.sm_count};
}

void check_level(const nlohmann::json& concurrency, const Truth& t, const std::string& what) {
  INFO(what << ": " << concurrency.dump().substr(0, 400));
  REQUIRE(concurrency.contains("peak_bytes_per_s"));
  CHECK(concurrency["peak_bytes_per_s"].get<double>() ==
        Approx(t.peak_bytes_per_s).epsilon(0.03));
  CHECK(concurrency["bytes_in_flight_per_sm_for_90pct"].get<double>() ==
        Approx(t.in_flight_per_sm_90).epsilon(0.10));
}

}  // namespace

TEST_CASE("bandwidth closed loop: every preset's peaks and bytes in flight are recovered",
          "[bandwidth][closed-loop]") {
  for (const sim::Preset& preset : sim::presets()) {
    if (preset.bandwidth.empty()) continue;
    INFO("preset " << preset.name);
    auto device = sim::make_sim_device(preset);
    std::vector<nlohmann::json> runs = {
        run(*device, "bandwidth/l1", {{"max-window-bytes", "64K"}, {"points-per-octave", "1"}}),
        run(*device, "bandwidth/l2",
            {{"min-footprint-bytes", "1M"}, {"max-footprint-bytes", "4M"}, {"points-per-octave", "1"}}),
        run(*device, "bandwidth/dram", {}),   // four times the L2, at least 256 MiB
        run(*device, "bandwidth/shared", {{"strides", "1,2,32"}}),
    };
    const auto model = analysis::build_machine_model(runs, {});
    REQUIRE(model.contains("bandwidth"));
    const auto& bw = model["bandwidth"];
    INFO(bw.value("errors", nlohmann::json::object()).dump());
    REQUIRE_FALSE(bw.contains("errors"));

    check_level(bw["L1"]["concurrency"], truth(preset, "L1", cache_latency(preset, "L1")), "L1");
    check_level(bw["shared"]["concurrency"],
                truth(preset, "shared", preset.shared_latency_cycles), "shared");
    check_level(bw["L2"]["concurrency"], truth(preset, "L2", cache_latency(preset, "L2")), "L2");
    const auto& dram = level(preset, "DRAM");
    check_level(bw["DRAM"]["read"]["concurrency"],
                truth(preset, "DRAM", preset.dram_latency_cycles), "DRAM read");
    check_level(bw["DRAM"]["write"]["concurrency"],
                truth(preset, "DRAM", preset.dram_latency_cycles, dram.write_fraction),
                "DRAM write");
    check_level(bw["DRAM"]["copy"]["concurrency"],
                truth(preset, "DRAM", preset.dram_latency_cycles, dram.copy_fraction), "DRAM copy");
    // Bank conflicts: stride 2 is two-way, stride 32 thirty-two-way (4-byte words), and the
    // measured slowdowns agree with the banks.
    const auto& strides = bw["shared"]["bank_conflicts"]["strides"];
    REQUIRE(strides.size() == 3);
    CHECK(strides[1]["wavefronts"] == 2);
    CHECK(strides[2]["wavefronts"] == 32);
    for (const auto& s : strides) CHECK(s["verdict"] == "banks");
  }
}

TEST_CASE("the datasheet table names the part and its source, most specific match first",
          "[bandwidth]") {
  CHECK(analysis::datasheet_for("NVIDIA H100 PCIe")->dram_bytes_per_s == 2000e9);
  CHECK(analysis::datasheet_for("NVIDIA H100 80GB HBM3")->dram_bytes_per_s == 3350e9);
  CHECK(analysis::datasheet_for("NVIDIA A100-SXM4-80GB")->dram_bytes_per_s == 2039e9);
  CHECK(analysis::datasheet_for("NVIDIA A100 80GB PCIe")->dram_bytes_per_s == 1935e9);
  CHECK(analysis::datasheet_for("NVIDIA A100-SXM4-40GB")->dram_bytes_per_s == 1555e9);
  CHECK(analysis::datasheet_for("Tesla V100-PCIE-16GB")->source.find("FIGURES") == 0);
  CHECK_FALSE(analysis::datasheet_for("NVIDIA L40").has_value());   // no published figure read
  CHECK_FALSE(analysis::datasheet_for("Some Future GPU").has_value());
}
