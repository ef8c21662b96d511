#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "harness/telemetry.hpp"
#include "tests/gpu.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Sets an environment variable for one scope, then puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

constexpr const char* kNvmlVariable = "GPUPROBE_NVML_LIBRARY";
constexpr const char* kBusId = "0000:00:06.0";  // the one device of every fake NVML
const std::string kMissingNvml = "/nonexistent/gpuprobe/libnvidia-ml.so.1";

// The fake drivers tests/harness/fake_nvml.cmake builds from tests/harness/fake_nvml.c, next to
// the test executable.
std::string fake_nvml(int release) {
  const std::string path = gpuprobe::testing::build_file("libgpuprobe_fake_nvml_r" + std::to_string(release) +
                                                         ".so");
  if (!std::filesystem::exists(path))
    FAIL("no fake NVML for R" << release << " (" << path
                              << "): tests/CMakeLists.txt must include harness/fake_nvml.cmake");
  return path;
}

// A copy of a fake under a path no other test uses: a library path of its own gets a session of
// its own, opened by whoever asks first.
fs::path private_copy(int release, const std::string& tag) {
  const fs::path copy = fs::temp_directory_path() /
                        ("gpuprobe-fake-nvml-" + tag + "-" + std::to_string(::getpid()) + ".so");
  fs::copy_file(fake_nvml(release), copy, fs::copy_options::overwrite_existing);
  return copy;
}

// How often the fake at `path` saw nvmlInit_v2 (the telemetry must have loaded it already).
int fake_init_calls(const fs::path& path) {
  void* library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(library != nullptr);
  const auto calls = reinterpret_cast<int (*)()>(::dlsym(library, "fake_nvml_init_calls"));
  REQUIRE(calls != nullptr);
  const int n = calls();
  ::dlclose(library);  // drops only the reference RTLD_NOLOAD took
  return n;
}

json process(unsigned pid, json used_memory_bytes) {
  return {{"pid", pid}, {"used_memory_bytes", std::move(used_memory_bytes)}};
}

}  // namespace

TEST_CASE("without NVML a snapshot is unavailable, says why in one line, and nothing throws",
          "[telemetry]") {
  {
    ScopedEnv unset(kNvmlVariable, "");
    CHECK(nvml_library_path() == "libnvidia-ml.so.1");  // the name the driver installs
  }
  ScopedEnv env(kNvmlVariable, kMissingNvml);
  CHECK(nvml_library_path() == kMissingNvml);
  for (int attempt = 0; attempt < 2; ++attempt) {  // the second answers from the kept session
    TelemetrySnapshot s;
    REQUIRE_NOTHROW(s = read_telemetry(kBusId));
    CHECK_FALSE(s.available);
    CHECK(s.unavailable_reason ==
          "NVML (" + kMissingNvml + ") not found: driver telemetry not recorded");
    json j;
    REQUIRE_NOTHROW(j = to_json(s));
    CHECK(j == json{{"available", false}, {"reason", s.unavailable_reason}});
    CHECK(describe(s) == s.unavailable_reason);
  }
  CHECK(to_json(TelemetrySnapshot{}) == json{{"available", false}, {"reason", ""}});
}

TEST_CASE("every reading of a current driver lands in its field, an unsupported one as null",
          "[telemetry]") {
  const std::string fake = fake_nvml(550);
  ScopedEnv env(kNvmlVariable, fake);
  const auto s = read_telemetry(kBusId);
  INFO(s.unavailable_reason);
  REQUIRE(s.available);
  const json expected = {
      {"available", true},
      {"nvml_library", fake},
      {"name", "NVIDIA H100 80GB HBM3"},
      {"sm_clock_mhz", 1755},
      {"mem_clock_mhz", 2619},
      {"max_sm_clock_mhz", 1980},
      {"applications_sm_clock_mhz", 1755},
      {"default_applications_sm_clock_mhz", 1980},
      {"applications_clocks_locked", true},
      {"clock_event_reasons", json::array({"gpu_idle", "sw_power_cap"})},
      {"clock_event_reasons_mask", 0x5},
      {"throttled", true},
      {"mig_mode", "disabled"},
      {"compute_processes", json::array({process(static_cast<unsigned>(::getpid()), 1ull << 30),
                                         process(4242, 512ull << 20)})},
      {"other_processes", 1},
      {"persistence_mode", true},
      {"performance_state", "P0"},
      {"temperature_c", 47},
      {"power_w", nullptr},
      {"power_limit_w", 700.0},
      {"null_reasons", {{"power_w", "nvmlDeviceGetPowerUsage: Not Supported (error 3)"}}},
  };
  const json j = to_json(s);
  for (const auto& [key, value] : expected.items()) {
    INFO(key);
    REQUIRE(j.contains(key));
    CHECK(j[key] == value);
  }
  CHECK(j.size() == expected.size());  // and nothing else
  CHECK(j["power_limit_w"].is_number_float());
  CHECK(s.fields["clock_event_reasons_mask"].is_number_unsigned());
  // NVML takes its own 8-digit-domain form of the bus id as well as CUDA's.
  CHECK(to_json(read_telemetry("00000000:00:06.0")) == j);
}

