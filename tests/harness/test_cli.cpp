// The command line as a user meets it: exit codes, one-line errors, nothing lost on failure.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/sim/preset.hpp"
#include "tests/gpu.hpp"

namespace GPUPROBE_TEST_FILE {

namespace fs = std::filesystem;

namespace {

struct Result {
  int rc = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string scratch_prefix() { return "gpuprobe-cli-" + std::to_string(::getpid()) + "-"; }

// A fresh folder in the temporary directory, removed with all it holds when the object goes, so
// the suite leaves nothing behind.
class ScratchDir {
 public:
  ScratchDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() / (scratch_prefix() + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  fs::path operator/(const fs::path& name) const { return path_ / name; }

 private:
  fs::path path_;
};

ScratchDir scratch_dir() { return {}; }

Result run(const std::string& args) {
  const ScratchDir d;
  const std::string cmd = std::string(GPUPROBE_EXE) + " " + args + " >" + (d / "out").string() +
                          " 2>" + (d / "err").string();
  const int status = std::system(cmd.c_str());
  Result r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(d / "out");
  r.err = slurp(d / "err");
  return r;
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += (c == '\n');
  return n;
}

bool gpu_present() { return fs::exists("/dev/nvidia0"); }

}  // namespace

TEST_CASE("the tests' scratch folders are removed when done", "[cli]") {
  {
    const auto d = scratch_dir();
    std::ofstream(d / "x.json") << "{}";
    CHECK(run("list").rc == 0);
  }
  int left = 0;
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path()))
    left += e.path().filename().string().rfind(scratch_prefix(), 0) == 0;
  CHECK(left == 0);
}

TEST_CASE("no subcommand is a usage error", "[cli]") {
  const auto r = run("");
  CHECK(r.rc == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("gpuprobe: error:") == 0);
}

TEST_CASE("list names every memory probe", "[cli]") {
  const auto r = run("list");
  CHECK(r.rc == 0);
  for (const char* id : {"memory/chase ", "memory/chase_shared", "memory/stride", "memory/tlb"})
    CHECK(r.out.find(id) != std::string::npos);
}

TEST_CASE("unknown probe and unknown parameter get one line each", "[cli]") {
  const auto d = scratch_dir();
  auto r = run("probe memory/nope --device sim:h100 --out " + (d / "x.json").string());
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("unknown probe 'memory/nope'") != std::string::npos);
  CHECK(r.err.find("memory/chase") != std::string::npos);

  r = run("probe memory/chase --bogus 3 --device sim:h100 --out " + (d / "x.json").string());
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("unknown parameter --bogus") != std::string::npos);

  r = run("probe memory/chase --cache-op xx --device sim:h100 --out " + (d / "x.json").string());
  CHECK(r.rc == 1);
  CHECK(r.err.find("expected one of default, ca, cg") != std::string::npos);
  CHECK_FALSE(fs::exists(d / "x.json"));
}

TEST_CASE("unknown device and unknown preset", "[cli]") {
  auto r = run("run-all --device tpu:0");
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("unknown device 'tpu:0'") != std::string::npos);
  r = run("run-all --no-plot --device sim:b999");
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("h100") != std::string::npos);  // names the presets there are
}

TEST_CASE("without a GPU, probe and run-all say why in one line and suggest the simulator",
          "[cli][flavour]") {
  const auto d = scratch_dir();
  for (const std::string& args :
       {std::string("run-all --out ") + (d / "r").string(),
        "probe memory/chase --max-footprint-bytes 8K --out " + (d / "p.json").string()}) {
    const auto r = run(args);
    if (gpu_present()) {
      CHECK(r.rc == 0);  // on a GPU machine the same commands must simply work
    } else {
      CHECK(r.rc != 0);
      CHECK(lines(r.err) == 1);
      CHECK(r.err.find("--device sim:h100") != std::string::npos);
      CHECK(r.err.find("Traceback") == std::string::npos);
    }
  }
}

TEST_CASE("a footprint beyond free memory is refused before anything runs", "[cli]") {
  const auto d = scratch_dir();
  for (const std::string probe_and_param :
       {"memory/chase --max-footprint-bytes", "memory/stride --max-footprint-bytes",
        "memory/tlb --max-span-bytes"}) {
    INFO(probe_and_param);
    const auto r = run("probe " + probe_and_param + " 4096G --device sim:h100 --out " +
                       (d / "x.json").string());
    CHECK(r.rc == 1);
    CHECK(r.err.find("exceeds free device memory") != std::string::npos);
    const std::string param = probe_and_param.substr(probe_and_param.find(' ') + 1);
    CHECK(r.err.find("lower " + param) != std::string::npos);  // says what to change
    CHECK(lines(r.err.substr(r.err.find("gpuprobe: error:"))) == 1);
    CHECK(r.err.find("  footprint_bytes=") == std::string::npos);  // nothing was measured
  }
}

