// `gpuprobe aggregate` run as a process: the exact Markdown tables on fixtures (tests/data/aggregate/:
// four runs of one H100 model, node4 20% slow on DRAM, node3 1.5% low on tensor, one metric absent
// in node3 and null in node2; an A100; a published profile; a model from before metrics[]), the
// edge cases (one input, even n, mixed models and sources, bad input), and end to end on the
// simulator: three H100s and one injected slow device (sim:h100,slowdown=1.3), the slow one flagged.
#include <catch2/catch.hpp>

#include <stdlib.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/gpuprobe_run.hpp"

namespace GPUPROBE_TEST_FILE {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const fs::path kFixtures = fs::path(GPUPROBE_TEST_DATA_DIR) / "aggregate";

// A folder of its own under /tmp for one test's outputs, gone when the test ends.
struct TempDir : gpuprobe::test::Scratch {
  TempDir() : Scratch("aggregate") {}
  const fs::path& path() const { return dir; }
};

using gpuprobe::test::slurp;
using Outcome = gpuprobe::test::Result;

// `gpuprobe ARGS` started in `cwd` (inputs named relative to it); stdout and stderr land in `tmp`.
Outcome run_in(const fs::path& cwd, const std::string& args, const TempDir& tmp) {
  return gpuprobe::test::run_gpuprobe(tmp, args, "", cwd);
}

Outcome aggregate(const std::string& args, const TempDir& tmp) { return run_in(kFixtures, "aggregate " + args, tmp); }

// The part of a Markdown document from the heading `from` up to the next "## " heading.
std::string section(const std::string& md, const std::string& from) {
  const auto start = md.find(from);
  if (start == std::string::npos) return "";
  const auto end = md.find("\n## ", start + from.size());
  return md.substr(start, end == std::string::npos ? std::string::npos : end + 1 - start);
}

int line_count(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

void write(const fs::path& file, const json& doc) { std::ofstream(file) << doc.dump(1) << "\n"; }

const std::string kOutliersHead =
    "## Outliers\n\n"
    "| file | device | uuid | pci_bus_id | metric | value | median | off median | unit |\n"
    "|---|---|---|---|---|---|---|---|---|\n";

const std::string kFourNodes = "node1.json node2.json node3.json node4.json";

const char* const kFourNodesMarkdown = R"(# gpuprobe aggregate: 4 runs of NVIDIA H100 80GB HBM3

Source: measured. An outlier is a run more than 5% worse than the median on a ceiling (a metric with `ceiling: true`; `better` says which way is worse).
Result: 1 outlier(s) in 1 of 4 runs.

## Runs

| # | file | uuid | pci_bus_id | ceilings | worst ceiling | off median | outliers |
|---|---|---|---|---|---|---|---|
| 1 | node1.json | GPU-3f1c2a10-0000-4000-8000-000000000001 | 00000000:18:00.0 | 3 | bandwidth.DRAM.read_bytes_per_s | +0.3% | 0 |
| 2 | node2.json | GPU-3f1c2a10-0000-4000-8000-000000000002 | 00000000:2A:00.0 | 3 | tensor.f16.flops_per_s | -0.1% | 0 |
| 3 | node3.json | GPU-3f1c2a10-0000-4000-8000-000000000003 | 00000000:3B:00.0 | 2 | tensor.f16.flops_per_s | -1.5% | 0 |
| 4 | node4.json | GPU-3f1c2a10-0000-4000-8000-000000000004 | 00000000:5D:00.0 | 3 | bandwidth.DRAM.read_bytes_per_s | -19.7% | 1 |

## Outliers

| file | device | uuid | pci_bus_id | metric | value | median | off median | unit |
|---|---|---|---|---|---|---|---|---|
| node4.json | NVIDIA H100 80GB HBM3 | GPU-3f1c2a10-0000-4000-8000-000000000004 | 00000000:5D:00.0 | bandwidth.DRAM.read_bytes_per_s | 2.40 TB/s | 2.99 TB/s | -19.7% | bytes/s |

## Metrics

| metric | unit | better | ceiling | n | median | min | max | MAD | range | outliers |
|---|---|---|---|---|---|---|---|---|---|---|
| bandwidth.DRAM.read_bytes_per_s | bytes/s | higher | yes | 4 | 2.99 TB/s | 2.40 TB/s | 3.02 TB/s | 0.67% | 20.7% | 1 |
| bandwidth.L2.bytes_per_s | bytes/s | higher | yes | 3 | 10.1 TB/s | 10.0 TB/s | 10.2 TB/s | 0.99% | 2.0% | 0 |
| tensor.f16.flops_per_s | flop/s | higher | yes | 4 | 751 TFLOP/s | 740 TFLOP/s | 756 TFLOP/s | 0.40% | 2.1% | 0 |
| memory.DRAM.latency_cycles | cycles | lower | no | 4 | 802 cycles | 795 cycles | 960 cycles | 0.62% | 20.6% | 0 |
| launch.overhead.round_trip_ns | ns | lower | no | 3 | 4550 ns | 4500 ns | 4600 ns | 1.10% | 2.2% | 0 |

No value (metric absent or null) in:

- bandwidth.L2.bytes_per_s: node3.json
- launch.overhead.round_trip_ns: node2.json
)";

}  // namespace

