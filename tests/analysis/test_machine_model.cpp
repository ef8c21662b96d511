#include <catch2/catch.hpp>

#include "analysis/machine_model.hpp"
#include "harness/error.hpp"

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