TEST_CASE("malformed CSV and missing files get one line", "[cli]") {
  const auto d = scratch_dir();
  std::ofstream(d / "bad.csv") << "footprint_bytes,latency_cycles\n1024,30\n2048,abc\n";
  auto r = run("analyze --import-csv " + (d / "bad.csv").string() + " --out " +
               (d / "m.json").string());
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("bad.csv:3") != std::string::npos);
  CHECK_FALSE(fs::exists(d / "m.json"));

  r = run("analyze --import-csv " + (d / "none.csv").string() + " --out " + (d / "m.json").string());
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);

  std::ofstream(d / "notjson.json") << "{ nope";
  r = run("analyze " + (d / "notjson.json").string() + " --out " + (d / "m.json").string());
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("not valid JSON") != std::string::npos);
}

TEST_CASE("a probe on the simulator writes a versioned, self-checked record", "[cli]") {
  const auto d = scratch_dir();
  const auto r = run("probe memory/chase --device sim:v100 --max-footprint-bytes 64K "
                     "--points-per-octave 2 --out " + (d / "chase.json").string());
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("SIMULATED DEVICE") != std::string::npos);
  const auto j = nlohmann::json::parse(slurp(d / "chase.json"));
  CHECK(j["schema"] == "gpuprobe.run");
  CHECK(j["schema_version"] == 1);
  CHECK(j["status"] == "ok");
  CHECK(j["device"]["simulated"] == true);
  CHECK(j["params"]["max-footprint-bytes"] == "64K");
  REQUIRE(j["series"].size() == 13);  // 1 KiB .. 64 KiB at two points per octave
  const double clock_mhz = j["sm_clock_mhz"]["before"].get<double>();
  CHECK(clock_mhz == Approx(1380).epsilon(0.01));  // the V100 preset's clock, measured
  for (const auto& p : j["series"]) {
    const double latency = p["latency_cycles"].get<double>();
    CHECK(p["self_check"] == "passed");
    CHECK(latency > 20);
    // Nanoseconds from the point's own timed region, not from the clock read before the sweep.
    CHECK(p["latency_ns"].get<double>() ==
          Approx(latency / p["region_sm_clock_mhz"].get<double>() * 1000));
    CHECK(p["p95_cycles"].get<double>() >= p["p50_cycles"].get<double>());
    // The spread over repeats: a CI around the median, a MAD, and whether the target was met.
    CHECK(p["ci95_cycles"][0].get<double>() <= latency);
    CHECK(p["ci95_cycles"][1].get<double>() >= latency);
    CHECK(p["mad_cycles"].get<double>() >= 0);
    CHECK(p["mad_cycles"].get<double>() < 0.05 * latency);
    CHECK(p["repeats"].get<int>() >= 3);
    CHECK(p["converged"].is_boolean());
    // The timed region's own clock (cycles over %globaltimer) agrees with the spin measurement.
    CHECK(p["region_sm_clock_mhz"].get<double>() == Approx(clock_mhz).epsilon(0.01));
  }
}

TEST_CASE("a bad stride is refused before anything is measured", "[cli]") {
  const auto d = scratch_dir();
  const auto r = run("probe memory/stride --strides-bytes 64,12 --max-footprint-bytes 32K "
                     "--device sim:v100 --out " + (d / "stride.json").string());
  CHECK(r.rc == 1);
  CHECK(r.err.find("entry '12' must be a multiple of 8") != std::string::npos);
  // Every point is planned (and checked) before the first runs: nothing is written.
  CHECK_FALSE(fs::exists(d / "stride.json"));
}

