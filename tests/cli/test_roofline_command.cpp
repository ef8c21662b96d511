// `gpuprobe roofline` run as a process: ceilings and kernels printed, PREFIX.roofline.json
// written, bad input refused in one line before anything is written, a model without compute or
// memory ceilings still served, and a missing Python named in one line with the JSON kept.
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

namespace GPUPROBE_TEST_FILE {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using gpuprobe::test::Result;
using gpuprobe::test::slurp;

struct Scratch : gpuprobe::test::Scratch {
  Scratch() : gpuprobe::test::Scratch("roofline-cmd") {}
};

Result run(const Scratch& s, const std::string& args, const std::string& env = "") {
  return gpuprobe::test::run_gpuprobe(s, args, env);
}

json model_with(bool compute, bool memory) {
  json m = {{"schema", "gpuprobe.machine_model"}, {"schema_version", 1},
            {"device", {{"name", "Test GPU"}}}, {"simulated", false}};
  if (compute)
    m["compute"]["ops"]["fma_rn_f32"] = {{"path", "fma"}, {"precision", "f32"}, {"flops_per_s", 50e12},
                                         {"implementation", "native"}};
  if (memory) {
    m["bandwidth"]["DRAM"]["read"]["concurrency"]["peak_bytes_per_s"] = 2e12;
    m["bandwidth"]["L2"]["concurrency"]["peak_bytes_per_s"] = 8e12;
  }
  return m;
}

std::string write_model(const Scratch& s, const json& m, const std::string& name = "m.json") {
  std::ofstream(s / name) << m.dump();
  return s / name;
}

}  // namespace

TEST_CASE("roofline command: ceilings, ridge points and every kernel input, into PREFIX.roofline.json",
          "[cli][roofline]") {
  Scratch s;
  const std::string model = write_model(s, model_with(true, true));
  std::ofstream(s / "k.csv") << "name,flops,time_s,bytes_l2\nl2k,1e12,1,4e12\n";
  const Result r = run(s, "roofline --model " + model + " --no-plot --kernel 'stream:flops=1e12,bytes_hbm=1e12,time_s=1'" +
                              " --kernel 'dense:flops=1e12,bytes_hbm=1e9,time_s=0.05' --kernels-csv " + (s / "k.csv") +
                              " --ncu-csv " + GPUPROBE_TEST_DATA_DIR + "/ncu/roofline_raw.csv");
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("DRAM") != std::string::npos);
  CHECK(r.out.find("50.0 TFLOP/s  fma (fma_rn_f32)  ridge: DRAM 25.0, L2 6.25") != std::string::npos);
  CHECK(r.out.find("stream [f32]: achieved 1.00 TFLOP/s, attainable 2.00 TFLOP/s, bound by DRAM bandwidth, "
                   "50.0% of attainable") != std::string::npos);
  CHECK(r.out.find("dense [f32]: achieved 20.0 TFLOP/s, attainable 50.0 TFLOP/s, bound by compute f32 fma, "
                   "40.0% of attainable") != std::string::npos);
  CHECK(r.out.find("l2k [f32]: achieved 1.00 TFLOP/s, attainable 2.00 TFLOP/s, bound by L2 bandwidth") != std::string::npos);
  CHECK(r.out.find("the model has no compute ceiling for f64") != std::string::npos);  // the ncu dgemm
  CHECK(r.out.find("wrote " + (s / "m.roofline.json")) != std::string::npos);
  const json doc = json::parse(slurp(s / "m.roofline.json"));
  CHECK(doc["schema"] == "gpuprobe.roofline");
  CHECK(doc["kernels"].size() == 6);
  CHECK(doc["roofline"]["compute"]["f32"]["flops_per_s"] == 50e12);
  CHECK(doc["kernels"][0]["bound"]["level"] == "DRAM");

  // --out PREFIX and --precision: the ncu launches counted as f32 (one has none: a note).
  const Result p = run(s, "roofline --model " + model + " --no-plot --precision fp32 --out " + (s / "sub") +
                              " --ncu-csv " + GPUPROBE_TEST_DATA_DIR + "/ncu/roofline_raw.csv");
  INFO(p.out << p.err);
  CHECK(p.rc == 0);
  CHECK(json::parse(slurp(s / "sub.roofline.json"))["kernels"].size() == 2);
  CHECK(p.out.find("note: ") != std::string::npos);
}

