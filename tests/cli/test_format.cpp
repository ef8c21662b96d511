// The command line's one number-and-unit formatter (cli/format.hpp).
#include "cli/format.hpp"

#include <catch2/catch.hpp>
#include <cmath>

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

TEST_CASE("sizes print in the binary units the command line reads", "[cli][format]") {
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(128) == "128 B");
  CHECK(format_bytes(1023) == "1023 B");
  CHECK(format_bytes(1024) == "1 KiB");
  CHECK(format_bytes(256 * 1024) == "256 KiB");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(6.0 * 1024 * 1024) == "6 MiB");
  CHECK(format_bytes(273045224.55) == "260 MiB");
  CHECK(format_bytes(1.5 * 1024 * 1024 * 1024) == "1.5 GiB");
  CHECK(format_bytes(4.0 * 1024 * 1024 * 1024 * 1024 * 1024) == "4096 TiB");
}

TEST_CASE("every metric unit prints one way: rates with decimal prefixes, integer tensor ops as OP/s",
          "[cli][format]") {
  // The same table as tests/analysis/test_plot_common.py holds for analysis/plot_common.py.
  const std::pair<std::pair<double, const char*>, const char*> table[] = {
      {{3.35e12, "bytes/s"}, "3.35 TB/s"},   {{912e9, "bytes/s"}, "912 GB/s"},
      {{2e12, "bytes/s"}, "2.00 TB/s"},      {{989e12, "flop/s"}, "989 TFLOP/s"},
      {{1.05e15, "flop/s"}, "1.05 PFLOP/s"}, {{1.979e15, "op/s"}, "1.98 POP/s"},
      {{7.06e12, "ops/s"}, "7.06 Top/s"},    {{256.0 * 1024, "bytes"}, "256 KiB"},
      {{1536, "bytes"}, "1.5 KiB"},          {{92.04, "percent"}, "92.0%"},
      {{283.25, "cycles"}, "283 cycles"},    {{19.65, "ns"}, "19.6 ns"},
      {{4.0, "cycles"}, "4.00 cycles"},      {{0.004, "flop/byte"}, "0.004 flop/byte"},
      {{2.5e6, "ns"}, "2.50 ms"},            {{24.1, "flop/byte"}, "24.1 flop/byte"}};
  for (const auto& [in, want] : table) {
    INFO(in.first << " " << in.second);
    CHECK(format_value(in.first, in.second) == want);
  }
  CHECK(format_value(NAN, "ns") == "-");
  CHECK(format_value(nlohmann::json(nullptr), "ns") == "-");
  CHECK(format_value(nlohmann::json(4.0), "cycles") == "4.00 cycles");
}

}  // namespace GPUPROBE_TEST_FILE
