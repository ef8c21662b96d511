#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "harness/error.hpp"
#include "harness/interrupt.hpp"
#include "harness/points.hpp"
#include "harness/probe.hpp"
#include "harness/results.hpp"
#include "harness/self_check.hpp"
#include "harness/sim/preset.hpp"
#include "harness/sim/sim_device.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
namespace fs = std::filesystem;

namespace {

ProbeSpec fake_probe(std::optional<ptx::Cap> needs, int* runs) {
  ProbeSpec p;
  p.id = "test/fake";
  p.summary = "a probe that records one point";
  p.needs = needs;
  p.run = [runs](ProbeContext& ctx) {
    ++*runs;
    ctx.add_point({{"footprint_bytes", 1}, {"latency_cycles", 1.0}});
  };
  return p;
}

DeviceInfo gpu(int major, int minor, bool simulated = false) {
  DeviceInfo d;
  d.name = "test GPU";
  d.cc = {major, minor};
  d.simulated = simulated;
  return d;
}

}  // namespace

TEST_CASE("probe ids are unique and hierarchical", "[registry]") {
  std::set<std::string> ids;
  for (const auto& p : probe_registry()) {
    CHECK(ids.insert(p.id).second);
    CHECK(p.id.find('/') != std::string::npos);
    CHECK_FALSE(p.summary.empty());
    CHECK(p.run);
    for (const auto& prm : p.params) {
      INFO(p.id << " --" << prm.name);
      CHECK_NOTHROW(Params::parse(p.params, {{prm.name, prm.default_value}}));
    }
  }
  CHECK(ids.count("memory/chase") == 1);
  CHECK_THROWS_WITH(find_probe("memory/none"),
                    Catch::Contains("known: ") && Catch::Contains("memory/chase,"));
}

TEST_CASE("a probe needing an arch-specific capability is skipped with the reason", "[registry]") {
  int runs = 0;
  const ProbeSpec wgmma = fake_probe(ptx::Cap::wgmma, &runs);
  // The device lacks the instruction.
  auto reason = probe_unavailable_reason(wgmma, gpu(8, 0), "sm_80,sm_90a");
  REQUIRE(reason);
  CHECK_THAT(*reason, Catch::Contains("needs sm_90a") && Catch::Contains("is sm_80"));
  // A B300 (10.3) has tcgen05, but sm_100a code does not run on it.
  const ProbeSpec tc = fake_probe(ptx::Cap::tcgen05, &runs);
  reason = probe_unavailable_reason(tc, gpu(10, 3), "sm_90,sm_100a");
  REQUIRE(reason);
  CHECK(*reason == "this build has no sm_103f code for tcgen05: rebuild with "
                   "CMAKE_CUDA_ARCHITECTURES=103f");
  CHECK_FALSE(probe_unavailable_reason(tc, gpu(10, 3), "sm_100f"));  // the family cubin runs
  // The device has it and the build has the right cubin.
  CHECK_FALSE(probe_unavailable_reason(wgmma, gpu(9, 0), "sm_80,sm_90a"));
  CHECK(probe_unavailable_reason(wgmma, gpu(9, 0), "sm_80,sm_90,compute_90"));
  // Generic probes always can.
  CHECK_FALSE(probe_unavailable_reason(fake_probe(std::nullopt, &runs), gpu(7, 5), ""));
}

TEST_CASE("run_probe's progress line names every point: its axes, then what it measured", "[registry]") {
  ProbeSpec p;
  p.id = "test/points";
  p.summary = "points of an op table";
  p.run = [](ProbeContext& ctx) {
    ctx.add_point({{"op", "fma_rn_f32"}, {"kind", "latency"}, {"latency_cycles", 4.0}});
    ctx.add_point({{"op", "fma_rn_f64"}, {"kind", "throughput"}, {"skipped", "needs sm_80"}});
    ctx.add_point({{"op", "add"}, {"kind", "throughput"}, {"ops_per_clk_per_sm", 64.0}});
    ctx.add_point({{"kernel_name", "triad"}, {"ns", 1000.0}});
  };
  auto dev = sim::make_sim_device(sim::find_preset("h100"));
  std::ostringstream log;
  run_probe(*dev, p, Params::parse({}, {}), RepeatPolicy{}, "", log);
  const std::string out = log.str();
  CHECK_THAT(out, Catch::Contains("  op=fma_rn_f32 kind=latency 4 cycles\n"));
  CHECK_THAT(out, Catch::Contains("  op=fma_rn_f64 kind=throughput skipped: needs sm_80\n"));
  CHECK_THAT(out, Catch::Contains("  op=add kind=throughput 64 ops/clk/SM\n"));
  CHECK_THAT(out, Catch::Contains("  kernel_name=triad 1000 ns\n"));
  CHECK(out.find("\n  skipped") == std::string::npos);
}

