// cli/cli.cpp's analyze command as a user meets it: one model per GPU, and the exit code says
// when an input gave no result, for every probe kind run-all writes. (The older command-line
// tests are in tests/harness/test_cli.cpp.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/family.hpp"
#include "harness/probe.hpp"
#include "harness/repeat.hpp"
#include "harness/sim/preset.hpp"
#include "harness/sim/sim_device.hpp"
#include "tests/cli/gpuprobe_run.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using test::Scratch;
using test::slurp;

namespace {

void write(const std::string& path, const nlohmann::json& doc) { std::ofstream(path) << doc.dump(); }

std::size_t lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

// A measured record: memory/chase_shared (17 points, a fraction of a second on the simulator).
nlohmann::json shared_chase(const std::string& device_spec) {
  auto device = sim::make_sim_device(sim::preset_from_spec(device_spec));
  const ProbeSpec& probe = find_probe("memory/chase_shared");
  std::ostringstream log;
  return run_probe(*device, probe, Params::parse(probe.params, {}), RepeatPolicy{}, "", log);
}

}  // namespace

TEST_CASE("analyze refuses records of different GPUs unless --allow-mixed, and then labels the model",
          "[cli]") {
  Scratch d("analyze-mixed");
  const auto h100 = shared_chase("h100");
  write(d / "h100.json", h100);
  write(d / "a100.json", shared_chase("a100"));
  write(d / "slow.json", shared_chase("h100,slowdown=1.3"));  // the same name, another preset
  auto other_uuid = h100;
  other_uuid["device"]["uuid"] = "GPU-another-one";  // a second H100 of the same name and preset
  write(d / "other_uuid.json", other_uuid);
  write(d / "m.json", {{"an earlier model", true}});
  const std::string earlier = slurp(d / "m.json");
  for (const char* other : {"a100.json", "slow.json", "other_uuid.json"}) {
    INFO(other);
    const auto r = test::run_gpuprobe(
        d, "analyze " + (d / "h100.json") + " " + (d / other) + " --out " + (d / "m.json"));
    CHECK(r.rc == 1);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("gpuprobe: error: " + (d / other) + " was measured on ") == 0);
    CHECK(r.err.find("--allow-mixed") != std::string::npos);
    CHECK(slurp(d / "m.json") == earlier);  // nothing written
  }
  // Two records of one GPU make one model, not a mixed one.
  auto r = test::run_gpuprobe(
      d, "analyze " + (d / "h100.json") + " " + (d / "h100.json") + " --out " + (d / "m.json"));
  CHECK(r.rc == 0);
  CHECK_FALSE(nlohmann::json::parse(slurp(d / "m.json")).contains("mixed_devices"));
  // --allow-mixed: fitted, and labelled in the model, on stderr and at the top of the summary.
  r = test::run_gpuprobe(
      d, "analyze " + (d / "h100.json") + " " + (d / "a100.json") + " --allow-mixed --out " + (d / "m.json"));
  CHECK(r.rc == 0);
  CHECK(r.err.find("gpuprobe: warning: --allow-mixed: this model mixes records of 2 GPUs") == 0);
  CHECK(r.out.find("WARNING: this model mixes the records of 2 GPUs (--allow-mixed)") == 0);
  const auto m = nlohmann::json::parse(slurp(d / "m.json"));
  REQUIRE(m["mixed_devices"].size() == 2);
  CHECK(m["mixed_devices"][0]["sim_preset"] == "h100");
  CHECK(m["mixed_devices"][1]["sim_preset"] == "a100");
  CHECK(m["mixed_devices"][1]["files"] == nlohmann::json::array({d / "a100.json"}));
  CHECK(m["device"]["sim_preset"] == "h100");
  REQUIRE(m["warnings"].size() == 1);
  CHECK(m["warnings"][0].get<std::string>().find("NVIDIA A100") != std::string::npos);
}