TEST_CASE("analyze fits an imported CSV curve into a machine model", "[cli]") {
  const auto d = scratch_dir();
  {
    std::ofstream csv(d / "curve.csv");
    csv << "# made by the test\nfootprint_bytes,latency_cycles\n";
    for (int i = 0; i < 64; ++i) {  // 1 KiB .. 55 MiB at 4 points per octave
      const double f = 1024.0 * std::pow(2.0, i / 4.0);
      const double lat = f <= 64 * 1024 ? 30 : (f <= 4 * 1024 * 1024 ? 200 : 500);
      csv << static_cast<long long>(f) << "," << lat + (i % 3) * 0.2 << "\n";
    }
  }
  const auto r = run("analyze --import-csv " + (d / "curve.csv").string() +
                     " --clock-mhz 1500 --out " + (d / "m.json").string());
  REQUIRE(r.rc == 0);
  const auto m = nlohmann::json::parse(slurp(d / "m.json"));
  CHECK(m["schema"] == "gpuprobe.machine_model");
  REQUIRE(m["memory"]["levels"].size() == 3);
  CHECK(m["memory"]["levels"][0]["name"] == "L1");
  CHECK(m["memory"]["levels"][0]["latency_ns"].get<double>() == Approx(20).epsilon(0.02));
  CHECK(m["memory"]["levels"][2]["name"] == "DRAM");
}

TEST_CASE("device auto runs on the GPU, or says why not and falls back to the simulated H100",
          "[cli][flavour]") {
  const auto d = scratch_dir();
  const auto r = run("probe memory/chase --device auto --max-footprint-bytes 8K --out " +
                     (d / "auto.json").string());
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(slurp(d / "auto.json"));
  if (gpu_present()) {
    CHECK(j["device"]["simulated"] == false);
  } else {
    CHECK(r.err.find("no usable GPU (") != std::string::npos);
    CHECK(r.err.find("falling back to sim:h100") != std::string::npos);
    CHECK(r.err.find("SIMULATED DEVICE") != std::string::npos);
    CHECK(j["device"]["simulated"] == true);
    CHECK(j["device"]["sim_preset"] == "h100");
  }
}

TEST_CASE("run-all writes every raw record and the machine model", "[cli]") {
  const auto d = scratch_dir();
  const auto r = run("run-all --no-plot --device sim:v100 --out " + (d / "v100").string());
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("L2-far") == std::string::npos);  // V100: one L2
  for (const char* f : {"memory_chase_default", "memory_chase_ca", "memory_chase_cg",
                        "memory_chase_nc", "memory_chase_shared", "memory_stride",
                        "memory_tlb", "bandwidth_l1", "bandwidth_shared", "bandwidth_l2",
                        "bandwidth_dram", "bandwidth_loaded_latency_l2",
                        "bandwidth_loaded_latency_dram", "compute_alu", "tensor_mma", "sync_primitives", "atomics_ops", "async_copy",
                        "launch_overhead", "launch_graph", "launch_small_kernels"}) {
    INFO(f);
    const auto rec = nlohmann::json::parse(slurp(d / "v100" / "raw" / (std::string(f) + ".json")));
    CHECK(rec["status"] == "ok");
    CHECK(rec["series"].size() > 3);
  }
  // tcgen05 is sm_100a only: the V100's record says why it was skipped.
  const auto tcgen05 = nlohmann::json::parse(slurp(d / "v100" / "raw" / "tensor_tcgen05.json"));
  CHECK(tcgen05["status"] == "skipped");
  CHECK(tcgen05["skip_reason"].get<std::string>().find("tcgen05") != std::string::npos);
  const auto m = nlohmann::json::parse(slurp(d / "v100" / "machine_model.json"));
  CHECK(m["simulated"] == true);
  CHECK(m["sources"].size() == 24);  // run_all_plan()'s runs, goodput/reference the 24th
  CHECK(m["launch"]["small_kernels"].contains("stream"));
  CHECK(r.out.find("Launch overheads:\n") != std::string::npos);
  CHECK(m["sync"]["ops"].contains("bar_sync"));
  CHECK(r.out.find("Synchronization:\n") != std::string::npos);
  CHECK(m["atomics"]["ops"]["global_add_u32"]["patterns"].contains("contended"));
  CHECK_FALSE(m["atomics"]["ops"]["shared_red_add_u32"]["patterns"]["same"].contains("latency_cycles"));
  CHECK(r.out.find("Atomics:\n") != std::string::npos);
  // V100: no cp.async, bulk or TMA (skipped with the reason); the ld+st comparison is measured.
  CHECK(m["async_copy"]["ops"].contains("ld_st_16"));
  CHECK(m["async_copy"]["skipped"].contains("cp_async_cg_16"));
  CHECK(r.out.find("Asynchronous copies:\n") != std::string::npos);
  for (const char* level : {"L1", "shared", "L2", "DRAM"}) CHECK(m["bandwidth"].contains(level));
  CHECK(r.out.find("Bandwidth:\n") != std::string::npos);
  const auto& mem = m["memory"];
  REQUIRE(mem["levels"].size() == 3);
  CHECK(mem["levels"][0]["name"] == "L1");
  CHECK(mem["levels"][1]["name"] == "L2");
  CHECK(mem["levels"][2]["name"] == "DRAM");
  CHECK(mem["far_l2"]["detected"] == false);
  CHECK(mem["levels_from"] == "memory/chase cache-op=default");   // the plain load by default
  CHECK(mem["levels"][2]["pages_touched"][0].get<double>() >= 1);
  CHECK(mem["levels"][2]["tlb_level"].is_string());
  CHECK(mem["line_sector"]["line_bytes"] == 128.0);
  CHECK(mem["line_sector"]["sector_bytes"] == 32.0);
  CHECK(mem["shared"]["latency_cycles"].get<double>() > 10);
  CHECK(mem["tlb"]["levels"].size() >= 1);
  for (const char* op : {"ca", "cg", "nc"}) CHECK_FALSE(mem["paths"][op].contains("error"));
  // The banner is printed before and after, so it is seen whatever scrolls by.
  const auto first = r.err.find("SIMULATED DEVICE");
  REQUIRE(first != std::string::npos);
  CHECK(r.err.find("SIMULATED DEVICE", first + 1) != std::string::npos);
  // The summary prints every result, not only the hierarchy.
  for (const char* said : {"hierarchy from memory/chase", "shared-memory load-to-use latency",
                           "cache line 128 B, sector 32 B", "TLB1 reach ", "TLB1 miss cost "}) {
    INFO(said);
    CHECK(r.out.find(said) != std::string::npos);
  }
  // analyze of the stride, TLB and shared records alone says what it found.
  const auto raw = d / "v100" / "raw";
  const auto a = run("analyze " + (raw / "memory_stride.json").string() + " " +
                     (raw / "memory_tlb.json").string() + " " +
                     (raw / "memory_chase_shared.json").string() + " --out " +
                     (d / "m.json").string());
  CHECK(a.rc == 0);
  CHECK(a.out.find("no memory hierarchy could be fitted") == std::string::npos);
  for (const char* said : {"shared-memory load-to-use latency", "cache line 128 B, sector 32 B", "TLB1 reach "}) {
    INFO(said);
    CHECK(a.out.find(said) != std::string::npos);
  }
  // Each alone is a success too, and says what it found (a bandwidth record as well).
  for (const auto& [file, said] : {std::pair<const char*, const char*>{"memory_stride.json",
                                                                       "cache line 128 B, sector 32 B"},
                                   {"memory_tlb.json", "miss cost "},
                                   {"memory_chase_shared.json", "shared-memory load-to-use latency"},
                                   {"bandwidth_dram.json", "DRAM read "},
                                   {"bandwidth_shared.json", "bank conflicts"}}) {
    INFO(file);
    const auto one = run("analyze " + (raw / file).string() + " --out " + (d / "one.json").string());
    CHECK(one.rc == 0);
    CHECK(one.err.empty());
    CHECK(one.out.find(said) != std::string::npos);
    CHECK(one.out.find("no memory hierarchy could be fitted") == std::string::npos);
  }
}

