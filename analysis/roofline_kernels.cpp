#include "analysis/roofline_kernels.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <unordered_map>
#include <utility>

#include "harness/error.hpp"

namespace gpuprobe::analysis {
namespace {

using json = nlohmann::json;

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// A cell in a message: at most 40 characters, control characters as '?'.
std::string shown(std::string s) {
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return "'" + s + "'";
}

// A finite decimal number >= 0 making up the whole text (an optional leading '+'), or nothing: no
// hexadecimal ("0x10"), no "inf" or "nan", no sign in front of the '+'.
std::optional<double> parse_number(const std::string& text) {
  std::string_view t = text;
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t' || t.front() == '\r')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r')) t.remove_suffix(1);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  if (t.empty() || t.front() == '-' || t.front() == '+') return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v, std::chars_format::general);
  if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

struct Row {
  std::size_t line = 0;
  std::vector<std::string> fields;
  std::string text;  // the line as read (for the separator hint)
};

// One CSV line into fields (RFC 4180 quoting on one line: "a, b" and "" for a quote).
std::vector<std::string> split_csv(const std::string& line, const std::string& where) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"' && trim(field).empty()) {
      quoted = was_quoted = true;
      field.clear();
    } else if (c == ',') {
      out.push_back(was_quoted ? field : trim(field));
      field.clear();
      was_quoted = false;
    } else {
      field += c;
    }
  }
  if (quoted) throw Error(where + ": a quoted field is not closed on its line");
  out.push_back(was_quoted ? field : trim(field));
  return out;
}

// Why a line may have split wrongly: another separator (a spreadsheet in a locale whose decimal
// mark is the comma writes ';'; a tab is also common), as the curve importer says it.
std::string separator_hint(const std::string& line) {
  if (line.find(';') != std::string::npos)
    return ": the separator must be a comma, and this line seems to use ';'";
  if (line.find('\t') != std::string::npos)
    return ": the separator must be a comma, and this line seems to use a tab";
  return "";
}

// The rows of a CSV file, one at a time (a file of 10^5 launches is never held whole): blank
// lines and '#' comments skipped, and, for an Nsight Compute export printed to a terminal, its
// "==PROF==" lines; a UTF-8 byte-order mark and CRLF accepted; a folder, an unreadable file and a
// UTF-16 file refused in one line.
class CsvRows {
 public:
  explicit CsvRows(const std::string& path) : path_(path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw Error(path + " is a folder, not a CSV file");
    in_.open(path, std::ios::binary);
    if (!in_) throw Error(path + ": cannot be opened");
  }
  // The next row; false at the end of the file.
  bool next(Row& row) {
    std::string raw;
    while (std::getline(in_, raw)) {
      ++n_;
      if (n_ == 1) {
        if (raw.rfind("\xFF\xFE", 0) == 0 || raw.rfind("\xFE\xFF", 0) == 0 ||
            raw.find('\0') != std::string::npos)
          throw Error(path_ + ": the file is UTF-16 (or holds NUL bytes): save it as UTF-8 (plain CSV)");
        if (raw.rfind("\xEF\xBB\xBF", 0) == 0) raw.erase(0, 3);
      }
      if (!raw.empty() && raw.back() == '\r') raw.pop_back();
      const std::string t = trim(raw);
      if (t.empty() || t[0] == '#' || t.rfind("==", 0) == 0) continue;
      row.line = n_;
      row.fields = split_csv(raw, path_ + ":" + std::to_string(n_));
      row.text = std::move(raw);
      return true;
    }
    return false;
  }
  // The first row, the header: an empty file is refused.
  Row header() {
    Row row;
    if (!next(row)) throw Error(path_ + ": the file is empty (no header, no rows)");
    return row;
  }
  std::string where(const Row& row) const { return path_ + ":" + std::to_string(row.line); }

 private:
  std::string path_;
  std::ifstream in_;
  std::size_t n_ = 0;
};

