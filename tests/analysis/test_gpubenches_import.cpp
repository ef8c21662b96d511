// analysis/gpubenches_import: every field of each format, and one-line errors with path:line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "analysis/gpubenches_import.hpp"
#include "harness/error.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe::analysis;

namespace {

// Writes `text` to a fresh file in the temp directory and returns the error of reading it with
// `read` ("" when it reads), the file removed afterwards.
template <typename Read>
std::string error_of(const std::string& text, Read read) {
  static int counter = 0;
  const auto path = (std::filesystem::temp_directory_path() /
                     ("gpuprobe_gpubenches_" + std::to_string(::getpid()) + "_" +
                      std::to_string(counter++) + ".txt"))
                        .string();
  std::ofstream(path) << text;
  std::string error;
  try {
    read(path);
  } catch (const gpuprobe::Error& e) {
    error = e.what();
    error = error.substr(error.find(".txt") + 4);   // drop the temp path
  }
  std::filesystem::remove(path);
  return error;
}

std::string data(const std::string& rel) {
  return std::string(GPUPROBE_TEST_DATA_DIR) + "/real/gpu-benches/" + rel;
}

}  // namespace

TEST_CASE("gpu-cache rows: KiB, ms, %, GB/s and the four counters", "[gpubenches_import]") {
  const auto f = read_gpubenches_cache(data("gpu-cache/a100_80.txt"));
  CHECK(f.clock_mhz_samples.empty());
  REQUIRE(f.rows.size() == 73);
  const auto& r = f.rows[35];   // "172 kB 5ms 1.1% 17194.8 GB/s 0 GB/s 0 GB/s 1936 GB/s 0 GB/s"
  CHECK(r.footprint_bytes == 172 * 1024.0);
  CHECK(r.exec_time_ms == 5);
  CHECK(r.spread_percent == 1.1);
  CHECK(r.bandwidth_bytes_per_s == 17194.8e9);
  CHECK(r.counters.l2_read_bytes_per_s == 1936e9);
  CHECK(r.counters.dram_read_bytes_per_s == 0);
  const auto l40 = read_gpubenches_cache(data("gpu-cache/l40.txt"));
  CHECK(l40.clock_mhz_samples.size() == 16);
  CHECK(footprint_points(l40).size() == l40.rows.size());
}

TEST_CASE("gpu-l2-cache rows: per-block and total footprint", "[gpubenches_import]") {
  const auto rows = read_gpubenches_l2_cache(data("gpu-l2-cache/a100_80.txt"));
  REQUIRE(rows.size() == 85);
  CHECK(rows[0].per_block_bytes == 512 * 1024.0);
  CHECK(rows[0].footprint_bytes == 1536 * 1024.0);
  CHECK(rows[0].time_ms == 12);
  CHECK(rows[1].spread_percent == 22.8);
  CHECK(rows[1].bandwidth_bytes_per_s == 5481.9e9);
  CHECK(footprint_points(rows).back().footprint_bytes == 4881920 * 1024.0);
}

TEST_CASE("gpu-stream rows: kernels from the header, SMs from threads / blockSize",
          "[gpubenches_import]") {
  const auto f = read_gpubenches_stream(data("gpu-stream/a100_40.txt"));
  CHECK(f.kernels == std::vector<std::string>{"init", "read", "scale", "triad", "1pt", "3pt"});
  REQUIRE(f.rows.size() == 32);
  CHECK(f.sm_count == 108);
  CHECK(f.rows[1].block_size == 64);
  CHECK(f.rows[1].threads == 6912);
  CHECK(f.rows[1].occupancy_percent == 6.2);
  CHECK(f.rows[1].bandwidth_bytes_per_s[3] == 403e9);
  const auto p = concurrency_points(f, "triad", 24);
  CHECK(p[1].bytes_in_flight_per_sm == 64 * 24);
  CHECK(p[1].bandwidth_bytes_per_s == 403e9);
  CHECK_THROWS_WITH(concurrency_points(f, "copy", 8), Catch::Contains("init, read, scale, triad"));
}