TEST_CASE("roofline command: an integer precision's ceiling, ridge points and kernels are in OP/s",
          "[cli][roofline]") {
  Scratch s;
  json m = model_with(true, true);
  m["compute"]["ops"]["mma_m16n8k32_s8_s32"] = {{"path", "mma.sync"}, {"precision", "s8"},
                                                {"flops_per_s", 1e15}, {"implementation", "native"}};
  const std::string model = write_model(s, m);
  const Result r = run(s, "roofline --model " + model + " --no-plot --precision int8" +
                              " --kernel 'igemm:flops=5e14,bytes_hbm=1e9,time_s=1'");
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("OP/byte for an integer precision") != std::string::npos);
  CHECK(r.out.find("s8 (int)   1.00 POP/s  mma.sync (mma_m16n8k32_s8_s32)  ridge: DRAM 500") != std::string::npos);
  CHECK(r.out.find("igemm [s8]: achieved 500 TOP/s, attainable 1.00 POP/s, bound by compute s8 mma.sync") !=
        std::string::npos);
  CHECK(r.out.find("igemm [s8]: achieved 500 TFLOP/s") == std::string::npos);
  const json doc = json::parse(slurp(s / "m.roofline.json"));
  CHECK(doc["roofline"]["compute"]["s8"]["unit"] == "op/s");
  CHECK(doc["roofline"]["compute"]["f32"]["unit"] == "flop/s");
  CHECK(doc["kernels"][0]["unit"] == "op/s");
  // A CUDA-core integer kernel (no ceiling of its own) is in OP/s too.
  const Result w = run(s, "roofline --model " + model + " --no-plot --out " + (s / "w") +
                              " --kernel 'imad:flops=1e12,bytes_hbm=1e9,time_s=1,precision=s32'");
  INFO(w.out << w.err);
  CHECK(w.out.find("imad [s32]: achieved 1.00 TOP/s") != std::string::npos);
}

TEST_CASE("roofline command: a model without compute or memory ceilings says which are missing",
          "[cli][roofline]") {
  Scratch s;
  Result r = run(s, "roofline --no-plot --model " + write_model(s, model_with(false, true)) +
                        " --kernel 'k:flops=1e12,bytes_hbm=1e12,time_s=1'");
  CHECK(r.rc == 0);
  CHECK(r.out.find("missing: no compute ceiling for any precision") != std::string::npos);
  CHECK(r.out.find("bound by DRAM bandwidth") != std::string::npos);
  r = run(s, "roofline --no-plot --model " + write_model(s, model_with(true, false), "c.json") +
                 " --kernel 'k:flops=1e12,bytes_hbm=1e12,time_s=1'");
  CHECK(r.rc == 0);
  CHECK(r.out.find("missing: no memory ceiling for DRAM, L2, L1, shared") != std::string::npos);
  CHECK(r.out.find("bound by compute f32 fma") != std::string::npos);
}

TEST_CASE("roofline command: bad input is one line, exit 1, and nothing is written", "[cli][roofline]") {
  Scratch s;
  const std::string model = write_model(s, model_with(true, true));
  std::ofstream(s / "empty.csv") << "";
  std::ofstream(s / "not_model.json") << R"({"schema": "gpuprobe.run", "schema_version": 1})";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--model " + model + " --kernel 'k:flops=x,time_s=1'", "flops = 'x' is not a number"},
      {"--model " + model + " --kernels-csv " + (s / "empty.csv"), "empty.csv: the file is empty"},
      {"--model " + model + " --ncu-csv " + (s / "empty.csv"), "empty.csv: the file is empty"},
      {"--model " + model + " --ncu-csv " + (s / "missing.csv"), "missing.csv: cannot be opened"},
      {"--model " + model + " --precision 'f 32'", "has a character other than"},
      {"--model " + (s / "not_model.json"), "is not a gpuprobe machine model"},
      {"--model " + (s / "absent.json"), "absent.json"},
  };
  for (const auto& [args, expected] : bad) {
    INFO(args);
    const Result r = run(s, "roofline --no-plot " + args);
    CHECK(r.rc == 1);
    CHECK(r.err.rfind("gpuprobe: error: ", 0) == 0);
    CHECK(r.err.find(expected) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(s / "m.roofline.json"));
  }
  CHECK(run(s, "roofline --no-plot").rc == 2);  // --model is required: command-line syntax
}