TEST_CASE("analyze exits 1 for a record that gave no result, of every probe kind run-all writes", "[cli]") {
  Scratch d("analyze-empty");
  const DeviceInfo info = sim::find_preset("h100").info;
  write(d / "m.json", {{"an earlier model", true}});
  const std::string earlier = slurp(d / "m.json");
  write(d / "good.json", shared_chase("h100"));
  std::size_t kinds = 0;
  for (const FamilySpec& family : families()) {
    for (const PlannedRun& planned : family.plan(RunProfile::full)) {
      const ProbeSpec& probe = find_probe(planned.probe);
      // What run-all writes before a point is measured, as it would stay if none were.
      const auto empty = new_run_record(info, probe, Params::parse(probe.params, planned.params),
                                        RepeatPolicy{});
      REQUIRE(empty["series"].empty());
      for (const char* status : {"ok", "failed"}) {
        INFO(planned.file << ", status " << status);
        auto rec = empty;
        rec["status"] = status;
        if (std::string(status) == "failed") rec["error"] = "the device fell off the bus";
        write(d / planned.file, rec);
        // Alone: no result, nothing written, the reason in one line (a failed record adds its warning).
        auto r = test::run_gpuprobe(d, "analyze " + (d / planned.file) + " --out " + (d / "m.json"));
        CHECK(r.rc == 1);
        CHECK(lines(r.err) == (std::string(status) == "ok" ? 1u : 2u));
        CHECK(r.err.find("gpuprobe: error: " + (d / planned.file) + ": " + planned.probe +
                         " gave no result: ") != std::string::npos);
        CHECK(slurp(d / "m.json") == earlier);
        // Beside a record with a result: the model is written, and the exit code names the failure.
        r = test::run_gpuprobe(
            d, "analyze " + (d / "good.json") + " " + (d / planned.file) + " --out " + (d / "n.json"));
        CHECK(r.rc == 1);
        CHECK(r.err.find(planned.probe + " gave no result: ") != std::string::npos);
        const auto n = nlohmann::json::parse(slurp(d / "n.json"));
        CHECK(n["sources"][1].contains("error"));
        CHECK(n["memory"]["shared"]["latency_cycles"].is_number());
      }
      ++kinds;
    }
  }
  CHECK(kinds >=
        22);  // every record of `run-all --full`: the chases per cache operator, both loaded latencies...
}

TEST_CASE("analyze: a record whose every op was skipped is a skipped input, not a failure", "[cli]") {
  Scratch d("analyze-skipped-ops");
  auto device = sim::make_sim_device(sim::find_preset("h100"));
  const ProbeSpec& probe = find_probe("compute/alu");
  std::ostringstream log;
  auto rec = run_probe(*device, probe, Params::parse(probe.params, {}), RepeatPolicy{}, "", log);
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& p : rec["series"])
    if (p.contains("skipped")) skipped.push_back(p);
  REQUIRE_FALSE(skipped.empty());  // fma.rn.f32x2 needs sm_100
  rec["series"] = skipped;
  write(d / "alu.json", rec);
  write(d / "good.json", shared_chase("h100"));
  // Alone it gives no result: nothing written, the reason said. With another record: exit 0.
  auto r = test::run_gpuprobe(d, "analyze " + (d / "alu.json") + " --out " + (d / "m.json"));
  CHECK(r.rc == 1);
  CHECK(r.err.find("every op of the record was skipped") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(d / "m.json"));
  r = test::run_gpuprobe(
      d, "analyze " + (d / "good.json") + " " + (d / "alu.json") + " --out " + (d / "m.json"));
  CHECK(r.rc == 0);
  CHECK(r.out.find("fma_rn_f32x2: not measured: ") != std::string::npos);
}

TEST_CASE("analyze --import-csv warns of values orders of magnitude off their unit, never prints them as 0",
          "[cli]") {
  Scratch d("analyze-units");
  // Bandwidth in GB/s under bandwidth_bytes_per_s; FLOP/s in TFLOP/s; seconds per pass in us.
  {
    std::ofstream f(d / "gbs.csv");
    f << "footprint_bytes,bandwidth_bytes_per_s\n";
    for (double x = 1024; x <= 1 << 30; x *= 1.25)
      f << std::uint64_t(x) << "," << (x < 2e5 ? 25000 : x < 4e7 ? 7000 : 1900) << "\n";
  }
  {
    std::ofstream f(d / "tflops.csv");
    f << "flop_per_byte,flop_per_s\n";
    for (double i = 0.25; i <= 256; i *= 2) f << i << "," << std::min(i * 1.9, 50.0) << "\n";
  }
  {
    std::ofstream f(d / "us.csv");
    f << "bytes,time_s,method\n";
    for (int b = 65536; b <= 1 << 20; b *= 2) f << b << "," << 1.3 + b / 2e6 << ",stream\n";
  }
  for (const auto& [file, unit, printed] : {std::tuple{"gbs.csv", "GB/s", "DRAM read bandwidth   1900 B/s"},
                                            {"tflops.csv", "TFLOP/s", "compute      50.0 FLOP/s"},
                                            {"us.csv", "us", "stream overhead per pass     1.30 s"}}) {
    INFO(file);
    const auto r = test::run_gpuprobe(
        d, std::string("analyze --import-csv ") + (d / file) + " --out " + (d / "m.json"));
    CHECK(r.rc == 0);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("gpuprobe: warning: " + (d / file) + ": the ") == 0);
    CHECK(r.err.find(std::string("if it is in ") + unit + ", multiply it by") != std::string::npos);
    CHECK(r.out.find(printed) != std::string::npos);
    CHECK(r.out.find(" 0 ") == std::string::npos);
    CHECK(r.out.find("0.00 TFLOP/s") == std::string::npos);
    // A family's title only above something: none of these has a memory section's content.
    CHECK(r.out.find("Memory hierarchy:") == std::string::npos);
    const auto m = nlohmann::json::parse(slurp(d / "m.json"));
    REQUIRE(m["warnings"].size() == 1);
    CHECK(m["warnings"][0].get<std::string>().find(unit) != std::string::npos);
  }
}

}  // namespace GPUPROBE_TEST_FILE
