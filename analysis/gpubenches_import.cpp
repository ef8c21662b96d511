#include "analysis/gpubenches_import.hpp"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "analysis/input_file.hpp"
#include "harness/error.hpp"

namespace gpuprobe::analysis {
namespace {

constexpr double kKiB = 1024.0;
constexpr double kGBps = 1e9;

std::vector<std::string> tokens_of(const std::string& line) {
  std::istringstream s(line);
  std::vector<std::string> t;
  for (std::string w; s >> w;) t.push_back(w);
  return t;
}

// The longest numeric prefix of `s` (finite), and what follows it.
std::optional<std::pair<double, std::string>> number_prefix(std::string_view s) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr == s.data() || !std::isfinite(v)) return std::nullopt;
  return std::pair<double, std::string>{v, std::string(ptr, s.data() + s.size())};
}

// A row of numbers with units, as gpu-cache and gpu-l2-cache print them: "2 kB 5ms 21.4% 18806.9
// GB/s 0 GB/s". A unit is glued to its number ("5ms") or is the next token ("kB", "GB/s").
struct Quantity {
  double value = 0;
  std::string unit;
};
std::vector<Quantity> quantities(const std::vector<std::string>& tokens, const std::string& path,
                                 std::size_t line) {
  std::vector<Quantity> q;
  for (const auto& t : tokens) {
    if (const auto num = number_prefix(t)) {
      q.push_back({num->first, num->second});
    } else if (!q.empty() && q.back().unit.empty()) {
      q.back().unit = t;
    } else {
      fail_at_line(path, line, "'" + t + "' is neither a number nor the unit of one");
    }
  }
  return q;
}

void expect_units(const std::vector<Quantity>& q, const std::vector<std::string>& units,
                  const std::string& path, std::size_t line) {
  if (q.size() < units.size() || q.size() > units.size() + 4) {
    fail_at_line(path, line,
                 "expected " + std::to_string(units.size()) + " columns and up to 4 counters, got " +
                     std::to_string(q.size()) + " values");
  }
  for (std::size_t i = 0; i < q.size(); ++i) {
    const std::string& want = i < units.size() ? units[i] : "GB/s";
    if (q[i].unit != want)
      fail_at_line(
          path, line,
          "column " + std::to_string(i + 1) + ": expected unit '" + want + "', got '" + q[i].unit + "'");
    if (q[i].value < 0) fail_at_line(path, line, "column " + std::to_string(i + 1) + " is negative");
  }
}

GpuBenchesCounters counters_from(const std::vector<Quantity>& q, std::size_t first) {
  GpuBenchesCounters c;
  double* dst[4] = {&c.dram_read_bytes_per_s, &c.dram_write_bytes_per_s, &c.l2_read_bytes_per_s,
                    &c.l2_write_bytes_per_s};
  for (std::size_t i = first; i < q.size() && i - first < 4; ++i) *dst[i - first] = q[i].value * kGBps;
  return c;
}

std::vector<double> clock_samples(const std::vector<std::string>& t, const std::string& path,
                                  std::size_t line) {
  std::vector<double> v;
  for (std::size_t i = 1; i < t.size(); ++i) {
    const auto num = number_prefix(t[i]);
    if (!num || !num->second.empty() || !(num->first > 0))
      fail_at_line(path, line, "clock sample '" + t[i] + "' is not a positive number");
    v.push_back(num->first);
  }
  return v;
}

bool starts_with_number(const std::vector<std::string>& t) {
  return !t.empty() && number_prefix(t.front()).has_value();
}

// Reads rows of quantities; lines before the first row that do not start with a number are the
// clock line ("clock: ...") or a header. Calls row(q, line) for each data row.
template <typename Row>
std::vector<double> read_quantity_rows(const std::string& path, Row row) {
  std::ifstream in = open_or_fail(path);
  std::vector<double> clocks;
  std::string raw;
  std::size_t line = 0, rows = 0;
  while (std::getline(in, raw)) {
    ++line;
    const auto t = tokens_of(raw);
    if (t.empty()) continue;
    if (!starts_with_number(t)) {
      if (rows > 0) fail_at_line(path, line, "a header or text line after the data rows");
      if (t.front() == "clock:") clocks = clock_samples(t, path, line);
      continue;
    }
    row(quantities(t, path, line), line);
    ++rows;
  }
  if (rows == 0) fail_at_line(path, std::max<std::size_t>(line, 1), "no data rows");
  return clocks;
}

