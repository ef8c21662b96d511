// The command line's one number-and-unit formatter: every value it prints in a metric's unit
// (docs/SCHEMA.md `metrics[].unit`) goes through format_value. Rates take decimal prefixes, as
// datasheets give them ("3.35 TB/s", "989 TFLOP/s", "1.98 POP/s" for integer tensor ops); sizes
// take binary units, as the command line reads them ("256 KiB", "1.5 GiB"; K = 1024); the rest
// three significant figures with the unit ("283 cycles", "19.6 ns", "4.00 cycles").
// analysis/plot_common.py format_value is its Python twin: the same rules, the same text
// (tests/cli/test_format.cpp and tests/analysis/test_plot_common.py hold the same table).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace gpuprobe {

// `v` in `unit`: bytes/s -> B/s, flop/s -> FLOP/s, op/s -> OP/s (integer tensor operations, 2 per
// multiply-accumulate), ops/s -> op/s (thread-level operations), each with a decimal prefix;
// bytes -> B, KiB, MiB, GiB, TiB; percent -> "12.5%"; ns from 10^4 on as us, ms, s; others
// "<3 figures> unit".
std::string format_value(double v, const std::string& unit);
// A JSON value in `unit`: a number through format_value, anything else (null: unknown) "-".
std::string format_value(const nlohmann::json& v, const std::string& unit);

// Sizes in binary units, as the command line reads them (K = KiB = 1024 bytes, M = MiB, G = GiB):
// "128 B", "256 KiB", "1.5 GiB"; whole numbers without decimals, else 3 significant digits.
std::string format_bytes(double bytes);

// "%.<digits>g".
std::string format_g(double v, int digits = 3);

}  // namespace gpuprobe
