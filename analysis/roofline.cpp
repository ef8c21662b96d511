#include "analysis/roofline.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <utility>

#include "analysis/compute_model.hpp"
#include "harness/error.hpp"

namespace gpuprobe::analysis {
namespace {

using json = nlohmann::json;

// model[k0][k1]... when every step is an object holding the key, else nullptr.
const json* at(const json& doc, std::initializer_list<const char*> keys) {
  const json* j = &doc;
  for (const char* k : keys) {
    if (!j->is_object() || !j->contains(k)) return nullptr;
    j = &(*j)[k];
  }
  return j;
}

// A positive finite number at `keys`, or 0.
double positive_at(const json& doc, std::initializer_list<const char*> keys) {
  const json* j = at(doc, keys);
  if (!j || !j->is_number()) return 0;
  const double v = j->get<double>();
  return std::isfinite(v) && v > 0 ? v : 0;
}

// The bandwidth of the level named `name` in a footprint sweep (`levels[]`), or 0.
double sweep_level(const json* sweep, const std::string& name) {
  if (!sweep || !sweep->is_object() || !sweep->contains("levels") || !(*sweep)["levels"].is_array()) return 0;
  for (const auto& l : (*sweep)["levels"])
    if (l.is_object() && l.value("name", json()).is_string() && l["name"] == name &&
        l.contains("bandwidth_bytes_per_s") && l["bandwidth_bytes_per_s"].is_number()) {
      const double v = l["bandwidth_bytes_per_s"].get<double>();
      if (std::isfinite(v) && v > 0) return v;
    }
  return 0;
}

std::string dotted(std::initializer_list<const char*> keys) {
  std::string s;
  for (const char* k : keys) {
    if (!s.empty()) s += '.';
    s += k;
  }
  return s;
}

// The first measured bandwidth for `level`, in the order of preference: a concurrency sweep's
// peak (the level's peak as the model reports it), else the plateau of a footprint sweep that
// crosses the level, else an imported curve.
std::pair<double, std::string> level_bandwidth(const json& model, const std::string& level) {
  using Keys = std::initializer_list<const char*>;
  const auto peak = [&](Keys keys) -> std::pair<double, std::string> {
    const double v = positive_at(model, keys);
    return {v, v > 0 ? dotted(keys) : ""};
  };
  const auto plateau = [&](Keys sweep_keys) -> std::pair<double, std::string> {
    const double v = sweep_level(at(model, sweep_keys), level);
    return {v, v > 0 ? dotted(sweep_keys) + ".levels[" + level + "]" : ""};
  };
  std::vector<std::pair<double, std::string>> candidates;
  if (level == "DRAM") {
    candidates = {peak({"bandwidth", "DRAM", "read", "concurrency", "peak_bytes_per_s"}),
                  peak({"bandwidth", "DRAM", "read", "bandwidth_bytes_per_s"}),
                  plateau({"bandwidth", "L2", "footprint_sweep"}),
                  plateau({"bandwidth", "imported", "footprint_sweep"})};
    if (const double v = positive_at(model, {"compute", "imported", "bandwidth_bytes_per_s"}); v > 0)
      candidates.push_back({v, "compute.imported.bandwidth_bytes_per_s (an imported intensity sweep)"});
  } else if (level == "L2") {
    candidates = {peak({"bandwidth", "L2", "concurrency", "peak_bytes_per_s"}),
                  plateau({"bandwidth", "L2", "footprint_sweep"}),
                  plateau({"bandwidth", "L1", "footprint_sweep"}),
                  plateau({"bandwidth", "imported", "footprint_sweep"})};
  } else if (level == "L2-far") {
    candidates = {plateau({"bandwidth", "L2", "footprint_sweep"}),
                  plateau({"bandwidth", "L1", "footprint_sweep"}),
                  plateau({"bandwidth", "imported", "footprint_sweep"})};
  } else if (level == "L1") {
    candidates = {peak({"bandwidth", "L1", "concurrency", "peak_bytes_per_s"}),
                  plateau({"bandwidth", "L1", "footprint_sweep"}),
                  plateau({"bandwidth", "imported", "footprint_sweep"})};
  } else if (level == "shared") {
    candidates = {peak({"bandwidth", "shared", "concurrency", "peak_bytes_per_s"})};
  }
  for (const auto& c : candidates)
    if (c.first > 0) return c;
  return {0, ""};
}

bool is_native(const json& op) {
  if (!op.contains("implementation")) return true;  // ops written before the field: measured as run
  const json& impl = op["implementation"];
  return impl.is_string() && impl.get<std::string>().rfind("native", 0) == 0;
}

std::string text_or(const json& o, const char* key, const std::string& fallback) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : fallback;
}

// The key path of the first number in `j` that is not finite ("achieved_flops_per_s",
// "headroom.DRAM.speedup_until_bound"), or "".
std::string first_non_finite(const json& j, const std::string& path) {
  if (j.is_number_float()) return std::isfinite(j.get<double>()) ? "" : path;
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it)
      if (auto bad = first_non_finite(it.value(), path.empty() ? it.key() : path + "." + it.key());
          !bad.empty())
        return bad;
  if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i)
      if (auto bad = first_non_finite(j[i], path + "[" + std::to_string(i) + "]"); !bad.empty()) return bad;
  return "";
}