void check_increasing(double prev, double now, const std::string& path, std::size_t line) {
  if (!(now > prev)) fail_at_line(path, line, "the footprint must increase from row to row");
}

}  // namespace

GpuBenchesCacheFile read_gpubenches_cache(const std::string& path) {
  GpuBenchesCacheFile file;
  double prev = 0;
  file.clock_mhz_samples = read_quantity_rows(path, [&](const std::vector<Quantity>& q, std::size_t line) {
    expect_units(q, {"kB", "ms", "%", "GB/s"}, path, line);
    GpuBenchesCacheRow r;
    r.footprint_bytes = q[0].value * kKiB;
    r.exec_time_ms = q[1].value;
    r.spread_percent = q[2].value;
    r.bandwidth_bytes_per_s = q[3].value * kGBps;
    if (!(r.footprint_bytes > 0) || !(r.bandwidth_bytes_per_s > 0))
      fail_at_line(path, line, "footprint and bandwidth must be positive");
    check_increasing(prev, r.footprint_bytes, path, line);
    prev = r.footprint_bytes;
    r.counters = counters_from(q, 4);
    file.rows.push_back(r);
  });
  return file;
}

std::vector<GpuBenchesL2Row> read_gpubenches_l2_cache(const std::string& path) {
  std::vector<GpuBenchesL2Row> rows;
  double prev = 0;
  read_quantity_rows(path, [&](const std::vector<Quantity>& q, std::size_t line) {
    expect_units(q, {"kB", "kB", "ms", "%", "GB/s"}, path, line);
    GpuBenchesL2Row r;
    r.per_block_bytes = q[0].value * kKiB;
    r.footprint_bytes = q[1].value * kKiB;
    r.time_ms = q[2].value;
    r.spread_percent = q[3].value;
    r.bandwidth_bytes_per_s = q[4].value * kGBps;
    if (!(r.footprint_bytes > 0) || !(r.bandwidth_bytes_per_s > 0))
      fail_at_line(path, line, "footprint and bandwidth must be positive");
    check_increasing(prev, r.footprint_bytes, path, line);
    prev = r.footprint_bytes;
    r.counters = counters_from(q, 5);
    rows.push_back(r);
  });
  return rows;
}

GpuBenchesStreamFile read_gpubenches_stream(const std::string& path) {
  std::ifstream in = open_or_fail(path);
  GpuBenchesStreamFile file;
  std::string raw;
  std::size_t line = 0;
  while (std::getline(in, raw)) {
    ++line;
    const auto t = tokens_of(raw);
    if (t.empty()) continue;
    const auto bar = raw.find('|');
    if (bar == std::string::npos)
      fail_at_line(path, line, "expected '|' between the row's settings and its bandwidths");
    if (!starts_with_number(t)) {
      if (!file.kernels.empty() || !file.rows.empty()) fail_at_line(path, line, "a second header line");
      file.kernels = tokens_of(raw.substr(bar + 1));
      if (file.kernels.empty()) fail_at_line(path, line, "the header names no kernel after '|'");
      continue;
    }
    if (file.kernels.empty()) fail_at_line(path, line, "a data row before the header naming the kernels");
    auto left = tokens_of(raw.substr(0, bar));
    auto right = tokens_of(raw.substr(bar + 1));
    if (!right.empty() && right.front() == "GB/s:") right.erase(right.begin());
    if (left.size() == 4 && left[3] == "%") left.pop_back();
    if (left.size() != 3) fail_at_line(path, line, "expected 'blockSize threads occupancy %' before '|'");
    double v[3];
    for (int c = 0; c < 3; ++c) {
      const auto num = number_prefix(left[static_cast<std::size_t>(c)]);
      if (!num || !(num->second.empty() || (c == 2 && num->second == "%")) || !(num->first > 0))
        fail_at_line(path, line, "'" + left[static_cast<std::size_t>(c)] + "' is not a positive number");
      v[c] = num->first;
    }
    if (right.size() != file.kernels.size())
      fail_at_line(path, line,
                   "expected " + std::to_string(file.kernels.size()) + " bandwidths, got " +
                       std::to_string(right.size()));
    GpuBenchesStreamRow r;
    r.block_size = static_cast<int>(v[0]);
    r.threads = static_cast<long long>(v[1]);
    r.occupancy_percent = v[2];
    if (r.block_size != v[0] || r.threads != v[1] || r.threads % r.block_size != 0)
      fail_at_line(path, line, "threads must be a whole multiple of the block size");
    const int sms = static_cast<int>(r.threads / r.block_size);
    if (file.sm_count != 0 && sms != file.sm_count)
      fail_at_line(path, line,
                   "threads / blockSize = " + std::to_string(sms) + " SMs, earlier rows " +
                       std::to_string(file.sm_count));
    file.sm_count = sms;
    if (!file.rows.empty() && !(r.block_size > file.rows.back().block_size))
      fail_at_line(path, line, "the block size must increase from row to row");
    for (const auto& s : right) {
      const auto num = number_prefix(s);
      if (!num || !num->second.empty() || !(num->first > 0))
        fail_at_line(path, line, "bandwidth '" + s + "' is not a positive number");
      r.bandwidth_bytes_per_s.push_back(num->first * kGBps);
    }
    file.rows.push_back(r);
  }
  if (file.rows.empty()) fail_at_line(path, std::max<std::size_t>(line, 1), "no data rows");
  return file;
}