// By hand: DRAM read 2.40, 2.98, 3.00, 3.02 TB/s: median (2.98 + 3.00) / 2 = 2.99, node4 (2.40 - 2.99)
// / 2.99 = -19.7%; MAD median(0.01, 0.01, 0.03, 0.59) = 0.02 = 0.67%; range 0.62 / 2.99 = 20.7%.
// DRAM latency is 20% high on node4 too, but it is no ceiling: summarised, never flagged.
TEST_CASE("aggregate of four runs: the exact runs, outliers and metrics tables, and exit 3", "[cli][aggregate]") {
  TempDir tmp;
  const Outcome r = aggregate(kFourNodes + " --out " + (tmp / "fleet"), tmp);
  CHECK(r.rc == 3);
  CHECK(r.err.empty());
  const std::string md = slurp(tmp / "fleet.aggregate.md");
  CHECK(md == kFourNodesMarkdown);
  CHECK(r.out.rfind(md, 0) == 0);  // stdout: the same tables, then where they went
  CHECK(r.out.find("wrote " + (tmp / "fleet") + ".aggregate.json") != std::string::npos);

  const json doc = json::parse(slurp(tmp / "fleet.aggregate.json"));
  CHECK(doc["schema"] == "gpuprobe.aggregate");
  CHECK(doc["schema_version"] == 1);
  CHECK(doc["outlier_percent"] == 5.0);
  CHECK(doc["models"] == json::array({"NVIDIA H100 80GB HBM3"}));
  CHECK(doc["sources"] == json::array({"measured"}));
  REQUIRE(doc["outliers"].size() == 1);
  const json& o = doc["outliers"][0];
  CHECK(o["file"] == "node4.json");
  CHECK(o["metric"] == "bandwidth.DRAM.read_bytes_per_s");
  CHECK(o["uuid"] == "GPU-3f1c2a10-0000-4000-8000-000000000004");
  CHECK(o["pci_bus_id"] == "00000000:5D:00.0");
  CHECK(o["value"].get<double>() == Approx(2.40e12));
  CHECK(o["median"].get<double>() == Approx(2.99e12));
  CHECK(o["percent_off"].get<double>() == Approx(100 * (2.40 - 2.99) / 2.99));
  CHECK(o["percent_worse"].get<double>() == Approx(100 * (2.99 - 2.40) / 2.99));
  const json& l2 = doc["metrics"][1];
  CHECK(l2["id"] == "bandwidth.L2.bytes_per_s");
  CHECK(l2["values"] == json::parse("[1.02e13, 1.01e13, null, 1.0e13]"));
  CHECK(l2["missing"] == json::array({"node3.json"}));
  CHECK(doc["inputs"][3]["worst_ceiling"]["metric"] == "bandwidth.DRAM.read_bytes_per_s");
}

