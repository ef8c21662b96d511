#include "analysis/csv_import.hpp"

#include <algorithm>
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

#include "harness/error.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::analysis {
namespace {

constexpr std::size_t kMinRows = 6;  // what fit_hierarchy needs

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

[[noreturn]] void fail(const std::string& path, std::size_t line, const std::string& problem) {
  throw Error(path + ":" + std::to_string(line) + ": " + problem);
}

// Fields of one line, trimmed, as views into it (no copies: a million-row file is read in well
// under a second, docs/ANALYSIS.md "CSV format").
void split_commas(std::string_view s, std::vector<std::string_view>& fields) {
  fields.clear();
  for (;;) {
    const auto comma = s.find(',');
    fields.push_back(trim(s.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
}

// Why a line may have split wrongly: a file written with another separator (a spreadsheet in a
// locale whose decimal mark is the comma writes ';'; a tab is also common).
std::string separator_hint(std::string_view line) {
  if (line.find(';') != std::string_view::npos)
    return ": the separator must be a comma, and this line seems to use ';'";
  if (line.find('\t') != std::string_view::npos)
    return ": the separator must be a comma, and this line seems to use a tab";
  return "";
}

// The whole field must be a finite decimal number (an optional leading '+' is allowed).
std::optional<double> parse_number(std::string_view field) {
  if (!field.empty() && field.front() == '+') {
    field.remove_prefix(1);
    if (!field.empty() && field.front() == '-') return std::nullopt;
  }
  if (field.empty()) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || end != field.data() + field.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

struct Row {
  std::size_t line = 0;
  CurvePoint point;
};

std::ifstream open_or_fail(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open the file");
  return in;
}

// Sorts by x and rejects duplicates, naming both lines.
std::vector<CurvePoint> sorted_points(std::vector<Row> rows, const std::string& path,
                                      std::size_t last_line) {
  if (rows.size() < kMinRows) {
    fail(path, last_line, "too few rows: " + std::to_string(rows.size()) + " (need at least " +
                              std::to_string(kMinRows) + ")");
  }
  const auto by_x = [](const Row& a, const Row& b) { return a.point.x < b.point.x; };
  if (!std::is_sorted(rows.begin(), rows.end(), by_x)) std::stable_sort(rows.begin(), rows.end(), by_x);
  std::vector<CurvePoint> points;
  points.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0 && rows[i].point.x == rows[i - 1].point.x) {
      const Row& later = rows[i].line > rows[i - 1].line ? rows[i] : rows[i - 1];
      const Row& earlier = rows[i].line > rows[i - 1].line ? rows[i - 1] : rows[i];
      std::ostringstream what;
      what << "duplicate footprint_bytes " << later.point.x << " (also on line " << earlier.line << ")";
      fail(path, later.line, what.str());
    }
    points.push_back(rows[i].point);
  }
  return points;
}

}  // namespace

Curve read_latency_csv(const std::string& path, double clock_mhz_override) {
  if (!(clock_mhz_override >= 0) || !std::isfinite(clock_mhz_override)) {
    throw Error(path + ": clock override " + std::to_string(clock_mhz_override) +
                " MHz must be finite and not negative");
  }
  std::ifstream in = open_or_fail(path);
  std::string raw;
  std::size_t line_no = 0;
  std::vector<std::string> header;
  std::optional<std::size_t> col_x, col_cycles, col_ns;
  std::vector<Row> rows;
  std::vector<std::string_view> fields;

  while (std::getline(in, raw)) {
    ++line_no;
    std::string_view line = raw;
    // A UTF-8 byte-order mark (spreadsheets write one) before the first line.
    if (line_no == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    split_commas(line, fields);

    if (header.empty()) {
      header.assign(fields.begin(), fields.end());
      if (parse_number(header.front())) {
        fail(path, line_no, "missing header: the first line must name the columns "
                            "(footprint_bytes,latency_cycles[,latency_ns])");
      }
      for (std::size_t c = 0; c < header.size(); ++c) {
        if (header[c].empty()) fail(path, line_no, "empty column name in the header (column " +
                                                       std::to_string(c + 1) + ")" + separator_hint(line));
        for (std::size_t d = 0; d < c; ++d) {
          if (header[d] == header[c]) fail(path, line_no, "column '" + header[c] + "' appears twice");
        }
        if (header[c] == "footprint_bytes") col_x = c;
        if (header[c] == "latency_cycles") col_cycles = c;
        if (header[c] == "latency_ns") col_ns = c;
      }
      if (!col_x) fail(path, line_no, "missing column 'footprint_bytes' in the header" + separator_hint(line));
      if (!col_cycles) fail(path, line_no, "missing column 'latency_cycles' in the header" + separator_hint(line));
      continue;
    }

    if (fields.size() != header.size()) {
      fail(path, line_no, "expected " + std::to_string(header.size()) + " fields as in the header, got " +
                              std::to_string(fields.size()) + separator_hint(line));
    }
    const auto number = [&](std::size_t c) {
      const auto v = parse_number(fields[c]);
      if (!v) fail(path, line_no, "column '" + header[c] + "': '" + std::string(fields[c]) + "' is not a number");
      if (*v < 0) fail(path, line_no, "column '" + header[c] + "': " + std::string(fields[c]) + " is negative");
      return *v;
    };
    Row row;
    row.line = line_no;
    row.point.x = number(*col_x);
    row.point.latency_cycles = number(*col_cycles);
    if (row.point.x == 0) fail(path, line_no, "column 'footprint_bytes': must be positive, got 0");
    if (row.point.latency_cycles == 0) fail(path, line_no, "column 'latency_cycles': must be positive, got 0");
    if (col_ns) {
      row.point.latency_ns = number(*col_ns);
    } else if (clock_mhz_override > 0) {
      row.point.latency_ns = row.point.latency_cycles / clock_mhz_override * 1000.0;
    }
    rows.push_back(row);
  }
  if (header.empty()) fail(path, std::max<std::size_t>(line_no, 1), "missing header: the file has no data");

  Curve curve;
  curve.x_name = "footprint_bytes";
  curve.clock_mhz = clock_mhz_override;
  curve.points = sorted_points(std::move(rows), path, line_no);
  return curve;
}

Curve read_gpubenches_latency(const std::string& path) {
  std::ifstream in = open_or_fail(path);
  std::string raw;
  std::size_t line_no = 0;
  bool seen_clock = false;
  std::vector<Row> rows;
  std::vector<double> clocks;
  while (std::getline(in, raw)) {
    ++line_no;
    const std::string line(trim(raw));
    if (line.empty()) continue;
    if (!seen_clock) {
      if (line.rfind("clock:", 0) != 0) fail(path, line_no, "expected the 'clock:' line first");
      seen_clock = true;
      continue;
    }
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string s; fields >> s;) f.push_back(s);
    if (f.size() != 5) {
      fail(path, line_no, "expected 5 columns (iters clock_MHz footprint_KiB dt cycles), got " +
                              std::to_string(f.size()));
    }
    double v[5];
    static const char* const kNames[5] = {"iters", "clock_MHz", "footprint_KiB", "dt", "cycles"};
    for (int c = 0; c < 5; ++c) {
      const auto parsed = parse_number(f[static_cast<std::size_t>(c)]);
      if (!parsed) fail(path, line_no, std::string(kNames[c]) + ": '" + f[static_cast<std::size_t>(c)] + "' is not a number");
      if (*parsed <= 0) fail(path, line_no, std::string(kNames[c]) + ": " + f[static_cast<std::size_t>(c)] + " must be positive");
      v[c] = *parsed;
    }
    Row row;
    row.line = line_no;
    row.point.x = v[2] * 1024.0;
    row.point.latency_cycles = v[4];
    row.point.latency_ns = v[4] / v[1] * 1000.0;
    clocks.push_back(v[1]);
    rows.push_back(row);
  }
  if (!seen_clock) fail(path, std::max<std::size_t>(line_no, 1), "empty file: expected the 'clock:' line");
  Curve curve;
  curve.x_name = "footprint_bytes";
  curve.points = sorted_points(std::move(rows), path, line_no);
  curve.clock_mhz = stats::median(clocks);
  return curve;
}

}  // namespace gpuprobe::analysis