TEST_CASE("help and version exit 0 on stdout", "[cli]") {
  auto r = run("--help");
  CHECK(r.rc == 0);
  CHECK(r.out.find("run-all") != std::string::npos);
  CHECK(r.err.empty());
  r = run("probe --help");
  CHECK(r.rc == 0);
  CHECK(r.out.find("--param value") != std::string::npos);
  // --device names every simulator preset (the help builds the list from the presets).
  for (const auto& preset : gpuprobe::sim::presets()) CHECK(r.out.find(preset.name) != std::string::npos);
  r = run("--version");
  CHECK(r.rc == 0);
  CHECK(r.out.find("gpuprobe 0.1.0") == 0);
}

TEST_CASE("probe ID --help lists that probe's parameters", "[cli]") {
  for (const char* args : {"probe memory/chase --help", "probe --help memory/chase"}) {
    INFO(args);
    const auto r = run(args);
    CHECK(r.rc == 0);
    CHECK(r.err.empty());
    CHECK(r.out.find("memory/chase parameters:") != std::string::npos);
    CHECK(r.out.find("--cache-op (default default): ") != std::string::npos);
    CHECK(r.out.find("--max-footprint-bytes") != std::string::npos);
    CHECK(r.out.find("--stride-bytes") == std::string::npos);  // memory/stride's, not this one's
  }
  const auto r = run("probe memory/nope --help");
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("gpuprobe: error: unknown probe 'memory/nope'") == 0);
}