TEST_CASE("process entries are read with the stride each driver release writes", "[telemetry]") {
  const unsigned self = static_cast<unsigned>(::getpid());
  struct Release {
    int release;
    const char* layout;         // what the fake writes
    json other_memory;          // 4242's used memory
    json mig_mode;
    const char* mig_null_reason;
  };
  const Release releases[] = {
      {550, "_v3 with the 24-byte v2 entry", 512ull << 20, "disabled", nullptr},
      {535, "_v3 with the 32-byte v3 entry", 512ull << 20, "disabled", nullptr},
      {470, "_v2 with the 24-byte v2 entry", nullptr, "enabled", nullptr},
      {440, "plain with the 16-byte v1 entry", 512ull << 20, nullptr,
       "nvmlDeviceGetMigMode is not in this NVML"},
  };
  for (const auto& r : releases) {
    INFO("fake R" << r.release << ": " << r.layout);
    ScopedEnv env(kNvmlVariable, fake_nvml(r.release));
    const auto s = read_telemetry(kBusId);
    INFO(s.unavailable_reason);
    REQUIRE(s.available);
    const json& f = s.fields;
    CHECK(f["compute_processes"] ==
          json::array({process(self, 1ull << 30), process(4242, r.other_memory)}));
    CHECK(f["other_processes"] == 1);
    CHECK(f["mig_mode"] == r.mig_mode);
    if (r.mig_null_reason != nullptr) CHECK(f["null_reasons"]["mig_mode"] == r.mig_null_reason);
    else CHECK_FALSE(f["null_reasons"].contains("mig_mode"));
    // R440 and R470 know the reasons only as ClocksThrottleReasons: same bits, same names.
    CHECK(f["clock_event_reasons"] == json::array({"gpu_idle", "sw_power_cap"}));
    CHECK(f["throttled"] == true);
    CHECK(f["sm_clock_mhz"] == 1755);
  }
}

TEST_CASE("a bus id NVML does not know, or none, is unavailable with the reason", "[telemetry]") {
  ScopedEnv env(kNvmlVariable, fake_nvml(550));
  const auto s = read_telemetry("0000:99:00.0");
  CHECK_FALSE(s.available);
  CHECK(s.unavailable_reason == "NVML (" + fake_nvml(550) +
                                    ") has no device at PCI bus id 0000:99:00.0: Not Found "
                                    "(error 6): driver telemetry not recorded");
  const auto none = read_telemetry("");  // a simulated device has no bus id
  CHECK_FALSE(none.available);
  CHECK_THAT(none.unavailable_reason, Catch::Contains("no PCI bus id"));
  CHECK(read_telemetry(kBusId).available);  // the session itself is fine
}

TEST_CASE("a failed nvmlInit says NVML's error, and is not retried in the same process",
          "[telemetry]") {
  const fs::path copy = private_copy(550, "init");
  ScopedEnv env(kNvmlVariable, copy.string());
  {
    ScopedEnv fail("FAKE_NVML_INIT_ERROR", "9");  // NVML_ERROR_DRIVER_NOT_LOADED
    const auto s = read_telemetry(kBusId);
    CHECK_FALSE(s.available);
    CHECK(s.unavailable_reason == "NVML (" + copy.string() +
                                      ") init failed: Driver Not Loaded (error 9): driver "
                                      "telemetry not recorded");
  }
  // Initialised once per process: the failure stands even though init would succeed now.
  const auto again = read_telemetry(kBusId);
  CHECK_FALSE(again.available);
  CHECK_THAT(again.unavailable_reason, Catch::Contains("Driver Not Loaded"));
  CHECK(fake_init_calls(copy) == 1);
  fs::remove(copy);  // the mapping stays valid; only the name goes
}

