#include "analysis/csv_import.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "analysis/input_file.hpp"
#include "harness/error.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::analysis {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
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

// The table layer every CSV reader shares: a file read line by line, its header (the first line
// neither blank nor a comment) naming the columns, then one data row at a time, each checked to
// hold the header's field count. Every problem is one line "path:line: problem".
class CsvTable {
 public:
  // `accepted` names the header(s) the caller takes, for the message when the first line holds
  // numbers instead of names.
  CsvTable(const std::string& path, const std::string& accepted) : path_(path), in_(open_or_fail(path)) {
    if (!next_line())
      fail_at_line(path_, std::max<std::size_t>(line_no_, 1), "missing header: the file has no data");
    header_line_ = line_no_;
    header_hint_ = separator_hint(line_);
    if (parse_number(fields_.front()))
      fail_at_line(path_, line_no_,
                   "missing header: the first line must name the columns (" + accepted + ")");
    header_.assign(fields_.begin(), fields_.end());
    for (std::size_t c = 0; c < header_.size(); ++c) {
      if (header_[c].empty())
        fail_at_line(path_, line_no_,
                     "empty column name in the header (column " + std::to_string(c + 1) + ")" + header_hint_);
      for (std::size_t d = 0; d < c; ++d)
        if (header_[d] == header_[c])
          fail_at_line(path_, line_no_, "column '" + header_[c] + "' appears twice");
    }
  }

  const std::string& path() const { return path_; }
  const std::vector<std::string>& header() const { return header_; }
  std::size_t header_line() const { return header_line_; }
  // The line last read: the current row's, or the last line of the file once next_row is false.
  std::size_t line() const { return line_no_; }
  // A failure on the header line, with the separator hint when the header seems to use another.
  [[noreturn]] void fail_header(const std::string& problem) const {
    fail_at_line(path_, header_line_, problem + header_hint_);
  }

  std::optional<std::size_t> find_column(std::string_view name) const {
    for (std::size_t c = 0; c < header_.size(); ++c)
      if (header_[c] == name) return c;
    return std::nullopt;
  }
  std::size_t column(std::string_view name) const {
    const auto c = find_column(name);
    if (!c) fail_header("missing column '" + std::string(name) + "' in the header");
    return *c;
  }

  // The next data row; false at the end of the file.
  bool next_row() {
    if (!next_line()) return false;
    if (fields_.size() != header_.size()) {
      fail_at_line(path_, line_no_,
                   "expected " + std::to_string(header_.size()) + " fields as in the header, got " +
                       std::to_string(fields_.size()) + separator_hint(line_));
    }
    return true;
  }
  // Column c of the current row: a finite number, not negative.
  double number(std::size_t c) const {
    const auto v = parse_number(fields_[c]);
    if (!v)
      fail_at_line(path_, line_no_,
                   "column '" + header_[c] + "': '" + std::string(fields_[c]) + "' is not a number");
    if (*v < 0)
      fail_at_line(path_, line_no_,
                   "column '" + header_[c] + "': " + std::string(fields_[c]) + " is negative");
    return *v;
  }
  // Column c of the current row as text, not empty.
  std::string text(std::size_t c) const {
    if (fields_[c].empty()) fail_at_line(path_, line_no_, "column '" + header_[c] + "' is empty");
    return std::string(fields_[c]);
  }
  // Column c of the current row: a finite number above 0.
  double positive(std::size_t c) const {
    const double v = number(c);
    if (v == 0) fail_at_line(path_, line_no_, "column '" + header_[c] + "': must be positive, got 0");
    return v;
  }

 private:
  // The next line that is neither blank nor a comment, split into fields_.
  bool next_line() {
    while (std::getline(in_, raw_)) {
      ++line_no_;
      line_ = raw_;
      // A UTF-8 byte-order mark (spreadsheets write one) before the first line.
      if (line_no_ == 1 && line_.substr(0, 3) == "\xEF\xBB\xBF") line_.remove_prefix(3);
      line_ = trim(line_);
      if (line_.empty() || line_.front() == '#') continue;
      split_commas(line_, fields_);
      return true;
    }
    return false;
  }