TEST_CASE("a mistyped command is named as unknown", "[cli]") {
  for (const char* args : {"lst", "lst --device sim:h100", "analyse x.json"}) {
    INFO(args);
    const auto r = run(args);
    CHECK(r.rc == 2);
    CHECK(lines(r.err) == 1);
    const std::string name = std::string(args).substr(0, std::string(args).find(' '));
    CHECK(r.err.find("gpuprobe: error: unknown command '" + name + "'") == 0);
    CHECK(r.err.find("list, probe, run-all, analyze") != std::string::npos);
  }
}

TEST_CASE("analyze --import-csv takes the first level's name and where the sweep ends", "[cli]") {
  const auto d = scratch_dir();
  {
    std::ofstream csv(d / "cg.csv");  // an L2-only chase: L2 then a far L2, ending in it
    csv << "footprint_bytes,latency_cycles\n";
    for (int i = 0; i < 40; ++i) {
      const double f = 1024.0 * 1024 * std::pow(2.0, i / 8.0);  // 1 MiB .. 30 MiB
      csv << static_cast<long long>(f) << "," << (f <= 8.0 * 1024 * 1024 ? 213.0 : 426.0) << "\n";
    }
  }
  auto r = run("analyze --import-csv " + (d / "cg.csv").string() +
               " --first-level L2 --ends-in cache --out " + (d / "m.json").string());
  REQUIRE(r.rc == 0);
  auto m = nlohmann::json::parse(slurp(d / "m.json"));
  REQUIRE(m["memory"]["levels"].size() == 2);
  CHECK(m["memory"]["levels"][0]["name"] == "L2");
  CHECK(m["memory"]["levels"][1]["name"] == "L3");  // a cache: not called memory
  r = run("analyze --import-csv " + (d / "cg.csv").string() + " --first-level L2 --out " +
          (d / "m.json").string());
  REQUIRE(r.rc == 0);
  m = nlohmann::json::parse(slurp(d / "m.json"));
  CHECK(m["memory"]["levels"][1]["name"] == "DRAM");  // the default: the sweep ends in memory
  r = run("analyze --import-csv " + (d / "cg.csv").string() + " --ends-in disk --out " +
          (d / "m.json").string());
  CHECK(r.rc == 2);
  CHECK(lines(r.err) == 1);
}

TEST_CASE("analyze --import-csv --first-level L2 shifts every level: L2, far L2, DRAM", "[cli]") {
  const auto d = scratch_dir();
  {
    // An L1-bypassing chase of an A100-like GPU: near L2 213 cycles to 20 MiB, far L2 426 to
    // 40 MiB (twice the near partition), DRAM 574; 8 points per octave from 1 MiB to 256 MiB.
    std::ofstream csv(d / "l2.csv");
    csv << "footprint_bytes,latency_cycles\n";
    for (int i = 0; i <= 64; ++i) {
      const double f = 1024.0 * 1024 * std::pow(2.0, i / 8.0);
      const double lat = f <= 20.0 * 1024 * 1024 ? 213.0 : (f <= 40.0 * 1024 * 1024 ? 426.0 : 574.0);
      csv << static_cast<long long>(f) << "," << lat + (i % 3) * 0.3 << "\n";
    }
  }
  auto r = run("analyze --import-csv " + (d / "l2.csv").string() + " --first-level L2 --out " +
               (d / "m.json").string());
  REQUIRE(r.rc == 0);
  auto m = nlohmann::json::parse(slurp(d / "m.json"));
  std::vector<std::string> names;
  for (const auto& l : m["memory"]["levels"]) names.push_back(l["name"]);
  CHECK(names == std::vector<std::string>{"L2", "L2-far", "DRAM"});
  CHECK(m["memory"]["far_l2"]["detected"] == true);
  CHECK(r.out.find("L2-far") != std::string::npos);
  // Without the option the same curve starts at "L1", and no far L2 follows it.
  r = run("analyze --import-csv " + (d / "l2.csv").string() + " --out " + (d / "m.json").string());
  REQUIRE(r.rc == 0);
  m = nlohmann::json::parse(slurp(d / "m.json"));
  CHECK(m["memory"]["levels"][0]["name"] == "L1");
  CHECK(m["memory"]["far_l2"]["detected"] == false);
}

