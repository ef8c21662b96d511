// `gpuprobe compare` on the fixtures of tests/data/compare (machine models in the metrics[]
// contract: a measured A, a simulated B, a published C): the exact Markdown table and summary for
// two and three inputs, the ratio arithmetic, metrics one input lacks, a unit mismatch, the
// published and simulated inputs labelled as such, and bad input refused in one line.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli/gpuprobe_run.hpp"

#include "cli/compare_command.hpp"
#include "harness/error.hpp"
#include "harness/results.hpp"

namespace GPUPROBE_TEST_FILE {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using gpuprobe::test::Result;
using gpuprobe::test::slurp;

// A scratch folder holding copies of the fixtures, so that they are named as given (a.json).
struct Scratch : gpuprobe::test::Scratch {
  Scratch() : gpuprobe::test::Scratch("compare-cmd") {
    for (const char* f : {"a.json", "b.json", "c_published.json", "v1_no_metrics.json"})
      fs::copy_file(fs::path(GPUPROBE_TEST_DATA_DIR) / "compare" / f, dir / f);
  }
};

// Runs gpuprobe in the scratch folder.
Result run(const Scratch& s, const std::string& args) {
  return gpuprobe::test::run_gpuprobe(s, args, "", s.dir);
}

json fixture(const std::string& name) {
  return json::parse(slurp(fs::path(GPUPROBE_TEST_DATA_DIR) / "compare" / name));
}

json metric(const std::string& id, const json& value, const std::string& unit, const json& per_clock = nullptr) {
  return {{"id", id}, {"family", id.substr(0, id.find('.'))}, {"label", id}, {"value", value}, {"unit", unit},
          {"better", "higher"}, {"ceiling", true}, {"source", "measured"}, {"per_sm_per_clock", per_clock}};
}

json model(const json& metrics) {
  return {{"schema", "gpuprobe.machine_model"}, {"schema_version", 2}, {"device", {{"name", "M"}}},
          {"metrics", metrics}};
}

const std::string kInputsAB =
    "# gpuprobe compare\n"
    "\n"
    "| input | file | device | source | SMs | SM clock |\n"
    "|---|---|---|---|---|---|\n"
    "| A | a.json | Test GPU A | measured | 100 | 1000 MHz |\n"
    "| B | b.json | Test GPU B | simulated | 200 | 2000 MHz |\n";

const std::string kSummaryBA =
    "B (Test GPU B, simulated) against A (Test GPU A, measured), 6 metrics compared: the largest "
    "differences in ceilings, latencies and capacities are bandwidth.DRAM.read_bytes_per_s 4.00x (B faster), "
    "tensor.f16.flops_per_s 4.00x (B faster), memory.L2.capacity_bytes 2.00x (B larger); per SM per clock, "
    "compute.fma_rn_f32.flops_per_s 0.50x (A faster).";

}  // namespace