TEST_CASE("a lower --outlier-percent (1) also flags node3, 1.5% below the median tensor peak", "[cli][aggregate]") {
  TempDir tmp;
  const Outcome r = aggregate(kFourNodes + " --outlier-percent 1", tmp);
  CHECK(r.rc == 3);
  CHECK(section(r.out, "## Outliers") ==
        kOutliersHead +
            "| node4.json | NVIDIA H100 80GB HBM3 | GPU-3f1c2a10-0000-4000-8000-000000000004 | "
            "00000000:5D:00.0 | "
            "bandwidth.DRAM.read_bytes_per_s | 2.40 TB/s | 2.99 TB/s | -19.7% | bytes/s |\n"
            "| node3.json | NVIDIA H100 80GB HBM3 | GPU-3f1c2a10-0000-4000-8000-000000000003 | "
            "00000000:3B:00.0 | "
            "tensor.f16.flops_per_s | 740 TFLOP/s | 751 TFLOP/s | -1.5% | flop/s |\n\n");
  CHECK(r.out.find("Result: 2 outlier(s) in 2 of 4 runs.\n") != std::string::npos);
  // node4's L2 is 0.99% low: not more than 1%.
  CHECK(r.out.find("| node4.json | NVIDIA H100 80GB HBM3 | GPU-3f1c2a10-0000-4000-8000-000000000004 | "
                   "00000000:5D:00.0 | bandwidth.L2") == std::string::npos);
}

TEST_CASE("one input: its values are the medians, no spread, no outlier, exit 0", "[cli][aggregate]") {
  TempDir tmp;
  const Outcome r = aggregate("node4.json", tmp);
  CHECK(r.rc == 0);
  CHECK(r.out.rfind("# gpuprobe aggregate: 1 run of NVIDIA H100 80GB HBM3\n", 0) == 0);
  CHECK(
      r.out.find("\nResult: one run, so no outlier: a run is judged against the median of two or more.\n") !=
      std::string::npos);
  CHECK(section(r.out, "## Outliers") ==
        "## Outliers\n\nNone: every run is within 5% of the median on every ceiling.\n\n");
  CHECK(section(r.out, "## Metrics") ==
        "## Metrics\n\n"
        "| metric | unit | better | ceiling | n | median | min | max | MAD | range | outliers |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n"
        "| bandwidth.DRAM.read_bytes_per_s | bytes/s | higher | yes | 1 | 2.40 TB/s | 2.40 TB/s | 2.40 TB/s "
        "| 0.00% | 0.0% | 0 |\n"
        "| bandwidth.L2.bytes_per_s | bytes/s | higher | yes | 1 | 10.0 TB/s | 10.0 TB/s | 10.0 TB/s | 0.00% "
        "| 0.0% | 0 |\n"
        "| tensor.f16.flops_per_s | flop/s | higher | yes | 1 | 752 TFLOP/s | 752 TFLOP/s | 752 TFLOP/s | "
        "0.00% | 0.0% | 0 |\n"
        "| memory.DRAM.latency_cycles | cycles | lower | no | 1 | 960 cycles | 960 cycles | 960 cycles | "
        "0.00% | 0.0% | 0 |\n"
        "| launch.overhead.round_trip_ns | ns | lower | no | 1 | 4550 ns | 4550 ns | 4550 ns | 0.00% | 0.0% "
        "| 0 |\n");
}

// Even n: node1 3.00 and node2 3.02 TB/s give 3.01; MAD 0.01 / 3.01 = 0.33%, range 0.02 / 3.01 = 0.7%.
// node3 lacks the L2 metric: n 1, and it is named; node2's null round trip likewise.
TEST_CASE("even n takes the mean of the two middle values, and a missing metric is counted out and named",
          "[cli][aggregate]") {
  TempDir tmp;
  Outcome r = aggregate("node1.json node2.json", tmp);
  CHECK(r.rc == 0);
  CHECK(r.out.find("\n| bandwidth.DRAM.read_bytes_per_s | bytes/s | higher | yes | 2 | 3.01 TB/s | 3.00 TB/s "
                   "| 3.02 TB/s | "
                   "0.33% | 0.7% | 0 |\n") != std::string::npos);
  r = aggregate("node2.json node3.json", tmp);
  CHECK(r.rc == 0);
  CHECK(r.out.find(
            "\n| bandwidth.L2.bytes_per_s | bytes/s | higher | yes | 1 | 10.1 TB/s | 10.1 TB/s | 10.1 TB/s | "
            "0.00% | 0.0% | 0 |\n") != std::string::npos);
  CHECK(r.out.find("\n| launch.overhead.round_trip_ns | ns | lower | no | 1 | 4600 ns | 4600 ns | 4600 ns | "
                   "0.00% | 0.0% | 0 |\n") != std::string::npos);
  CHECK(r.out.find("No value (metric absent or null) in:\n\n- bandwidth.L2.bytes_per_s: node3.json\n"
                   "- launch.overhead.round_trip_ns: node2.json\n") != std::string::npos);
}

