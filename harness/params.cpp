#include "harness/params.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "harness/error.hpp"
#include "harness/launch_config.hpp"

namespace gpuprobe {
namespace {

// The largest SM number a Kind::sm parameter takes (the device's SM count bounds it further, when
// the probe runs).
constexpr uint64_t kMaxSmNumber = 1023;

bool parse_u64(const std::string& text, uint64_t& out) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), ::isdigit)) return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtoull(text.c_str(), &end, 10);
  return errno == 0 && end == text.c_str() + text.size();
}

// A decimal number as written on a command line: digits, '.', an exponent; strtod alone would
// also take blanks, hex (0x10), inf and nan.
bool parse_real(const std::string& text, double& out) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' ||
               c == '-';
      }))
    return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(out);
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : text) {
    if (c == ',') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

// "" when `v` is within the spec's min and multiple, else what it must be ("at least 16", "a
// multiple of 32").
std::string bound_problem(const ParamSpec& spec, uint64_t v) {
  if (spec.min > 0 && v < spec.min) return "at least " + std::to_string(spec.min);
  if (spec.multiple > 1 && v % spec.multiple != 0) return "a multiple of " + std::to_string(spec.multiple);
  return "";
}

void validate(const ParamSpec& spec, const std::string& value) {
  const std::string bad = "bad value '" + value + "' for --" + spec.name + ": ";
  const std::string most = "at most " + std::to_string(spec.max);
  uint64_t u = 0;
  double r = 0;
  // A size that parse_bytes refuses: its reason, naming the parameter.
  const auto size_of = [&](const std::string& text, const std::string& what) {
    try {
      return parse_bytes(text);
    } catch (const Error& e) {
      throw Error(bad + what + (what.empty() ? "" : ": ") + e.what());
    }
  };
  switch (spec.kind) {
    case ParamSpec::Kind::integer:
      if (!parse_u64(value, u)) throw Error(bad + "expected a non-negative integer");
      if (spec.max > 0 && u > spec.max) throw Error(bad + most);
      if (const auto why = bound_problem(spec, u); !why.empty()) throw Error(bad + "must be " + why);
      break;
    case ParamSpec::Kind::bytes:
      u = size_of(value, "");
      if (spec.max > 0 && u > spec.max) throw Error(bad + most + " bytes");
      if (const auto why = bound_problem(spec, u); !why.empty())
        throw Error(bad + "must be " + why + " bytes");
      break;
    case ParamSpec::Kind::real:
      if (!parse_real(value, r)) throw Error(bad + "expected a decimal number (e.g. 1.5 or 2e3)");
      if (r < 0) throw Error(bad + "expected a non-negative number");
      if (spec.max > 0 && r > static_cast<double>(spec.max)) throw Error(bad + most);
      break;
    case ParamSpec::Kind::choice:
      if (std::find(spec.choices.begin(), spec.choices.end(), value) == spec.choices.end()) {
        std::string list;
        for (const auto& c : spec.choices) list += (list.empty() ? "" : ", ") + c;
        throw Error(bad + "expected one of " + list);
      }
      break;
    case ParamSpec::Kind::sm: {
      const std::vector<std::string> words =
          spec.choices.empty() ? std::vector<std::string>{"any", "all"} : spec.choices;
      // ", any or all"; " or any" when it is the only word.
      std::string or_words = words.size() == 1 ? " or " : ", ";
      for (std::size_t i = 0; i < words.size(); ++i)
        or_words += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
      if (std::find(words.begin(), words.end(), value) != words.end()) break;
      if (value == "any" || value == "all")
        throw Error(bad + "this probe takes an SM number" + or_words + ", not " + value +
                    (value == "all" ? " (only memory/chase maps every SM)" : ""));
      if (!parse_u64(value, u)) throw Error(bad + "expected an SM number" + or_words);
      if (u > kMaxSmNumber)
        throw Error(bad + "expected an SM number (0 to the device's SM count - 1, at most " +
                    std::to_string(kMaxSmNumber) + ")" + or_words);
      break;
    }
    case ParamSpec::Kind::list: {
      const auto parts = split_commas(value);
      if (spec.max > 0 && parts.size() > spec.max) throw Error(bad + most + " entries");
      std::vector<uint64_t> seen;
      for (const auto& part : parts) {
        if (part.empty()) throw Error(bad + "expected a comma-separated list of sizes (an entry is empty)");
        const uint64_t v = size_of(part, "expected a comma-separated list of sizes");
        if (const auto why = bound_problem(spec, v); !why.empty())
          throw Error(bad + "entry '" + part + "' must be " + why);
        if (std::find(seen.begin(), seen.end(), v) != seen.end())
          throw Error(bad + "entry '" + part + "' is given twice (each entry is one point)");
        seen.push_back(v);
      }
      break;
    }
  }
}

}  // namespace