  std::string path_;
  std::ifstream in_;
  std::string raw_;
  std::string_view line_;
  std::vector<std::string_view> fields_;
  std::vector<std::string> header_;
  std::size_t line_no_ = 0, header_line_ = 0;
  std::string header_hint_;
};

// The columns that tell each kind of curve, and its header as documented.
struct KindSpec {
  CsvCurveKind kind;
  const char* x_column;
  const char* y_column;
  const char* header;
};
constexpr KindSpec kKinds[] = {
    {CsvCurveKind::latency, "footprint_bytes", "latency_cycles", "footprint_bytes,latency_cycles[,latency_ns]"},
    {CsvCurveKind::footprint_sweep, "footprint_bytes", "bandwidth_bytes_per_s", "footprint_bytes,bandwidth_bytes_per_s"},
    {CsvCurveKind::concurrency_sweep, "bytes_in_flight_per_sm", "bandwidth_bytes_per_s",
     "bytes_in_flight_per_sm,bandwidth_bytes_per_s"},
    {CsvCurveKind::intensity_sweep, "flop_per_byte", "flop_per_s", "flop_per_byte,flop_per_s[,sm_clock_mhz]"},
    {CsvCurveKind::small_kernels, "bytes", "time_s", "bytes,time_s,method"},
};

const KindSpec& spec(CsvCurveKind kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k;
  throw Error("unknown CSV curve kind");
}

std::string accepted_headers() {
  std::string s;
  for (const auto& k : kKinds) s += std::string(s.empty() ? "" : " or ") + k.header + " (" + to_string(k.kind) + ")";
  return s;
}

// A point and the line it came from.
template <class P>
struct Numbered {
  std::size_t line = 0;
  P point;
};

// Sorts by x (stably) and checks the row count; with `unique`, rejects a repeated x naming both
// lines.
template <class P, class X>
std::vector<P> sorted_points(std::vector<Numbered<P>> rows, X x_of, const char* x_name, std::size_t min_rows,
                             bool unique, const std::string& path, std::size_t last_line) {
  if (rows.size() < min_rows) {
    fail_at_line(
        path, last_line,
        "too few rows: " + std::to_string(rows.size()) + " (need at least " + std::to_string(min_rows) + ")");
  }
  const auto by_x = [&](const Numbered<P>& a, const Numbered<P>& b) { return x_of(a.point) < x_of(b.point); };
  if (!std::is_sorted(rows.begin(), rows.end(), by_x)) std::stable_sort(rows.begin(), rows.end(), by_x);
  std::vector<P> points;
  points.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (unique && i > 0 && x_of(rows[i].point) == x_of(rows[i - 1].point)) {
      const auto& later = rows[i].line > rows[i - 1].line ? rows[i] : rows[i - 1];
      const auto& earlier = rows[i].line > rows[i - 1].line ? rows[i - 1] : rows[i];
      std::ostringstream what;
      what << "duplicate " << x_name << " " << x_of(later.point) << " (also on line " << earlier.line << ")";
      fail_at_line(path, later.line, what.str());
    }
    points.push_back(rows[i].point);
  }
  return points;
}

constexpr std::size_t kMinLatencyRows = 6;    // what fit_hierarchy needs
constexpr std::size_t kMinBandwidthRows = 3;  // what fit_footprint_sweep and fit_concurrency_sweep need
constexpr std::size_t kMinIntensityRows = 4;  // what fit_roofline needs

// The two bandwidth forms: x and bandwidth, both positive; `x_of` reads x back from a point.
template <class P, class X>
std::vector<P> read_bandwidth_csv(const std::string& path, CsvCurveKind kind, X x_of, bool unique) {
  const KindSpec& k = spec(kind);
  CsvTable table(path, k.header);
  const std::size_t col_x = table.column(k.x_column);
  const std::size_t col_y = table.column(k.y_column);
  std::vector<Numbered<P>> rows;
  while (table.next_row()) {
    const double x = table.positive(col_x);
    rows.push_back({table.line(), P{x, table.positive(col_y)}});
  }
  return sorted_points(std::move(rows), x_of, k.x_column, kMinBandwidthRows, unique, path, table.line());
}

}  // namespace