TEST_CASE("compare: two models, the exact table and summary, in PREFIX.compare.md and .json", "[cli][compare]") {
  Scratch s;
  const Result r = run(s, "compare a.json b.json --out ab --no-plot");
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  const std::string expected =
      kInputsAB +
      "\n"
      "| metric | A | B | B/A | B/A per SM per clock |\n"
      "|---|---|---|---|---|\n"
      "| memory.L1.latency_cycles | 30.0 cycles | 33.0 cycles | 1.10x | - |\n"
      "| memory.L2.latency_cycles | 200 cycles | 300 cycles | 1.50x | - |\n"
      "| memory.L2.capacity_bytes | 50 MiB | 100 MiB | 2.00x | - |\n"
      "| memory.DRAM.latency_cycles | 600 cycles | 300 ns | units differ | units differ |\n"
      "| bandwidth.DRAM.read_bytes_per_s | 2.00 TB/s | 8.00 TB/s | 4.00x | 1.00x |\n"
      "| compute.fma_rn_f32.flops_per_s | 50.0 TFLOP/s | 100 TFLOP/s | 2.00x | 0.50x |\n"
      "| tensor.f16.flops_per_s | 1.00 PFLOP/s | 4.00 PFLOP/s | 4.00x | 1.00x |\n"
      "| sync.bar_sync.latency_cycles | - | 20.0 cycles | - | - |\n"
      "| atomics.atom_add.same.ops_per_s | 10.0 Gop/s | - | - | - |\n"
      "\n" +
      kSummaryBA + " 2 metrics are in one input only. B: the simulator, not a GPU.\n";
  CHECK(slurp(s / "ab.compare.md") == expected);
  CHECK(r.out == expected + "wrote ab.compare.md, ab.compare.json\n");
  CHECK(r.err.empty());

  const json doc = json::parse(slurp(s / "ab.compare.json"));
  CHECK(doc["schema"] == "gpuprobe.compare");
  CHECK(doc["schema_version"] == 1);
  REQUIRE(doc["inputs"].size() == 2);
  CHECK(doc["inputs"][1]["source"] == "simulated");
  CHECK(doc["inputs"][1]["device"]["sm_count"] == 200);
  REQUIRE(doc["rows"].size() == 9);
  const json& dram = doc["rows"][4];
  CHECK(dram["id"] == "bandwidth.DRAM.read_bytes_per_s");
  CHECK(dram["ratios"][0].is_null());
  CHECK(dram["ratios"][1]["absolute"] == 4.0);
  CHECK(dram["ratios"][1]["per_sm_per_clock"] == 1.0);
  CHECK(dram["values"][1]["per_sm_per_clock"]["unit"] == "bytes/clk/SM");
  const json& mixed = doc["rows"][3];
  CHECK(mixed["ratios"][1]["absolute"].is_null());
  REQUIRE(mixed["notes"].size() == 1);
  CHECK(mixed["notes"][0] == "units differ (A cycles, B ns): no ratio");
  CHECK(doc["rows"][7]["values"][0].is_null());  // sync: only in B
  CHECK(doc["rows"][7]["ratios"][1]["absolute"].is_null());
  CHECK(doc["summary"].get<std::string>().rfind(kSummaryBA, 0) == 0);
  CHECK(!fs::exists(s / "ab.compare-latency.png"));  // --no-plot
}

TEST_CASE("compare: three models, a published one labelled as such", "[cli][compare]") {
  Scratch s;
  const Result r = run(s, "compare a.json b.json c_published.json --out abc --no-plot");
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  const std::string expected =
      kInputsAB +
      "| C | c_published.json | Ref GPU C | published | 100 | 1000 MHz |\n"
      "\n"
      "| metric | A | B | C | B/A | C/A | B/A per SM per clock | C/A per SM per clock |\n"
      "|---|---|---|---|---|---|---|---|\n"
      "| memory.L1.latency_cycles | 30.0 cycles | 33.0 cycles | 30.0 cycles | 1.10x | 1.00x | - | - |\n"
      "| memory.L2.latency_cycles | 200 cycles | 300 cycles | - | 1.50x | - | - | - |\n"
      "| memory.L2.capacity_bytes | 50 MiB | 100 MiB | - | 2.00x | - | - | - |\n"
      "| memory.DRAM.latency_cycles | 600 cycles | 300 ns | 600 cycles | units differ | 1.00x | units differ "
      "| - |\n"
      "| bandwidth.DRAM.read_bytes_per_s | 2.00 TB/s | 8.00 TB/s | 1.00 TB/s | 4.00x | 0.50x | 1.00x | 0.50x "
      "|\n"
      "| compute.fma_rn_f32.flops_per_s | 50.0 TFLOP/s | 100 TFLOP/s | - | 2.00x | - | 0.50x | - |\n"
      "| tensor.f16.flops_per_s | 1.00 PFLOP/s | 4.00 PFLOP/s | 1.00 PFLOP/s | 4.00x | 1.00x | 1.00x | 1.00x "
      "|\n"
      "| sync.bar_sync.latency_cycles | - | 20.0 cycles | - | - | - | - | - |\n"
      "| atomics.atom_add.same.ops_per_s | 10.0 Gop/s | - | - | - | - | - | - |\n"
      "\n" +
      kSummaryBA +
      " C (Ref GPU C, published) against A (Test GPU A, measured), 4 metrics compared: the largest "
      "differences in ceilings, latencies and capacities are bandwidth.DRAM.read_bytes_per_s 0.50x (A "
      "faster); "
      "per SM per clock, bandwidth.DRAM.read_bytes_per_s 0.50x (A faster). 2 metrics are in one input only. "
      "C: published "
      "figures (docs/FIGURES.md), not measured by gpuprobe. B: the simulator, not a GPU.\n";
  CHECK(slurp(s / "abc.compare.md") == expected);
  const json doc = json::parse(slurp(s / "abc.compare.json"));
  CHECK(doc["inputs"][2]["source"] == "published");
  CHECK(doc["rows"][4]["values"][2]["source"] == "published");
  CHECK(doc["rows"][4]["ratios"][2]["absolute"] == 0.5);
  CHECK(doc["rows"][3]["ratios"][2]["absolute"] == 1.0);  // C and A agree on the unit
}