TEST_CASE("roofline command: no Python for the plot is one line, exit 1, and the JSON is kept",
          "[cli][roofline]") {
  Scratch s;
  const std::string model = write_model(s, model_with(true, true));
  const Result r = run(s, "roofline --model " + model, "GPUPROBE_PYTHON=" + (s / "no-python"));
  CHECK(r.rc == 1);
  CHECK(r.err.rfind("gpuprobe: error: the roofline plot was not drawn: no Python at", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(fs::exists(s / "m.roofline.json"));
  CHECK_FALSE(fs::exists(s / "m.roofline.png"));
}

TEST_CASE(
    "roofline command: a kernel whose numbers overflow or underflow a double is refused before anything is "
    "written",
    "[cli][roofline]") {
  Scratch s;
  const std::string model = write_model(s, model_with(true, true));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"k:flops=1e308,time_s=1e-10", "achieved_flops_per_s is not a finite number"},
      {"k:flops=1,time_s=1e-320", "achieved_flops_per_s is not a finite number"},
      {"k:flops=1,time_s=1,bytes_hbm=1e-320", "headroom.DRAM.speedup_until_bound is not a finite number"},
      {"k:flops=1e-300,time_s=1e300", "achieved_flops_per_s = flops / time_s underflows to 0"},
      {"k:flops=1e-300,time_s=1,bytes_hbm=1e300", "attainable_flops_per_s underflows to 0"},
      {"k:flops=0x10,time_s=1", "flops = '0x10' is not a number"},
      {"k:flops=1,time_s=1,precision=fp99", "precision fp99: no such precision (known: f64, f32,"},
  };
  for (const auto& [kernel, expected] : bad) {
    INFO(kernel);
    const Result r = run(s, "roofline --model " + model + " --kernel '" + kernel + "'");
    CHECK(r.rc == 1);
    CHECK(r.err.rfind("gpuprobe: error: --kernel '" + kernel + "'", 0) == 0);
    CHECK(r.err.find(expected) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.out.empty());
    CHECK_FALSE(fs::exists(s / "m.roofline.json"));
  }
  // --precision: a typo is refused (it used to leave every kernel with no ceiling, rc 0).
  const Result r = run(s, "roofline --no-plot --model " + model + " --precision fp7");
  CHECK(r.rc == 1);
  CHECK(r.err.rfind("gpuprobe: error: --precision fp7: no such precision (known: ", 0) == 0);
  CHECK(r.err.find("; the model has f32)") != std::string::npos);
  CHECK(run(s, "roofline --no-plot --model " + model + " --precision e4m3").rc ==
        0);  // known, no ceiling here
}

TEST_CASE(
    "roofline command: launches of one kernel are one kernel, at most 50 printed, every one in the JSON",
    "[cli][roofline]") {
  Scratch s;
  const std::string model = write_model(s, model_with(true, true));
  {
    std::ofstream csv(s / "k.csv");
    csv << "name,flops,time_s,bytes_hbm\n";
    for (int i = 0; i < 120; ++i)  // k0..k59, twice each: 60 kernels, k59 the slowest
      csv << "k" << i % 60 << ",1e9," << (1 + i % 60) * 1e-6 << ",1e8\n";
  }
  const Result r = run(s, "roofline --no-plot --model " + model + " --kernels-csv " + (s / "k.csv"));
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("kernels (precision f32 unless named; the 50 of 60 with the most time, every one is in " +
                   (s / "m.roofline.json") +
                   "):\n  k59 [f32] (2 launches, 120 us in all, 60.0 us to 60.0 us each): "
                   "achieved 16.7 TFLOP/s") != std::string::npos);
  CHECK(r.out.find("  k10 [f32]") != std::string::npos);
  CHECK(r.out.find("  k9 [f32]") == std::string::npos);  // among the 10 with the least time
  const json doc = json::parse(slurp(s / "m.roofline.json"));
  REQUIRE(doc["kernels"].size() == 60);
  CHECK(doc["kernels"][0]["name"] == "k0");
  CHECK(doc["kernels"][0]["launches"] == 2);
  CHECK(doc["kernels"][0]["time_s"].get<double>() == Approx(2e-6));
  CHECK(doc["kernels"][0]["flops"] == 2e9);
  CHECK(doc["kernels"][0]["min_time_s"].get<double>() == Approx(1e-6));
}