const char* to_string(CsvCurveKind kind) {
  switch (kind) {
    case CsvCurveKind::latency: return "latency";
    case CsvCurveKind::footprint_sweep: return "footprint sweep";
    case CsvCurveKind::concurrency_sweep: return "concurrency sweep";
    case CsvCurveKind::small_kernels: return "small kernels";
    case CsvCurveKind::intensity_sweep: return "intensity sweep";
  }
  return "?";
}

CsvCurveKind csv_curve_kind(const std::string& path) {
  const CsvTable table(path, accepted_headers());
  std::vector<const KindSpec*> found;
  for (const auto& k : kKinds)
    if (table.find_column(k.x_column) && table.find_column(k.y_column)) found.push_back(&k);
  if (found.size() == 1) return found.front()->kind;
  std::string columns;
  for (const auto& c : table.header()) columns += (columns.empty() ? "" : ",") + c;
  if (found.empty())
    table.fail_header("unknown header '" + columns + "': the columns must be " + accepted_headers());
  std::string kinds;
  for (const KindSpec* k : found) kinds += std::string(kinds.empty() ? "" : ", ") + to_string(k->kind);
  table.fail_header("the header '" + columns + "' holds the columns of more than one kind of curve (" + kinds +
                    "): one kind per file");
}

Curve read_latency_csv(const std::string& path, double clock_mhz_override) {
  if (!(clock_mhz_override >= 0) || !std::isfinite(clock_mhz_override)) {
    throw Error(path + ": clock override " + std::to_string(clock_mhz_override) +
                " MHz must be finite and not negative");
  }
  const KindSpec& k = spec(CsvCurveKind::latency);
  CsvTable table(path, k.header);
  const std::size_t col_x = table.column(k.x_column);
  const std::size_t col_cycles = table.column(k.y_column);
  const std::optional<std::size_t> col_ns = table.find_column("latency_ns");
  std::vector<Numbered<CurvePoint>> rows;
  while (table.next_row()) {
    Numbered<CurvePoint> row;
    row.line = table.line();
    row.point.x = table.positive(col_x);
    row.point.latency_cycles = table.positive(col_cycles);
    if (col_ns) {
      row.point.latency_ns = table.number(*col_ns);
    } else if (clock_mhz_override > 0) {
      row.point.latency_ns = row.point.latency_cycles / clock_mhz_override * 1000.0;
    }
    rows.push_back(row);
  }
  Curve curve;
  curve.x_name = "footprint_bytes";
  curve.clock_mhz = clock_mhz_override;
  curve.points = sorted_points(std::move(rows), [](const CurvePoint& p) { return p.x; }, k.x_column,
                               kMinLatencyRows, true, path, table.line());
  return curve;
}

std::vector<FootprintPoint> read_footprint_csv(const std::string& path) {
  return read_bandwidth_csv<FootprintPoint>(
      path, CsvCurveKind::footprint_sweep, [](const FootprintPoint& p) { return p.footprint_bytes; }, true);
}

std::vector<ConcurrencyPoint> read_concurrency_csv(const std::string& path) {
  return read_bandwidth_csv<ConcurrencyPoint>(
      path, CsvCurveKind::concurrency_sweep, [](const ConcurrencyPoint& p) { return p.bytes_in_flight_per_sm; },
      false);
}

