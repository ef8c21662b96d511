// The memory family's measurement core (probes/memory/chase_point.cpp) against a simulated device
// with planted faults: each self-check must fail loudly, the SM and launch configuration land in
// every point, and a point measured while the clock was off is measured again.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>

#include "analysis/machine_model.hpp"
#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/memory/chase_point.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

namespace {

nlohmann::json run(Device& device, const std::string& id,
                   std::map<std::string, std::string> params) {
  const ProbeSpec& probe = find_probe(id);
  std::ostringstream log;
  return run_probe(device, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
}

}  // namespace

TEST_CASE("a chase that ends on the wrong slot fails its self-check loudly", "[chase]") {
  sim::Faults faults;
  faults.extra_final_hops = 1;
  auto device = sim::make_sim_device(sim::find_preset("v100"), 1, faults);
  // Every point fails its own self-check (harness/self_check.hpp), saying why, and the probe fails.
  const ProbeSpec& probe = find_probe("memory/chase");
  std::ostringstream log;
  try {
    run_probe(*device, probe, Params::parse(probe.params, {{"max-footprint-bytes", "8K"}}), RepeatPolicy{}, "",
              log);
    FAIL("a chase that ended one hop too far passed");
  } catch (const SelfCheckFailures& e) {
    CHECK_THAT(e.what(), Catch::Contains("self-check failed at 24 of 24 points"));
  }
  CHECK_THAT(log.str(), Catch::Contains("self-check FAILED: the chase over"));
  CHECK_THAT(log.str(), Catch::Contains("host predicted"));
}

TEST_CASE("an extra timed iteration fails the self-check even where the final slot cannot see it",
          "[chase]") {
  sim::Faults faults;
  faults.extra_timed_hops = probes::kChaseHopsPerIteration;
  auto device = sim::make_sim_device(sim::find_preset("v100"), 1, faults);
  // 16 slots of 128 bytes: 32 extra hops are two whole laps, so the walk ends on the same slot.
  const Chain chain = make_random_cycle(2048, 128, 1);
  REQUIRE(walk(chain, chain.start, probes::kChaseHopsPerIteration) == chain.start);
  probes::ChaseSettings s;
  s.sampled_hops = 0;
  const ProbeSpec& probe = find_probe("memory/chase");
  std::ostringstream log;
  ProbeContext ctx(*device, Params::parse(probe.params, {}), RepeatPolicy{}, log, nullptr);
  try {
    probes::measure_chase(ctx, chain, s);
    FAIL("a timed loop that ran one iteration too many passed");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("self-check failed: the timed loop ran"));
  }
}