TEST_CASE("different GPU models are refused in one line, and aggregated with --allow-mixed", "[cli][aggregate]") {
  TempDir tmp;
  const std::string out = " --out " + (tmp / "mixed");
  Outcome r = aggregate("node1.json a100.json" + out, tmp);
  CHECK(r.rc == 1);
  CHECK(r.err ==
        "gpuprobe: error: inputs are different GPU models: node1.json is 'NVIDIA H100 80GB HBM3', a100.json is "
        "'NVIDIA A100-SXM4-80GB' (--allow-mixed to aggregate them anyway)\n");
  CHECK(!fs::exists(tmp / "mixed.aggregate.json"));
  CHECK(!fs::exists(tmp / "mixed.aggregate.md"));
  r = aggregate("node1.json a100.json --allow-mixed" + out, tmp);
  CHECK(r.rc == 3);  // the A100's DRAM is 22% below the median of the two
  CHECK(r.out.rfind("# gpuprobe aggregate: 2 runs of 2 GPU models (NVIDIA H100 80GB HBM3, NVIDIA A100-SXM4-80GB)\n",
                    0) == 0);
  CHECK(r.out.find("Note: --allow-mixed: the inputs are different GPU models") != std::string::npos);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.rfind("gpuprobe: warning: --allow-mixed:", 0) == 0);
  CHECK(json::parse(slurp(tmp / "mixed.aggregate.json"))["models"].size() == 2);
}

TEST_CASE("measured and published numbers of a metric are not mixed silently", "[cli][aggregate]") {
  TempDir tmp;
  Outcome r = aggregate("node1.json published_h100.json", tmp);
  CHECK(r.rc == 1);
  CHECK(r.err ==
        "gpuprobe: error: metric bandwidth.DRAM.read_bytes_per_s is measured in node1.json but published in "
        "published_h100.json: refusing to mix sources (--allow-mixed-sources to aggregate them anyway)\n");
  r = aggregate("node1.json published_h100.json --allow-mixed-sources", tmp);
  CHECK(r.rc == 3);  // node1 is 5.5% below the median of itself and the datasheet
  CHECK(r.out.find("Source: measured, published.") != std::string::npos);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.rfind("gpuprobe: warning: --allow-mixed-sources: sources are mixed", 0) == 0);
}

TEST_CASE("a ceiling where lower is better is flagged above the median, never below", "[cli][aggregate]") {
  TempDir tmp;
  const json base = json::parse(slurp(kFixtures / "node1.json"));
  int k = 0;
  for (double ns : {100.0, 100.0, 120.0, 80.0}) {
    json model = base;
    model["device"]["uuid"] = "GPU-" + std::to_string(++k);
    model["metrics"] = json::array({base["metrics"][4]});
    model["metrics"][0].update({{"ceiling", true}, {"value", ns}});
    write(tmp / ("m" + std::to_string(k) + ".json"), model);
  }
  const Outcome r = run_in(tmp.path(), "aggregate m1.json m2.json m3.json m4.json --outlier-percent 10", tmp);
  CHECK(r.rc == 3);
  CHECK(section(r.out, "## Outliers") == kOutliersHead +
                                             "| m3.json | NVIDIA H100 80GB HBM3 | GPU-3 | 00000000:18:00.0 | "
                                             "launch.overhead.round_trip_ns | 120 ns | 100 ns | "
                                             "+20.0% | ns |\n\n");
}

TEST_CASE("a run-all folder stands for its machine_model.json", "[cli][aggregate]") {
  TempDir tmp;
  for (const std::string node : {"node1", "node4"}) {
    fs::create_directories(tmp / ("host-" + node));
    fs::copy_file(kFixtures / (node + ".json"), tmp.path() / ("host-" + node) / "machine_model.json");
  }
  const Outcome r = run_in(tmp.path(), "aggregate host-node1 host-node4/", tmp);
  CHECK(r.rc == 3);
  CHECK(r.out.find("| host-node4/machine_model.json | NVIDIA H100 80GB HBM3 |") != std::string::npos);
}