uint64_t parse_bytes(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  double number = 0;
  if (i == 0 || !parse_real(text.substr(0, i), number))
    throw Error("bad size '" + text + "': expected e.g. 4096, 64K, 2MiB or 1G");
  std::string unit = text.substr(i);
  std::transform(unit.begin(), unit.end(), unit.begin(), ::toupper);
  double scale = 1;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "K" || unit == "KIB" || unit == "KB") scale = 1024.0;
  else if (unit == "M" || unit == "MIB" || unit == "MB") scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "GIB" || unit == "GB") scale = 1024.0 * 1024 * 1024;
  else throw Error("bad size '" + text + "': unknown unit '" + text.substr(i) + "'");
  const double bytes = number * scale;
  if (bytes >= 18446744073709551616.0)  // 2^64
    throw Error("bad size '" + text + "': too large (a size is below 2^64 bytes, 16 EiB)");
  if (bytes != std::floor(bytes)) throw Error("bad size '" + text + "': not a whole number of bytes");
  return static_cast<uint64_t>(bytes);
}

Params Params::parse(const std::vector<ParamSpec>& specs,
                     const std::map<std::string, std::string>& overrides) {
  Params p;
  for (const auto& s : specs) {
    p.values_[s.name] = s.default_value;
    p.kinds_[s.name] = s.kind;
  }
  for (const auto& [name, value] : overrides) {
    const auto it = std::find_if(specs.begin(), specs.end(),
                                 [&](const ParamSpec& s) { return s.name == name; });
    if (it == specs.end()) {
      std::string known;
      for (const auto& s : specs) known += (known.empty() ? "--" : ", --") + s.name;
      throw Error("unknown parameter --" + name + " (this probe takes: " + known + ")");
    }
    validate(*it, value);
    p.values_[name] = value;
  }
  return p;
}

const std::string& Params::get_text(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw Error("internal: probe asked for undeclared parameter " + name);
  return it->second;
}

uint64_t Params::get_u64(const std::string& name) const {
  const auto& text = get_text(name);
  if (kinds_.at(name) == ParamSpec::Kind::bytes) return parse_bytes(text);
  uint64_t v = 0;
  if (!parse_u64(text, v)) throw Error("bad value '" + text + "' for --" + name);
  return v;
}

double Params::get_real(const std::string& name) const {
  double v = 0;
  if (!parse_real(get_text(name), v)) throw Error("bad value for --" + name);
  return v;
}

std::vector<uint64_t> Params::get_u64_list(const std::string& name) const {
  std::vector<uint64_t> out;
  for (const auto& part : split_commas(get_text(name))) out.push_back(parse_bytes(part));
  return out;
}

nlohmann::json Params::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : values_) j[k] = v;
  return j;
}

int Params::get_sm(const std::string& name) const {
  const std::string& text = get_text(name);
  if (text == "any") return kAnySm;
  if (text == "all") return kSmAll;
  return static_cast<int>(get_u64(name));
}

}  // namespace gpuprobe
