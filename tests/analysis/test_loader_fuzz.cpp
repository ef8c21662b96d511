// Fuzz test of the loaders the analysis reads input through: read_latency_csv,
// read_gpubenches_latency, read_json_file and build_machine_model (issue 7); csv_curve_kind and
// the bandwidth CSV readers with their fits (issue 8). Random and mutated
// inputs, a fixed seed and a bounded count and time, so it runs in CI in a few seconds: no
// crash, no hang, and every failure is an exception with one non-empty line.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/bandwidth_model.hpp"
#include "analysis/csv_import.hpp"
#include "analysis/machine_model.hpp"
#include "harness/error.hpp"
#include "harness/results.hpp"

namespace GPUPROBE_TEST_FILE {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kInputsPerLoader = 1500;
constexpr double kSecondsPerLoader = 4.0;   // CI bound: stop early on a slow machine
constexpr double kSecondsPerInput = 1.0;    // longer than this counts as a hang
// Each run record is fitted (a few ms): fewer inputs and a shorter bound keep CI near 2 s.
constexpr int kModelInputs = 600;
constexpr double kModelSeconds = 2.0;

// One scratch file for every input, removed at the end.
class FuzzFile {
 public:
  explicit FuzzFile(const char* ext)
      : path_((fs::temp_directory_path() / ("gpuprobe-fuzz-" + std::to_string(::getpid()) + ext))
                  .string()) {}
  ~FuzzFile() {
    std::error_code ignored;
    fs::remove(path_, ignored);
  }
  const std::string& write(const std::string& text) const {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << text;
    return path_;
  }

