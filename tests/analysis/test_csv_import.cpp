#include "analysis/csv_import.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "harness/error.hpp"

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
