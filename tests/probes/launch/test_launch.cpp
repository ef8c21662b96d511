// The launch family (probes/launch/launch_*.cpp) on the simulated device and its host-side
// contract: the shared self-check of a sample (a missing kernel, graph node or SCALE pass, an
// unwritten stamp, a wrong output each caught), the gap and pair arithmetic, the PDL refusal
// below sm_90, and the closed loop: launch/* on every preset, then the machine model's launch
// section gives back the preset's launch table.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "analysis/machine_model.hpp"
#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/launch/launch_ops.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using probes::LaunchSample;
using probes::SampleRule;
using probes::launch::LaunchStamp;

namespace {

nlohmann::json run(Device& device, const std::string& id, std::map<std::string, std::string> params = {}) {
  const ProbeSpec& probe = find_probe(id);
  std::ostringstream log;
  return run_probe(device, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
}

LaunchSample good_gap_sample() {
  LaunchSample s;
  s.kernel = "k";
  s.rule = SampleRule::gap;
  s.units = 3;
  s.launches_counted = s.launches_expected = 3;
  s.stamps = {{1000, 1500, 0, 1}, {2500, 3000, 0, 1}, {4100, 4600, 0, 1}};
  return s;
}

}  // namespace

TEST_CASE("launch self-check: a good sample passes and gives its gaps", "[launch]") {
  const auto m = probes::summarize_launch_sample(good_gap_sample());
  REQUIRE(m.per_unit_ns.size() == 2);
  CHECK(m.per_unit_ns[0] == 1000);
  CHECK(m.per_unit_ns[1] == 1100);
  CHECK(m.ns == Approx(1050));
}

TEST_CASE("launch self-check: each fault is caught", "[launch]") {
  auto s = good_gap_sample();
  s.launches_counted = 2;
  CHECK_THROWS_WITH(probes::summarize_launch_sample(s), Catch::Contains("did not run"));
  s = good_gap_sample();
  s.stamps[1].ran = 0;
  CHECK_THROWS_WITH(probes::summarize_launch_sample(s), Catch::Contains("never written"));
  s = good_gap_sample();
  s.stamps[2].start_ns = 900;
  s.stamps[2].end_ns = 950;
  CHECK_THROWS_WITH(probes::summarize_launch_sample(s), Catch::Contains("started before"));
  s = good_gap_sample();
  s.stamps[0].end_ns = 10;
  CHECK_THROWS_WITH(probes::summarize_launch_sample(s), Catch::Contains("ends before"));
  s = good_gap_sample();
  s.stamps[0].ran = 1 + 801;  // a device-side cudaGraphLaunch that failed
  CHECK_THROWS_WITH(probes::summarize_launch_sample(s), Catch::Contains("returned error 801"));
  LaunchSample scale;
  scale.kernel = "gpuprobe_launch_scale";
  scale.units = 10;
  scale.elapsed_ns = 1e4;
  scale.iterations_counted = 9;
  scale.iterations_expected = 10;
  CHECK_THROWS_WITH(probes::summarize_launch_sample(scale), Catch::Contains("SCALE passes"));
  scale.iterations_counted = 10;
  scale.scale_out = {4.5, 4.5, 0.0};
  REQUIRE(probes::kScaleFactor * probes::kScaleInput == 4.5);
  CHECK_THROWS_WITH(probes::summarize_launch_sample(scale), Catch::Contains("output sample 2"));
  scale.scale_out = {4.5};
  CHECK(probes::summarize_launch_sample(scale).ns == Approx(1000));
}

TEST_CASE("launch pairs: PDL gaps may be negative (overlap), a child's latency may not", "[launch]") {
  LaunchSample s;
  s.kernel = "pdl";
  s.rule = SampleRule::pair_gap;
  s.units = 1;
  s.launches_counted = s.launches_expected = 2;
  s.stamps = {{1000, 5000, 0, 1}, {2000, 5100, 0, 1}};
  CHECK(probes::summarize_launch_sample(s).ns == -3000);
  // The first pair's stamps come back raw, from the first kernel's start.
  CHECK(probes::summarize_launch_sample(s).first_pair_ns == std::vector<double>{0, 4000, 1000, 4100});
  s.rule = SampleRule::pair_start;
  CHECK(probes::summarize_launch_sample(s).ns == 1000);
  s.stamps[1].start_ns = 500;
  CHECK_THROWS_WITH(probes::summarize_launch_sample(s), Catch::Contains("before its launcher"));
}

TEST_CASE("launch/overhead: PDL is skipped below sm_90, with the reason", "[launch]") {
  auto device = sim::make_sim_device(sim::find_preset("a100"));
  const auto record = run(*device, "launch/overhead", {{"launches", "20"}});
  REQUIRE(record["status"] == "ok");
  bool skipped = false;
  for (const auto& p : record["series"])
    if (p["measure"] == "pdl_overlapped") {
      REQUIRE(p.contains("skipped"));
      CHECK(p["skipped"].get<std::string>().find("sm_90") != std::string::npos);
      skipped = true;
    }
  CHECK(skipped);
}

TEST_CASE("launch/overhead: PDL points keep their first pair stamps, the primary spins 20-50 us", "[launch]") {
  // A spin well past a launch's few microseconds: a slow first launch still overlaps (a 4 us spin
  // did not leave room for one).
  STATIC_REQUIRE(probes::launch::kPdlSpinNs >= 20'000);
  STATIC_REQUIRE(probes::launch::kPdlSpinNs <= 50'000);
  auto device = sim::make_sim_device(sim::find_preset("h100"));
  const auto record = run(*device, "launch/overhead", {{"launches", "20"}});
  REQUIRE(record["status"] == "ok");
  int pairs = 0;
  for (const auto& p : record["series"]) {
    INFO(p.dump());
    const bool pdl = p["measure"] == "pdl_serialized" || p["measure"] == "pdl_overlapped";
    CHECK(p.contains("first_pair_stamps_ns") == pdl);
    if (!pdl) continue;
    const auto st = p["first_pair_stamps_ns"].get<std::vector<double>>();
    REQUIRE(st.size() == 4);
    CHECK(st[0] == 0);
    CHECK(st[1] == Approx(double(probes::launch::kPdlSpinNs)).epsilon(0.05));  // the primary's spin
    CHECK(st[3] >= st[2]);
    // Overlapped: the secondary starts inside the primary's spin; serialized: after its end.
    CHECK((st[2] < st[1]) == (p["measure"] == "pdl_overlapped"));
    ++pairs;
  }
  CHECK(pairs == 2);
}

TEST_CASE("launch closed loop: every preset's launch table comes back through the model", "[launch][model]") {
  for (const auto& preset : sim::presets()) {
    if (!(preset.launch.host_enqueue_ns > 0)) continue;
    INFO(preset.name);
    const auto& c = preset.launch;
    auto device = sim::make_sim_device(preset);
    const auto overhead = run(*device, "launch/overhead", {{"launches", "50"}});
    const auto graph = run(*device, "launch/graph", {{"graphs", "5"}});
    const auto small = run(*device, "launch/small_kernels", {{"iterations", "100"}});
    REQUIRE(overhead["status"] == "ok");
    REQUIRE(graph["status"] == "ok");
    REQUIRE(small["status"] == "ok");
    const auto model = analysis::build_machine_model({overhead, graph, small}, {"o.json", "g.json", "s.json"});
    REQUIRE(model.contains("launch"));
    const auto& l = model["launch"];
    CHECK_FALSE(l.contains("errors"));
    const auto ns = [&](const char* measure) { return l["overhead"][measure]["ns"].get<double>(); };
    CHECK(ns("host_enqueue") == Approx(c.host_enqueue_ns).epsilon(0.02));
    CHECK(ns("round_trip") == Approx(c.round_trip_ns).epsilon(0.02));
    CHECK(ns("back_to_back") == Approx(c.back_to_back_ns).epsilon(0.02));
    CHECK(ns("gap") == Approx(c.gap_ns).epsilon(0.02));
    CHECK(ns("pdl_serialized") == Approx(c.gap_ns).epsilon(0.02));
    if (c.pdl_launch_ns > 0) {
      // With PDL the secondary starts pdl_launch_ns after the trigger, before the primary's end.
      CHECK(ns("pdl_overlapped") ==
            Approx(c.pdl_launch_ns - double(probes::launch::kPdlSpinNs)).margin(0.02 * probes::launch::kPdlSpinNs));
      CHECK(ns("pdl_overlapped") < 0);
    } else {
      CHECK(l["skipped"].contains("pdl_overlapped"));
    }
    const auto fit = [&](const char* measure, double a, double b) {
      INFO(measure);
      const auto& f = l["graph"][measure];
      CHECK(f["per_graph_ns"].get<double>() == Approx(a).epsilon(0.05).margin(0.02 * b * 128));
      CHECK(f["per_node_ns"].get<double>() == Approx(b).epsilon(0.03));
      CHECK(f["confidence"].get<double>() > 0.5);
    };
    fit("instantiate", c.graph_instantiate_ns, c.graph_instantiate_per_node_ns);
    fit("update", c.graph_update_ns, c.graph_update_per_node_ns);
    fit("launch", c.graph_launch_ns, c.graph_launch_per_node_ns);
    CHECK(l["graph"]["device_launch"]["ns"].get<double>() == Approx(c.device_graph_launch_ns).epsilon(0.02));
    for (const auto& k : c.small_kernels) {
      INFO(k.method);
      const auto& f = l["small_kernels"][k.method];
      CHECK(f["overhead_ns"].get<double>() == Approx(k.overhead_ns).epsilon(0.02));
      REQUIRE(f["bytes_per_s"].is_number());
      CHECK(f["bytes_per_s"].get<double>() == Approx(k.bytes_per_s).epsilon(0.35));
    }
  }
}

TEST_CASE("launch probes: counts and sizes beyond their bounds are refused in one line", "[launch]") {
  auto device = sim::make_sim_device(sim::find_preset("h100"));
  CHECK_THROWS_WITH(run(*device, "launch/graph", {{"nodes", "1,5000"}}), Catch::Contains("--nodes entries must be 1 to 4096"));
  CHECK_THROWS_WITH(run(*device, "launch/overhead", {{"launches", "1"}}), Catch::Contains("--launches: must be at least 2"));
  CHECK_THROWS_WITH(run(*device, "launch/small_kernels", {{"bytes", "8"}}), Catch::Contains("--bytes: entry '8' must be at least 16"));
}

TEST_CASE("launch costs: every preset has a table whose small-kernel entries each cite FIGURES or say assumption",
          "[launch]") {
  for (const auto& preset : sim::presets()) {
    INFO(preset.name);
    const auto& c = preset.launch;
    CHECK(c.host_enqueue_ns > 0);
    CHECK_FALSE(c.source.empty());
    CHECK(c.gap_ns > 0);
    CHECK(c.gap_ns < c.back_to_back_ns);
    // PDL exactly where the SM has griddepcontrol.
    CHECK((c.pdl_launch_ns > 0) == (preset.info.cc.sm() >= 90));
    REQUIRE(c.small_kernels.size() == 4);
    for (const auto& k : c.small_kernels) {
      INFO(k.method);
      CHECK(k.overhead_ns > 0);
      CHECK(k.bytes_per_s > 0);
      const bool cited = k.source.find("[GB24]") != std::string::npos || k.source.find("[HAZY]") != std::string::npos;
      CHECK((cited || k.source.find("assumption") != std::string::npos));
    }
    // gpu-benches on every GPU it ran: one graph launches cheaper than streams, per kernel.
    CHECK(c.small_kernels[1].overhead_ns < c.small_kernels[0].overhead_ns);
  }
}

TEST_CASE("launch probes: the progress line of each point names its measure and cost", "[launch]") {
  auto device = sim::make_sim_device(sim::find_preset("l40"));
  const ProbeSpec& probe = find_probe("launch/overhead");
  std::ostringstream log;
  run_probe(*device, probe, Params::parse(probe.params, {{"launches", "10"}}), RepeatPolicy{}, "", log);
  CHECK(log.str().find("measure=host_enqueue 2") != std::string::npos);  // 2.1 us on the L40 preset
  CHECK(log.str().find(" ns\n") != std::string::npos);
  CHECK(log.str().find("measure=pdl_overlapped skipped") != std::string::npos);  // sm_89
}

}  // namespace GPUPROBE_TEST_FILE