// The level a bytes key names ("bytes_hbm" -> "DRAM"), or "".
std::string level_of_bytes_key(const std::string& key) {
  static const std::map<std::string, std::string> levels = {
      {"bytes_hbm", "DRAM"}, {"bytes_dram", "DRAM"}, {"bytes_l2", "L2"},
      {"bytes_l2_far", "L2-far"}, {"bytes_l1", "L1"}, {"bytes_shared", "shared"}};
  const auto it = levels.find(key);
  return it == levels.end() ? "" : it->second;
}

const char* kKnownKeys =
    "flops, time_s, bytes_hbm (or bytes_dram), bytes_l2, bytes_l2_far, bytes_l1, bytes_shared, "
    "precision, path";

// A kernel from its fields; `where` prefixes every error. Required: flops and time_s, both > 0.
RooflineKernel kernel_from_fields(const std::string& name,
                                  const std::vector<std::pair<std::string, std::string>>& fields,
                                  const std::string& where) {
  if (name.empty()) throw Error(where + ": the kernel has no name");
  RooflineKernel k;
  k.name = name;
  k.source = where;
  std::set<std::string> seen;
  bool has_flops = false, has_time = false;
  for (const auto& [key, value] : fields) {
    if (!seen.insert(key).second) throw Error(where + ": " + key + " is given twice");
    if (key == "precision") {
      k.precision = normalize_precision(value);
      continue;
    }
    if (key == "path") {
      if (value.empty()) throw Error(where + ": path is empty");
      k.path = value;
      continue;
    }
    const std::string level = level_of_bytes_key(key);
    if (key != "flops" && key != "time_s" && level.empty())
      throw Error(where + ": unknown field " + shown(key) + " (known: " + kKnownKeys + ")");
    const auto v = parse_number(value);
    if (!v)
      throw Error(where + ": " + key + " = " + shown(value) +
                  " is not a number >= 0 (a decimal such as 1e12: no hexadecimal, inf or nan)");
    if (key == "flops") {
      if (*v <= 0) throw Error(where + ": flops must be more than 0");
      k.flops = *v;
      has_flops = true;
    } else if (key == "time_s") {
      if (*v <= 0) throw Error(where + ": time_s must be more than 0");
      k.time_s = *v;
      has_time = true;
    } else {
      if (k.bytes.count(level))
        throw Error(where + ": bytes_hbm and bytes_dram are the same level (DRAM): give one");
      k.bytes[level] = *v;
    }
  }
  if (!has_flops) throw Error(where + ": flops is missing");
  if (!has_time) throw Error(where + ": time_s is missing");
  k.min_time_s = k.max_time_s = k.time_s;
  return k;
}

// Launches of one kernel (the same name, precision and path) summed into one entry, in the order
// their kernels first appear: 10^5 launches of 500 kernels make 500 entries.
class Launches {
 public:
  void add(RooflineKernel&& k) {
    if (k.min_time_s <= 0) k.min_time_s = k.time_s;
    if (k.max_time_s <= 0) k.max_time_s = k.time_s;
    const auto [it, added] = index_.emplace(k.name + '\0' + k.precision + '\0' + k.path, kernels_.size());
    if (added) {
      kernels_.push_back(std::move(k));
      return;
    }
    RooflineKernel& a = kernels_[it->second];
    a.launches += k.launches;
    a.flops += k.flops;
    a.time_s += k.time_s;
    a.min_time_s = std::min(a.min_time_s, k.min_time_s);
    a.max_time_s = std::max(a.max_time_s, k.max_time_s);
    for (const auto& [level, bytes] : k.bytes) a.bytes[level] += bytes;
    if (k.flops_by_precision.is_object()) {
      if (!a.flops_by_precision.is_object()) a.flops_by_precision = json::object();
      for (auto p = k.flops_by_precision.begin(); p != k.flops_by_precision.end(); ++p)
        a.flops_by_precision[p.key()] = a.flops_by_precision.value(p.key(), 0.0) + p.value().get<double>();
    }
  }
  std::vector<RooflineKernel> take() { return std::move(kernels_); }

 private:
  std::vector<RooflineKernel> kernels_;
  std::unordered_map<std::string, std::size_t> index_;
};

// ---- Nsight Compute ---------------------------------------------------------------------------