// A kernel whose derived numbers leave the range of a double is refused before anything is
// written: JSON has no inf, and a 0 achieved or attainable FLOP/s is no measurement.
void check_finite(const json& out, const RooflineKernel& k) {
  const std::string where = k.source + " (" + k.name + ")";
  if (!(out["achieved_flops_per_s"].get<double>() > 0))
    throw Error(where +
                ": achieved_flops_per_s = flops / time_s underflows to 0 (flops is too small for time_s)");
  if (out["attainable_flops_per_s"].is_number() && !(out["attainable_flops_per_s"].get<double>() > 0))
    throw Error(where + ": attainable_flops_per_s underflows to 0 (flops is too small for its bytes)");
  if (const std::string bad = first_non_finite(out, ""); !bad.empty())
    throw Error(where + ": " + bad +
                " is not a finite number: its flops, time_s and bytes leave the range of a "
                "double (flops / time_s, flops / bytes or bytes / time_s overflows)");
}

}  // namespace

std::string normalize_precision(const std::string& precision) {
  if (precision.empty()) throw Error("a precision must not be empty");
  std::string p;
  for (char c : precision) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      throw Error("precision '" + precision + "' has a character other than a letter, digit or '_'");
    p += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  static const std::map<std::string, std::string> aliases = {
      {"fp32", "f32"},   {"float", "f32"},  {"single", "f32"}, {"f32x2", "f32"},
      {"fp64", "f64"},   {"double", "f64"}, {"fp16", "f16"},   {"half", "f16"},
      {"f16x2", "f16"},  {"bf16x2", "bf16"}, {"int8", "s8"},   {"int4", "s4"},
      {"fp8_e4m3", "e4m3"}, {"fp8_e5m2", "e5m2"}, {"fp4", "e2m1"}, {"fp4_e2m1", "e2m1"},
      // Block-scaled kinds (tensor/mma mma_precision): their own ceilings, not plain fp8/fp4's.
      {"nvfp4", "nvf4"}, {"mxfp4", "mxf4"}, {"mxfp8_e4m3", "mxf8_e4m3"}, {"mxfp8_e5m2", "mxf8_e5m2"}};
  const auto it = aliases.find(p);
  return it == aliases.end() ? p : it->second;
}

bool known_precision(const std::string& precision, const json& roofline) {
  if (std::find(kKnownPrecisions.begin(), kKnownPrecisions.end(), precision) != kKnownPrecisions.end())
    return true;
  const json* c = at(roofline, {"compute"});
  return c && c->is_object() && c->contains(precision);
}