TEST_CASE("each NVML library path has its own session, opened once even by racing threads",
          "[telemetry]") {
  // Switching $GPUPROBE_NVML_LIBRARY back and forth reopens nothing and mixes nothing up.
  for (int round = 0; round < 3; ++round) {
    {
      ScopedEnv env(kNvmlVariable, kMissingNvml);
      CHECK_FALSE(read_telemetry(kBusId).available);
    }
    {
      ScopedEnv env(kNvmlVariable, fake_nvml(440));
      const auto s = read_telemetry(kBusId);
      REQUIRE(s.available);
      CHECK(s.fields["nvml_library"] == fake_nvml(440));
    }
    {
      ScopedEnv env(kNvmlVariable, fake_nvml(535));
      const auto s = read_telemetry(kBusId);
      REQUIRE(s.available);
      CHECK(s.fields["nvml_library"] == fake_nvml(535));
    }
  }

  // Many threads ask a library nobody opened yet at the same moment: one nvmlInit, every
  // snapshot whole. (The environment is set before the threads start: setenv is not thread-safe.)
  const fs::path copy = private_copy(550, "threads");
  ScopedEnv env(kNvmlVariable, copy.string());
  constexpr int kThreads = 8;
  constexpr int kReads = 50;
  std::atomic<int> ready{0};
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      ++ready;
      while (ready < kThreads) std::this_thread::yield();
      for (int i = 0; i < kReads; ++i) {
        const auto s = read_telemetry(kBusId);
        if (s.available && s.fields["other_processes"] == 1 && s.fields["sm_clock_mhz"] == 1755)
          ++good;
      }
    });
  for (auto& thread : threads) thread.join();
  CHECK(good == kThreads * kReads);
  CHECK(fake_init_calls(copy) == 1);
  fs::remove(copy);
}

TEST_CASE("clock event reasons: every documented bit by name, unknown bits in hex",
          "[telemetry]") {
  using Names = std::vector<std::string>;
  CHECK(clock_event_reason_names(0).empty());
  CHECK(clock_event_reason_names(0x1ff) ==
        Names{"gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown",
              "sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown",
              "hw_power_brake_slowdown", "display_clock_setting"});
  CHECK(clock_event_reason_names(0x200 | 0x4 | (1ull << 63)) ==
        Names{"sw_power_cap", "0x200", "0x8000000000000000"});
  // Idle, or clocks the user set, is not throttling; any cap is, and so is a bit we do not know.
  CHECK_FALSE(clock_event_reasons_throttle(0));
  CHECK_FALSE(clock_event_reasons_throttle(0x1 | 0x2));
  for (uint64_t bit : {0x4ull, 0x8ull, 0x10ull, 0x20ull, 0x40ull, 0x80ull, 0x100ull, 0x200ull}) {
    INFO(bit);
    CHECK(clock_event_reasons_throttle(bit | 0x1));
  }
}

TEST_CASE("describe is one line with what a reader of a log needs", "[telemetry]") {
  ScopedEnv env(kNvmlVariable, fake_nvml(550));
  CHECK(describe(read_telemetry(kBusId)) ==
        "NVIDIA H100 80GB HBM3 (NVML): SM 1755 MHz of max 1980 MHz, applications clocks locked "
        "at 1755 MHz (default 1980 MHz), P0, 47 C, power ? of 700 W, clock event reasons "
        "gpu_idle+sw_power_cap (throttled), 1 other process");
  ScopedEnv other(kNvmlVariable, fake_nvml(470));
  const std::string line = describe(read_telemetry(kBusId));
  CHECK_THAT(line, Catch::Contains(", MIG enabled"));
  CHECK(line.find('\n') == std::string::npos);
}

}  // namespace GPUPROBE_TEST_FILE