TEST_CASE("bad input: one line, exit 1, nothing written", "[cli][aggregate]") {
  TempDir tmp;
  const json node = json::parse(slurp(kFixtures / "node1.json"));
  json no_unit = node, other_unit = node, bad_ceiling = node, twice = node;
  no_unit["metrics"][0].erase("unit");
  other_unit["metrics"][0]["unit"] = "GB/s";
  bad_ceiling["metrics"][0]["ceiling"] = "yes";
  twice["metrics"].push_back(node["metrics"][0]);
  write(tmp / "no_unit.json", no_unit);
  write(tmp / "other_unit.json", other_unit);
  write(tmp / "bad_ceiling.json", bad_ceiling);
  write(tmp / "twice.json", twice);
  write(tmp / "run_record.json", {{"schema", "gpuprobe.run"}, {"schema_version", 1}});
  std::ofstream(tmp / "broken.json") << "{\"schema\": ";
  fs::create_directories(tmp / "empty-folder");
  fs::copy_file(kFixtures / "node1.json", tmp / "node1.json");
  fs::copy_file(kFixtures / "v1_no_metrics.json", tmp / "v1.json");
  const std::pair<std::string, std::string> cases[] = {
      {"node1.json v1.json", "v1.json has no metrics[] (machine model schema_version 1)"},
      {"node1.json node1.json", "are the same file"},
      {"node1.json ./node1.json", "are the same file"},
      {"node1.json --outlier-percent 0", "--outlier-percent must be a positive number"},
      {"node1.json --outlier-percent -3", "--outlier-percent must be a positive number"},
      {"node1.json --outlier-percent nan", "--outlier-percent must be a positive number"},
      {"node1.json no_unit.json", "no_unit.json: metrics[0] (bandwidth.DRAM.read_bytes_per_s) has no unit"},
      {"node1.json other_unit.json", "other_unit.json: metric bandwidth.DRAM.read_bytes_per_s has unit 'GB/s'"},
      {"bad_ceiling.json", "ceiling is \"yes\", not true or false"},
      {"twice.json", "metric bandwidth.DRAM.read_bytes_per_s appears twice"},
      {"run_record.json", "run_record.json is not a gpuprobe machine model"},
      {"broken.json", "broken.json"},
      {"empty-folder", "empty-folder is a folder without machine_model.json"},
      {"missing.json", "missing.json"},
  };
  for (const auto& [args, says] : cases) {
    INFO(args);
    const Outcome r = run_in(tmp.path(), "aggregate " + args + " --out fleet", tmp);
    CHECK(r.rc == 1);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.rfind("gpuprobe: error: ", 0) == 0);
    CHECK(r.err.find(says) != std::string::npos);
    CHECK(!fs::exists(tmp / "fleet.aggregate.json"));
    CHECK(!fs::exists(tmp / "fleet.aggregate.md"));
  }
  // --out over an input.
  const Outcome r = run_in(tmp.path(), "aggregate fleet.aggregate.json --out fleet", tmp);
  CHECK(r.rc == 1);
  fs::copy_file(tmp / "node1.json", tmp / "fleet.aggregate.json");
  const Outcome over = run_in(tmp.path(), "aggregate fleet.aggregate.json --out fleet", tmp);
  CHECK(over.rc == 1);
  CHECK(over.err.find("would write") != std::string::npos);
  CHECK(slurp(tmp / "fleet.aggregate.json") == slurp(tmp / "node1.json"));
  // No input at all is command-line syntax.
  CHECK(run_in(tmp.path(), "aggregate", tmp).rc == 2);
}

TEST_CASE(
    "a model fitted with warnings is aggregated with a warning, and --out DIR/ writes DIR/fleet.aggregate.*",
    "[cli][aggregate]") {
  TempDir tmp;
  json node1 = json::parse(slurp(kFixtures / "node1.json"));
  node1["warnings"] = {"memory_chase_default.json is interrupted, not ok: fitted from the 10 points it has"};
  write(tmp / "node1.json", node1);
  fs::copy_file(kFixtures / "node2.json", tmp / "node2.json");
  const Outcome r = run_in(tmp.path(), "aggregate node1.json node2.json --out out/", tmp);
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  const std::string note =
      "node1.json was fitted with 1 warning (memory_chase_default.json is interrupted, not ok: fitted from "
      "the 10 "
      "points it has): its metrics may be partial";
  CHECK(r.err == "gpuprobe: warning: " + note + "\n");
  CHECK(r.out.find("Note: " + note + "\n") != std::string::npos);
  CHECK(fs::exists(tmp / "out/fleet.aggregate.json"));
  CHECK(fs::exists(tmp / "out/fleet.aggregate.md"));
  CHECK_FALSE(fs::exists(tmp / "out/.aggregate.json"));
  CHECK(json::parse(slurp(tmp / "out/fleet.aggregate.json"))["notes"] == json::array({note}));
}

