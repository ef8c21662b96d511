#include "cli/format.hpp"

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <utility>

namespace gpuprobe {
namespace {

// Three significant figures without exponents for everyday magnitudes (analysis/plot_common.py
// num, the same rule).
std::string num(double v) {
  char buf[48];
  const double a = std::fabs(v);
  if (a >= 100 || a == 0) std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (a >= 10) std::snprintf(buf, sizeof buf, "%.1f", v);
  else if (a >= 0.01) std::snprintf(buf, sizeof buf, "%.2f", v);
  else std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// "3.35 TB/s": the largest decimal prefix the value reaches, then num().
std::string scaled(double v, const char* unit, std::initializer_list<std::pair<double, const char*>> steps) {
  for (const auto& [scale, p] : steps)
    if (std::fabs(v) >= scale) return num(v / scale) + " " + p + unit;
  return num(v) + " " + unit;
}

std::string rate(double v, const char* unit) {
  return scaled(v, unit, {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}});
}

}  // namespace

std::string format_g(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string format_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double v = bytes;
  while (unit < 4 && std::fabs(v) >= 1024) {
    v /= 1024;
    ++unit;
  }
  char buf[48];
  if (v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f %s", v, kUnits[unit]);
  else std::snprintf(buf, sizeof buf, "%.3g %s", v, kUnits[unit]);
  return buf;
}

std::string format_value(double v, const std::string& unit) {
  if (!std::isfinite(v)) return "-";
  if (unit == "bytes/s") return rate(v, "B/s");
  if (unit == "flop/s") return rate(v, "FLOP/s");
  if (unit == "op/s") return rate(v, "OP/s");
  if (unit == "ops/s") return rate(v, "op/s");
  if (unit == "bytes") return format_bytes(v);
  if (unit == "ns" && std::fabs(v) >= 1e4) return scaled(v / 1e9, "s", {{1, ""}, {1e-3, "m"}, {1e-6, "u"}});
  if (unit == "percent") return num(v) + "%";
  return num(v) + (unit.empty() ? "" : " " + unit);
}

std::string format_value(const nlohmann::json& v, const std::string& unit) {
  return v.is_number() ? format_value(v.get<double>(), unit) : "-";
}

}  // namespace gpuprobe