// Multipliers of the units an ncu raw page prints (it scales units to the value unless run with
// --print-units base).
std::optional<double> unit_scale(const std::string& unit, const std::string& kind) {
  static const std::map<std::string, double> time = {
      {"nsecond", 1e-9}, {"usecond", 1e-6}, {"msecond", 1e-3}, {"second", 1}};
  static const std::map<std::string, double> bytes = {
      {"byte", 1}, {"Kbyte", 1e3}, {"Mbyte", 1e6}, {"Gbyte", 1e9}, {"Tbyte", 1e12}};
  static const std::map<std::string, double> prefix = {{"", 1}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}};
  if (kind == "time") {
    const auto it = time.find(unit);
    return it == time.end() ? std::nullopt : std::optional<double>(it->second);
  }
  if (kind == "bytes") {
    const auto it = bytes.find(unit);
    return it == bytes.end() ? std::nullopt : std::optional<double>(it->second);
  }
  // counts: "", "inst", "op", "ops", "flop", with an SI prefix
  for (const char* base : {"inst", "ops", "op", "flop", ""}) {
    const std::string b = base;
    if (unit.size() >= b.size() && unit.compare(unit.size() - b.size(), b.size(), b) == 0) {
      const auto it = prefix.find(unit.substr(0, unit.size() - b.size()));
      if (it != prefix.end()) return it->second;
    }
  }
  return std::nullopt;
}

const char* known_units(const std::string& kind) {
  return kind == "time"    ? "nsecond, usecond, msecond, second"
         : kind == "bytes" ? "byte, Kbyte, Mbyte, Gbyte, Tbyte"
                           : "none, inst, op, ops, flop, with K, M, G or T before it";
}

// ncu prints large numbers with thousands separators in some versions ("1,048,576"); a
// quoted cell keeps them. "n/a" (metric not collected for this launch) is absent.
std::optional<double> ncu_number(std::string cell, bool& absent) {
  cell = trim(cell);
  absent = cell.empty() || cell == "n/a" || cell == "N/A";
  if (absent) return std::nullopt;
  static const std::regex grouped(R"(\d{1,3}(,\d{3})+(\.\d+)?)");
  if (std::regex_match(cell, grouped)) {
    std::string plain;
    for (char c : cell)
      if (c != ',') plain += c;
    cell = plain;
  }
  return parse_number(cell);
}

// The tensor-path precision of an sm__ops_path_tensor source type.
std::string tensor_precision(const std::string& src) {
  static const std::map<std::string, std::string> names = {
      {"fp16", "f16"}, {"bf16", "bf16"}, {"tf32", "tf32"}, {"fp64", "f64"}, {"int8", "s8"},
      {"int4", "s4"},  {"int1", "b1"},   {"fp4", "e2m1"}};
  const auto it = names.find(src);
  return it == names.end() ? src : it->second;  // fp8 (E4M3 or E5M2: ncu does not say), fp4_fp6
}

}  // namespace