TEST_CASE("gpu-strides rows: type, mode, stride, cycles, bytes per cycle, counters",
          "[gpubenches_import]") {
  const auto f = read_gpubenches_strides(data("gpu-strides/a100.txt"));
  CHECK(f.clock_mhz_samples.back() == 1410);
  const auto& first = f.rows.front();   // "float block 1 4098 9.2 14.0 2.00 9.2 0.01"
  CHECK(first.type == "float");
  CHECK(first.word_bytes == 4);
  CHECK(first.mode == "block");
  CHECK(first.stride == 1);
  CHECK(first.arg == 4098);
  CHECK(first.cycles == 9.2);
  CHECK(first.bytes_per_cycle == 14.0);
  CHECK(first.counters == std::vector<double>{2.0, 9.2, 0.01});
  const auto floats = stride_points(f, 4), doubles = stride_points(f, 8);
  CHECK(floats.size() == 65);
  CHECK(doubles.size() == 65);
  CHECK(floats[8].stride_elements == 8);
  CHECK(floats[8].bytes_per_cycle_per_sm == 16.0);
}

TEST_CASE("gpu-benches readers: malformed files give one line with path:line",
          "[gpubenches_import]") {
  const auto cache = [](const std::string& p) { read_gpubenches_cache(p); };
  const auto l2 = [](const std::string& p) { read_gpubenches_l2_cache(p); };
  const auto stream = [](const std::string& p) { read_gpubenches_stream(p); };
  const auto strides = [](const std::string& p) { read_gpubenches_strides(p); };
  const std::string head = "     data set   exec time     spread        Eff. bw\n";
  CHECK(error_of(head + "2 kB 5ms 0.3% 100 GB/s\n4 kB 5ms 0.3% 100 GB/s\n", cache) == "");
  CHECK(error_of(head, cache) == ":1: no data rows");
  CHECK(error_of(head + "2 kB 5ms 0.3% 100 MB/s\n", cache) ==
        ":2: column 4: expected unit 'GB/s', got 'MB/s'");
  CHECK(error_of(head + "4 kB 5ms 0.3% 100 GB/s\n2 kB 5ms 0.3% 100 GB/s\n", cache) ==
        ":3: the footprint must increase from row to row");
  CHECK(error_of(head + "2 kB 5ms 0.3% x GB/s\n", cache) == ":2: 'x' is neither a number nor the unit of one");
  CHECK(error_of(head + "2 kB 5ms 0.3% 0 GB/s\n", cache) == ":2: footprint and bandwidth must be positive");
  CHECK(error_of("clock: 1410 fast\n" + head + "2 kB 5ms 0.3% 1 GB/s\n", cache) ==
        ":1: clock sample 'fast' is not a positive number");
  CHECK(error_of(head + "512 kB 1024 kB 7ms 0.1% 7758.1 GB/s\n", l2) == "");
  CHECK(error_of(head + "512 kB 7ms 0.1% 7758.1 GB/s\n", l2) ==
        ":2: expected 5 columns and up to 4 counters, got 4 values");
  CHECK(error_of(head + "512 kB 7ms 0.1% 7758.1 GB/s 0 GB/s\n", l2) ==
        ":2: column 2: expected unit 'kB', got 'ms'");
  const std::string sh = "blockSize threads %occ | init read\n";
  CHECK(error_of(sh + "32 3456 3 % | GB/s: 159 81\n", stream) == "");
  CHECK(error_of(sh + "32 3456 3 % | GB/s: 159\n", stream) == ":2: expected 2 bandwidths, got 1");
  CHECK(error_of(sh + "32 3456 3 % | GB/s: 159 81\n64 7000 6 % | GB/s: 1 2\n", stream) ==
        ":3: threads must be a whole multiple of the block size");
  CHECK(error_of("32 3456 3 % | GB/s: 159 81\n", stream) ==
        ":1: a data row before the header naming the kernels");
  CHECK(error_of("float stride 1 1 1.02 126 1.00\n", strides) == "");
  CHECK(error_of("half stride 1 1 1.02 126\n", strides) == ":1: type 'half' is neither float nor double");
  CHECK(error_of("float stride 1 1 1.02\n", strides) ==
        ":1: expected 'type mode stride arg cycles bytes_per_cycle [counters]'");
  CHECK_THROWS_WITH(read_gpubenches_cache("/nonexistent/x.txt"), Catch::Contains("cannot open"));
}

}  // namespace GPUPROBE_TEST_FILE
