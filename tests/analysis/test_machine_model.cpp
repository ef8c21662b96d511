#include <catch2/catch.hpp>

#include <tuple>

#include <cmath>

#include "analysis/machine_model.hpp"
#include "tests/analysis/synthetic_curves.hpp"
#include "harness/error.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

namespace {
nlohmann::json run_record(const std::string& probe, nlohmann::json series) {
  return {{"schema", "gpuprobe.run"}, {"schema_version", 1}, {"probe", probe},
          {"params", {{"cache-op", "cg"}}}, {"status", "ok"},
          {"device", {{"name", "dev"}, {"simulated", false}}},
          {"sm_clock_mhz", {{"before", 1000.0}}}, {"series", series}};
}
}  // namespace

TEST_CASE("run records of another schema or version are refused in one line", "[model]") {
  auto r = run_record("memory/chase", nlohmann::json::array());
  r["schema_version"] = 2;
  CHECK_THROWS_WITH(analysis::build_machine_model({r}, {"r.json"}),
                    Catch::Contains("r.json has run schema version 2"));
  r["schema"] = "other";
  CHECK_THROWS_WITH(analysis::build_machine_model({r}, {"r.json"}),
                    Catch::Contains("not a gpuprobe run record"));
  CHECK_THROWS_AS(analysis::build_machine_model({}, {}), Error);
}

TEST_CASE("the model reports a failed fit per component and keeps the rest", "[model]") {
  nlohmann::json good = nlohmann::json::array(), few = nlohmann::json::array();
  for (int i = 0; i < 40; ++i) {
    const double f = 1024.0 * std::pow(2.0, i / 2.0);
    good.push_back({{"footprint_bytes", f}, {"latency_cycles", f < 1e6 ? 200.0 : 500.0}});
  }
  few.push_back({{"footprint_bytes", 8}, {"latency_cycles", 30.0}});
  auto cg = run_record("memory/chase", good);
  auto ca = run_record("memory/chase", few);
  ca["params"]["cache-op"] = "ca";
  auto skipped = run_record("memory/chase", nlohmann::json::array());
  skipped["status"] = "skipped";
  skipped["params"]["cache-op"] = "nc";
  const auto m = analysis::build_machine_model({cg, ca, skipped}, {"cg", "ca", "nc"});
  CHECK(m["schema"] == "gpuprobe.machine_model");
  CHECK(m["memory"]["paths"]["ca"].contains("error"));
  CHECK_FALSE(m["memory"]["paths"].contains("nc"));  // skipped: nothing to fit
  CHECK(m["sources"].size() == 3);
  // The hierarchy falls back to the path that could be fitted.
  CHECK(m["memory"]["levels_from"] == "memory/chase cache-op=cg");
  REQUIRE(m["memory"]["levels"].size() == 2);
  CHECK(m["memory"]["levels"][0]["name"] == "L2");
  CHECK(m["memory"]["levels"][0]["latency_ns"].get<double>() == Approx(200.0));  // 1 GHz clock
  CHECK(m["memory"]["levels"][1]["capacity_bytes"].is_null());
}

TEST_CASE("the DRAM level says its pages and the TLB level that holds them", "[model]") {
  nlohmann::json mem = {{"levels", {{{"name", "L2"}}, {{"name", "DRAM"},
                                                      {"plateau_bytes", {64.0e6, 200.0e6}}}}}};
  analysis::annotate_dram(mem);
  CHECK(mem["levels"][1]["pages_touched"][0] == 31.0);   // 64 MB over 2 MiB pages, rounded up
  CHECK(mem["levels"][1]["pages_touched"][1] == 96.0);
  CHECK(mem["levels"][1]["tlb_level"].is_null());         // no TLB sweep: said, not guessed
  mem["tlb"] = {{"levels", {{{"name", "TLB1"}, {"reach_bytes", 256.0e6}}}}};
  analysis::annotate_dram(mem);
  CHECK(mem["levels"][1]["tlb_level"] == "TLB1");
  mem["tlb"]["levels"][0]["reach_bytes"] = 100.0e6;        // the plateau runs past TLB1's reach
  analysis::annotate_dram(mem);
  CHECK(mem["levels"][1]["tlb_level"] == "beyond every TLB level measured");
  nlohmann::json no_dram = {{"levels", {{{"name", "L1"}}, {{"name", "L2"}}}}};
  analysis::annotate_dram(no_dram);
  CHECK_FALSE(no_dram["levels"][1].contains("pages_touched"));
}

