// Reading a run record's points for the model sections (compute, sync, launch...): a named number
// or text of a point, or a one-line gpuprobe::Error naming where it is missing, a skipped point's
// reason, and the device's SM number. One copy for every section instead of one per section.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "harness/error.hpp"

namespace gpuprobe::analysis {

// Checked reads. A run record is a file anyone can edit: a field the model reads that is missing
// or of the wrong type is a one-line Error naming the field, never undefined behaviour (const
// operator[] on a missing key) or a bare nlohmann exception.

// A record that cannot be read (a field of the wrong type): the whole analysis stops with its
// path, as for a record that is not a run record at all.
class RecordError : public Error {
 public:
  using Error::Error;
};

inline const char* kind_of(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: return "a number";
    default: return "not a JSON value";
  }
}

[[noreturn]] inline void wrong_type(const std::string& name, const nlohmann::json& v, const char* wanted) {
  throw Error(name + " is " + kind_of(v) + ", not " + wanted);
}

// A record's text in a message: control characters (a line break) as '?', at most 60 characters.
inline std::string printable(std::string s) {
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s;
}


// p[key] as a number; throws "<where> has no number <key>".
inline double record_number(const nlohmann::json& p, const char* key, const std::string& where) {
  if (!p.is_object() || !p.contains(key) || !p[key].is_number())
    throw Error(where + " has no number " + key);
  return p[key].get<double>();
}

// p[key] as text; throws "<where> has no text <key>".
inline std::string record_text(const nlohmann::json& p, const char* key, const std::string& where) {
  if (!p.is_object() || !p.contains(key) || !p[key].is_string())
    throw Error(where + " has no text " + key);
  return p[key].get<std::string>();
}

// What the metrics table (analysis/metrics.cpp) reads of a measured point beside its number: its
// repeats as `<kind>_repeats` and, for a latency, its region SM clock as `latency_clock_mhz` (a
// rate's clock is the entry's `clock_mhz`); nothing when the point has none.
inline void record_samples(const nlohmann::json& p, const std::string& kind, nlohmann::json& into) {
  if (!p.is_object()) return;
  if (p.contains("repeats") && p["repeats"].is_number_integer()) into[kind + "_repeats"] = p["repeats"];
  if (kind == "latency" && p.contains("region_sm_clock_mhz") && p["region_sm_clock_mhz"].is_number() &&
      p["region_sm_clock_mhz"].get<double>() > 0)
    into["latency_clock_mhz"] = p["region_sm_clock_mhz"];
}

// Why a point marked "skipped" was skipped: its text, or "skipped" when it gives none.
inline std::string record_skip_reason(const nlohmann::json& p) {
  return p["skipped"].is_string() ? p["skipped"].get<std::string>() : "skipped";
}

// The record's device compute capability "9.0" as 90; 0 when absent or unreadable.
inline int record_sm(const nlohmann::json& device) {
  const std::string cc = device.is_object() ? device.value("compute_capability", "") : "";
  const auto dot = cc.find('.');
  if (dot == std::string::npos) return 0;
  try {
    return std::stoi(cc.substr(0, dot)) * 10 + std::stoi(cc.substr(dot + 1));
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace gpuprobe::analysis