// End to end on the simulator: DRAM read bandwidth (bandwidth/dram) and FP32 FMA rate (compute/alu)
// of three sim:h100 and one sim:h100,slowdown=1.3, each fitted by `analyze`, then aggregated. The
// slow device is 1 - 1/1.3 = 23% below the median on each ceiling; the simulator's noise is 0.4%,
// so 5% flags it and nothing else whatever the machine's load (the numbers do not depend on time).
TEST_CASE("three simulated H100s and one injected slow device: aggregate flags exactly the slow one",
          "[cli][aggregate][sim]") {
  TempDir tmp;
  const std::string devices[] = {"sim:h100", "sim:h100", "sim:h100,slowdown=1.3", "sim:h100"};
  std::string models;
  for (int i = 0; i < 4; ++i) {
    const std::string node = "gpu" + std::to_string(i);
    const std::string device = " --device '" + devices[i] + "' --out " + node;
    REQUIRE(run_in(tmp.path(), "probe bandwidth/dram --kind read --concurrency off" + device + "-dram.json", tmp).rc == 0);
    REQUIRE(run_in(tmp.path(), "probe compute/alu --op fma_rn_f32" + device + "-alu.json", tmp).rc == 0);
    REQUIRE(run_in(tmp.path(), "analyze " + node + "-dram.json " + node + "-alu.json --out " + node + ".json", tmp).rc == 0);
    models += " " + node + ".json";
  }
  const Outcome r = run_in(tmp.path(), "aggregate" + models + " --out fleet", tmp);
  INFO(r.out << r.err);
  CHECK(r.rc == 3);
  const json doc = json::parse(slurp(tmp / "fleet.aggregate.json"));
  CHECK(doc["sources"] == json::array({"simulated"}));
  // The FMA's op/s is the same measurement as its FLOP/s: judged once, so one slow FMA is one
  // outlier, not two.
  std::set<std::string> ids;
  for (const auto& m : doc["metrics"]) ids.insert(m["id"].get<std::string>());
  int ceilings = 0;
  for (const auto& m : doc["metrics"]) {
    const std::string id = m["id"];
    const bool twin = id.size() > 10 && id.compare(id.size() - 10, 10, ".ops_per_s") == 0 &&
                      ids.count(id.substr(0, id.size() - 10) + ".flops_per_s");
    ceilings += m["ceiling"].get<bool>() && m["n"] == 4 && !twin;
  }
  CHECK(ids.count("compute.fma_rn_f32.ops_per_s"));
  CHECK(ceilings >= 2);  // DRAM read bandwidth and the FMA rate at least
  REQUIRE(doc["outliers"].size() == static_cast<std::size_t>(ceilings));
  CHECK(r.out.find("Result: " + std::to_string(ceilings) + " outlier(s) in 1 of 4 runs.") !=
        std::string::npos);
  for (const auto& o : doc["outliers"]) {
    CHECK(o["file"] == "gpu2.json");
    CHECK(o["metric"] != "compute.fma_rn_f32.ops_per_s");
    CHECK(o["uuid"] == "sim-h100-slowdown-1.3");
    CHECK(o["percent_off"].get<double>() == Approx(100 * (1 / 1.3 - 1)).margin(2));
  }
  for (int i : {0, 1, 3}) {
    CHECK(doc["inputs"][i]["outliers"] == 0);
    CHECK(std::fabs(doc["inputs"][i]["worst_ceiling"]["percent_off"].get<double>()) < 2);
  }
  CHECK(doc["inputs"][2]["device"]["sim_preset"] == "h100,slowdown=1.3");
  CHECK(r.out.find("| gpu2.json | NVIDIA H100 PCIe (simulated) | sim-h100-slowdown-1.3 | sim | bandwidth.DRAM.read_bytes_per_s |") !=
        std::string::npos);
}

}  // namespace GPUPROBE_TEST_FILE