namespace {

// A memory/chase record (as `probe` writes it, trimmed) whose curve fits: L1, L2, DRAM.
nlohmann::json chase_record(const std::string& cache_op = "ca") {
  nlohmann::json series = nlohmann::json::array();
  for (int i = 0; i < 24; ++i) {
    const double f = 1024.0 * std::exp2(i * 0.75);
    series.push_back({{"footprint_bytes", f},
                      {"latency_cycles", f < 2e5 ? 30.0 : f < 4e6 ? 200.0 : 500.0}});
  }
  return {{"schema", "gpuprobe.run"}, {"schema_version", 1}, {"probe", "memory/chase"},
          {"params", {{"cache-op", cache_op}}}, {"status", "ok"},
          {"device", {{"name", "test"}, {"simulated", true}}},
          {"sm_clock_mhz", {{"before", 1500.0}}}, {"series", series}};
}

void write(const fs::path& p, const nlohmann::json& j) { std::ofstream(p) << j.dump(2) << "\n"; }

}  // namespace

TEST_CASE("analyze refuses an --out that is one of its inputs, by name, link or another spelling",
          "[cli][outputs]") {
  const auto d = scratch_dir();
  write(d / "rec.json", chase_record());
  const std::string rec = (d / "rec.json").string(), before = slurp(d / "rec.json");
  fs::create_hard_link(d / "rec.json", d / "hard.json");
  fs::create_symlink("rec.json", d / "soft.json");
  fs::create_directories(d / "sub");
  for (const std::string out : {rec, (d / "hard.json").string(), (d / "soft.json").string(),
                                (d / "sub" / ".." / "rec.json").string()}) {
    INFO(out);
    const auto r = run("analyze " + rec + " --out " + out);
    CHECK(r.rc == 1);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("gpuprobe: error: --out " + out + " is the input " + rec) == 0);
    CHECK(slurp(d / "rec.json") == before);
    CHECK(fs::is_symlink(fs::symlink_status(d / "soft.json")));
  }
  // The same for an imported CSV curve.
  std::ofstream(d / "c.csv") << "footprint_bytes,latency_cycles\n1024,30\n";
  const std::string csv_before = slurp(d / "c.csv");
  const auto r = run("analyze --import-csv " + (d / "c.csv").string() + " --out " + (d / "c.csv").string());
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("is the input") != std::string::npos);
  CHECK(slurp(d / "c.csv") == csv_before);
}

TEST_CASE("analyze exits non-zero with the reason in one line when no fit can be made", "[cli]") {
  const auto d = scratch_dir();
  auto few = chase_record();
  few["series"] = {few["series"][0], few["series"][5]};
  auto negative = chase_record();
  negative["series"][4]["latency_cycles"] = -12.0;
  auto duplicate = chase_record();
  duplicate["series"][6]["footprint_bytes"] = duplicate["series"][5]["footprint_bytes"];
  auto unknown_op = chase_record("xx");
  auto skipped = chase_record();
  skipped["status"] = "skipped";
  skipped["skip_reason"] = "needs sm_80";
  skipped["series"] = nlohmann::json::array();
  auto unknown_probe = chase_record();
  unknown_probe["probe"] = "memory/nope";
  const std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {few, "at least"},
      {negative, "latency_cycles -12"},
      {duplicate, "not strictly increasing"},
      {unknown_op, "unknown cache operator 'xx'"},
      {skipped, "skipped: needs sm_80"},
      {unknown_probe, "memory/nope"}};
  write(d / "m.json", {{"an earlier model", true}});
  const std::string earlier = slurp(d / "m.json");
  for (const auto& [rec, reason] : cases) {
    INFO(reason);
    write(d / "bad.json", rec);
    const auto r = run("analyze " + (d / "bad.json").string() + " --out " + (d / "m.json").string());
    CHECK(r.rc == 1);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("gpuprobe: error: " + (d / "bad.json").string()) == 0);
    CHECK(r.err.find(reason) != std::string::npos);
    CHECK(slurp(d / "m.json") == earlier);  // no model: the earlier one stays
  }
  // One input fitted, one not: the model is written with what was found, the failure is named
  // in one line and the exit code says so.
  write(d / "good.json", chase_record("cg"));
  write(d / "bad.json", negative);
  const auto r = run("analyze " + (d / "good.json").string() + " " + (d / "bad.json").string() +
                     " --out " + (d / "m.json").string());
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("bad.json") != std::string::npos);
  CHECK(r.out.find("hierarchy from memory/chase cache-op=cg") != std::string::npos);
  const auto m = nlohmann::json::parse(slurp(d / "m.json"));
  CHECK(m["memory"]["levels"].size() == 3);
  CHECK(m["sources"][1].contains("error"));
}