json roofline_section(const json& model) {
  json section = {{"memory", json::object()}, {"compute", json::object()}, {"missing", json::array()}};
  json& memory = section["memory"];
  for (const auto& level : kRooflineLevels) {
    const auto [bw, source] = level_bandwidth(model, level);
    if (bw > 0) memory[level] = {{"bytes_per_s", bw}, {"source", source}};
  }
  // L2-far is a level only some GPUs have (A100, H100): its absence is not missing.
  std::string absent;
  for (const char* level : {"DRAM", "L2", "L1", "shared"})
    if (!memory.contains(level)) {
      if (!absent.empty()) absent += ", ";
      absent += level;
    }
  if (!absent.empty())
    section["missing"].push_back("no memory ceiling for " + absent +
                                 " (the model has no bandwidth measured there: run the bandwidth probes)");

  // Compute: per precision the best native op of each path; emulated ops are listed, never a
  // ceiling.
  json& compute = section["compute"];
  const json* ops = at(model, {"compute", "ops"});
  if (ops && ops->is_object()) {
    for (auto it = ops->begin(); it != ops->end(); ++it) {
      const json& o = it.value();
      if (!o.is_object() || !o.contains("flops_per_s") || !o["flops_per_s"].is_number()) continue;
      const double flops = o["flops_per_s"].get<double>();
      if (!std::isfinite(flops) || flops <= 0) continue;
      std::string precision;
      try {
        precision = normalize_precision(text_or(o, "precision", ""));
      } catch (const Error&) {
        continue;  // an op without a readable precision cannot be placed
      }
      const std::string path = text_or(o, "path", "unknown");
      json entry = {{"op", it.key()}, {"flops_per_s", flops},
                    {"implementation", text_or(o, "implementation", "native")},
                    {"source", "compute.ops." + it.key() + ".flops_per_s"}};
      if (o.contains("accumulate") && o["accumulate"].is_string()) entry["accumulate"] = o["accumulate"];
      json& p = compute[precision];
      if (!is_native(o)) {
        p["emulated"][it.key()] = entry;
        p["emulated"][it.key()]["path"] = path;
        continue;
      }
      json& best_of_path = p["paths"][path];
      if (!best_of_path.is_object() || best_of_path["flops_per_s"].get<double>() < flops) best_of_path = entry;
    }
  }
  // An imported intensity sweep gives an FP32 ceiling where none was measured.
  if (const double f = positive_at(model, {"compute", "imported", "flops_per_s"});
      f > 0 && !(compute.contains("f32") && compute["f32"].contains("paths"))) {
    compute["f32"]["paths"]["imported"] = {
        {"op", nullptr}, {"flops_per_s", f}, {"implementation", "native"},
        {"source", "compute.imported.flops_per_s (an imported intensity sweep; no measured FP32 op)"}};
  }
  for (auto it = compute.begin(); it != compute.end(); ++it) {
    json& p = it.value();
    if (!p.contains("paths")) {
      section["missing"].push_back("no compute ceiling for " + it.key() + ": its only ops are emulated");
      p["flops_per_s"] = nullptr;
      continue;
    }
    std::string best_path;
    double best = 0;
    for (auto q = p["paths"].begin(); q != p["paths"].end(); ++q)
      if (q.value()["flops_per_s"].get<double>() > best) {
        best = q.value()["flops_per_s"].get<double>();
        best_path = q.key();
      }
    const json& b = p["paths"][best_path];
    p["flops_per_s"] = best;
    // An integer precision's rate counts operations (2 per multiply-accumulate), not FLOP: its
    // `flops_per_s` and ridge points are then in op/s and op/byte, as metrics[] names them.
    p["unit"] = integer_precision(it.key()) ? "op/s" : "flop/s";
    p["path"] = best_path;
    p["op"] = b["op"];
    p["source"] = b["source"];
    json ridges = json::object();
    for (auto m = memory.begin(); m != memory.end(); ++m)
      ridges[m.key()] = {{"flop_per_byte", best / m.value()["bytes_per_s"].get<double>()}};
    p["ridge_points"] = ridges;
  }
  if (compute.empty())
    section["missing"].push_back(
        "no compute ceiling for any precision (the model has no FLOP rate: run compute/alu or the "
        "tensor probes)");
  else if (!compute.contains("f32"))
    section["missing"].push_back("no compute ceiling for f32 (the default precision)");
  return section;
}

void add_roofline(json& model) {
  if (!model.is_object() || !(model.contains("compute") || model.contains("bandwidth"))) return;
  model["roofline"] = roofline_section(model);
}