std::vector<IntensityPoint> read_intensity_csv(const std::string& path) {
  const KindSpec& k = spec(CsvCurveKind::intensity_sweep);
  CsvTable table(path, k.header);
  const std::size_t col_x = table.column(k.x_column);
  const std::size_t col_y = table.column(k.y_column);
  const std::optional<std::size_t> col_clock = table.find_column("sm_clock_mhz");
  const std::optional<std::size_t> col_bw = table.find_column("bandwidth_bytes_per_s");
  const std::optional<std::size_t> col_power = table.find_column("power_w");
  std::vector<Numbered<IntensityPoint>> rows;
  while (table.next_row()) {
    Numbered<IntensityPoint> row;
    row.line = table.line();
    row.point.flop_per_byte = table.positive(col_x);
    row.point.flop_per_s = table.positive(col_y);
    if (col_clock) row.point.sm_clock_mhz = table.positive(*col_clock);
    if (col_bw) row.point.bytes_per_s = table.positive(*col_bw);
    if (col_power) row.point.power_w = table.number(*col_power);
    rows.push_back(row);
  }
  // Repeats of an intensity are allowed (devices, repetitions: the fit takes their median).
  return sorted_points(std::move(rows), [](const IntensityPoint& p) { return p.flop_per_byte; }, k.x_column,
                       kMinIntensityRows, false, path, table.line());
}

std::vector<std::pair<std::string, std::vector<SmallKernelPoint>>> read_small_kernels_csv(
    const std::string& path) {
  const KindSpec& k = spec(CsvCurveKind::small_kernels);
  CsvTable table(path, k.header);
  const std::size_t col_bytes = table.column(k.x_column);
  const std::size_t col_time = table.column(k.y_column);
  const std::size_t col_method = table.column("method");
  std::vector<std::pair<std::string, std::vector<SmallKernelPoint>>> methods;
  while (table.next_row()) {
    const double bytes = table.positive(col_bytes);
    const double time_s = table.positive(col_time);
    const std::string method = table.text(col_method);
    auto it = std::find_if(methods.begin(), methods.end(), [&](const auto& m) { return m.first == method; });
    if (it == methods.end()) it = methods.insert(methods.end(), {method, {}});
    it->second.push_back({bytes, time_s});
  }
  if (methods.empty()) fail_at_line(path, table.line(), "too few rows: 0 (need at least 3 per method)");
  for (const auto& [method, points] : methods)
    if (points.size() < kMinBandwidthRows)
      fail_at_line(
          path, table.line(),
          "method '" + method + "' has " + std::to_string(points.size()) + " rows (need at least 3)");
  return methods;
}

Curve read_gpubenches_latency(const std::string& path) {
  std::ifstream in = open_or_fail(path);
  std::string raw;
  std::size_t line_no = 0;
  bool seen_clock = false;
  std::vector<Numbered<CurvePoint>> rows;
  std::vector<double> clocks;
  std::size_t columns = 0;  // of the rows so far
  while (std::getline(in, raw)) {
    ++line_no;
    const std::string line(trim(raw));
    if (line.empty()) continue;
    if (!seen_clock) {
      if (line.rfind("clock:", 0) != 0) fail_at_line(path, line_no, "expected the 'clock:' line first");
      seen_clock = true;
      continue;
    }
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string s; fields >> s;) f.push_back(s);
    // 5 columns (2024 files), or 8: the 2025 files add the median, p5 and p95 cycles.
    if (f.size() != 5 && f.size() != 8) {
      fail_at_line(path, line_no,
                   "expected 5 columns (iters clock_MHz footprint_KiB dt cycles) or 8 (and median p5 p95 "
                   "cycles), got " +
                       std::to_string(f.size()));
    }
    if (!rows.empty() && f.size() != columns) {
      fail_at_line(path, line_no,
                   std::to_string(f.size()) + " columns after rows of " + std::to_string(columns) +
                       ": one file holds one format");
    }
    columns = f.size();
    double v[8];
    static const char* const kNames[8] = {"iters", "clock_MHz", "footprint_KiB", "dt",
                                          "cycles", "median", "p5", "p95"};
    for (std::size_t c = 0; c < f.size(); ++c) {
      const auto parsed = parse_number(f[c]);
      if (!parsed) fail_at_line(path, line_no, std::string(kNames[c]) + ": '" + f[c] + "' is not a number");
      if (*parsed <= 0)
        fail_at_line(path, line_no, std::string(kNames[c]) + ": " + f[c] + " must be positive");
      v[c] = *parsed;
    }
    // The percentiles are not used (the mean, column 5, is what the 2024 files have too), but a
    // row whose p5 > median or median > p95 is not what the suite writes.
    if (f.size() == 8 && !(v[6] <= v[5] && v[5] <= v[7])) {
      fail_at_line(path, line_no, "p5 " + f[6] + " <= median " + f[5] + " <= p95 " + f[7] + " does not hold");
    }
    Numbered<CurvePoint> row;
    row.line = line_no;
    row.point.x = v[2] * 1024.0;
    row.point.latency_cycles = v[4];
    row.point.latency_ns = v[4] / v[1] * 1000.0;
    clocks.push_back(v[1]);
    rows.push_back(row);
  }
  if (!seen_clock)
    fail_at_line(path, std::max<std::size_t>(line_no, 1), "empty file: expected the 'clock:' line");
  Curve curve;
  curve.x_name = "footprint_bytes";
  curve.points = sorted_points(std::move(rows), [](const CurvePoint& p) { return p.x; }, "footprint_bytes",
                               kMinLatencyRows, true, path, line_no);
  curve.clock_mhz = stats::median(clocks);
  return curve;
}