TEST_CASE("run_probe records a skip without launching anything", "[registry]") {
  int runs = 0;
  auto a100 = sim::make_sim_device(sim::find_preset("a100"));
  std::ostringstream log;
  const auto record = run_probe(*a100, fake_probe(ptx::Cap::wgmma, &runs), Params::parse({}, {}),
                                RepeatPolicy{}, "", log);
  CHECK(record["status"] == "skipped");
  CHECK_THAT(record["skip_reason"].get<std::string>(), Catch::Contains("sm_90a"));
  CHECK(runs == 0);
  // The simulated H100 has the capability (no cubin question for a model): it runs.
  auto h100 = sim::make_sim_device(sim::find_preset("h100"));
  const auto ran = run_probe(*h100, fake_probe(ptx::Cap::wgmma, &runs), Params::parse({}, {}),
                             RepeatPolicy{}, "", log);
  CHECK(ran["status"] == "ok");
  CHECK(runs == 1);
  CHECK(ran["series"].size() == 1);
}

namespace {

// A probe of `n` points (x = 0..n-1); planning throws if `plan_error`, point `fail_at` throws,
// and point `signal_at` raises SIGINT while it is measured. Counts the points it measures.
ProbeSpec counting_probe(int n, int* measured, bool plan_error = false, int fail_at = -1,
                         int signal_at = -1) {
  ProbeSpec p;
  p.id = "test/counting";
  p.summary = "a probe of n points";
  p.run = [=](ProbeContext& ctx) {
    if (plan_error) throw Error("bad value for --x");
    std::vector<PlannedPoint> points;
    for (int i = 0; i < n; ++i)
      points.push_back({{{"x", i}}, [=] {
                          if (i == fail_at) throw Error("self-check failed at point " + std::to_string(i));
                          if (i == signal_at) ::raise(SIGINT);
                          ++*measured;
                          return nlohmann::json{{"latency_cycles", 10.0 + i}};
                        }});
    measure_points(ctx, points);
  };
  return p;
}

struct ScratchFile {
  fs::path dir = fs::temp_directory_path() / ("gpuprobe-registry-" + std::to_string(::getpid()));
  fs::path path = dir / "run.json";
  ScratchFile() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~ScratchFile() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string text() const {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

}  // namespace

TEST_CASE("run_probe: a parameter error writes nothing and leaves an existing record alone",
          "[registry]") {
  ScratchFile f;
  auto dev = sim::make_sim_device(sim::find_preset("v100"));
  std::ostringstream log;
  int measured = 0;
  CHECK_THROWS_WITH(run_probe(*dev, counting_probe(3, &measured, true), Params::parse({}, {}),
                              RepeatPolicy{}, f.path.string(), log),
                    Catch::Contains("bad value"));
  CHECK_FALSE(fs::exists(f.path));  // nothing was opened or written
  std::ofstream(f.path) << "{\"good\": true}\n";
  CHECK_THROWS(run_probe(*dev, counting_probe(3, &measured, true), Params::parse({}, {}),
                         RepeatPolicy{}, f.path.string(), log));
  CHECK(f.text() == "{\"good\": true}\n");
  CHECK(measured == 0);
}

TEST_CASE("run_probe: an existing record is replaced only once a point is measured", "[registry]") {
  ScratchFile f;
  auto dev = sim::make_sim_device(sim::find_preset("v100"));
  std::ostringstream log;
  int measured = 0;
  std::ofstream(f.path) << "{\"good\": true}\n";
  // The first point fails: the old record stays as it was.
  CHECK_THROWS_WITH(run_probe(*dev, counting_probe(3, &measured, false, 0), Params::parse({}, {}),
                              RepeatPolicy{}, f.path.string(), log),
                    Catch::Contains("self-check failed at point 0"));
  CHECK(f.text() == "{\"good\": true}\n");
  // The second point fails: the first is kept, in a failed record that replaces the old one.
  CHECK_THROWS(run_probe(*dev, counting_probe(3, &measured, false, 1), Params::parse({}, {}),
                         RepeatPolicy{}, f.path.string(), log));
  const auto j = read_json_file(f.path.string());
  CHECK(j["status"] == "failed");
  CHECK(j["series"].size() == 1);
  // With no earlier file, a run failing at its first point still leaves its failed record.
  fs::remove(f.path);
  CHECK_THROWS(run_probe(*dev, counting_probe(3, &measured, false, 0), Params::parse({}, {}),
                         RepeatPolicy{}, f.path.string(), log));
  CHECK(read_json_file(f.path.string())["status"] == "failed");
}

TEST_CASE("run_probe: a SIGINT stops after the point in hand, saved as interrupted",
          "[registry]") {
  ScratchFile f;
  auto dev = sim::make_sim_device(sim::find_preset("v100"));
  std::ostringstream log;
  int measured = 0;
  install_interrupt_handlers();
  CHECK_THROWS_AS(run_probe(*dev, counting_probe(5, &measured, false, -1, 2),
                            Params::parse({}, {}), RepeatPolicy{}, f.path.string(), log),
                  Interrupted);
  clear_interrupt();
  ::signal(SIGINT, SIG_DFL);
  CHECK(measured == 3);  // the point that saw the signal was finished and saved, then it stopped
  const auto j = read_json_file(f.path.string());
  CHECK(j["status"] == "interrupted");
  CHECK(j["series"].size() == 3);
}

TEST_CASE("run_probe: resuming keeps the earlier points and measures only the missing ones",
          "[registry]") {
  auto dev = sim::make_sim_device(sim::find_preset("v100"));
  std::ostringstream log;
  int measured = 0;
  auto earlier = run_probe(*dev, counting_probe(5, &measured), Params::parse({}, {}),
                           RepeatPolicy{}, "", log);
  REQUIRE(earlier["series"].size() == 5);
  // Cut to two points, as an interrupted run leaves it, and mark them to tell them apart.
  nlohmann::json cut = earlier;
  cut["status"] = "interrupted";
  cut["series"] = {earlier["series"][0], earlier["series"][1]};
  cut["series"][0]["marker"] = "kept";
  cut["series"][1]["marker"] = "kept";
  measured = 0;
  const auto resumed = run_probe(*dev, counting_probe(5, &measured), Params::parse({}, {}),
                                 RepeatPolicy{}, "", log, cut);
  CHECK(measured == 3);
  CHECK(resumed["status"] == "ok");
  REQUIRE(resumed["series"].size() == 5);
  CHECK(resumed["series"][0] == cut["series"][0]);
  CHECK(resumed["series"][1] == cut["series"][1]);
  for (int i = 0; i < 5; ++i) CHECK(resumed["series"][i]["x"] == i);
  CHECK(resumed["created_utc"] == cut["created_utc"]);
  CHECK(resumed.contains("resumed_utc"));
}

// Issue 20: a failed self-check fails its point, with the evidence; the probe measures the others
// and fails at the end, in one line naming the failed points.
ProbeSpec self_checking_probe(int* measured) {
  ProbeSpec p;
  p.id = "test/self_checking";
  p.summary = "a probe of four points, two of which fail their self-check";
  p.run = [=](ProbeContext& ctx) {
    std::vector<PlannedPoint> points;
    for (const char* op : {"good", "tiled", "bare", "last"})
      points.push_back({{{"op", op}, {"kind", "latency"}}, [=, op = std::string(op)] {
                          if (op == "tiled")
                            throw SelfCheckFailed("D[0][1] = 2, the float64 reference is 3",
                                                  {{"matches", "transpose"}},
                                                  {{"got", {1, 2}}, {"want", {1, 3}}});
                          if (op == "bare") throw SelfCheckFailed("warp 3 did not run");
                          ++*measured;
                          return nlohmann::json{{"latency_cycles", 10.0}};
                        }});
    measure_points(ctx, points);
    ctx.extra()["after_points"] = true;  // the probe's own work after its points still runs
  };
  return p;
}

TEST_CASE("run_probe: a failed self-check fails its point with its evidence, and the probe goes on",
          "[registry][self_check]") {
  ScratchFile f;
  auto dev = sim::make_sim_device(sim::find_preset("v100"));
  std::ostringstream log;
  int measured = 0;
  std::string error;
  try {
    run_probe(*dev, self_checking_probe(&measured), Params::parse({}, {}), RepeatPolicy{}, f.path.string(),
              log);
  } catch (const SelfCheckFailures& e) {
    error = e.what();
  }
  CHECK(measured == 2);  // every other point is measured
  CHECK(error ==
        "self-check failed at 2 of 4 points: tiled latency, bare latency (each point holds its evidence; the "
        "others are measured)");
  CHECK(error.find('\n') == std::string::npos);
  const auto j = read_json_file(f.path.string());
  CHECK(j["status"] == "failed");
  CHECK(j["error"] == error);
  CHECK(j["after_points"] == true);
  REQUIRE(j["series"].size() == 4);
  CHECK_FALSE(j["series"][0].contains("self_check"));  // this probe writes no self_check of its own
  CHECK(j["series"][0]["latency_cycles"] == 10.0);
  const auto& tiled = j["series"][1];
  CHECK(tiled["op"] == "tiled");
  CHECK_FALSE(tiled.contains("latency_cycles"));  // no timing for a failed op
  CHECK(tiled["self_check"]["passed"] == false);
  CHECK(tiled["self_check"]["reason"] == "D[0][1] = 2, the float64 reference is 3");
  CHECK(tiled["self_check"]["evidence"]["matches"] == "transpose");
  // The detail is in a sidecar next to the record, which the point names (relative to the record).
  REQUIRE(tiled["self_check"]["sidecar"] == "run.selfcheck/tiled.latency.json");
  const auto sidecar = read_json_file((f.dir / "run.selfcheck/tiled.latency.json").string());
  CHECK(sidecar["schema"] == "gpuprobe.selfcheck");
  CHECK(sidecar["probe"] == "test/self_checking");
  CHECK(sidecar["point"] == nlohmann::json{{"kind", "latency"}, {"op", "tiled"}});
  CHECK(sidecar["reason"] == tiled["self_check"]["reason"]);
  CHECK(sidecar["want"] == nlohmann::json{1, 3});
  // No detail, no sidecar; a passing point has none either: the folder holds the one.
  const auto& bare = j["series"][2];
  CHECK(bare["self_check"] == nlohmann::json{{"passed", false}, {"reason", "warp 3 did not run"}});
  std::size_t sidecars = 0;
  for (const auto& e : fs::directory_iterator(f.dir / "run.selfcheck")) sidecars += e.is_regular_file();
  CHECK(sidecars == 1);
  CHECK(log.str().find("self-check FAILED: warp 3 did not run") != std::string::npos);

  // Resumed, the failed points are measured again, the good ones kept.
  measured = 0;
  CHECK_THROWS_AS(run_probe(*dev, self_checking_probe(&measured), Params::parse({}, {}), RepeatPolicy{},
                            f.path.string(), log, j),
                  SelfCheckFailures);
  CHECK(measured == 0);
  CHECK(read_json_file(f.path.string())["series"] == j["series"]);
}

TEST_CASE("run_probe: a probe whose every self-check passes writes no sidecar", "[registry][self_check]") {
  ScratchFile f;
  auto dev = sim::make_sim_device(sim::find_preset("v100"));
  std::ostringstream log;
  int measured = 0;
  run_probe(*dev, counting_probe(3, &measured), Params::parse({}, {}), RepeatPolicy{}, f.path.string(), log);
  CHECK(read_json_file(f.path.string())["status"] == "ok");
  CHECK_FALSE(fs::exists(f.dir / "run.selfcheck"));
}

// Issue 7: no value makes a run spin for minutes with no output. Every count (an integer that is
// not a seed or an SM number) and every list has a maximum, and one beyond it is refused in one
// line naming the parameter, before anything runs.
TEST_CASE("every count and list parameter of every probe has a maximum, and one beyond it is refused",
          "[registry][bounds]") {
  for (const auto& p : probe_registry()) {
    for (const auto& prm : p.params) {
      const bool seed = prm.name.size() >= 4 && prm.name.compare(prm.name.size() - 4, 4, "seed") == 0;
      const bool count = prm.kind == ParamSpec::Kind::integer && !seed;
      if (!count && prm.kind != ParamSpec::Kind::list) continue;
      INFO(p.id << " --" << prm.name);
      REQUIRE(prm.max > 0);
      std::string beyond = std::to_string(prm.max + 1);
      if (prm.kind == ParamSpec::Kind::list) {
        const std::string first = prm.default_value.substr(0, prm.default_value.find(','));
        beyond = first;
        for (uint64_t i = 0; i < prm.max; ++i) beyond += "," + first;
      }
      try {
        (void)Params::parse(p.params, {{prm.name, beyond}});
        FAIL("accepted --" << prm.name << " " << beyond.substr(0, 40));
      } catch (const Error& e) {
        CHECK(std::string(e.what()).find(prm.name) != std::string::npos);
        CHECK(std::string(e.what()).find('\n') == std::string::npos);
      }
    }
  }
}

}  // namespace GPUPROBE_TEST_FILE