 private:
  std::string path_;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Byte-level mutations biased to what a parser cares about: separators, signs, exponents, line
// ends, comments, a BOM, NUL.
std::string mutate_text(std::string s, std::mt19937& rng) {
  static const std::string kBytes = "0123456789,.;\t\n\r#-+eE naif\"{}[]:\xEF\xBB\xBF";
  const auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  const int edits = 1 + static_cast<int>(pick(4));
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = s.empty() ? 0 : pick(s.size());
    switch (pick(7)) {
      case 0: if (!s.empty()) s[at] = kBytes[pick(kBytes.size())]; break;
      case 1: s.insert(at, 1, kBytes[pick(kBytes.size())]); break;
      case 2: if (!s.empty()) s.erase(at, 1 + pick(8)); break;
      case 3: s.resize(at); break;                                         // truncate
      case 4: if (!s.empty()) s[at] = static_cast<char>(pick(256)); break;  // any byte
      case 5: {                                                             // repeat a line
        const auto begin = s.rfind('\n', at);
        const auto end = s.find('\n', at);
        const std::size_t b = begin == std::string::npos ? 0 : begin + 1;
        const std::string line = s.substr(b, end == std::string::npos ? std::string::npos : end - b + 1);
        s.insert(b, line);
        break;
      }
      default: s.insert(at, std::to_string(std::uniform_real_distribution<double>(-1e3, 1e12)(rng))); break;
    }
  }
  return s;
}

std::string random_text(std::mt19937& rng) {
  std::string s(std::uniform_int_distribution<std::size_t>(0, 300)(rng), ' ');
  for (char& c : s) c = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
  return s;
}

// A run record's value replaced, removed or duplicated somewhere in the tree.
void mutate_json(nlohmann::json& root, std::mt19937& rng) {
  const auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  nlohmann::json* node = &root;
  while ((node->is_object() || node->is_array()) && !node->empty() && pick(4) != 0) {
    auto it = node->begin();
    std::advance(it, static_cast<long>(pick(node->size())));
    node = &*it;
  }
  static const std::vector<nlohmann::json> kValues = {
      nullptr, true, -1, 0, 1, 3.5, -1e-300, 1e308, "", "x", "all", "L2",
      nlohmann::json::array(), nlohmann::json::object(), nlohmann::json::array({1, 2}),
      std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()};
  switch (pick(4)) {
    case 0:
      *node = kValues[pick(kValues.size())];
      break;
    case 1:  // remove one member or element
      if ((node->is_object() || node->is_array()) && !node->empty()) {
        if (node->is_object()) {
          auto it = node->begin();
          std::advance(it, static_cast<long>(pick(node->size())));
          node->erase(it.key());
        } else {
          node->erase(pick(node->size()));
        }
      }
      break;
    case 2:  // duplicate an element
      if (node->is_array() && !node->empty()) node->push_back((*node)[pick(node->size())]);
      break;
    default:
      if (node->is_number()) *node = node->get<double>() * (pick(2) ? -1 : 1e6);
      break;
  }
}

nlohmann::json record(const std::string& probe, nlohmann::json params, nlohmann::json series) {
  return {{"schema", "gpuprobe.run"}, {"schema_version", 1}, {"probe", probe},
          {"params", params}, {"status", "ok"},
          {"device", {{"name", "fuzz"}, {"simulated", true}}},
          {"median_region_sm_clock_mhz", 1500.0}, {"sm_clock_mhz", {{"before", 1500.0}}},
          {"series", series}};
}

// One small record of each probe the model reads.
std::vector<nlohmann::json> seed_records() {
  nlohmann::json chase = nlohmann::json::array(), stride = nlohmann::json::array(),
                 tlb = nlohmann::json::array(), shared = nlohmann::json::array(),
                 map = nlohmann::json::array();
  for (int i = 0; i < 24; ++i) {
    const double f = 1024.0 * std::exp2(i * 0.75);
    chase.push_back({{"footprint_bytes", f}, {"latency_cycles", f < 2e5 ? 30.0 : f < 4e6 ? 200.0 : 500.0},
                     {"latency_ns", 20.0}});
    tlb.push_back({{"span_bytes", 2097152.0 * (i + 1)}, {"pages", i + 1.0},
                   {"latency_cycles", i < 12 ? 260.0 : 280.0}});
    shared.push_back({{"footprint_bytes", 1024.0 * (i + 1)}, {"latency_cycles", 23.0},
                      {"p50_cycles", 25.0}, {"p95_cycles", 25.0}});
  }
  for (double s : {32.0, 128.0, 512.0})
    for (int i = 0; i < 12; ++i) {
      const double f = 4096.0 * std::exp2(i);
      stride.push_back({{"stride_bytes", s}, {"footprint_bytes", f},
                        {"latency_cycles", f < 65536 * s / 128 ? 30.0 : 30.0 + std::min(1.0, s / 32) * 170}});
    }
  for (int sm = 0; sm < 4; ++sm) {
    map.push_back({{"pinned_sm", sm}, {"sm", sm}, {"map_level", "L2"}, {"latency_cycles", 200.0 + sm}});
    map.push_back({{"pinned_sm", sm}, {"sm", sm}, {"map_level", "L2-far"}, {"latency_cycles", 300.0 + sm}});
  }
  return {record("memory/chase", {{"cache-op", "ca"}}, chase),
          record("memory/chase", {{"cache-op", "cg"}, {"sm", "all"}}, map),
          record("memory/stride", nlohmann::json::object(), stride),
          record("memory/tlb", nlohmann::json::object(), tlb),
          record("memory/chase_shared", nlohmann::json::object(), shared)};
}

// Runs `load`; a failure must be an exception with one non-empty line, and nothing may take long.
template <class F>
void expect_clean(F&& load, const std::string& input) {
  const auto start = Clock::now();
  try {
    load();
  } catch (const std::exception& e) {
    const std::string what = e.what();
    INFO("input: " << nlohmann::json(input).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
    INFO("error: " << what);
    CHECK(!what.empty());
    CHECK(what.find('\n') == std::string::npos);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  INFO("input: " << nlohmann::json(input).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
  CHECK(seconds < kSecondsPerInput);
}

bool out_of_time(Clock::time_point start, double bound_seconds = kSecondsPerLoader) {
  return std::chrono::duration<double>(Clock::now() - start).count() > bound_seconds;
}

}  // namespace

TEST_CASE("fuzz: read_latency_csv never crashes or hangs, and errors are one line", "[analysis][csv][fuzz]") {
  std::mt19937 rng(20261123);
  const FuzzFile file(".csv");
  std::string seed = "# seed\nfootprint_bytes,latency_cycles,latency_ns\n";
  for (int i = 0; i < 30; ++i)
    seed += std::to_string(1024 << (i % 20)) + std::to_string(i / 20) + "," +
            std::to_string(30 + 10 * (i % 20)) + ".5,1" + std::to_string(i) + "\n";
  const auto start = Clock::now();
  int n = 0;
  for (; n < kInputsPerLoader && !out_of_time(start); ++n) {
    const std::string text = n % 10 == 0 ? random_text(rng) : mutate_text(seed, rng);
    const std::string& path = file.write(text);
    expect_clean([&] {
      try {
        const auto curve = gpuprobe::analysis::read_latency_csv(path, n % 2 ? 0.0 : 1500.0);
        (void)gpuprobe::analysis::build_machine_model_from_curve(curve, path).dump();
      } catch (const gpuprobe::Error&) {
        throw;  // the reader's and the fit's own errors
      } catch (const std::exception& e) {
        FAIL("not a gpuprobe::Error: " << e.what());
      }
    }, text);
  }
  CHECK(n >= 100);
}

TEST_CASE("fuzz: read_gpubenches_latency never crashes or hangs, and errors are one line", "[analysis][csv][fuzz]") {
  std::mt19937 rng(7);
  const FuzzFile file(".txt");
  const std::string seed = slurp(std::string(GPUPROBE_TEST_DATA_DIR) + "/real/gpu-benches/gpu-latency/h100_pcie.txt");
  REQUIRE(!seed.empty());
  const auto start = Clock::now();
  int n = 0;
  for (; n < kInputsPerLoader / 3 && !out_of_time(start); ++n) {
    const std::string text = n % 10 == 0 ? random_text(rng) : mutate_text(seed, rng);
    const std::string& path = file.write(text);
    expect_clean([&] { (void)gpuprobe::analysis::read_gpubenches_latency(path); }, text);
  }
  CHECK(n >= 50);
}

TEST_CASE("fuzz: CSV kind detection and the bandwidth readers never crash or hang, errors one line", "[analysis][csv][fuzz]") {
  namespace a = gpuprobe::analysis;
  std::mt19937 rng(8);
  const FuzzFile file(".csv");
  // A footprint sweep and a concurrency sweep; mutations may also turn one header into the other's.
  std::string footprint = "# seed\nfootprint_bytes,bandwidth_bytes_per_s\n";
  std::string concurrency = "bytes_in_flight_per_sm,bandwidth_bytes_per_s\n";
  for (int i = 0; i < 30; ++i) {
    footprint += std::to_string(1024 << (i % 24)) + "," + (i < 10 ? "2.5e13" : i < 20 ? "8e12" : "3.1e12") + "\n";
    concurrency += std::to_string(256 << (i / 2)) + "," + std::to_string(std::min(30, i + 1) * 1e11) + "\n";
  }
  const auto start = Clock::now();
  int n = 0;
  for (; n < kInputsPerLoader && !out_of_time(start); ++n) {
    const std::string text = n % 10 == 0 ? random_text(rng) : mutate_text(n % 2 ? footprint : concurrency, rng);
    const std::string& path = file.write(text);
    expect_clean([&] {
      try {
        // What analyze --import-csv does: the kind from the header, then its reader and fit.
        switch (a::csv_curve_kind(path)) {
          case a::CsvCurveKind::latency:
            (void)a::read_latency_csv(path);
            break;
          case a::CsvCurveKind::footprint_sweep:
            (void)a::imported_footprint_sweep(a::read_footprint_csv(path), "L1", n % 3 != 0, n % 4 ? 132 : 0,
                                              1755).dump();
            break;
          case a::CsvCurveKind::concurrency_sweep:
            (void)a::imported_concurrency_sweep(a::read_concurrency_csv(path), n % 4 ? 132 : 0, 1755).dump();
            break;
        }
      } catch (const gpuprobe::Error&) {
        throw;  // the readers' and the fits' own errors
      } catch (const std::exception& e) {
        FAIL("not a gpuprobe::Error: " << e.what());
      }
    }, text);
  }
  CHECK(n >= 100);
}

// Hostile records reach every field build_machine_model reads: each read is checked, so a record
// that lacks a field or holds the wrong type is a one-line gpuprobe::Error naming it (it used to
// read missing keys through const operator[] and segfault).
TEST_CASE("fuzz: run records, mutated as text and as trees, never crash the model", "[analysis][model][fuzz]") {
  std::mt19937 rng(11);
  const FuzzFile file(".json");
  const auto seeds = seed_records();
  const auto start = Clock::now();
  int n = 0;
  for (; n < kModelInputs && !out_of_time(start, kModelSeconds); ++n) {
    nlohmann::json run = seeds[static_cast<std::size_t>(n) % seeds.size()];
    std::string text;
    if (n % 3 == 0) {  // as text, through the one JSON loader
      text = n % 30 == 0 ? random_text(rng) : mutate_text(run.dump(), rng);
    } else {
      const int edits = 1 + n % 3;
      for (int e = 0; e < edits; ++e) mutate_json(run, rng);
      text = run.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    const std::string& path = file.write(text);
    expect_clean([&] {
      try {
        const nlohmann::json loaded = gpuprobe::read_json_file(path);
        const auto model = gpuprobe::analysis::build_machine_model({loaded}, {path});
        (void)model.dump();
        for (const auto& source : model["sources"])  // a fit's reason is one line too
          if (source.contains("error")) CHECK(source["error"].get<std::string>().find('\n') == std::string::npos);
      } catch (const gpuprobe::Error&) {
        throw;  // the loader's and the model's own errors, each naming the file or field
      } catch (const std::exception& e) {
        FAIL("not a gpuprobe::Error: " << e.what());
      }
    }, text);
  }
  CHECK(n >= 100);
}

}  // namespace GPUPROBE_TEST_FILE