TEST_CASE("analyze fits an interrupted or failed record with a warning the model records", "[cli]") {
  const auto d = scratch_dir();
  for (const char* status : {"interrupted", "failed"}) {
    INFO(status);
    auto rec = chase_record();
    rec["status"] = status;
    write(d / "cut.json", rec);
    const auto r = run("analyze " + (d / "cut.json").string() + " --out " + (d / "m.json").string());
    CHECK(r.rc == 0);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("gpuprobe: warning: " + (d / "cut.json").string()) == 0);
    CHECK(r.err.find(status) != std::string::npos);
    const auto m = nlohmann::json::parse(slurp(d / "m.json"));
    CHECK(m["memory"]["levels"].size() == 3);
    REQUIRE(m["warnings"].size() == 1);
    CHECK(m["warnings"][0].get<std::string>().find(status) != std::string::npos);
    CHECK(m["sources"][0]["status"] == status);
  }
  // A complete record: no warning.
  write(d / "ok.json", chase_record());
  const auto r = run("analyze " + (d / "ok.json").string() + " --out " + (d / "m.json").string());
  CHECK(r.rc == 0);
  CHECK(r.err.empty());
  CHECK(nlohmann::json::parse(slurp(d / "m.json"))["warnings"].empty());
}

TEST_CASE("analyze --import-csv takes bandwidth curves, their kind told by the header", "[cli]") {
  const auto d = scratch_dir();
  {
    std::ofstream fp(d / "footprint.csv");  // L1 32 TB/s to 192 KiB, L2 8 TB/s to 24 MiB, DRAM 3 TB/s
    fp << "footprint_bytes,bandwidth_bytes_per_s\n";
    for (int i = 0; i < 64; ++i) {
      const double f = 4096.0 * std::pow(2.0, i / 4.0);
      const double bw = f <= 192 * 1024 ? 32e12 : f <= 24.0 * 1024 * 1024 ? 8e12 : 3e12;
      fp << static_cast<long long>(f) << "," << bw * (1 + (i % 3) * 0.002) << "\n";
    }
    std::ofstream cc(d / "concurrency.csv");  // rises as bytes in flight / 1.2 us, then 3 TB/s
    cc << "bytes_in_flight_per_sm,bandwidth_bytes_per_s\n";
    for (int i = 0; i < 24; ++i) {
      const double x = 512.0 * std::pow(2.0, i / 2.0);
      cc << x << "," << std::min(3e12, x * 132 / 1.2e-6) << "\n";
    }
  }
  auto r = run("analyze --import-csv " + (d / "footprint.csv").string() + " --sm-count 132 --clock-mhz 1980 --out " +
               (d / "f.json").string());
  REQUIRE(r.rc == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("footprint plateau L2: 8.0") != std::string::npos);
  auto m = nlohmann::json::parse(slurp(d / "f.json"));
  CHECK(m["sources"][0]["probe"] == "import-csv");
  CHECK(m["device"]["sm_count"] == 132);
  const auto& imported = m["bandwidth"]["imported"];
  CHECK(imported["source"].get<std::string>().find("imported from") == 0);
  REQUIRE(imported["footprint_sweep"]["levels"].size() == 3);
  CHECK(imported["footprint_sweep"]["levels"][2]["name"] == "DRAM");
  CHECK(imported["footprint_sweep"]["levels"][1]["bandwidth_bytes_per_s"].get<double>() == Approx(8e12).epsilon(0.01));
  CHECK(imported["footprint_sweep"]["levels"][0]["bytes_per_clk_per_sm"].get<double>() ==
        Approx(32e12 / 132 / 1.98e9).epsilon(0.01));

  r = run("analyze --import-csv " + (d / "concurrency.csv").string() + " --out " + (d / "c.json").string());
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("imported concurrency sweep: peak 3.00 TB/s") != std::string::npos);
  m = nlohmann::json::parse(slurp(d / "c.json"));
  const auto& c = m["bandwidth"]["imported"]["concurrency"];
  CHECK(c["peak_bytes_per_s"].get<double>() == Approx(3e12).epsilon(0.01));
  // 90% of 3 TB/s at 1.2 us over 132 SMs: 0.9 x 3e12 x 1.2e-6 / 132 bytes per SM, between the two
  // points around it (interpolated linearly across the corner: within 10%).
  const double x90 = 0.9 * 3e12 * 1.2e-6 / 132;
  CHECK(c["bytes_in_flight_per_sm_for_90pct"].get<double>() == Approx(x90).epsilon(0.10));
  CHECK(c["measured_crossing_interval_per_sm"][0].get<double>() <= x90);
  CHECK(c["measured_crossing_interval_per_sm"][1].get<double>() >= x90);
}