TEST_CASE("every point records its clock, its SM and its launch configuration", "[chase]") {
  auto device = open_device("sim:a100");
  const auto r = run(*device, "memory/chase",
                     {{"max-footprint-bytes", "64K"}, {"points-per-octave", "1"}, {"sm", "5"}});
  REQUIRE(r["status"] == "ok");
  CHECK(r["telemetry"]["before"]["available"] == false);
  CHECK(r["warm_up"]["steady"] == true);
  for (const auto& p : r["series"]) {
    CHECK(p["sm"] == 5);
    CHECK(p["launch"]["pinned_sm"] == 5);
    CHECK(p["launch"]["smid"] == 5);
    CHECK(p["launch"]["grid"][0] == 4 * 108);
    CHECK(p["launch"]["dynamic_smem_bytes"] ==
          probes::global_chase_smem_bytes(512));
    CHECK(p["launch"]["l1_carveout_percent"] == 0);
    CHECK(p["launch"]["kernel"] == "gpuprobe_chase_global_plain");
    CHECK(p["load"] == "default");
    CHECK(p["region_sm_clock_mhz"].get<double>() == Approx(1410).epsilon(0.001));
    CHECK(p["latency_ns"].get<double>() ==
          Approx(p["latency_cycles"].get<double>() / 1410 * 1000).epsilon(0.001));
    CHECK(p["timed_region_ns"].get<double>() >= 20'000);   // the sim's minimum region
    CHECK(p["timed_hops"].get<uint64_t>() % probes::kChaseHopsPerIteration == 0);
    CHECK(p["sample_overhead_cycles"] == 4.0);
    CHECK(p["p50_corrected_cycles"].get<double>() == p["p50_cycles"].get<double>() - 4.0);
  }
}

TEST_CASE("the timed region grows to the minimum region", "[chase]") {
  auto device = open_device("sim:v100");
  const auto r = run(*device, "memory/chase", {{"max-footprint-bytes", "4K"},
                                               {"points-per-octave", "1"},
                                               {"min-region-us", "1000"}});
  REQUIRE(r["status"] == "ok");
  for (const auto& p : r["series"]) {
    CHECK(p["timed_region_ns"].get<double>() >= 1e6);
    CHECK(p["timed_hops"].get<uint64_t>() > 4096);
  }
}

TEST_CASE("a --min-region-us past the per-point bound is refused in seconds", "[chase]") {
  auto device = open_device("sim:v100");
  CHECK_THROWS_WITH(run(*device, "memory/chase", {{"min-region-us", "1e9"}}),
                    Catch::Equals("--min-region-us 1e9 (1000 s) is longer than a point may take "
                                  "(--max-seconds-per-point 2 s)"));
}

TEST_CASE("the chase probes' slot, page and region rules are refused before any device opens", "[chase]") {
  // Second hostile pass: --slot-bytes 12, --page-bytes 1 and a --min-region-us past
  // --max-seconds-per-point were refused only once the device was open, and `list` showed no rule.
  const auto refused = [](const std::string& id, const std::string& name, const std::string& value,
                          const std::string& why) {
    const ProbeSpec& probe = find_probe(id);
    INFO(id << " --" << name << " " << value);
    CHECK_THROWS_WITH(Params::parse(probe.params, {{name, value}}),
                      Catch::Contains("--" + name) && Catch::Contains(why));
  };
  for (const char* id : {"memory/chase", "memory/chase_shared"}) {
    refused(id, "slot-bytes", "12", "multiple of 8");
    refused(id, "slot-bytes", "0", "at least 8");
    refused(id, "points-per-octave", "0", "at least 1");
  }
  refused("memory/tlb", "page-bytes", "1", "at least 64");
  // Only memory/chase maps every SM: the others took --sm all, measured SM 0 and said "all".
  for (const char* id : {"memory/chase_shared", "memory/stride", "memory/tlb"})
    refused(id, "sm", "all", "takes an SM number or any, not all");
  CHECK_NOTHROW(Params::parse(find_probe("memory/chase").params, {{"sm", "all"}}));
  refused("memory/tlb", "offset-step-bytes", "12", "multiple of 8");
  for (const char* id : {"memory/chase", "memory/chase_shared", "memory/stride", "memory/tlb"}) {
    const ProbeSpec& probe = find_probe(id);
    INFO(id);
    REQUIRE(probe.check);
    const Params p = Params::parse(probe.params, {{"min-region-us", "3000000"}});
    CHECK_THROWS_WITH(probe.check(p, 2.0), Catch::Contains("--min-region-us 3000000 (3 s) is longer"));
    CHECK_NOTHROW(probe.check(p, 4.0));
  }
}

TEST_CASE("a point measured while the clock was off is measured again", "[chase]") {
  sim::Faults faults;
  faults.slow_clock_from_walk = 4;   // the second point (walks 4 to 6) runs at 90% clock
  faults.slow_clock_walks = 3;
  auto device = sim::make_sim_device(sim::find_preset("v100"), 1, faults);
  const ProbeSpec& probe = find_probe("memory/chase");
  RepeatPolicy policy;
  policy.min_repeats = 3;
  policy.max_repeats = 3;   // every point: exactly 3 walks (the first is the calibration run)
  std::ostringstream log;
  const auto r = run_probe(*device, probe,
                           Params::parse(probe.params, {{"max-footprint-bytes", "16K"},
                                                        {"min-footprint-bytes", "4K"},
                                                        {"points-per-octave", "1"},
                                                        {"min-region-us", "1"}}),
                           policy, "", log);
  REQUIRE(r["status"] == "ok");
  int remeasured = 0;
  for (const auto& p : r["series"]) {
    if (p.value("remeasured_for_clock", false)) {
      ++remeasured;
      CHECK(p["clock_outlier"] == false);   // the second measurement was at the normal clock
    }
  }
  CHECK(remeasured == 1);
  CHECK(r["series"][1].value("remeasured_for_clock", false));
  CHECK(r["clock_outliers_remeasured"].get<int>() == remeasured);
}

TEST_CASE("sm all: a per-SM L2 map that recovers each SM's distance", "[chase]") {
  const sim::Preset& preset = sim::find_preset("v100");
  auto device = sim::make_sim_device(preset, 1);
  auto& sim_device = dynamic_cast<sim::SimDevice&>(*device);
  const auto r = run(*device, "memory/chase", {{"sm", "all"}, {"sampled-hops", "0"}});
  REQUIRE(r["status"] == "ok");
  REQUIRE(r["series"].size() == 2 * static_cast<size_t>(preset.info.sm_count));
  const auto map = analysis::sm_map_from_run(r);
  REQUIRE(map["sms"].size() == static_cast<size_t>(preset.info.sm_count));
  const double fastest_near = map["l2"]["min_cycles"].get<double>();
  double min_offset = 1e30;
  for (int sm = 0; sm < preset.info.sm_count; ++sm)
    min_offset = std::min(min_offset, sim_device.l2_distance_cycles(sm));
  for (const auto& entry : map["sms"]) {
    const int sm = entry["sm"].get<int>();
    INFO("SM " << sm);
    const double measured = entry["l2_cycles"].get<double>() - fastest_near;
    const double truth = sim_device.l2_distance_cycles(sm) - min_offset;
    CHECK(measured == Approx(truth).margin(3.0));
  }
  for (const auto& p : r["series"]) CHECK(p["load"] == "cg");   // the map measures the L2
  CHECK(map["l2"]["spread_cycles"].get<double>() > 0.5 * preset.l2_sm_spread_cycles);
}

TEST_CASE("a chase point and its run record carry every documented field, and only those",
          "[chase]") {
  auto device = open_device("sim:h100-sxm");
  const auto r = run(*device, "memory/chase", {{"max-footprint-bytes", "2K"},
                                               {"points-per-octave", "1"}});
  REQUIRE(r["status"] == "ok");
  // docs/SCHEMA.md "A point of the memory probes"; a field added or dropped must change both.
  const std::set<std::string> point_keys = {
      "footprint_bytes", "latency_cycles", "latency_ns", "mad_cycles", "ci95_cycles", "repeats",
      "rejected_repeats", "converged", "timed_hops", "warmup_hops", "timed_region_ns",
      "region_sm_clock_mhz", "sm", "launch", "load", "self_check", "p50_cycles", "p95_cycles",
      "sample_overhead_cycles", "p50_corrected_cycles", "p95_corrected_cycles", "samples"};
  const std::set<std::string> launch_keys = {
      "kernel", "grid", "block", "dynamic_smem_bytes", "l1_carveout_percent", "cluster",
      "cooperative", "programmatic_dependent_launch", "pinned_sm", "registers_per_thread",
      "local_bytes_per_thread", "static_smem_bytes", "smid"};
  for (const auto& p : r["series"]) {
    std::set<std::string> keys;
    for (const auto& [k, v] : p.items()) keys.insert(k);
    CHECK(keys == point_keys);
    std::set<std::string> lkeys;
    for (const auto& [k, v] : p["launch"].items()) lkeys.insert(k);
    CHECK(lkeys == launch_keys);
    for (const auto& [k, v] : p.items()) {
      INFO(k);
      CHECK_FALSE(v.is_null());   // on the simulator every field is known
    }
  }
  const std::set<std::string> device_keys = {
      "name", "compute_capability", "sm_count", "rated_sm_clock_mhz", "rated_mem_clock_mhz",
      "memory_bus_bits", "l2_bytes", "persisting_l2_max_bytes", "global_memory_bytes",
      "shared_memory_per_sm_bytes", "shared_memory_per_block_optin_bytes", "ecc_enabled",
      "driver_version", "runtime_version", "pci_bus_id", "uuid", "simulated", "sim_preset"};
  std::set<std::string> dkeys;
  for (const auto& [k, v] : r["device"].items()) dkeys.insert(k);
  CHECK(dkeys == device_keys);
  CHECK(r["device"]["sm_count"] == 132);
  CHECK(r["device"]["sim_preset"] == "h100-sxm");
  for (const char* k : {"schema", "schema_version", "gpuprobe_version", "created_utc", "probe",
                        "params", "repeat_policy", "device", "status", "series", "telemetry",
                        "warm_up", "sm_clock_mhz", "median_region_sm_clock_mhz",
                        "clock_outliers_remeasured"}) {
    INFO(k);
    CHECK(r.contains(k));
  }
}

}  // namespace GPUPROBE_TEST_FILE
