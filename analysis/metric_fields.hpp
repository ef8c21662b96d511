// Reading a machine model's sections for its metrics[] (analysis/metrics.hpp), one copy for every
// family's metrics: a finite number or null, text, an id part, the clock, a datasheet figure.
#pragma once
#include <cctype>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/datasheet.hpp"

namespace gpuprobe::analysis {

// doc[k0][k1]... when every step is an object holding the key, else nullptr.
inline const nlohmann::json* at(const nlohmann::json& doc, std::initializer_list<std::string> keys) {
  const nlohmann::json* j = &doc;
  for (const auto& k : keys) {
    if (!j->is_object() || !j->contains(k)) return nullptr;
    j = &(*j)[k];
  }
  return j;
}

// A finite number at obj[key] as JSON, else null (absent, null, text, NaN: unknown).
inline nlohmann::json num(const nlohmann::json* obj, const std::string& key) {
  if (!obj || !obj->is_object() || !obj->contains(key)) return nullptr;
  const nlohmann::json& v = (*obj)[key];
  if (!v.is_number() || !std::isfinite(v.get<double>())) return nullptr;
  return v;
}

// A positive clock or null.
inline nlohmann::json clock_of(const nlohmann::json& v) {
  return v.is_number() && v.get<double>() > 0 ? v : nlohmann::json(nullptr);
}

// The size of an array at obj[key], or null.
inline nlohmann::json count(const nlohmann::json* obj, const std::string& key) {
  if (!obj || !obj->is_object() || !obj->contains(key) || !(*obj)[key].is_array()) return nullptr;
  return (*obj)[key].size();
}

inline std::string text(const nlohmann::json* obj, const std::string& key, const std::string& fallback = "") {
  return obj && obj->is_object() && obj->contains(key) && (*obj)[key].is_string()
             ? (*obj)[key].get<std::string>()
             : fallback;
}

// An id part: letters, digits, '_' and '-' kept, anything else '_' (the '.' separates parts).
inline std::string part(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_';
  return out;
}

// "FIGURES §1 D [HPCTECH]" -> "FIGURES.md §1 D [HPCTECH]" (the document the key is in).
inline std::string figures(std::string source) {
  if (source.rfind("FIGURES ", 0) == 0) source.replace(0, 7, "FIGURES.md");
  return source;
}

// {value, unit, source} of a published figure, or null when there is none (0).
inline nlohmann::json sheet_entry(double value, const char* unit, const std::string& source) {
  if (!(value > 0)) return nullptr;
  return {{"value", value}, {"unit", unit}, {"source", figures(source)}};
}

// A rate figure quoted at a clock (analysis/datasheet.hpp): also the SMs and the clock it is for,
// which clock that is and where it is given, so that metrics[] takes its % per SM per clock.
inline nlohmann::json sheet_entry(double value, const char* unit, const std::string& source,
                                  const DatasheetPeak& sheet, SpecClock clock) {
  nlohmann::json e = sheet_entry(value, unit, source);
  if (e.is_null() || !(clock.mhz > 0) || sheet.sm_count <= 0) return e;
  e["sm_count"] = sheet.sm_count;
  e["clock_mhz"] = clock.mhz;
  e["clock"] = clock.name;
  e["clock_source"] = figures(sheet.clock_source);
  return e;
}

// The samples behind a fitted number: a concurrency fit's distinct points, a level's points.
inline nlohmann::json fit_samples(const nlohmann::json* o) {
  if (!o) return nullptr;
  if (o->contains("points") && (*o)["points"].is_array()) return (*o)["points"].size();
  return num(o, "points");
}

// The datasheet of the model's device (analysis/datasheet.hpp), if it has a row.
inline std::optional<DatasheetPeak> model_datasheet(const nlohmann::json& model) {
  const nlohmann::json* device = at(model, {"device"});
  return datasheet_for(text(device, "name"));
}

// The model's device SM count, 0 when unknown.
inline double model_sm_count(const nlohmann::json& model) {
  const nlohmann::json n = num(at(model, {"device"}), "sm_count");
  return n.is_number() && n.get<double>() > 0 ? n.get<double>() : 0;
}

}  // namespace gpuprobe::analysis
