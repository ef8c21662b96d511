#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "harness/error.hpp"
#include "harness/results.hpp"

using namespace gpuprobe;
namespace fs = std::filesystem;

TEST_CASE("JSON is written atomically, creating directories, leaving no temporary file",
          "[results]") {
  const fs::path dir = fs::temp_directory_path() / ("gpuprobe-results-" + std::to_string(getpid()));
  fs::remove_all(dir);
  const std::string path = (dir / "a" / "b" / "run.json").string();
  write_json_atomically(path, {{"x", 1}});
  CHECK(read_json_file(path)["x"] == 1);
  write_json_atomically(path, {{"x", 2}});  // replaces
  CHECK(read_json_file(path)["x"] == 2);
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir / "a" / "b")) {
    ++files;
    CHECK(e.path().filename() == "run.json");
  }
  CHECK(files == 1);
  // An unwritable place is a one-line error, and the old file stays.
  std::ofstream(dir / "file") << "x";
  CHECK_THROWS_AS(write_json_atomically((dir / "file" / "run.json").string(), {}), Error);
  CHECK(read_json_file(path)["x"] == 2);
  fs::remove_all(dir);
}

TEST_CASE("reading bad JSON names the file in one line", "[results]") {
  const fs::path p = fs::temp_directory_path() / ("gpuprobe-bad-" + std::to_string(getpid()) + ".json");
  std::ofstream(p) << "{\"a\": [1, 2";
  try {
    read_json_file(p.string());
    FAIL("no error");
  } catch (const Error& e) {
    const std::string what = e.what();
    CHECK(what.find(p.string()) != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
  }
  CHECK_THROWS_WITH(read_json_file("/nonexistent/x.json"), Catch::Contains("cannot open"));
  fs::remove(p);
}

TEST_CASE("device provenance keeps every field with units in the names", "[results]") {
  DeviceInfo d;
  d.name = "X";
  d.cc = {9, 0};
  d.l2_bytes = 50u << 20;
  d.simulated = true;
  d.sim_preset = "h100";
  const auto j = to_json(d);
  CHECK(j["compute_capability"] == "9.0");
  CHECK(j["l2_bytes"] == 50u << 20);
  CHECK(j["simulated"] == true);
  CHECK(j["sim_preset"] == "h100");
  for (const char* key : {"rated_sm_clock_mhz", "driver_version", "runtime_version", "ecc_enabled",
                          "pci_bus_id", "uuid", "shared_memory_per_block_optin_bytes"})
    CHECK(j.contains(key));
}