TEST_CASE("analyze --import-csv: bad headers and options get one line", "[cli]") {
  const auto d = scratch_dir();
  std::ofstream(d / "unknown.csv") << "size,GB/s\n1,2\n";
  std::ofstream(d / "cc.csv") << "bytes_in_flight_per_sm,bandwidth_bytes_per_s\n512,1e12\n1024,2e12\n2048,2e12\n";
  std::ofstream(d / "lat.csv") << "footprint_bytes,latency_cycles\n1024,30\n";
  const std::string out = " --out " + (d / "m.json").string();
  const auto expect_error = [&](const std::string& args, const std::string& text, int rc) {
    INFO(args);
    const auto r = run("analyze --import-csv " + args + out);
    CHECK(r.rc == rc);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(text) != std::string::npos);
    CHECK_FALSE(fs::exists(d / "m.json"));
  };
  expect_error((d / "unknown.csv").string(),
               "unknown.csv:1: unknown header 'size,GB/s': the columns must be footprint_bytes,latency_cycles", 1);
  expect_error((d / "cc.csv").string() + " --clock-mhz 1500", "give --sm-count N as well", 1);
  expect_error((d / "cc.csv").string() + " --first-level L2", "holds a concurrency sweep", 1);
  expect_error((d / "lat.csv").string() + " --sm-count 80", "--sm-count applies to bandwidth curves", 1);
  expect_error((d / "cc.csv").string() + " --sm-count 0", "--sm-count", 2);
  expect_error((d / "cc.csv").string() + " --sm-count many", "--sm-count", 2);
}

TEST_CASE("analyze --import-csv fits an intensity sweep into compute.imported", "[cli]") {
  const auto d = scratch_dir();
  {
    // Roofline: 1.5 TB/s, 20000 FLOP/clk; past the ridge the clock falls from 1500 to 1200 MHz.
    std::ofstream f(d / "roofline.csv");
    f << "flop_per_byte,flop_per_s,sm_clock_mhz\n";
    for (int i = 0; i < 36; ++i) {
      const double x = 0.25 * std::pow(2.0, i / 4.0);
      const double clock = x > 20 ? 1200 : 1500;
      f << x << "," << std::min(x * 1.5e12, 20000 * clock * 1e6) * (1 + (i % 3) * 0.002) << "," << clock << "\n";
    }
  }
  auto r = run("analyze --import-csv " + (d / "roofline.csv").string() + " --sm-count 100 --out " +
               (d / "m.json").string());
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("compute ceilings from an intensity sweep") != std::string::npos);
  CHECK(r.out.find("note: throttled") != std::string::npos);
  const auto m = nlohmann::json::parse(slurp(d / "m.json"));
  CHECK(m["sources"][0]["curve"] == "intensity_sweep");
  CHECK(m["device"]["sm_count"] == 100);
  const auto& c = m["compute"]["imported"];
  CHECK(c["kind"] == "intensity_sweep");
  CHECK(c["bandwidth_bytes_per_s"].get<double>() == Approx(1.5e12).epsilon(0.01));
  CHECK(c["flops_per_clk"].get<double>() == Approx(20000).epsilon(0.01));
  CHECK(c["flops_per_clk_per_sm"].get<double>() == Approx(200).epsilon(0.01));
  CHECK(c["clock_mhz"]["stated"] == 1200);
  CHECK(c["flops_per_s"].get<double>() == Approx(20000 * 1.2e9).epsilon(0.01));
  CHECK(c["throttled"] == true);
  // The model's roofline takes the sweep's ceilings, saying where they came from.
  REQUIRE(m.contains("roofline"));
  CHECK(m["roofline"]["compute"]["f32"]["flops_per_s"].get<double>() == Approx(c["flops_per_s"].get<double>()));
  CHECK(m["roofline"]["compute"]["f32"]["source"].get<std::string>().find("compute.imported") != std::string::npos);
  CHECK(m["roofline"]["memory"]["DRAM"]["bytes_per_s"].get<double>() == Approx(1.5e12).epsilon(0.01));

  std::ofstream(d / "bad.csv") << "flop_per_byte,flop_per_s\n1,1e12\n2,2e12\n";
  r = run("analyze --import-csv " + (d / "bad.csv").string() + " --out " + (d / "b.json").string());
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("bad.csv:3: too few rows: 2 (need at least 4)") != std::string::npos);
  r = run("analyze --import-csv " + (d / "bad.csv").string() + " --first-level L2 --out " + (d / "b.json").string());
  CHECK(r.rc == 1);
  CHECK(r.err.find("holds an intensity sweep") != std::string::npos);
  CHECK_FALSE(fs::exists(d / "b.json"));
}

}  // namespace GPUPROBE_TEST_FILE