TEST_CASE("roofline command: a run-all folder as the model, --out DIR/, a published model, a folder as a CSV",
          "[cli][roofline]") {
  Scratch s;
  fs::create_directories(s.dir / "run");
  write_model(s, model_with(true, true), "run/machine_model.json");
  Result r = run(s, "roofline --no-plot --model " + (s / "run"));
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(fs::exists(s / "run/machine_model.roofline.json"));
  r = run(s, "roofline --no-plot --model " + (s / "run") + " --out " + (s / "outdir") + "/");
  CHECK(r.rc == 0);
  CHECK(fs::exists(s / "outdir/machine_model.roofline.json"));
  CHECK_FALSE(fs::exists(s / "outdir/.roofline.json"));
  // A published profile (results/reference/) gets its roofline in the current folder.
  fs::create_directories(s.dir / "ref");
  json published = model_with(true, true);
  published["source"] = "published";
  write_model(s, published, "ref/gpu.json");
  r = gpuprobe::test::run_gpuprobe(s, "roofline --no-plot --model ref/gpu.json", "", s.dir);
  CHECK(r.rc == 0);
  CHECK(fs::exists(s / "gpu.roofline.json"));
  CHECK_FALSE(fs::exists(s / "ref/gpu.roofline.json"));
  r = run(s, "roofline --no-plot --model " + (s / "ref"));
  CHECK(r.err ==
        "gpuprobe: error: " + (s / "ref") +
            " is a folder without machine_model.json (run-all writes one; or give the model's file)\n");
  r = run(s, "roofline --no-plot --model " + (s / "run") + " --kernels-csv " + (s / "ref"));
  CHECK(r.err == "gpuprobe: error: " + (s / "ref") + " is a folder, not a CSV file\n");
}

TEST_CASE("roofline command: a Python that fails silently is named with its exit status, not a wait status",
          "[cli][roofline]") {
  Scratch s;
  const std::string model = write_model(s, model_with(true, true));
  const Result r = run(s, "roofline --model " + model, "GPUPROBE_PYTHON=/bin/false");
  CHECK(r.rc == 1);
  CHECK(r.err ==
        "gpuprobe: error: the roofline plot was not drawn: /bin/false exited with status 1 and printed "
        "nothing (" +
            (s / "m.roofline.json") + " is written)\n");
}

TEST_CASE("roofline command: reads machine models of version 1 and 2, refuses another in one line",
          "[cli][roofline]") {
  Scratch s;
  for (int version : {1, 2, 3}) {
    INFO("schema_version " << version);
    json m = model_with(true, true);
    m["schema_version"] = version;
    if (version == 2) m["metrics"] = json::array();
    const std::string model = write_model(s, m, "v" + std::to_string(version) + ".json");
    const Result r = run(s, "roofline --no-plot --model " + model);
    if (version <= 2) {
      CHECK(r.rc == 0);
      CHECK(fs::exists(s / ("v" + std::to_string(version) + ".roofline.json")));
    } else {
      CHECK(r.rc == 1);
      CHECK(r.err == "gpuprobe: error: " + model + " has model schema version 3; this gpuprobe reads versions 1 to 2\n");
    }
  }
}

}  // namespace GPUPROBE_TEST_FILE