TEST_CASE("compare: a published input against a simulated one, and a published metric in a measured model",
          "[cli][compare]") {
  Scratch s;
  json a = fixture("a.json");
  a["metrics"][0]["source"] = "published";  // memory.L1.latency_cycles
  std::ofstream(s / "a_mixed.json") << a.dump();
  const Result r = run(s, "compare c_published.json b.json a_mixed.json --out x --no-plot");
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("| A | c_published.json | Ref GPU C | published | 100 | 1000 MHz |") != std::string::npos);
  CHECK(r.out.find("| B | b.json | Test GPU B | simulated | 200 | 2000 MHz |") != std::string::npos);
  CHECK(r.out.find("| memory.L1.latency_cycles | 30.0 cycles | 33.0 cycles | 30.0 cycles (published) | 1.10x "
                   "| 1.00x |") != std::string::npos);
  CHECK(r.out.find("B (Test GPU B, simulated) against A (Ref GPU C, published)") != std::string::npos);
  CHECK(r.out.find("A: published figures (docs/FIGURES.md), not measured by gpuprobe. B: the simulator, not a GPU.") !=
        std::string::npos);
}

TEST_CASE("compare: ratio arithmetic", "[cli][compare]") {
  const json base = model({metric("bandwidth.L2.bytes_per_s", 3e12, "bytes/s", {{"value", 30}, {"unit", "bytes/clk/SM"}}),
                           metric("bandwidth.L1.bytes_per_s", 0, "bytes/s"),
                           metric("tensor.f16.flops_per_s", 2e15, "flop/s", {{"value", 8}, {"unit", "flop/clk/SM"}}),
                           metric("compute.fma_rn_f32.flops_per_s", nullptr, "flop/s")});
  const json other = model({metric("bandwidth.L2.bytes_per_s", 1.5e12, "bytes/s", {{"value", 45}, {"unit", "bytes/clk/SM"}}),
                            metric("bandwidth.L1.bytes_per_s", 5e12, "bytes/s"),
                            metric("tensor.f16.flops_per_s", 3e15, "flop/s", {{"value", 8}, {"unit", "flop/clk"}}),
                            metric("compute.fma_rn_f32.flops_per_s", 1e12, "flop/s")});
  const json doc = gpuprobe::compare_models({base, other}, {"base.json", "other.json"});
  REQUIRE(doc["rows"].size() == 4);
  CHECK(doc["rows"][0]["id"] == "bandwidth.L2.bytes_per_s");
  CHECK(doc["rows"][0]["ratios"][1]["absolute"] == 0.5);
  CHECK(doc["rows"][0]["ratios"][1]["per_sm_per_clock"] == 1.5);
  CHECK(doc["rows"][1]["ratios"][1]["absolute"].is_null());  // base 0: no ratio
  CHECK(doc["rows"][2]["id"] == "compute.fma_rn_f32.flops_per_s");  // families in order: compute before tensor
  CHECK(doc["rows"][2]["ratios"][1]["absolute"].is_null());  // base value null
  CHECK(doc["rows"][3]["ratios"][1]["absolute"] == 1.5);
  CHECK(doc["rows"][3]["ratios"][1]["per_sm_per_clock"].is_null());  // flop/clk/SM against flop/clk
  const std::string md = gpuprobe::compare_markdown(doc);
  CHECK(md.find("| compute.fma_rn_f32.flops_per_s | n/a | 1.00 TFLOP/s | - | - |") != std::string::npos);
  CHECK(md.find("| bandwidth.L2.bytes_per_s | 3.00 TB/s | 1.50 TB/s | 0.50x | 1.50x |") != std::string::npos);
  CHECK(
      doc["summary"] ==
      "B (M, measured) against A (M, measured), 2 metrics compared: the largest differences in ceilings, "
      "latencies and capacities are "
      "bandwidth.L2.bytes_per_s 0.50x (A faster), tensor.f16.flops_per_s 1.50x (B faster); per SM per clock, "
      "bandwidth.L2.bytes_per_s 1.50x (B faster).");
}

