#include "analysis/csv_import.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/bandwidth_fit.hpp"
#include "analysis/bandwidth_model.hpp"
#include "analysis/gpubenches_import.hpp"
#include "harness/error.hpp"
#include "harness/littles_law.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe::analysis;

namespace {

// A file in the temp directory holding `text`, removed when the object goes.
class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    static int counter = 0;
    path_ = (std::filesystem::temp_directory_path() /
             ("gpuprobe_csv_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".csv"))
                .string();
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

const char* const kRows =
    "1024,30\n2048,30.5\n4096,31\n8192,200\n16384,201\n32768,450\n";

// The error message of reading `text`, or "" when it reads.
std::string error_of(const std::string& text, double clock = 0) {
  TempFile f(text);
  try {
    read_latency_csv(f.path(), clock);
  } catch (const gpuprobe::Error& e) {
    const std::string msg = e.what();
    REQUIRE(msg.find('\n') == std::string::npos);  // one line
    REQUIRE(msg.rfind(f.path() + ":", 0) == 0);    // names the file
    return msg.substr(f.path().size());
  }
  return "";
}

}  // namespace

TEST_CASE("read_latency_csv: a good file, columns in any order, comments, sorting", "[analysis][csv]") {
  TempFile f(
      "# chase on a test GPU\n"
      "\n"
      "latency_ns,note,latency_cycles,footprint_bytes\n"
      "20,a,30,2048\n"
      "  # a comment between rows\n"
      "21,b,31.5,1024\r\n"
      "100,c,150,4096\n"
      "\n"
      "101,d,151,8192\n"
      "200,e,300,16384\n"
      "200.5,f,301,1e5\n");
  const Curve c = read_latency_csv(f.path());
  CHECK(c.x_name == "footprint_bytes");
  CHECK(c.clock_mhz == 0);
  REQUIRE(c.points.size() == 6);
  CHECK(c.points[0].x == 1024);
  CHECK(c.points[0].latency_cycles == 31.5);
  CHECK(c.points[0].latency_ns == 21);
  CHECK(c.points[1].x == 2048);
  CHECK(c.points[5].x == 100000);
  CHECK(c.points[5].latency_ns == 200.5);
}

TEST_CASE("read_latency_csv: ns from the clock when the file has none", "[analysis][csv]") {
  TempFile f(std::string("footprint_bytes,latency_cycles\n") + kRows);
  Curve c = read_latency_csv(f.path(), 1500);
  CHECK(c.clock_mhz == 1500);
  CHECK(c.points[0].latency_ns == Approx(20));
  CHECK(c.points[5].latency_ns == Approx(300));
  c = read_latency_csv(f.path());
  CHECK(c.points[0].latency_ns == 0);
}

TEST_CASE("read_latency_csv: malformed input names file, line and problem", "[analysis][csv]") {
  const std::string header = "footprint_bytes,latency_cycles\n";
  CHECK(error_of(header + kRows) == "");
  CHECK(error_of("") == ":1: missing header: the file has no data");
  CHECK(error_of(kRows) ==
        ":1: missing header: the first line must name the columns "
        "(footprint_bytes,latency_cycles[,latency_ns])");
  CHECK(error_of("footprint_bytes,latency_ns\n1,2\n") == ":1: missing column 'latency_cycles' in the header");
  CHECK(error_of("# c\nbytes,latency_cycles\n1,2\n") == ":2: missing column 'footprint_bytes' in the header");
  CHECK(error_of("footprint_bytes,latency_cycles,footprint_bytes\n") == ":1: column 'footprint_bytes' appears twice");
  CHECK(error_of(header + "1024,30\n2048,abc\n") == ":3: column 'latency_cycles': 'abc' is not a number");
  CHECK(error_of(header + "1024,30\n2048,\n") == ":3: column 'latency_cycles': '' is not a number");
  CHECK(error_of(header + "1024,30\n20x8,30\n") == ":3: column 'footprint_bytes': '20x8' is not a number");
  CHECK(error_of(header + "1024,nan\n") == ":2: column 'latency_cycles': 'nan' is not a number");
  CHECK(error_of(header + "1024,-30\n") == ":2: column 'latency_cycles': -30 is negative");
  CHECK(error_of(header + "-1024,30\n") == ":2: column 'footprint_bytes': -1024 is negative");
  CHECK(error_of(header + "0,30\n") == ":2: column 'footprint_bytes': must be positive, got 0");
  CHECK(error_of(header + "1024,30,7\n") == ":2: expected 2 fields as in the header, got 3");
  CHECK(error_of(header + "1024\n") == ":2: expected 2 fields as in the header, got 1");
  CHECK(error_of(header + "1024,30\n2048,31\n") == ":3: too few rows: 2 (need at least 6)");
  CHECK(error_of(header + kRows + "2048,40\n") == ":8: duplicate footprint_bytes 2048 (also on line 3)");
  CHECK(error_of("footprint_bytes,latency_cycles,latency_ns\n1024,30,-2\n") ==
        ":2: column 'latency_ns': -2 is negative");
}

TEST_CASE("read_latency_csv: a UTF-8 byte-order mark before the header is accepted", "[analysis][csv]") {
  TempFile f(std::string("\xEF\xBB\xBF") + "footprint_bytes,latency_cycles\n" + kRows);
  const Curve c = read_latency_csv(f.path());
  CHECK(c.points.size() == 6);
  CHECK(c.points[0].x == 1024);
  // Only at the very start of the file: elsewhere it is a stray character in a field.
  CHECK(error_of(std::string("footprint_bytes,latency_cycles\n\xEF\xBB\xBF") + kRows) ==
        ":2: column 'footprint_bytes': '\xEF\xBB\xBF" "1024' is not a number");
}

TEST_CASE("read_latency_csv: a semicolon or tab separator gets a hint", "[analysis][csv]") {
  CHECK(error_of("footprint_bytes;latency_cycles\n1024;30\n") ==
        ":1: missing column 'footprint_bytes' in the header: the separator must be a comma, and "
        "this line seems to use ';'");
  CHECK(error_of("footprint_bytes\tlatency_cycles\n1024\t30\n") ==
        ":1: missing column 'footprint_bytes' in the header: the separator must be a comma, and "
        "this line seems to use a tab");
  CHECK(error_of("footprint_bytes,latency_cycles\n1024;30\n") ==
        ":2: expected 2 fields as in the header, got 1: the separator must be a comma, and this "
        "line seems to use ';'");
}

TEST_CASE("read_latency_csv: missing file and bad clock", "[analysis][csv]") {
  CHECK_THROWS_WITH(read_latency_csv("/nonexistent/gpuprobe.csv"),
                    "/nonexistent/gpuprobe.csv: cannot open the file");
  TempFile f(std::string("footprint_bytes,latency_cycles\n") + kRows);
  CHECK_THROWS_WITH(read_latency_csv(f.path(), -1), Catch::Contains("must be finite and not negative"));
}

TEST_CASE("read_gpubenches_latency: the real H100 file", "[analysis][csv]") {
  const Curve c = read_gpubenches_latency(std::string(GPUPROBE_TEST_DATA_DIR) +
                                          "/real/gpu-benches/gpu-latency/h100_pcie.txt");
  REQUIRE(c.points.size() == 100);
  CHECK(c.clock_mhz == 1755);
  CHECK(c.points.front().x == 1024);
  CHECK(c.points.front().latency_cycles == 34.2);
  CHECK(c.points.front().latency_ns == Approx(34.2 / 1.755));
  CHECK(c.points.back().x == 1529075.0 * 1024);
  CHECK(c.points.back().latency_cycles == 658.4);
}

TEST_CASE("read_gpubenches_latency: the 2025 files, eight columns", "[analysis][csv]") {
  // gpu-latency-2025/PROVENANCE.md: the 2024 columns plus median, p5 and p95 cycles, and the
  // footprint in KiB with one decimal.
  const std::string dir = std::string(GPUPROBE_TEST_DATA_DIR) + "/real/gpu-benches/gpu-latency-2025/";
  const Curve c = read_gpubenches_latency(dir + "a100_80.txt");
  REQUIRE(c.points.size() == 285);
  CHECK(c.clock_mhz == 1410);
  CHECK(c.points.front().x == 2048);
  CHECK(c.points[1].x == Approx(2.2 * 1024));
  CHECK(c.points.front().latency_cycles == 33.0);  // column 5, as in the 2024 files
  CHECK(c.points.front().latency_ns == Approx(33.0 / 1.41));
  CHECK(c.points.back().x == Approx(2218723.5 * 1024));
  CHECK(c.points.back().latency_cycles == 552.4);
  for (const char* file : {"v100.txt", "l40.txt"}) {
    INFO(file);
    const Curve other = read_gpubenches_latency(dir + file);
    CHECK(other.points.size() >= 285);
  }
}

TEST_CASE("read_gpubenches_latency: malformed input", "[analysis][csv]") {
  const auto error = [](const std::string& text) -> std::string {
    TempFile f(text);
    try {
      read_gpubenches_latency(f.path());
    } catch (const gpuprobe::Error& e) {
      return std::string(e.what()).substr(f.path().size());
    }
    return "";
  };
  const std::string rows =
      "1000000 1410 1 25.5 36.0\n1000000 1410 2 25.5 36.0\n1000000 1410 3 25.5 36.0\n"
      "1000000 1410 160 56.4 79.5\n1000000 1410 177 108.7 153.2\n1000000 1410 196 135.8 191.5\n";
  CHECK(error("clock: 1410\n" + rows) == "");
  CHECK(error(rows) == ":1: expected the 'clock:' line first");
  CHECK(error("") == ":1: empty file: expected the 'clock:' line");
  CHECK(error("clock: 1410\n1000000 1410 1 25.5\n") ==
        ":2: expected 5 columns (iters clock_MHz footprint_KiB dt cycles) or 8 (and median p5 "
        "p95 cycles), got 4");
  CHECK(error("clock: 1410\n1000000 1410 1 25.5 36 36 35\n") ==
        ":2: expected 5 columns (iters clock_MHz footprint_KiB dt cycles) or 8 (and median p5 "
        "p95 cycles), got 7");
  // Eight columns: the 2025 format, its percentiles checked.
  std::string rows8;
  for (const char* kib : {"1", "2", "3", "160", "177", "196"})
    rows8 += std::string("1000000 1410 ") + kib + " 25.5 36.0 36.0 35.9 36.2\n";
  CHECK(error("clock: 1410\n" + rows8) == "");
  CHECK(error("clock: 1410\n1000000 1410 1 25.5 36.0 36.0 36.5 36.2\n") ==
        ":2: p5 36.5 <= median 36.0 <= p95 36.2 does not hold");
  CHECK(error("clock: 1410\n1000000 1410 1 25.5 36.0 36.0 x 36.2\n") == ":2: p5: 'x' is not a number");
  CHECK(error("clock: 1410\n1000000 1410 1 25.5 36.0 0 35.9 36.2\n") == ":2: median: 0 must be positive");
  CHECK(error("clock: 1410\n" + rows8 + "1000000 1410 300 25.5 36.0\n") ==
        ":8: 5 columns after rows of 8: one file holds one format");
  CHECK(error("clock: 1410\n1000000 1410 1 25.5 x\n") == ":2: cycles: 'x' is not a number");
  CHECK(error("clock: 1410\n1000000 0 1 25.5 36\n") == ":2: clock_MHz: 0 must be positive");
  CHECK(error("clock: 1410\n" + rows + "1000000 1410 2 25.5 36.0\n") ==
        ":8: duplicate footprint_bytes 2048 (also on line 3)");
}

// --- the kind of curve, told by the header; the two bandwidth forms (issue 8) -----------------

namespace {

// The error of `read` on a file holding `text` (the part after the path), or "" when it reads.
template <class Read>
std::string error_reading(const std::string& text, Read read) {
  TempFile f(text);
  try {
    read(f.path());
  } catch (const gpuprobe::Error& e) {
    const std::string msg = e.what();
    REQUIRE(msg.find('\n') == std::string::npos);
    REQUIRE(msg.rfind(f.path() + ":", 0) == 0);
    return msg.substr(f.path().size());
  }
  return "";
}

std::string kind_error(const std::string& text) {
  return error_reading(text, [](const std::string& p) { (void)csv_curve_kind(p); });
}
std::string footprint_error(const std::string& text) {
  return error_reading(text, [](const std::string& p) { (void)read_footprint_csv(p); });
}
std::string concurrency_error(const std::string& text) {
  return error_reading(text, [](const std::string& p) { (void)read_concurrency_csv(p); });
}

CsvCurveKind kind_of(const std::string& text) {
  TempFile f(text);
  return csv_curve_kind(f.path());
}

const char* const kAccepted =
    "footprint_bytes,latency_cycles[,latency_ns] (latency) or footprint_bytes,bandwidth_bytes_per_s "
    "(footprint sweep) or bytes_in_flight_per_sm,bandwidth_bytes_per_s (concurrency sweep) or "
    "flop_per_byte,flop_per_s[,sm_clock_mhz] (intensity sweep) or bytes,time_s,method (small kernels)";

}  // namespace

TEST_CASE("csv_curve_kind: the header tells latency, footprint sweep and concurrency sweep", "[analysis][csv]") {
  CHECK(kind_of("footprint_bytes,latency_cycles\n1,2\n") == CsvCurveKind::latency);
  CHECK(kind_of("# a comment\n\nlatency_ns,latency_cycles,footprint_bytes\n") == CsvCurveKind::latency);
  CHECK(kind_of("footprint_bytes,bandwidth_bytes_per_s\n1,2\n") == CsvCurveKind::footprint_sweep);
  CHECK(kind_of("\xEF\xBB\xBF" "bandwidth_bytes_per_s, footprint_bytes ,note\r\n") == CsvCurveKind::footprint_sweep);
  CHECK(kind_of("bytes_in_flight_per_sm,bandwidth_bytes_per_s\n") == CsvCurveKind::concurrency_sweep);
  CHECK(kind_of("block_size,bandwidth_bytes_per_s,bytes_in_flight_per_sm\n") == CsvCurveKind::concurrency_sweep);
  CHECK(std::string(to_string(CsvCurveKind::footprint_sweep)) == "footprint sweep");
}

TEST_CASE("csv_curve_kind: an unknown or ambiguous header is one line listing the accepted ones", "[analysis][csv]") {
  CHECK(kind_error("footprint_bytes,latency_ns\n1,2\n") ==
        std::string(":1: unknown header 'footprint_bytes,latency_ns': the columns must be ") + kAccepted);
  CHECK(kind_error("# from a tool\nsize,GB/s\n") ==
        std::string(":2: unknown header 'size,GB/s': the columns must be ") + kAccepted);
  CHECK(kind_error("footprint_bytes;bandwidth_bytes_per_s\n1;2\n") ==
        std::string(":1: unknown header 'footprint_bytes;bandwidth_bytes_per_s': the columns must be ") +
            kAccepted + ": the separator must be a comma, and this line seems to use ';'");
  CHECK(kind_error("1024,30\n") ==
        std::string(":1: missing header: the first line must name the columns (") + kAccepted + ")");
  CHECK(kind_error("") == ":1: missing header: the file has no data");
  CHECK(kind_error("footprint_bytes,latency_cycles,bandwidth_bytes_per_s\n") ==
        ":1: the header 'footprint_bytes,latency_cycles,bandwidth_bytes_per_s' holds the columns of more than "
        "one kind of curve (latency, footprint sweep): one kind per file");
  CHECK(kind_error("footprint_bytes,,bandwidth_bytes_per_s\n") == ":1: empty column name in the header (column 2)");
  CHECK_THROWS_WITH(csv_curve_kind("/nonexistent/gpuprobe.csv"), "/nonexistent/gpuprobe.csv: cannot open the file");
}

TEST_CASE("read_footprint_csv and read_concurrency_csv: good files, sorted", "[analysis][csv]") {
  TempFile fp("# footprint sweep\nbandwidth_bytes_per_s,footprint_bytes\n2e12,8192\n2.5e12,1024\n\n2.4e12,4096\n");
  const auto f = read_footprint_csv(fp.path());
  REQUIRE(f.size() == 3);
  CHECK(f[0].footprint_bytes == 1024);
  CHECK(f[0].bandwidth_bytes_per_s == 2.5e12);
  CHECK(f[2].footprint_bytes == 8192);
  // Rows with the same bytes in flight (shapes of one sweep) are kept, in file order.
  TempFile cc("bytes_in_flight_per_sm,bandwidth_bytes_per_s,block_size\n4096,1.9e12,256\n1024,1e12,64\n"
              "4096,2e12,512\n2048,1.6e12,128\n");
  const auto c = read_concurrency_csv(cc.path());
  REQUIRE(c.size() == 4);
  CHECK(c[0].bytes_in_flight_per_sm == 1024);
  CHECK(c[2].bandwidth_bytes_per_s == 1.9e12);
  CHECK(c[3].bandwidth_bytes_per_s == 2e12);
}

TEST_CASE("read_footprint_csv and read_concurrency_csv: malformed rows name file and line", "[analysis][csv]") {
  const std::string fh = "footprint_bytes,bandwidth_bytes_per_s\n";
  const std::string rows = "1024,2e12\n2048,2e12\n4096,1e12\n";
  CHECK(footprint_error(fh + rows) == "");
  CHECK(footprint_error(fh + "1024,2e12\n2048,fast\n") == ":3: column 'bandwidth_bytes_per_s': 'fast' is not a number");
  CHECK(footprint_error(fh + "1024,0\n") == ":2: column 'bandwidth_bytes_per_s': must be positive, got 0");
  CHECK(footprint_error(fh + "-1024,2e12\n") == ":2: column 'footprint_bytes': -1024 is negative");
  CHECK(footprint_error(fh + "1024,inf\n") == ":2: column 'bandwidth_bytes_per_s': 'inf' is not a number");
  CHECK(footprint_error(fh + "1024,2e12,3\n") == ":2: expected 2 fields as in the header, got 3");
  CHECK(footprint_error(fh + "1024;2e12\n") ==
        ":2: expected 2 fields as in the header, got 1: the separator must be a comma, and this line seems to use ';'");
  CHECK(footprint_error(fh + "1024,2e12\n# two rows\n2048,2e12\n") == ":4: too few rows: 2 (need at least 3)");
  CHECK(footprint_error(fh + rows + "2048,1.9e12\n") == ":5: duplicate footprint_bytes 2048 (also on line 3)");
  CHECK(footprint_error("bytes_in_flight_per_sm,bandwidth_bytes_per_s\n") ==
        ":1: missing column 'footprint_bytes' in the header");
  CHECK(footprint_error("1024,2e12\n") ==
        ":1: missing header: the first line must name the columns (footprint_bytes,bandwidth_bytes_per_s)");

  const std::string ch = "bytes_in_flight_per_sm,bandwidth_bytes_per_s\n";
  CHECK(concurrency_error(ch + rows) == "");
  CHECK(concurrency_error(ch + rows + "2048,1.9e12\n") == "");  // a repeated x is another shape
  CHECK(concurrency_error(ch + "0,2e12\n") == ":2: column 'bytes_in_flight_per_sm': must be positive, got 0");
  CHECK(concurrency_error(ch + "512,2e12\n1024,\n") == ":3: column 'bandwidth_bytes_per_s': '' is not a number");
  CHECK(concurrency_error(ch + "512,2e12\n") == ":2: too few rows: 1 (need at least 3)");
  CHECK(concurrency_error("bytes_in_flight_per_sm\tbandwidth_bytes_per_s\n") ==
        ":1: missing column 'bytes_in_flight_per_sm' in the header: the separator must be a comma, and this "
        "line seems to use a tab");
  CHECK(concurrency_error("bytes_in_flight_per_sm,bandwidth_bytes_per_s,bytes_in_flight_per_sm\n") ==
        ":1: column 'bytes_in_flight_per_sm' appears twice");
}

// --- bandwidth curves from CSV, fitted: real gpu-benches curves and a Little's-law curve -------
// The gpu-benches files (tests/data/real/gpu-benches/*/PROVENANCE.md) are written out here in the
// two documented forms, read back and fitted into the model's shape: the plateaus are those
// tests/analysis/test_bandwidth_real.cpp checks against the README (within 5%).

namespace {

constexpr double KiB = 1024.0, MiB = 1024.0 * 1024.0, GBps = 1e9, TBps = 1e12;

std::string bench_file(const std::string& rel) {
  return std::string(GPUPROBE_TEST_DATA_DIR) + "/real/gpu-benches/" + rel;
}

// A CSV in one of the two forms, numbers written to round-trip exactly.
std::string footprint_csv_text(const std::vector<FootprintPoint>& points) {
  std::string s = "# converted by the test\nfootprint_bytes,bandwidth_bytes_per_s\n";
  char line[80];
  for (const auto& p : points) {
    std::snprintf(line, sizeof line, "%.17g,%.17g\n", p.footprint_bytes, p.bandwidth_bytes_per_s);
    s += line;
  }
  return s;
}
std::string concurrency_csv_text(const std::vector<ConcurrencyPoint>& points) {
  std::string s = "bytes_in_flight_per_sm,bandwidth_bytes_per_s\n";
  char line[80];
  for (const auto& p : points) {
    std::snprintf(line, sizeof line, "%.17g,%.17g\n", p.bytes_in_flight_per_sm, p.bandwidth_bytes_per_s);
    s += line;
  }
  return s;
}

// The model entry of a footprint sweep imported from its CSV form.
nlohmann::json import_footprint(const std::vector<FootprintPoint>& points, const std::string& first_level,
                                int sms = 0, double clock_mhz = 0) {
  TempFile f(footprint_csv_text(points));
  REQUIRE(csv_curve_kind(f.path()) == CsvCurveKind::footprint_sweep);
  return imported_footprint_sweep(read_footprint_csv(f.path()), first_level, true, sms, clock_mhz);
}
nlohmann::json import_concurrency(const std::vector<ConcurrencyPoint>& points, int sms, double clock_mhz = 0) {
  TempFile f(concurrency_csv_text(points));
  REQUIRE(csv_curve_kind(f.path()) == CsvCurveKind::concurrency_sweep);
  return imported_concurrency_sweep(read_concurrency_csv(f.path()), sms, clock_mhz);
}

double level_bw(const nlohmann::json& sweep, std::size_t i) {
  return sweep.at("levels").at(i).at("bandwidth_bytes_per_s").get<double>();
}

}  // namespace

TEST_CASE("footprint CSV from gpu-cache: L1 at ~128 B/clk/SM (V100/A100/H100) and ~64 (A40/L40)",
          "[analysis][csv][bandwidth_real]") {
  // SM counts and clocks as in test_bandwidth_real.cpp (docs/FIGURES.md, table "GPUs").
  struct Gpu {
    const char* file;
    int sms;
    double clock_mhz, bytes_per_clk;
  };
  const Gpu gpus[] = {{"v100", 80, 1380, 128},       {"a100_80", 108, 1410, 128},
                      {"h100_pcie", 114, 1755, 128}, {"a40", 84, 1740, 64},
                      {"l40", 142, 2490, 64}};
  for (const Gpu& g : gpus) {
    INFO(g.file);
    const auto points = footprint_points(read_gpubenches_cache(bench_file("gpu-cache/" + std::string(g.file) + ".txt")));
    const nlohmann::json sweep = import_footprint(points, "L1", g.sms, g.clock_mhz);
    // The same fit as the file read directly.
    const FootprintFit direct = fit_footprint_sweep(points);
    REQUIRE(sweep["levels"].size() == direct.levels.size());
    REQUIRE(direct.levels.size() >= 2);
    for (std::size_t i = 0; i < direct.levels.size(); ++i)
      CHECK(level_bw(sweep, i) == Approx(direct.levels[i].bandwidth_bytes_per_s).epsilon(1e-12));
    const auto& l1 = sweep["levels"][0];
    CHECK(l1["name"] == "L1");
    CHECK(sweep["levels"].back()["name"] == "DRAM");
    CHECK(l1["bytes_per_clk_per_sm"].get<double>() == Approx(g.bytes_per_clk).epsilon(0.05));
    CHECK(l1["ends_at_bytes"].get<double>() > 100 * KiB);
    CHECK(l1["ends_at_bytes"].get<double>() < 240 * KiB);
    CHECK(sweep["input_points"] == points.size());
    CHECK(sweep["binned"].is_null());
  }
  // A100 and H100: the L2 level ends at one partition (20 / 25 MiB).
  for (const auto& [gpu, partition] : {std::pair{"a100_80", 20 * MiB}, std::pair{"h100_pcie", 25 * MiB}}) {
    INFO(gpu);
    const auto sweep = import_footprint(
        footprint_points(read_gpubenches_cache(bench_file("gpu-cache/" + std::string(gpu) + ".txt"))), "L1");
    REQUIRE(sweep["levels"].size() == 3);
    CHECK(sweep["levels"][1]["name"] == "L2");
    CHECK(sweep["levels"][1]["ends_at_bytes"].get<double>() == Approx(partition).epsilon(0.15));
    CHECK(sweep["levels"][0]["bytes_per_clk_per_sm"].is_null());  // no SM count, no clock
  }
}

TEST_CASE("implausible_units: a column orders of magnitude off its unit is named, real curves are not",
          "[analysis][csv]") {
  // Real curves measured by others (tests/data/real): plausible, no warning.
  for (const char* gpu : {"v100", "h100_pcie", "l40"})
    CHECK(implausible_units("f.csv", footprint_points(read_gpubenches_cache(
                                         bench_file("gpu-cache/" + std::string(gpu) + ".txt"))))
              .empty());
  CHECK(implausible_units("l.csv", read_gpubenches_latency(bench_file("gpu-latency/h100_pcie.txt"))).empty());
  // The same numbers in GB/s under a bytes/s header: one line saying so and what to multiply by.
  const std::vector<FootprintPoint> gbs = {{1024, 25000}, {1 << 20, 7000}, {1 << 30, 1900}};
  const auto w = implausible_units("f.csv", gbs);
  REQUIRE(w.size() == 1);
  CHECK(w[0] ==
        "f.csv: the largest bandwidth_bytes_per_s is 25000 bytes/s, orders of magnitude below what a GPU "
        "gives (1e8 to 1e16 bytes/s): if it is in GB/s, multiply it by 1e9 (the column is read in bytes/s)");
  const std::vector<ConcurrencyPoint> tbs = {{512, 0.9}, {4096, 1.7}, {65536, 1.9}};
  CHECK(implausible_units("c.csv", tbs).at(0).find("if it is in TB/s, multiply it by 1e12") !=
        std::string::npos);
  // FLOP/s given in TFLOP/s; times per pass in us; a latency curve's footprint in KiB.
  std::vector<IntensityPoint> tf(4);
  for (std::size_t i = 0; i < tf.size(); ++i) tf[i] = {std::pow(4.0, i), 12.5 * (i + 1)};
  CHECK(implausible_units("i.csv", tf).at(0).find("if it is in TFLOP/s, multiply it by 1e12") !=
        std::string::npos);
  const std::vector<std::pair<std::string, std::vector<SmallKernelPoint>>> us = {
      {"stream", {{65536, 2.1}, {131072, 2.4}, {262144, 3.0}}}};
  CHECK(implausible_units("s.csv", us).at(0).find("smallest time_s is 2.1 s") != std::string::npos);
  CHECK(implausible_units("s.csv", us).at(0).find("if it is in us, multiply it by 1e-6") !=
        std::string::npos);
  Curve kib;
  for (int i = 0; i < 8; ++i) kib.points.push_back({std::pow(2.0, i), i < 4 ? 30.0 : 300.0, 0});
  CHECK(implausible_units("l.csv", kib).at(0).find("if it is in KiB, multiply it by 1024") !=
        std::string::npos);
}

TEST_CASE("footprint CSV from gpu-l2-cache: the L2 and DRAM plateaus within 5%", "[analysis][csv][bandwidth_real]") {
  struct Gpu {
    const char* file;
    double l2_bytes_per_s, dram_bytes_per_s;  // as test_bandwidth_real.cpp (FIGURES.md, M [GB24])
  };
  const Gpu gpus[] = {{"a100_80", 5.4 * TBps, 1.73 * TBps}, {"h100_pcie", 7.0 * TBps, 1.99 * TBps},
                      {"h200", 9.85 * TBps, 3.89 * TBps},   {"l40", 5.2 * TBps, 0.82 * TBps}};
  for (const Gpu& g : gpus) {
    INFO(g.file);
    const auto sweep = import_footprint(
        footprint_points(read_gpubenches_l2_cache(bench_file("gpu-l2-cache/" + std::string(g.file) + ".txt"))), "L2");
    REQUIRE(sweep["levels"].size() == 2);
    CHECK(sweep["levels"][0]["name"] == "L2");
    CHECK(sweep["levels"][1]["name"] == "DRAM");
    CHECK(level_bw(sweep, 0) == Approx(g.l2_bytes_per_s).epsilon(0.05));
    CHECK(level_bw(sweep, 1) == Approx(g.dram_bytes_per_s).epsilon(0.05));
    CHECK(sweep["levels"][0]["ends_at_bytes"].is_number());
  }
}

TEST_CASE("concurrency CSV from gpu-stream: the DRAM plateaus within 5%", "[analysis][csv][bandwidth_real]") {
  struct Gpu {
    const char* file;
    double init, read, triad;  // GB/s, as test_bandwidth_real.cpp (data/real/README.md)
  };
  const Gpu gpus[] = {{"v100", 895, 866, 814},      {"a100_40", 1505, 1490, 1375}, {"a100_80", 1897, 1769, 1759},
                      {"h100_pcie", 2018, 1942, 1832}, {"h200", 3898, 2756, 3534},  {"l40", 846, 844, 803},
                      {"a40", 679, 679, 663}};
  for (const Gpu& g : gpus) {
    const auto file = read_gpubenches_stream(bench_file("gpu-stream/" + std::string(g.file) + ".txt"));
    for (const auto& [kernel, expected] : {std::pair{"init", g.init}, std::pair{"read", g.read},
                                           std::pair{"triad", g.triad}}) {
      INFO(g.file << " " << kernel);
      const auto points = concurrency_points(file, kernel, 8);
      const nlohmann::json c = import_concurrency(points, file.sm_count);
      ConcurrencyFitOptions o;
      o.sm_count = file.sm_count;
      const ConcurrencyFit direct = fit_concurrency_sweep(points, o);
      CHECK(c["measured_top_bytes_per_s"].get<double>() == Approx(expected * GBps).epsilon(0.05));
      CHECK(c["measured_top_bytes_per_s"].get<double>() == Approx(direct.peak_bandwidth_bytes_per_s).epsilon(1e-12));
      CHECK(c["measured_crossing_bytes_in_flight_per_sm"].get<double>() ==
            Approx(direct.bytes_in_flight_per_sm).epsilon(1e-12));
      // The headline peak: the measured top, or the model's asymptote at most 25% above it.
      CHECK(c["peak_bytes_per_s"].get<double>() >= c["measured_top_bytes_per_s"].get<double>());
      CHECK(c["peak_bytes_per_s"].get<double>() <= 1.25 * c["measured_top_bytes_per_s"].get<double>());
      CHECK(c["bytes_in_flight_per_sm_for_90pct"].get<double>() > 0);
      CHECK(c["points"].size() == points.size());
    }
  }
}

TEST_CASE("concurrency CSV of a Little's-law curve: peak within 3%, 90% in flight within 10%", "[analysis][csv]") {
  // An HBM-like level (harness/littles_law.hpp, the simulator's model): 600 ns unloaded, queue
  // 40 ns, 3 TB/s peak, 132 SMs; bytes in flight per SM from 256 B to 256 KiB, 4 per octave.
  const gpuprobe::littles_law::LoadedLatency m{600.0, 40.0, 3000.0};  // ns, ns, bytes/ns
  const int sms = 132;
  std::vector<ConcurrencyPoint> points;
  for (int i = 0; i <= 40; ++i) {
    const double x = 256.0 * std::exp2(i / 4.0);
    points.push_back({x, gpuprobe::littles_law::bandwidth_for(m, x * sms) * 1e9});
  }
  const nlohmann::json c = import_concurrency(points, sms, 1980);
  const double x90 = gpuprobe::littles_law::bytes_in_flight_for(m, 0.9) / sms;
  CHECK(c["peak_bytes_per_s"].get<double>() == Approx(3e12).epsilon(0.03));
  CHECK(c["bytes_in_flight_per_sm_for_90pct"].get<double>() == Approx(x90).epsilon(0.10));
  CHECK(c["peak_bytes_per_clk_per_sm"].get<double>() == Approx(3e12 / 1.98e9 / sms).epsilon(0.03));
  REQUIRE(c["loaded_latency"].is_object());
  CHECK(c["loaded_latency"]["unloaded_latency_ns"].get<double>() == Approx(600).epsilon(0.05));
  // Without an SM count: the measured top and crossing, no model.
  const nlohmann::json bare = import_concurrency(points, 0);
  CHECK(bare["loaded_latency"].is_null());
  CHECK(bare["peak_from"] == "measured top");
  CHECK(bare["peak_bytes_per_s"].get<double>() == Approx(3e12).epsilon(0.03));
  CHECK(bare["bytes_in_flight_per_sm_for_90pct"].get<double>() == Approx(x90).epsilon(0.10));
}

TEST_CASE("imported bandwidth curves: repeated x are medians, dense curves are binned", "[analysis][csv]") {
  // Three shapes per bytes-in-flight value: their median, as for a run.
  std::vector<ConcurrencyPoint> shapes;
  for (int i = 0; i < 12; ++i) {
    const double x = 512.0 * std::exp2(i / 2.0), b = std::min(1.0, x / 8192.0) * 2e12;
    for (double f : {0.9, 1.0, 1.05}) shapes.push_back({x, b * f});
  }
  const nlohmann::json c = import_concurrency(shapes, 0);
  REQUIRE(c["points"].size() == 12);
  CHECK(c["points"][0]["configurations"] == 3);
  CHECK(c["points"][0]["bandwidth_bytes_per_s"].get<double>() == Approx(512.0 / 8192.0 * 2e12));
  CHECK(c["input_points"] == 36);
  CHECK(c["binned"].is_null());
  // 100k rows: fitted from at most kMaxFootprintFitPoints bins, and the model says so.
  std::vector<FootprintPoint> dense;
  std::vector<ConcurrencyPoint> dense_c;
  for (int i = 0; i < 100000; ++i) {
    const double x = 1024.0 * std::exp2(16.0 * i / 100000.0);
    dense.push_back({x, x < 128 * KiB ? 2e13 : x < 16 * MiB ? 6e12 : 2e12});
    dense_c.push_back({x, std::min(1.0, x / (4 * MiB)) * 2e12});
  }
  const nlohmann::json f = import_footprint(dense, "L1");
  CHECK(f["input_points"] == 100000);
  REQUIRE(f["binned"].is_object());
  CHECK(f["binned"]["points"].get<std::size_t>() <= kMaxFootprintFitPoints);
  CHECK(f["x"].size() == f["binned"]["points"].get<std::size_t>());
  REQUIRE(f["levels"].size() == 3);
  CHECK(level_bw(f, 1) == Approx(6e12));
  const nlohmann::json d = import_concurrency(dense_c, 100);
  REQUIRE(d["binned"].is_object());
  CHECK(d["points"].size() <= kMaxFootprintFitPoints);
  CHECK(d["measured_top_bytes_per_s"].get<double>() == Approx(2e12).epsilon(0.01));
}

}  // namespace GPUPROBE_TEST_FILE