TEST_CASE("an imported curve of 100,000 points is fitted from a bounded binned summary",
          "[model][csv]") {
  analysis::testing::SyntheticSpec spec;
  spec.levels = {{30, 96.0 * 1024}, {220, 6.0 * 1024 * 1024}, {600, 0}};
  spec.x_first_bytes = 1024;
  spec.points = 100000;
  spec.x_ratio = std::pow(2.0, 20.0 / spec.points);  // 1 KiB .. 1 GiB
  spec.noise_rel = 0.005;
  spec.seed = 5;
  const analysis::Curve curve = analysis::testing::make_curve(spec);
  const auto model = analysis::build_machine_model_from_curve(curve, "/data/dense.csv");
  CHECK(model["sources"][0]["file"] == "/data/dense.csv");
  CHECK(model["sources"][0]["rows"] == 100000);
  const auto& stored = model["memory"]["paths"]["imported"]["curve"];
  CHECK(stored["input_points"] == 100000);
  REQUIRE(stored["binned"].is_object());
  CHECK(stored["binned"]["statistic"] == "median");
  CHECK(stored["x"].size() <= analysis::kMaxFitPoints);
  CHECK(stored["x"].size() == stored["binned"]["points"]);
  CHECK(model.dump().size() < 1'000'000);  // whole, the curve would be several MB
  const auto& levels = model["memory"]["levels"];
  REQUIRE(levels.size() == 3);
  CHECK(levels[0]["latency_cycles"].get<double>() == Approx(30).epsilon(0.01));
  CHECK(levels[1]["latency_cycles"].get<double>() == Approx(220).epsilon(0.01));
  CHECK(levels[2]["latency_cycles"].get<double>() == Approx(600).epsilon(0.01));
  CHECK(levels[0]["capacity_bytes"].get<double>() == Approx(96.0 * 1024).epsilon(0.02));
  CHECK(levels[1]["capacity_bytes"].get<double>() == Approx(6.0 * 1024 * 1024).epsilon(0.02));
}

TEST_CASE("an imported curve within the bound is stored whole and says so", "[model][csv]") {
  analysis::testing::SyntheticSpec spec;
  spec.levels = {{30, 96.0 * 1024}, {600, 0}};
  spec.points = 60;
  const auto model = analysis::build_machine_model_from_curve(analysis::testing::make_curve(spec), "a.csv");
  const auto& stored = model["memory"]["paths"]["imported"]["curve"];
  CHECK(stored["binned"].is_null());
  CHECK(stored["input_points"] == 60);
  CHECK(stored["x"].size() == 60);
}

TEST_CASE("without a clock the model's latency_ns is null, and rules and rejected candidates are kept",
          "[model][hierarchy]") {
  analysis::testing::SyntheticSpec spec;
  // A plateau ending at 3.6x the near L2 between L2 and DRAM: a rejected candidate.
  spec.levels = {{33, 150.0 * 1024}, {205, 20.0 * 1024 * 1024}, {400, 72.0 * 1024 * 1024}, {551, 0}};
  spec.x_ratio = 1.07;
  spec.points = 226;
  spec.knee_octaves = 0.3;
  spec.noise_rel = 0.003;
  const auto model = analysis::build_machine_model_from_curve(analysis::testing::make_curve(spec), "a.csv");
  const auto& mem = model["memory"];
  REQUIRE(mem["levels"].size() == 3);
  for (const auto& l : mem["levels"]) {
    CHECK(l["latency_ns"].is_null());
    CHECK(l["confidence_parts"]["stability"].is_number());
  }
  REQUIRE(mem["rejected"].size() == 1);
  CHECK(mem["rejected"][0]["rule"] == "far-l2");
  CHECK(mem["paths"]["imported"]["rules"].size() >= 3);
}