TEST_CASE("compare: the default PREFIX is in the current folder, named after the inputs, never beside one",
          "[cli][compare]") {
  // A published profile first ("the GPU as published, against my run"): nothing may land in its
  // folder, which report.py reads as reference profiles (results/reference/).
  Scratch s;
  fs::create_directories(s.dir / "ref");
  fs::copy_file(s.dir / "c_published.json", s.dir / "ref" / "c_published.json");
  const Result r = run(s, "compare ref/c_published.json a.json --no-plot");
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("wrote c_published-vs-a.compare.md, c_published-vs-a.compare.json\n") !=
        std::string::npos);
  CHECK(fs::exists(s.dir / "c_published-vs-a.compare.json"));
  CHECK(fs::exists(s.dir / "c_published-vs-a.compare.md"));
  std::vector<std::string> in_ref;
  for (const auto& e : fs::directory_iterator(s.dir / "ref")) in_ref.push_back(e.path().filename().string());
  CHECK(in_ref == std::vector<std::string>{"c_published.json"});

  CHECK(gpuprobe::default_compare_name({"x/F/machine_model.json", "b.json"}) == "F-vs-b");
  CHECK(gpuprobe::default_compare_name({"a.json", "b.json", "c d.json", "e.json", "f.json"}) ==
        "a-vs-b-vs-c_d-and-2-more");
}