json classify_kernel(const json& roofline, const RooflineKernel& k, const std::string& default_precision) {
  const std::string precision = normalize_precision(k.precision.empty() ? default_precision : k.precision);
  json out = {{"name", k.name},
              {"source", k.source},
              {"precision", precision},
              {"flops", k.flops},
              {"time_s", k.time_s},
              {"launches", k.launches},
              {"min_time_s", k.min_time_s > 0 ? k.min_time_s : k.time_s},
              {"max_time_s", k.max_time_s > 0 ? k.max_time_s : k.time_s},
              {"bytes", json::object()},
              {"notes", json::array()}};
  if (!k.path.empty()) out["path"] = k.path;
  if (!k.flops_by_precision.is_null()) out["flops_by_precision"] = k.flops_by_precision;
  const double achieved = k.time_s > 0 ? k.flops / k.time_s : 0;
  out["achieved_flops_per_s"] = achieved;
  out["unit"] = integer_precision(precision) ? "op/s" : "flop/s";  // an integer kernel counts OP

  json limits = json::array();
  double attainable = std::numeric_limits<double>::infinity();
  json bound;
  const auto consider = [&](json limit) {
    const double v = limit["flops_per_s"].get<double>();
    if (v < attainable) {
      attainable = v;
      bound = limit;
    }
    limits.push_back(std::move(limit));
  };

  // Compute: the precision's best native path, or the path asked for.
  const json* c = at(roofline, {"compute", precision.c_str()});
  if (!c || !c->contains("flops_per_s") || !(*c)["flops_per_s"].is_number()) {
    out["notes"].push_back("the model has no compute ceiling for " + precision);
  } else {
    std::string path = (*c)["path"].get<std::string>();
    const json* chosen = &(*c)["paths"][path];
    if (!k.path.empty()) {
      if ((*c)["paths"].contains(k.path)) {
        path = k.path;
        chosen = &(*c)["paths"][path];
      } else {
        out["notes"].push_back("the model has no native " + precision + " path " + k.path +
                               ": bounded by its best path, " + path);
      }
    }
    consider({{"kind", "compute"}, {"precision", precision}, {"path", path}, {"op", (*chosen)["op"]},
              {"flops_per_s", (*chosen)["flops_per_s"]}, {"name", precision + " " + path}});
  }
  // Memory: every level the kernel gave bytes for (none: its intensities and headroom are empty,
  // never absent, as docs/SCHEMA.md and the roofline schema hold them).
  out["intensity_flop_per_byte"] = json::object();
  out["headroom"] = json::object();
  for (const auto& [level, bytes] : k.bytes) {
    out["bytes"][level] = bytes;
    const json* m = at(roofline, {"memory", level.c_str()});
    if (!m) {
      out["notes"].push_back("the model has no " + level + " bandwidth: the kernel's " + level +
                             " bytes bound nothing");
      continue;
    }
    if (bytes <= 0) continue;  // no traffic at this level: no bound from it
    const double intensity = k.flops / bytes;
    out["intensity_flop_per_byte"][level] = intensity;
    consider({{"kind", "memory"}, {"level", level}, {"intensity_flop_per_byte", intensity},
              {"bytes_per_s", (*m)["bytes_per_s"]},
              {"flops_per_s", intensity * (*m)["bytes_per_s"].get<double>()}, {"name", level}});
  }
  out["limits"] = limits;
  if (bound.is_null()) {
    out["attainable_flops_per_s"] = nullptr;
    out["bound"] = nullptr;
    out["percent_of_attainable"] = nullptr;
    out["notes"].push_back("no ceiling applies to this kernel: nothing to compare it with");
    check_finite(out, k);
    return out;
  }
  out["attainable_flops_per_s"] = attainable;
  out["bound"] = bound;
  out["percent_of_attainable"] = 100.0 * achieved / attainable;
  // Headroom at each memory level: how much of that level's bandwidth the kernel uses, and how
  // much faster it could run before that level alone would bound it.
  json headroom = json::object();
  for (const auto& limit : limits) {
    if (limit["kind"] != "memory" || !(k.time_s > 0)) continue;
    const std::string level = limit["level"].get<std::string>();
    const double bytes_per_s = k.bytes.at(level) / k.time_s;
    const double ceiling = limit["bytes_per_s"].get<double>();
    headroom[level] = {{"achieved_bytes_per_s", bytes_per_s},
                       {"percent_of_bandwidth", 100.0 * bytes_per_s / ceiling},
                       {"speedup_until_bound", ceiling / bytes_per_s}};
  }
  out["headroom"] = headroom;
  if (achieved > attainable * 1.0001)
    out["notes"].push_back(
        "achieves more than the attainable: its counts are low (FLOPs over-, bytes under-counted?) or a "
        "ceiling was measured below what the device can do");
  check_finite(out, k);
  return out;
}

}  // namespace gpuprobe::analysis