namespace {
// A memory/chase record whose curve fits (L1, L2, DRAM), for the checked-read cases below.
nlohmann::json fittable_chase() {
  nlohmann::json series = nlohmann::json::array();
  for (int i = 0; i < 24; ++i) {
    const double f = 1024.0 * std::exp2(i * 0.75);
    series.push_back({{"footprint_bytes", f}, {"latency_cycles", f < 2e5 ? 30.0 : f < 4e6 ? 200.0 : 500.0}});
  }
  auto r = run_record("memory/chase", series);
  r["params"]["cache-op"] = "ca";
  return r;
}

std::string model_error(const nlohmann::json& run) {
  try {
    (void)analysis::build_machine_model({run}, {"r.json"});
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// Every field the model reads is checked: a hostile record gets a one-line error naming the file
// and the field, never undefined behaviour (const operator[] on a missing key) or a bare
// nlohmann exception.
TEST_CASE("a record missing a field the model reads, or holding the wrong type, is named in one line",
          "[model][hostile]") {
  auto r = fittable_chase();
  r.erase("device");
  CHECK(model_error(r) == "r.json: device is missing");
  r = fittable_chase();
  r["device"] = "gpu";
  CHECK(model_error(r) == "r.json: device is a string, not an object");
  r = fittable_chase();
  r["device"]["simulated"] = "yes";
  CHECK(model_error(r) == "r.json: device.simulated is a string, not a boolean");
  r = fittable_chase();
  r["status"] = 3;
  CHECK(model_error(r) == "r.json: status is a number, not a string");
  r = fittable_chase();
  r["probe"] = nullptr;
  CHECK(model_error(r) == "r.json: probe is null, not a string");
  r = fittable_chase();
  r["params"] = nlohmann::json::array();
  CHECK(model_error(r) == "r.json: params is an array, not an object");
  r = fittable_chase();
  r["params"]["sm"] = 5;
  CHECK(model_error(r) == "r.json: params.sm is a number, not a string");
  r = fittable_chase();
  r["params"]["cache-op"] = nlohmann::json::object();
  CHECK(model_error(r) == "r.json: params.cache-op is an object, not a string");
  // No params at all: the defaults (cache-op ca), as before.
  r = fittable_chase();
  r.erase("params");
  CHECK(model_error(r).empty());
}

TEST_CASE("a component whose record lacks a field carries an error naming it, and its source says so",
          "[model][hostile]") {
  auto chase = fittable_chase();
  chase["series"][3]["footprint_bytes"] = "4K";
  auto tlb = run_record("memory/tlb", {{{"latency_cycles", 300.0}}});   // no span_bytes, no pages
  auto tlb_no_pages = run_record("memory/tlb", {{{"span_bytes", 2097152.0}, {"latency_cycles", 300.0}}});
  auto map = run_record("memory/chase", {{{"pinned_sm", "0"}, {"map_level", "L2"}, {"latency_cycles", 200.0}}});
  map["params"]["sm"] = "all";
  auto stride = run_record("memory/stride", {{{"footprint_bytes", 4096.0}, {"stride_bytes", nullptr},
                                              {"latency_cycles", 30.0}}});
  auto clock = fittable_chase();
  clock["sm_clock_mhz"]["before"] = "fast";
  const std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {chase, "series[3].footprint_bytes is a string, not a number"},
      {tlb, "series[0] has no span_bytes"},
      {tlb_no_pages, "series[0] has no pages"},
      {map, "series[0].pinned_sm is a string, not a number"},
      {stride, "series[0].stride_bytes is null, not a number"},
      {clock, "sm_clock_mhz.before is a string, not a number"}};
  for (const auto& [run, said] : cases) {
    INFO(said);
    const auto m = analysis::build_machine_model({run}, {"r.json"});
    REQUIRE(m["sources"][0].contains("error"));
    CHECK(m["sources"][0]["error"].get<std::string>().find(said) != std::string::npos);
  }
}

TEST_CASE("an unknown cache operator is an error, not a guess", "[model]") {
  auto r = fittable_chase();
  r["params"]["cache-op"] = "xx";
  const auto m = analysis::build_machine_model({r}, {"r.json"});
  REQUIRE(m["memory"]["paths"]["xx"].contains("error"));
  CHECK(m["memory"]["paths"]["xx"]["error"].get<std::string>().find("unknown cache operator 'xx'") !=
        std::string::npos);
  CHECK_FALSE(m["memory"].contains("levels"));
  CHECK(m["sources"][0].contains("error"));
}

TEST_CASE("an interrupted or failed record is fitted, and the model's warnings say so", "[model]") {
  auto ok = fittable_chase();
  CHECK(analysis::build_machine_model({ok}, {"ok.json"})["warnings"] == nlohmann::json::array());
  for (const char* status : {"interrupted", "failed", "running"}) {
    INFO(status);
    auto r = fittable_chase();
    r["status"] = status;
    const auto m = analysis::build_machine_model({r}, {"r.json"});
    CHECK(m["memory"]["levels"].size() == 3);  // fitted all the same
    CHECK(m["sources"][0]["status"] == status);
    REQUIRE(m["warnings"].size() == 1);
    const std::string w = m["warnings"][0].get<std::string>();
    CHECK(w.find("r.json") == 0);
    CHECK(w.find(status) != std::string::npos);
    CHECK(w.find("24 points") != std::string::npos);
  }
}

TEST_CASE("a run the GPU throttled is fitted, and the model's warnings say so with the reasons",
          "[model]") {
  auto calm = fittable_chase();
  calm["telemetry"] = {{"before", {{"available", true}, {"throttled", false}}},
                       {"after", {{"available", true}, {"throttled", false}}}};
  CHECK(analysis::build_machine_model({calm}, {"calm.json"})["warnings"] == nlohmann::json::array());
  auto hot = calm;
  hot["telemetry"]["after"]["throttled"] = true;
  hot["telemetry"]["after"]["clock_event_reasons"] = {"sw_thermal_slowdown", "hw_slowdown"};
  const auto m = analysis::build_machine_model({hot}, {"hot.json"});
  CHECK(m["memory"]["levels"].size() == 3);  // fitted all the same
  REQUIRE(m["warnings"].size() == 1);
  const std::string w = m["warnings"][0].get<std::string>();
  CHECK(w.find("hot.json: the GPU reported throttling (sw_thermal_slowdown+hw_slowdown) after") == 0);
}

TEST_CASE("a record of each probe family routes to its section, and a failing one leaves the others",
          "[model]") {
  // One skipped op each: each family's section appears with it as not measured, no error; the
  // source is a skipped input. An empty series gives no result, whatever the family: its source
  // says so and no section appears (analyze then exits 1).
  const std::vector<std::tuple<std::string, std::string, nlohmann::json>> families = {
      {"compute/alu", "compute", {{"op", "fma_rn_f32x2"}, {"skipped", "needs sm_100+"}}},
      {"tensor/mma", "compute", {{"op", "mma_m16n8k32_e2m1_f32"}, {"skipped", "needs sm_120+"}}},
      {"async/copy", "async_copy", {{"op", "tma_1d"}, {"skipped", "needs sm_90+"}}},
      {"sync/primitives", "sync", {{"op", "elect"}, {"skipped", "needs sm_90+"}}},
      {"atomics/ops", "atomics",
       {{"op", "shared_add_f32"}, {"pattern", "same"}, {"kind", "latency"}, {"skipped", "needs sm_90+"}}},
      {"launch/overhead", "launch", {{"measure", "pdl_overlapped"}, {"skipped", "needs sm_90+"}}}};
  for (const auto& [probe, section, skipped] : families) {
    INFO(probe);
    const auto m = analysis::build_machine_model({run_record(probe, {skipped})}, {"r.json"});
    CHECK(m.contains(section));
    CHECK_FALSE(m[section].contains("errors"));
    CHECK_FALSE(m["sources"][0].contains("error"));
    CHECK(m["sources"][0].contains("skip_reason"));
    for (const char* other : {"bandwidth", "compute", "async_copy", "sync", "atomics", "launch"})
      if (other != section) CHECK_FALSE(m.contains(other));
    const auto e = analysis::build_machine_model({run_record(probe, nlohmann::json::array())}, {"e.json"});
    CHECK_FALSE(e.contains(section));
    CHECK(e["sources"][0]["error"] == "the record holds no measured point (its series is empty)");
  }
  // A bandwidth record its fit refuses: the error goes under its probe in the bandwidth section
  // and onto its source; the records after it still route.
  std::vector<nlohmann::json> runs = {run_record("bandwidth/nonsense", {{{"sweep", "footprint"}}})};
  std::vector<std::string> paths = {"bad.json"};
  for (const auto& [probe, section, skipped] : families) {
    runs.push_back(run_record(probe, {skipped}));
    paths.push_back(probe + ".json");
  }
  runs.push_back(run_record("memory/nonsense", {{{"footprint_bytes", 1024}}}));
  paths.push_back("memory.json");
  const auto m = analysis::build_machine_model(runs, paths);
  REQUIRE(m["bandwidth"]["errors"].contains("bandwidth/nonsense"));
  const std::string why = m["bandwidth"]["errors"]["bandwidth/nonsense"].get<std::string>();
  CHECK(why.find("bandwidth/nonsense") != std::string::npos);
  CHECK(m["sources"][0]["error"] == why);
  for (std::size_t i = 0; i < families.size(); ++i) {
    INFO(std::get<0>(families[i]));
    CHECK(m.contains(std::get<1>(families[i])));
    CHECK_FALSE(m[std::get<1>(families[i])].contains("errors"));
    CHECK_FALSE(m["sources"][i + 1].contains("error"));
  }
  // A probe of no family (an unknown memory probe too) is named in its source, in no section.
  CHECK(m["sources"].back()["error"] == "gpuprobe has no analysis for probe 'memory/nonsense'");
  CHECK_FALSE(m["memory"].contains("paths"));
}

}  // namespace GPUPROBE_TEST_FILE