// --- plausibility of units -------------------------------------------------------------------

namespace {

// "25000", "1.5e-06", and a power of ten as "1e9", for a message.
std::string g3(double v) {
  const double e = std::round(std::log10(v));
  if (v > 0 && std::fabs(v - std::pow(10.0, e)) <= 1e-9 * v && std::fabs(e) >= 3)
    return "1e" + std::to_string(static_cast<int>(e));
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 100 && v < 1e7 ? "%.0f" : "%.3g", v);
  return buf;
}

// The warning for `column` of `path` whose largest value (or smallest, `largest` false) lies
// outside [lo, hi]: the multiplier of the first unit in `units` ({name, factor to the header's
// unit}) that brings it into the typical range [typical_lo, typical_hi], else into [lo, hi], or a
// plain "check its unit".
std::string off_by_units(const std::string& path, const std::string& column, double value, bool largest,
                         double lo, double hi, const std::string& unit,
                         std::initializer_list<std::pair<const char*, double>> units, double typical_lo = 0,
                         double typical_hi = 0) {
  if (!(value > 0) || (value >= lo && value <= hi)) return "";
  std::string hint = "check its unit";
  for (const auto& [range_lo, range_hi] : {std::pair{typical_lo, typical_hi}, std::pair{lo, hi}}) {
    const auto fit = std::find_if(units.begin(), units.end(),
                                  [&, lo = range_lo, hi = range_hi](const auto& u) {
                                    return value * u.second >= lo && value * u.second <= hi;
                                  });
    if (range_hi > 0 && fit != units.end()) {
      hint = std::string("if it is in ") + fit->first + ", multiply it by " + g3(fit->second);
      break;
    }
  }
  return path + ": the " + (largest ? "largest " : "smallest ") + column + " is " + g3(value) + " " + unit +
         (value < lo ? ", orders of magnitude below" : ", orders of magnitude above") +
         " what a GPU gives (" + g3(lo) + " to " + g3(hi) + " " + unit + "): " + hint +
         " (the column is read in " + unit + ")";
}

template <class P, class F>
double largest(const std::vector<P>& points, F&& value) {
  double m = 0;
  for (const auto& p : points) m = std::max(m, value(p));
  return m;
}

// The ranges: any GPU level's bandwidth (100 MB/s to 10 PB/s; typically 100 GB/s to 1 PB/s), FLOP
// rate (1 GFLOP/s to 10 EFLOP/s; typically 1 TFLOP/s up), a footprint sweep's largest footprint
// (10 KB to 1 PB), bytes in flight per SM (16 B to 64 MiB), latency (1 to 10^5 cycles), the
// fastest small-kernel pass (10 ns to 10 ms; typically 100 ns to 1 ms).
void push(std::vector<std::string>& out, std::string w) {
  if (!w.empty()) out.push_back(std::move(w));
}

}  // namespace