RooflineKernel parse_kernel_spec(const std::string& spec) {
  const std::string where = "--kernel " + shown(spec);
  const auto eq = spec.find('=');
  const auto colon = eq == std::string::npos ? std::string::npos : spec.rfind(':', eq);
  if (colon == std::string::npos)
    throw Error(where + ": expected NAME:flops=F,time_s=T[,bytes_hbm=B,...]");
  std::vector<std::pair<std::string, std::string>> fields;
  std::string rest = spec.substr(colon + 1);
  for (std::size_t start = 0;;) {
    const auto comma = rest.find(',', start);
    const std::string item = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto e = item.find('=');
    if (e == std::string::npos) throw Error(where + ": " + shown(item) + " is not key=value");
    fields.push_back({trim(item.substr(0, e)), trim(item.substr(e + 1))});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return kernel_from_fields(trim(spec.substr(0, colon)), fields, where);
}

std::vector<RooflineKernel> aggregate_launches(std::vector<RooflineKernel> kernels) {
  Launches launches;
  for (auto& k : kernels) launches.add(std::move(k));
  return launches.take();
}

std::vector<RooflineKernel> read_kernels_csv(const std::string& path) {
  CsvRows rows(path);
  const Row head = rows.header();
  const auto& header = head.fields;
  const std::string head_where = rows.where(head);
  // An Nsight Compute export names its columns otherwise: say which option reads it.
  for (const auto& h : header)
    if (h == "Kernel Name" || h == "gpu__time_duration.sum")
      throw Error(head_where + ": this is an Nsight Compute export (column " + shown(h) +
                  "): give it as --ncu-csv, not --kernels-csv");
  std::size_t name_col = header.size();
  std::set<std::string> names;
  for (std::size_t c = 0; c < header.size(); ++c) {
    const std::string& h = header[c];
    if (!names.insert(h).second) throw Error(head_where + ": column " + shown(h) + " is given twice");
    if (h == "name") name_col = c;
    else if (h != "flops" && h != "time_s" && h != "precision" && h != "path" && level_of_bytes_key(h).empty())
      throw Error(head_where + ": unknown column " + shown(h) + " (known: name, " + kKnownKeys + ")" +
                  separator_hint(head.text));
  }
  for (const char* required : {"name", "flops", "time_s"})
    if (!names.count(required))
      throw Error(head_where + ": the header has no column " + required + separator_hint(head.text));
  Launches kernels;
  Row row;
  bool any = false;
  while (rows.next(row)) {
    any = true;
    const std::string where = rows.where(row);
    if (row.fields.size() != header.size())
      throw Error(where + ": " + std::to_string(row.fields.size()) + " fields, the header has " +
                  std::to_string(header.size()) + separator_hint(row.text));
    std::vector<std::pair<std::string, std::string>> fields;
    for (std::size_t c = 0; c < header.size(); ++c) {
      if (c == name_col) continue;
      const bool optional = header[c] != "flops" && header[c] != "time_s";
      if (optional && row.fields[c].empty()) continue;  // not given for this kernel
      fields.push_back({header[c], row.fields[c]});
    }
    kernels.add(kernel_from_fields(row.fields[name_col], fields, where));
  }
  if (!any) throw Error(path + ": no kernel rows after the header");
  return kernels.take();
}

std::vector<RooflineKernel> read_ncu_csv(const std::string& path, const std::string& precision_asked,
                                         std::vector<std::string>& notes) {
  CsvRows rows(path);
  Row head = rows.header();
  // Output of the application before the header (ncu printing to the terminal, no --log-file):
  // the header is the first row that names a "Kernel Name" column.
  const Row first = head;
  std::size_t skipped = 0;
  const auto names_kernels = [](const Row& r) {
    return std::find(r.fields.begin(), r.fields.end(), "Kernel Name") != r.fields.end();
  };
  while (!names_kernels(head)) {
    Row next;
    if (!rows.next(next)) {
      const auto& f = first.fields;
      const bool kernels_csv = std::find(f.begin(), f.end(), "flops") != f.end() &&
                               std::find(f.begin(), f.end(), "time_s") != f.end();
      throw Error(
          rows.where(first) + ": no column 'Kernel Name'" +
          (kernels_csv
               ? std::string(": this is a kernels CSV (name,flops,time_s...): give it as --kernels-csv")
               : ": not an Nsight Compute raw-page export with the roofline metrics (ncu --csv "
                 "--page raw --metrics ..., docs/ANALYSIS.md \"Roofline\")" +
                     separator_hint(first.text)));
    }
    head = std::move(next);
    ++skipped;
  }
  if (skipped > 0)
    notes.push_back(path + ": " + std::to_string(skipped) + " line(s) before the header on line " +
                    std::to_string(head.line) + " skipped (the application's own output?)");
  const auto& header = head.fields;
  const std::string head_where = rows.where(head);
  std::map<std::string, std::size_t> col;
  for (std::size_t c = 0; c < header.size(); ++c)
    if (!col.emplace(header[c], c).second && !header[c].empty())
      throw Error(head_where + ": column " + shown(header[c]) + " is given twice");
  const auto need = [&](const std::string& name) {
    if (!col.count(name))
      throw Error(head_where + ": no column '" + name +
                  "': not an Nsight Compute raw-page export with the roofline metrics (ncu --csv "
                  "--page raw --metrics ..., docs/ANALYSIS.md \"Roofline\")");
    return col.at(name);
  };
  const std::size_t name_col = need("Kernel Name");
  const std::size_t time_col = need("gpu__time_duration.sum");
  Row units_row;
  if (!rows.next(units_row))
    throw Error(path + ": no units row after the header (the second row of an ncu raw page)");
  const auto& units = units_row.fields;
  if (units.size() != header.size())
    throw Error(rows.where(units_row) + ": the units row has " + std::to_string(units.size()) +
                " fields, the header " + std::to_string(header.size()));
  if (!units[name_col].empty())
    throw Error(rows.where(units_row) + ": the export has no units row: this row is a launch of " +
                shown(units[name_col]) +
                " (ncu --csv --page raw prints the units in the row under the header)");

  // The columns read: (column, scale to base units, what it adds to).
  struct Term {
    std::size_t column;
    double scale;         // unit x weight (2 for an FMA)
    std::string precision;  // flops of this precision; "" for bytes
    std::string level;      // bytes of this level
    bool tensor = false;
  };
  std::vector<Term> terms;
  const auto scale_of = [&](std::size_t c, const std::string& kind) {
    const auto s = unit_scale(units[c], kind);
    if (!s)
      throw Error(rows.where(units_row) + ": unknown unit " + shown(units[c]) + " of " + header[c] +
                  " (known: " + known_units(kind) + ")");
    return *s;
  };
  const double time_scale = scale_of(time_col, "time");
  bool any_flops = false;
  for (const auto& [prec, letter] : {std::pair{"f32", 'f'}, std::pair{"f64", 'd'}, std::pair{"f16", 'h'}})
    for (const auto& [op, weight] : {std::pair{"add", 1.0}, std::pair{"mul", 1.0}, std::pair{"fma", 2.0}}) {
      const std::string metric =
          std::string("sass_thread_inst_executed_op_") + letter + op + "_pred_on.sum";
      for (const char* unit_prefix : {"sm__", "smsp__"})  // both sum to the same count; sm__ first
        if (col.count(unit_prefix + metric)) {
          const std::size_t c = col.at(unit_prefix + metric);
          terms.push_back({c, weight * scale_of(c, "count"), prec, "", false});
          any_flops = true;
          break;
        }
    }
  // Tensor path: per source type the columns without a destination or sparsity split if there
  // are any, else the destination splits, else the sparsity splits (never two views of the same
  // ops).
  static const std::regex tensor_re(R"(sm__ops_path_tensor_src_([a-z0-9]+(?:_fp6)?)(_dst_[a-z0-9]+)?(_sparsity_(?:on|off))?\.sum)");
  std::map<std::string, std::map<int, std::vector<std::size_t>>> tensor_cols;  // src -> split rank -> columns
  for (std::size_t c = 0; c < header.size(); ++c) {
    std::smatch m;
    if (!std::regex_match(header[c], m, tensor_re)) continue;
    const int rank = m[3].matched ? 2 : m[2].matched ? 1 : 0;
    tensor_cols[m[1].str()][rank].push_back(c);
  }
  for (const auto& [src, by_rank] : tensor_cols) {
    for (std::size_t c : by_rank.begin()->second)
      terms.push_back({c, scale_of(c, "count"), tensor_precision(src), "", true});
    any_flops = true;
  }
  if (!any_flops)
    throw Error(head_where +
                ": no FLOP counter column (sm__sass_thread_inst_executed_op_ffma_pred_on.sum and the "
                "others of docs/ANALYSIS.md \"Roofline\")");
  // Bytes.
  if (col.count("dram__bytes.sum")) {
    terms.push_back({col.at("dram__bytes.sum"), scale_of(col.at("dram__bytes.sum"), "bytes"), "", "DRAM"});
  } else if (col.count("dram__bytes_read.sum") || col.count("dram__bytes_write.sum")) {
    for (const char* half : {"dram__bytes_read.sum", "dram__bytes_write.sum"})
      if (col.count(half)) terms.push_back({col.at(half), scale_of(col.at(half), "bytes"), "", "DRAM"});
    if (!col.count("dram__bytes_read.sum") || !col.count("dram__bytes_write.sum")) {
      const bool reads = col.count("dram__bytes_read.sum") > 0;
      notes.push_back(head_where + ": DRAM bytes are " + (reads ? "reads" : "writes") +
                      " only (no column dram__bytes_" + (reads ? "write" : "read") +
                      ".sum): each kernel's DRAM intensity is an upper bound");
    }
  }
  for (const auto& [metric, level] : {std::pair{"lts__t_bytes.sum", "L2"}, std::pair{"l1tex__t_bytes.sum", "L1"}})
    if (col.count(metric)) terms.push_back({col.at(metric), scale_of(col.at(metric), "bytes"), "", level});

  // Every launch is summed into its kernel (the same name, precision and path); launches left
  // out are named once per kernel, with their count.
  Launches kernels;
  struct LeftOut {
    std::string where, what;
    std::size_t launches = 0;
  };
  std::vector<LeftOut> left_out;
  std::unordered_map<std::string, std::size_t> left_out_index;
  Row row;
  bool any = false;
  while (rows.next(row)) {
    any = true;
    const std::string where = rows.where(row);
    if (row.fields.size() != header.size())
      throw Error(where + ": " + std::to_string(row.fields.size()) + " fields, the header has " +
                  std::to_string(header.size()) + separator_hint(row.text));
    RooflineKernel k;
    k.name = row.fields[name_col];
    if (k.name.empty()) throw Error(where + ": the Kernel Name is empty");
    k.source = where;
    bool absent = false;
    const auto time = ncu_number(row.fields[time_col], absent);
    if (!time || *time <= 0)
      throw Error(where + ": gpu__time_duration.sum = " + shown(row.fields[time_col]) +
                  " is not a number more than 0");
    k.time_s = *time * time_scale;
    std::map<std::string, double> flops;          // precision -> FLOPs
    std::map<std::string, bool> from_cuda_cores;  // precision -> some FLOPs from the FMA pipes
    std::map<std::string, bool> from_tensor;
    for (const Term& t : terms) {
      const auto v = ncu_number(row.fields[t.column], absent);
      if (absent) continue;
      if (!v)
        throw Error(where + ": " + header[t.column] + " = " + shown(row.fields[t.column]) +
                    " is not a number >= 0");
      if (!t.level.empty()) {
        k.bytes[t.level] += *v * t.scale;
      } else {
        flops[t.precision] += *v * t.scale;
        if (*v > 0) (t.tensor ? from_tensor : from_cuda_cores)[t.precision] = true;
      }
    }
    k.flops_by_precision = json::object();
    for (const auto& [p, f] : flops) k.flops_by_precision[p] = f;
    std::string precision = precision_asked;
    if (precision.empty())
      for (const auto& [p, f] : flops)
        if (f > 0 && (precision.empty() || f > flops[precision])) precision = p;
    if (precision.empty() || flops[precision] <= 0) {
      const std::string what = k.name + " left out: no " +
                               (precision.empty() ? std::string("FLOPs") : precision + " FLOPs") + " counted";
      const auto [it, added] = left_out_index.emplace(what, left_out.size());
      if (added) left_out.push_back({where, what});
      ++left_out[it->second].launches;
      continue;
    }
    k.precision = precision;
    k.flops = flops[precision];
    k.min_time_s = k.max_time_s = k.time_s;
    if (from_cuda_cores[precision] && !from_tensor[precision]) k.path = "fma";  // not the tensor path
    kernels.add(std::move(k));
  }
  if (!any) throw Error(path + ": no kernel rows after the units row");
  for (const auto& l : left_out)
    notes.push_back(l.where + ": " + l.what +
                    (l.launches > 1 ? " (" + std::to_string(l.launches) + " launches, this the first)" : ""));
  return kernels.take();
}

}  // namespace gpuprobe::analysis