TEST_CASE(
    "compare: a run-all folder stands for its model, a folder without one and a model twice are refused",
    "[cli][compare]") {
  Scratch s;
  fs::create_directories(s.dir / "run");
  fs::copy_file(s.dir / "b.json", s.dir / "run" / "machine_model.json");
  fs::create_directories(s.dir / "empty");
  Result r = run(s, "compare a.json run --no-plot");
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(fs::exists(s.dir / "a-vs-run.compare.json"));
  CHECK(json::parse(slurp(s.dir / "a-vs-run.compare.json"))["inputs"][1]["file"] == "run/machine_model.json");

  r = run(s, "compare a.json empty --no-plot");
  CHECK(r.rc == 1);
  CHECK(r.err ==
        "gpuprobe: error: empty is a folder without machine_model.json (run-all writes one; or give the "
        "model's file)\n");
  fs::create_symlink("a.json", s.dir / "link.json");
  for (const char* twice : {"a.json a.json", "a.json link.json", "run run/machine_model.json"}) {
    INFO(twice);
    r = run(s, std::string("compare ") + twice + " --no-plot --out twice");
    CHECK(r.rc == 1);
    CHECK(r.err.find("are the same file: compare needs two different models\n") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(!fs::exists(s.dir / "twice.compare.json"));
  }
}

TEST_CASE("compare: --out DIR/ writes DIR/NAME.compare.*, never a hidden .compare.json", "[cli][compare]") {
  Scratch s;
  const Result r = run(s, "compare a.json b.json --no-plot --out outdir/");
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(fs::exists(s.dir / "outdir" / "a-vs-b.compare.json"));
  CHECK(!fs::exists(s.dir / "outdir" / ".compare.json"));
  fs::create_directories(s.dir / "existing");
  CHECK(run(s, "compare a.json b.json --no-plot --out existing").rc == 0);
  CHECK(fs::exists(s.dir / "existing" / "a-vs-b.compare.md"));
}

TEST_CASE("compare: --family keeps the metrics of those families and refuses an unknown family",
          "[cli][compare]") {
  Scratch s;
  Result r = run(s, "compare a.json b.json --no-plot --out fam --family memory,tensor");
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  const json doc = json::parse(slurp(s / "fam.compare.json"));
  std::vector<std::string> ids;
  for (const auto& row : doc["rows"]) ids.push_back(row["id"]);
  CHECK(ids == std::vector<std::string>{"memory.L1.latency_cycles", "memory.L2.latency_cycles",
                                        "memory.L2.capacity_bytes", "memory.DRAM.latency_cycles",
                                        "tensor.f16.flops_per_s"});
  CHECK(doc["families"] == json{"memory", "tensor"});
  CHECK(doc["plots"]["inputs"][0]["roofline"]["memory"].empty());  // no bandwidth asked for
  r = run(s, "compare a.json b.json --no-plot --out fam2 --family memry");
  CHECK(r.rc == 1);
  CHECK(r.err.rfind("gpuprobe: error: --family: no family 'memry' (the families: ", 0) == 0);
  CHECK(!fs::exists(s / "fam2.compare.json"));
}

TEST_CASE("compare: the summary ranks ceilings, latencies and capacities, never derived figures",
          "[cli][compare]") {
  const auto derived = [](const std::string& id, double v, const std::string& unit) {
    json m = metric(id, v, unit);
    m["ceiling"] = false;
    m["better"] = "lower";
    return m;
  };
  const json a = model({metric("bandwidth.DRAM.read_bytes_per_s", 2e12, "bytes/s"),
                        derived("goodput.triad.prediction_error_percent", 0.17, "percent"),
                        derived("roofline.f32.ridge_DRAM_flop_per_byte", 25, "flop/byte"),
                        derived("memory.L2.latency_cycles", 200, "cycles")});
  const json b = model({metric("bandwidth.DRAM.read_bytes_per_s", 2.2e12, "bytes/s"),
                        derived("goodput.triad.prediction_error_percent", 0.007, "percent"),
                        derived("roofline.f32.ridge_DRAM_flop_per_byte", 250, "flop/byte"),
                        derived("memory.L2.latency_cycles", 300, "cycles")});
  const json doc = gpuprobe::compare_models({a, b}, {"a.json", "b.json"});
  CHECK(doc["summary"] ==
        "B (M, measured) against A (M, measured), 4 metrics compared: the largest differences in ceilings, "
        "latencies and capacities are memory.L2.latency_cycles 1.50x (A faster), "
        "bandwidth.DRAM.read_bytes_per_s "
        "1.10x (B faster).");
  CHECK(doc["rows"][0]["ceiling"] == false);  // memory.L2.latency_cycles
  const json c = model(json::array({derived("goodput.triad.prediction_error_percent", 0.1, "percent")}));
  const json d = model(json::array({derived("goodput.triad.prediction_error_percent", 0.2, "percent")}));
  // Only derived figures (--family roofline): not ranked, and not "no difference" either.
  CHECK(gpuprobe::compare_models({c, d}, {"c.json", "d.json"})["summary"] ==
        "B (M, measured) against A (M, measured), 1 metric compared: none of them is a ceiling, latency or "
        "capacity, which the summary ranks; of the derived figures (ridge points, prediction errors: the "
        "table lists them) the largest difference is goodput.triad.prediction_error_percent 2.00x.");
  CHECK(gpuprobe::compare_models({c, c}, {"c.json", "c2.json"})["summary"] ==
        "B (M, measured) against A (M, measured), 1 metric compared: no difference in a ceiling, latency or "
        "capacity.");
}

TEST_CASE("compare: bad input is refused in one line before anything is written", "[cli][compare]") {
  Scratch s;
  const auto refused = [&](const std::string& args, const std::string& message) {
    const Result r = run(s, "compare " + args + " --out bad --no-plot");
    INFO(args << "\n" << r.out << r.err);
    CHECK(r.rc == 1);
    CHECK(r.err == "gpuprobe: error: " + message + "\n");
    CHECK(!fs::exists(s / "bad.compare.md"));
    CHECK(!fs::exists(s / "bad.compare.json"));
  };
  refused("a.json v1_no_metrics.json",
          "v1_no_metrics.json has no metrics[] (machine model schema_version 1): fit it again with this gpuprobe "
          "(gpuprobe analyze DIR/raw/*.json --out MODEL.json)");
  refused("a.json", "compare needs two or more machine models (A.json B.json ...)");
  refused("a.json missing.json", "cannot open missing.json");
  std::ofstream(s / "run.json") << json{{"schema", "gpuprobe.run"}, {"schema_version", 1}}.dump();
  refused("a.json run.json", "run.json is not a gpuprobe machine model (schema \"gpuprobe.machine_model\")");
  json a = fixture("a.json");
  a["metrics"][2].erase("unit");
  std::ofstream(s / "no_unit.json") << a.dump();
  refused("a.json no_unit.json", "no_unit.json: metrics[2] (memory.L2.capacity_bytes) has no unit");
  a = fixture("a.json");
  a["metrics"].push_back(a["metrics"][0]);
  std::ofstream(s / "twice.json") << a.dump();
  refused("a.json twice.json", "twice.json lists the metric memory.L1.latency_cycles twice");
  a = fixture("a.json");
  a["schema_version"] = gpuprobe::kModelSchemaVersion + 1;  // newer than this build
  std::ofstream(s / "v3.json") << a.dump();
  refused("a.json v3.json", "v3.json has machine model schema_version " +
                                std::to_string(gpuprobe::kModelSchemaVersion + 1) + "; compare reads version " +
                                std::to_string(gpuprobe::kModelSchemaVersion));

  const Result r = run(s, "compare a.json b.json --out a.json --no-plot");  // a.json.compare.*: fine
  CHECK(r.rc == 0);
  CHECK_THROWS_AS(gpuprobe::compare_models({fixture("a.json")}, {"a.json"}), gpuprobe::Error);
}

}  // namespace GPUPROBE_TEST_FILE