GpuBenchesStridesFile read_gpubenches_strides(const std::string& path) {
  std::ifstream in = open_or_fail(path);
  GpuBenchesStridesFile file;
  std::string raw;
  std::size_t line = 0;
  while (std::getline(in, raw)) {
    ++line;
    const auto t = tokens_of(raw);
    if (t.empty()) continue;
    if (t.front() == "clock:") {
      if (!file.rows.empty()) fail_at_line(path, line, "the clock line must come first");
      file.clock_mhz_samples = clock_samples(t, path, line);
      continue;
    }
    if (t.size() < 6)
      fail_at_line(path, line, "expected 'type mode stride arg cycles bytes_per_cycle [counters]'");
    GpuBenchesStrideRow r;
    r.type = t[0];
    if (r.type == "float") r.word_bytes = 4;
    else if (r.type == "double") r.word_bytes = 8;
    else fail_at_line(path, line, "type '" + r.type + "' is neither float nor double");
    r.mode = t[1];
    if (r.mode != "stride" && r.mode != "block")
      fail_at_line(path, line, "mode '" + r.mode + "' is neither stride nor block");
    std::vector<double> v;
    for (std::size_t c = 2; c < t.size(); ++c) {
      const auto num = number_prefix(t[c]);
      if (!num || !num->second.empty() || num->first < 0)
        fail_at_line(path, line, "'" + t[c] + "' is not a non-negative number");
      v.push_back(num->first);
    }
    if (v[0] != std::floor(v[0]) || v[1] != std::floor(v[1]))
      fail_at_line(path, line, "stride and argument must be whole numbers");
    r.stride = static_cast<int>(v[0]);
    r.arg = static_cast<int>(v[1]);
    r.cycles = v[2];
    r.bytes_per_cycle = v[3];
    if (!(r.cycles > 0) || !(r.bytes_per_cycle > 0))
      fail_at_line(path, line, "cycles and bytes per cycle must be positive");
    r.counters.assign(v.begin() + 4, v.end());
    file.rows.push_back(r);
  }
  if (file.rows.empty()) fail_at_line(path, std::max<std::size_t>(line, 1), "no data rows");
  return file;
}