std::vector<std::string> implausible_units(const std::string& path, const Curve& curve) {
  std::vector<std::string> out;
  double lo = INFINITY, x = 0;
  for (const auto& p : curve.points) {
    lo = std::min(lo, p.latency_cycles);
    x = std::max(x, p.x);
  }
  double hi = 0;
  for (const auto& p : curve.points) hi = std::max(hi, p.latency_cycles);
  push(out, off_by_units(path, "latency_cycles", hi, true, 1, 1e5, "cycles", {}));
  if (std::isfinite(lo) && lo > 1e5)
    push(out, off_by_units(path, "latency_cycles", lo, false, 1, 1e5, "cycles", {}));
  push(out,
       off_by_units(path, "footprint_bytes", x, true, 1e4, 1e15, "bytes", {{"KiB", 1024}, {"MiB", 1048576}}));
  return out;
}

std::vector<std::string> implausible_units(const std::string& path,
                                           const std::vector<FootprintPoint>& points) {
  std::vector<std::string> out;
  const double bw = largest(points, [](const FootprintPoint& p) { return p.bandwidth_bytes_per_s; });
  push(out, off_by_units(path, "bandwidth_bytes_per_s", bw, true, 1e8, 1e16, "bytes/s",
                         {{"GB/s", 1e9}, {"TB/s", 1e12}, {"MB/s", 1e6}}, 1e11, 1e15));
  const double x = largest(points, [](const FootprintPoint& p) { return p.footprint_bytes; });
  push(out,
       off_by_units(path, "footprint_bytes", x, true, 1e4, 1e15, "bytes", {{"KiB", 1024}, {"MiB", 1048576}}));
  return out;
}

std::vector<std::string> implausible_units(const std::string& path,
                                           const std::vector<ConcurrencyPoint>& points) {
  std::vector<std::string> out;
  const double bw = largest(points, [](const ConcurrencyPoint& p) { return p.bandwidth_bytes_per_s; });
  push(out, off_by_units(path, "bandwidth_bytes_per_s", bw, true, 1e8, 1e16, "bytes/s",
                         {{"GB/s", 1e9}, {"TB/s", 1e12}, {"MB/s", 1e6}}, 1e11, 1e15));
  const double x = largest(points, [](const ConcurrencyPoint& p) { return p.bytes_in_flight_per_sm; });
  push(out,
       off_by_units(path, "bytes_in_flight_per_sm", x, true, 16, 64.0 * 1048576, "bytes", {{"KiB", 1024}}));
  return out;
}

std::vector<std::string> implausible_units(const std::string& path,
                                           const std::vector<IntensityPoint>& points) {
  std::vector<std::string> out;
  const double f = largest(points, [](const IntensityPoint& p) { return p.flop_per_s; });
  push(out, off_by_units(path, "flop_per_s", f, true, 1e9, 1e19, "FLOP/s",
                         {{"TFLOP/s", 1e12}, {"GFLOP/s", 1e9}, {"PFLOP/s", 1e15}}, 1e12, 1e18));
  return out;
}

std::vector<std::string> implausible_units(
    const std::string& path,
    const std::vector<std::pair<std::string, std::vector<SmallKernelPoint>>>& methods) {
  std::vector<std::string> out;
  double fastest = INFINITY;
  for (const auto& [method, points] : methods)
    for (const auto& p : points) fastest = std::min(fastest, p.time_s);
  if (std::isfinite(fastest))
    push(out, off_by_units(path, "time_s", fastest, false, 1e-8, 1e-2, "s",
                           {{"us", 1e-6}, {"ms", 1e-3}, {"ns", 1e-9}}, 1e-7, 1e-3));
  return out;
}

}  // namespace gpuprobe::analysis
