// bandwidth/loaded_latency (probes/bandwidth/loaded_latency.cpp) on the simulated device: the
// sweep from idle to full rate raises the achieved bandwidth and the chase latency together, as
// the preset's queue says; every point carries what the schema promises; a planted fault fails
// the self-check; parameters out of range are refused in one line before anything runs.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

namespace {

nlohmann::json run(Device& device, std::map<std::string, std::string> params) {
  const ProbeSpec& probe = find_probe("bandwidth/loaded_latency");
  std::ostringstream log;
  return run_probe(device, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
}

// Small and fast: few hops, a short ladder.
std::map<std::string, std::string> small(std::map<std::string, std::string> extra = {}) {
  std::map<std::string, std::string> p = {{"hops", "256"},
                                          {"throttle-cycles", "16384,2048,256,0"},
                                          {"chain-footprint-bytes", "64K"}};
  for (auto& [k, v] : extra) p[k] = v;
  return p;
}

}  // namespace

TEST_CASE("bandwidth/loaded_latency on the simulator: latency rises with the bandwidth achieved",
          "[bandwidth][loaded]") {
  const sim::Preset& preset = sim::find_preset("h100");
  auto device = sim::make_sim_device(preset);
  const auto record = run(*device, small());
  REQUIRE(record["status"] == "ok");
  const auto& series = record["series"];
  REQUIRE(series.size() == 5);
  CHECK(series[0]["offered"] == "idle");
  CHECK(series[0]["throttle_cycles"].is_null());
  CHECK(series[0]["achieved_bandwidth_bytes_per_s"].get<double>() == 0);
  CHECK(series[0]["streaming_sms"] == 0);
  CHECK(series[4]["offered"] == "full rate");
  double last_bw = -1, last_latency = 0;
  for (const auto& p : series) {
    INFO(p.dump());
    CHECK(p["sweep"] == "loaded_latency");
    CHECK(p["level"] == "L2");
    CHECK(p["kernel"] == "gpuprobe_bw_loaded");
    CHECK(p["launch"]["pinned_sm"] == 0);
    const double bw = p["achieved_bandwidth_bytes_per_s"].get<double>();
    const double cycles = p["latency_cycles"].get<double>();
    CHECK(bw > last_bw);
    CHECK(cycles >= last_latency * 0.99);
    CHECK(p["latency_ns"].get<double>() ==
          Approx(cycles / preset.info.rated_sm_clock_mhz * 1000).epsilon(0.01));
    if (p["offered"] != "idle") {
      CHECK(p["streaming_sms"] == preset.info.sm_count - 1);
      CHECK(p["bytes_in_flight"].get<double>() > 0);
    }
    last_bw = bw;
    last_latency = cycles;
  }
  // Full rate comes close to the L2's peak and waits in its queue.
  CHECK(series[4]["achieved_bandwidth_bytes_per_s"].get<double>() > 0.8 * 7.4e12);
  CHECK(series[4]["latency_cycles"].get<double>() > 2 * series[0]["latency_cycles"].get<double>());
}

TEST_CASE("bandwidth/loaded_latency: a chase that ends on the wrong slot fails its self-check",
          "[bandwidth][loaded]") {
  sim::Faults faults;
  faults.extra_final_hops = 1;
  auto device = sim::make_sim_device(sim::find_preset("v100"), 1, faults);
  const ProbeSpec& probe = find_probe("bandwidth/loaded_latency");
  std::ostringstream log;
  CHECK_THROWS_WITH(run_probe(*device, probe, Params::parse(probe.params, small()),
                              RepeatPolicy{}, "", log),
                    Catch::Contains("self-check failed"));
}

TEST_CASE("bandwidth/loaded_latency refuses out-of-range parameters in one line",
          "[bandwidth][loaded]") {
  auto device = sim::make_sim_device(sim::find_preset("v100"));
  const ProbeSpec& probe = find_probe("bandwidth/loaded_latency");
  const auto refused = [&](std::map<std::string, std::string> params, const char* what) {
    INFO(what);
    std::ostringstream log;
    try {
      run_probe(*device, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::Contains(what));
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
    }
  };
  refused(small({{"hops", "2000000"}}), "hops");
  refused(small({{"chaser-sm", "80"}}), "--chaser-sm 80");
  refused(small({{"throttle-cycles", "99999999"}}), "--throttle-cycles");
  refused(small({{"stream-footprint-bytes", "5M"}}), "half the L2");
  refused(small({{"level", "dram"}, {"chain-footprint-bytes", "1M"}}), "twice the L2");
  refused(small({{"blocks-per-sm", "32"}, {"block-threads", "1024"}}), "do not all fit at once");
  // Every count has a maximum (issue 7).
  for (const auto& spec : probe.params)
    if (spec.kind == ParamSpec::Kind::integer && spec.name != "seed") {
      INFO(spec.name);
      CHECK(spec.max > 0);
    }
}

TEST_CASE("bandwidth/loaded_latency on the simulator: DRAM is slower and queues at its own peak",
          "[bandwidth][loaded]") {
  const sim::Preset& preset = sim::find_preset("v100");
  auto device = sim::make_sim_device(preset);
  const auto record = run(*device, small({{"level", "dram"},
                                         {"chain-footprint-bytes", "16M"},
                                         {"stream-footprint-bytes", "16M"},
                                         {"throttle-cycles", "0"}}));
  REQUIRE(record["status"] == "ok");
  const auto& idle = record["series"][0];
  const auto& full = record["series"][1];
  CHECK(idle["level"] == "DRAM");
  CHECK(idle["latency_cycles"].get<double>() > preset.dram_latency_cycles * 0.95);
  CHECK(full["achieved_bandwidth_bytes_per_s"].get<double>() < 866e9);
  CHECK(full["achieved_bandwidth_bytes_per_s"].get<double>() > 0.7 * 866e9);
}

}  // namespace GPUPROBE_TEST_FILE