std::vector<GpuBenchesRooflineRow> read_gpubenches_roofline(const std::string& path) {
  std::ifstream in = open_or_fail(path);
  std::vector<GpuBenchesRooflineRow> rows;
  std::string raw;
  std::size_t line = 0;
  static const std::vector<std::string> kUnits = {"", "blocks", "its", "Fl/B", "GB/s", "GF/s", "Mhz", "W", "\xC2\xB0" "C"};
  while (std::getline(in, raw)) {
    ++line;
    const auto t = tokens_of(raw);
    if (t.empty()) continue;
    // The preamble some runs print: one whole number per line, and the build's last line.
    const bool preamble_line = (t.size() == 1 && t[0].find_first_not_of("0123456789") == std::string::npos) ||
                               (t.front() == "--" && t.back() == "--");
    if (preamble_line) {
      if (!rows.empty())
        fail_at_line(path, line,
                     "'" + raw + "' between data rows: expected 'device blocks its Fl/B GB/s GF/s Mhz W C'");
      continue;
    }
    const auto q = quantities(t, path, line);
    if (q.size() != kUnits.size())
      fail_at_line(
          path, line,
          "expected 9 values (device blocks its Fl/B GB/s GF/s Mhz W degC), got " + std::to_string(q.size()));
    for (std::size_t i = 0; i < q.size(); ++i) {
      if (q[i].unit != kUnits[i])
        fail_at_line(path, line,
                     "column " + std::to_string(i + 1) + ": expected unit '" + kUnits[i] + "', got '" +
                         q[i].unit + "'");
      if (q[i].value < 0) fail_at_line(path, line, "column " + std::to_string(i + 1) + " is negative");
    }
    for (std::size_t i : {0, 1, 2})
      if (q[i].value != std::floor(q[i].value))
        fail_at_line(path, line, "device, blocks and its must be whole numbers");
    GpuBenchesRooflineRow r;
    r.device = static_cast<int>(q[0].value);
    r.blocks = static_cast<int>(q[1].value);
    r.iterations = static_cast<int>(q[2].value);
    r.flop_per_byte = q[3].value;
    r.bytes_per_s = q[4].value * kGBps;
    r.flop_per_s = q[5].value * 1e9;
    r.sm_clock_mhz = q[6].value;
    r.watts = q[7].value;
    r.temperature_c = q[8].value;
    if (!(r.flop_per_byte > 0) || !(r.bytes_per_s > 0) || !(r.flop_per_s > 0) || !(r.sm_clock_mhz > 0))
      fail_at_line(path, line, "Fl/B, GB/s, GF/s and Mhz must be positive");
    rows.push_back(r);
  }
  if (rows.empty()) fail_at_line(path, std::max<std::size_t>(line, 1), "no data rows");
  return rows;
}

std::vector<IntensityPoint> intensity_points(const std::vector<GpuBenchesRooflineRow>& rows, int device) {
  std::vector<IntensityPoint> p;
  for (const auto& r : rows)
    if (device < 0 || r.device == device) p.push_back({r.flop_per_byte, r.flop_per_s, r.bytes_per_s, r.sm_clock_mhz, r.watts});
  return p;
}

std::vector<FootprintPoint> footprint_points(const GpuBenchesCacheFile& file) {
  std::vector<FootprintPoint> p;
  for (const auto& r : file.rows) p.push_back({r.footprint_bytes, r.bandwidth_bytes_per_s});
  return p;
}

std::vector<FootprintPoint> footprint_points(const std::vector<GpuBenchesL2Row>& rows) {
  std::vector<FootprintPoint> p;
  for (const auto& r : rows) p.push_back({r.footprint_bytes, r.bandwidth_bytes_per_s});
  return p;
}

std::vector<ConcurrencyPoint> concurrency_points(const GpuBenchesStreamFile& file,
                                                 const std::string& kernel,
                                                 double bytes_per_thread_in_flight) {
  std::size_t col = file.kernels.size();
  std::string names;
  for (std::size_t i = 0; i < file.kernels.size(); ++i) {
    if (file.kernels[i] == kernel) col = i;
    names += (i ? ", " : "") + file.kernels[i];
  }
  if (col == file.kernels.size()) throw Error("gpu-stream: no kernel '" + kernel + "' (the file has " + names + ")");
  if (!(bytes_per_thread_in_flight > 0)) throw Error("gpu-stream: bytes per thread must be positive");
  std::vector<ConcurrencyPoint> p;
  for (const auto& r : file.rows)
    p.push_back({r.block_size * bytes_per_thread_in_flight, r.bandwidth_bytes_per_s[col]});
  return p;
}

std::vector<StridePoint> stride_points(const GpuBenchesStridesFile& file, int word_bytes) {
  std::vector<StridePoint> p;
  for (const auto& r : file.rows)
    if (r.mode == "stride" && r.word_bytes == word_bytes) p.push_back({r.stride, r.bytes_per_cycle});
  return p;
}

}  // namespace gpuprobe::analysis
