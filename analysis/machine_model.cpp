#include "analysis/machine_model.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include "analysis/launch_model.hpp"
#include "analysis/memory_model.hpp"
#include "analysis/metrics.hpp"
#include "analysis/record_fields.hpp"
#include "analysis/roofline.hpp"
#include "harness/error.hpp"
#include "harness/family.hpp"
#include "harness/results.hpp"
#include "harness/self_check.hpp"
#include "harness/stats.hpp"
#include "ptx/load_variants.hpp"

namespace gpuprobe::analysis {
namespace {

// obj[key] as a string (`name` is its path in the record), or `fallback` if obj has no `key`.
std::string optional_string(const nlohmann::json& obj, const char* key, const std::string& name,
                            const std::string& fallback) {
  if (!obj.is_object() || !obj.contains(key)) return fallback;
  const auto& v = obj[key];
  if (!v.is_string()) wrong_type(name, v, "a string");
  return v.get<std::string>();
}

// What the model reads of every record before its series, checked.
struct RecordHead {
  std::string probe, status;
  nlohmann::json params;  // an object
  const nlohmann::json* device = nullptr;  // an object
};

RecordHead read_head(const nlohmann::json& run) {
  RecordHead h;
  if (!run.contains("device")) throw Error("device is missing");
  h.device = &run["device"];
  if (!h.device->is_object()) wrong_type("device", *h.device, "an object");
  if (h.device->contains("simulated") && !(*h.device)["simulated"].is_boolean())
    wrong_type("device.simulated", (*h.device)["simulated"], "a boolean");
  h.probe = optional_string(run, "probe", "probe", "");
  h.status = optional_string(run, "status", "status", "");
  h.params = run.contains("params") ? run["params"] : nlohmann::json::object();
  if (!h.params.is_object()) wrong_type("params", h.params, "an object");
  return h;
}

// The warning for a record fitted although it is not complete.
std::string status_warning(const std::string& path, const RecordHead& h, const nlohmann::json& run) {
  std::string state = h.status.empty()         ? "has no status"
                      : h.status == "running" ? "is running (its run was killed, or still goes on)"
                                              : "is " + printable(h.status);
  if (h.status == "failed" && run.contains("error") && run["error"].is_string())
    state += " (" + printable(run["error"].get<std::string>()) + ")";
  return path + ": this " + printable(h.probe) + " record " + state + ", not ok: fitted from the " +
         std::to_string(run["series"].size()) + " points it holds, which may not cover its sweep";
}

// "PATH: the GPU reported throttling (REASONS) before/after this PROBE run ..." when the NVML
// telemetry recorded around the run says so (docs/SCHEMA.md `telemetry`), else "". A throttled run
// is fitted, never hidden: the warning goes into the model and onto the command line.
std::string throttle_warning(const std::string& path, const RecordHead& h, const nlohmann::json& run) {
  if (!run.contains("telemetry") || !run["telemetry"].is_object()) return "";
  std::string when, reasons;
  for (const char* side : {"before", "after"}) {
    const auto& t = run["telemetry"];
    if (!t.contains(side) || !t[side].is_object()) continue;
    const auto& s = t[side];
    if (!(s.contains("throttled") && s["throttled"] == true)) continue;
    when += (when.empty() ? "" : " and ") + std::string(side);
    if (s.contains("clock_event_reasons") && s["clock_event_reasons"].is_array())
      for (const auto& r : s["clock_event_reasons"])
        if (r.is_string() && reasons.find(r.get<std::string>()) == std::string::npos)
          reasons += (reasons.empty() ? "" : "+") + printable(r.get<std::string>());
  }
  if (when.empty()) return "";
  return path + ": the GPU reported throttling (" + (reasons.empty() ? "reason not given" : reasons) +
         ") " + when + " this " + printable(h.probe) +
         " run: its clocks may have moved during the sweep (points off the median clock are "
         "flagged per point)";
}

// "passed" when every point of the record that carries a self_check passed it (the text "passed",
// or the tensor probes' {"passed": true}) and at least one does; "failed" when one did not; null
// (nothing said) when no point carries one.
const char* self_check_of(const nlohmann::json& run) {
  if (!run.contains("series") || !run["series"].is_array()) return nullptr;
  bool any = false;
  for (const auto& p : run["series"]) {
    if (!p.is_object() || !p.contains("self_check")) continue;
    const auto& c = p["self_check"];
    const bool passed = c == "passed" || (c.is_object() && c.value("passed", nlohmann::json()) == true);
    if (!passed) return "failed";
    any = true;
  }
  return any ? "passed" : nullptr;
}

// The families whose sections the model holds, in their order: what the reports title and group
// (docs/SCHEMA.md `families`).
nlohmann::json families_of(const nlohmann::json& model) {
  nlohmann::json out = nlohmann::json::array();
  for (const FamilySpec& f : families())
    if (model.contains(f.section_name()))
      out.push_back({{"name", f.name}, {"title", f.title}, {"section", f.section_name()}});
  return out;
}

// The GPU a record was measured on: its name, uuid and simulator preset ("" where the record has
// none: a real GPU has no preset, an old record no uuid).
struct DeviceIdentity {
  std::string name, uuid, preset;
};

DeviceIdentity identity_of(const nlohmann::json& device) {
  return {optional_string(device, "name", "device.name", ""),
          optional_string(device, "uuid", "device.uuid", ""),
          optional_string(device, "sim_preset", "device.sim_preset", "")};
}

// One GPU: the same name and preset, and the same uuid where both records have one.
bool same_gpu(const DeviceIdentity& a, const DeviceIdentity& b) {
  return a.name == b.name && a.preset == b.preset && (a.uuid.empty() || b.uuid.empty() || a.uuid == b.uuid);
}

std::string describe(const DeviceIdentity& d) {
  std::string s = "'" + printable(d.name.empty() ? std::string("(no name)") : d.name) + "'";
  std::string more;
  if (!d.uuid.empty()) more += "uuid " + printable(d.uuid);
  if (!d.preset.empty()) more += (more.empty() ? "" : ", ") + std::string("preset ") + printable(d.preset);
  return more.empty() ? s : s + " (" + more + ")";
}

// The points of a record that measured something: not skipped ops.
std::size_t measured_points(const nlohmann::json& run) {
  std::size_t n = 0;
  for (const auto& p : run["series"])
    if (!p.is_object() || !p.contains("skipped")) ++n;
  return n;
}

// `j` without its nulls and empty objects or arrays, at any depth: what a section holds.
nlohmann::json pruned(const nlohmann::json& j) {
  if (!j.is_object() && !j.is_array()) return j;
  nlohmann::json out = j.is_object() ? nlohmann::json::object() : nlohmann::json::array();
  for (auto it = j.begin(); it != j.end(); ++it) {
    nlohmann::json v = pruned(it.value());
    if (v.is_null() || ((v.is_object() || v.is_array()) && v.empty())) continue;
    if (j.is_object()) out[it.key()] = std::move(v);
    else out.push_back(std::move(v));
  }
  return out;
}

// Whether the family's analysis of `run` alone fills its section with anything (asked only of a
// record that left the section as it was: it may repeat what an earlier record gave).
bool gives_anything(const FamilySpec& family, const nlohmann::json& run) {
  nlohmann::json alone = nlohmann::json::object();
  try {
    if (!family.add_run(run, alone).empty()) return false;
  } catch (const std::exception&) {
    return false;
  }
  return !pruned(alone).empty();
}

nlohmann::json model_skeleton() {
  return {{"schema", kModelSchema},
          {"schema_version", kModelSchemaVersion},
          {"gpuprobe_version", GPUPROBE_VERSION},
          {"created_utc", utc_timestamp()},
          {"warnings", nlohmann::json::array()},
          {"memory", nlohmann::json::object()}};
}

}  // namespace

void check_run_record(const nlohmann::json& run, const std::string& what) {
  if (!run.is_object() || !run.contains("schema") || run["schema"] != kRunSchema)
    throw Error(what + " is not a gpuprobe run record (schema \"" + kRunSchema + "\")");
  const nlohmann::json version = run.contains("schema_version") ? run["schema_version"] : nlohmann::json();
  if (version != kRunSchemaVersion)
    throw Error(what + " has run schema version " +
                (version.is_number() ? version.dump() : std::string(kind_of(version))) +
                "; this gpuprobe reads version " + std::to_string(kRunSchemaVersion));
  if (!run.contains("series") || !run["series"].is_array())
    throw Error(what + " has no series");
}

nlohmann::json build_machine_model(const std::vector<nlohmann::json>& runs,
                                   const std::vector<std::string>& run_paths, const ModelOptions& options) {
  if (runs.empty()) throw Error("no run records to analyse");
  nlohmann::json model = model_skeleton();
  nlohmann::json sources = nlohmann::json::array();
  // The GPUs the records come from, in order of first appearance, with their files.
  std::vector<std::pair<DeviceIdentity, std::vector<std::string>>> gpus;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string path = i < run_paths.size() ? run_paths[i] : "run " + std::to_string(i);
    check_run_record(runs[i], path);
    // A point that failed its self-check (harness/self_check.hpp) holds evidence, no measurement:
    // the families fit the record without it.
    std::size_t failed_points = 0;
    for (const auto& p : runs[i]["series"]) failed_points += self_check_failed(p);
    nlohmann::json without_failed;
    if (failed_points > 0) {
      without_failed = runs[i];
      without_failed["series"] = nlohmann::json::array();
      for (const auto& p : runs[i]["series"])
        if (!self_check_failed(p)) without_failed["series"].push_back(p);
    }
    const nlohmann::json& run = failed_points > 0 ? without_failed : runs[i];
    RecordHead head;
    DeviceIdentity gpu;
    try {
      head = read_head(run);
      gpu = identity_of(*head.device);
    } catch (const Error& e) {
      throw Error(path + ": " + e.what());
    }
    // One model describes one GPU: a record of another one is refused before anything is fitted.
    auto known = std::find_if(gpus.begin(), gpus.end(),
                              [&](const auto& g) { return same_gpu(g.first, gpu); });
    if (known == gpus.end()) {
      if (!gpus.empty() && !options.allow_mixed)
        throw Error(path + " was measured on " + describe(gpu) + ", " + gpus.front().second.front() + " on " +
                    describe(gpus.front().first) +
                    ": one model describes one GPU (--allow-mixed to fit them together anyway)");
      gpus.push_back({gpu, {}});
      known = gpus.end() - 1;
    }
    known->second.push_back(path);
    if (!model.contains("device")) model["device"] = *head.device;
    sources.push_back({{"file", path}, {"probe", head.probe}, {"status", head.status},
                       {"params", head.params}});
    auto& source = sources.back();
    if (const char* checked = self_check_of(runs[i])) source["self_check"] = checked;
    if (failed_points > 0) {
      source["self_check_failed_points"] = failed_points;
      model["warnings"].push_back(path + ": " + std::to_string(failed_points) + " point(s) of this " +
                                  printable(head.probe) +
                                  " record failed their self-check: left out of the fit (their evidence "
                                  "is in the record)");
    }
    if (head.status == "skipped") {  // nothing measured; listed in sources
      if (run.contains("skip_reason") && run["skip_reason"].is_string())
        source["skip_reason"] = run["skip_reason"];
      continue;
    }
    // An interrupted, failed or killed record is fitted from what it holds, and says so.
    if (head.status != "ok") model["warnings"].push_back(status_warning(path, head, run));
    if (const std::string w = throttle_warning(path, head, run); !w.empty())
      model["warnings"].push_back(w);
    // The record's family adds it to its section (harness/family.hpp); a fit that fails is
    // recorded there (under the section's "errors", unless the family keeps it in place) and the
    // other records still fit. Whatever the probe, a record with no point gives no result (its
    // family is not asked), one whose every op was skipped is a skipped input (its family lists
    // the ops as not measured), and one that leaves its section as it was gave no result.
    std::string failed;  // why this record gave no result
    const FamilySpec* family = family_of_probe(head.probe);
    const std::size_t measured = measured_points(run);
    if (family && family->add_run && run["series"].empty()) {
      failed = failed_points > 0 ? "every point of the record failed its self-check"
                                 : "the record holds no measured point (its series is empty)";
    } else if (family && family->add_run) {
      const std::string& section = family->section_name();
      const bool had_section = model.contains(section);
      if (!had_section) model[section] = nlohmann::json::object();
      const nlohmann::json before = model[section];
      try {
        failed = family->add_run(run, model[section]);
      } catch (const RecordError& e) {
        throw Error(path + ": " + e.what());
      } catch (const std::exception& e) {
        model[section]["errors"][head.probe] = e.what();
        failed = e.what();
      }
      if (failed.empty() && measured == 0)
        source["skip_reason"] = "every op of the record was skipped (" +
                                std::to_string(run["series"].size()) +
                                " point(s), each naming what the device lacks)";
      else if (failed.empty() && pruned(model[section]) == pruned(before) && !gives_anything(*family, run))
        failed = "its " + std::to_string(measured) + " point(s) gave the " + section +
                 " section nothing to fit (no point the analysis of " + printable(head.probe) + " reads)";
      if (!had_section && model[section].empty()) model.erase(section);  // no header for nothing
    } else {
      failed = "gpuprobe has no analysis for probe '" + printable(head.probe) + "'";
    }
    if (!failed.empty()) source["error"] = failed;
  }
  if (gpus.size() > 1) {
    // --allow-mixed: the model says which records came from which GPU, and that the device, the
    // datasheet % and the per-SM-per-clock values are the first GPU's.
    std::string list;
    nlohmann::json mixed = nlohmann::json::array();
    for (const auto& [gpu, files] : gpus) {
      mixed.push_back({{"name", gpu.name},
                       {"uuid", gpu.uuid.empty() ? nlohmann::json() : nlohmann::json(gpu.uuid)},
                       {"sim_preset", gpu.preset.empty() ? nlohmann::json() : nlohmann::json(gpu.preset)},
                       {"files", files}});
      list += (list.empty() ? "" : "; ") + describe(gpu) + ": " + std::to_string(files.size()) + " record(s)";
    }
    model["mixed_devices"] = mixed;
    model["warnings"].push_back(
        "--allow-mixed: this model mixes records of " + std::to_string(gpus.size()) + " GPUs (" + list +
        "); its device, datasheet % and per-SM-per-clock values are those of the first, " +
        describe(gpus.front().first) + ", also for the other GPUs' numbers");
  }
  model["simulated"] = model["device"].value("simulated", false);  // a boolean: read_head
  model["sources"] = sources;
  for (const FamilySpec& f : families())
    if (f.finish) f.finish(model);  // the memory hierarchy from its chases...
  add_roofline(model);  // from the compute and bandwidth sections, once they are complete
  for (const FamilySpec& f : families())
    if (f.after_roofline) f.after_roofline(model);  // goodput's predictions, from every section
  model["families"] = families_of(model);
  model["metrics"] = build_metrics(model);  // the flat table of everything above
  return model;
}

nlohmann::json build_machine_model_from_curve(const Curve& curve, const std::string& source,
                                              const HierarchyFitOptions& options) {
  nlohmann::json model = model_skeleton();
  model["device"] = {{"name", "imported curve: " + std::filesystem::path(source).filename().string()},
                     {"simulated", false}};
  model["simulated"] = false;
  model["sources"] = {{{"file", source}, {"probe", "import-csv"}, {"rows", curve.points.size()}}};
  // The model keeps the file's name and a bounded summary of its curve, never the whole curve.
  const BinnedCurve reduced = bin_curve(curve);
  const HierarchyFit fit = fit_hierarchy(reduced.curve, options);
  auto j = to_json(fit, reduced.curve);
  j["curve"]["input_points"] = reduced.input_points;
  j["curve"]["binned"] = reduced.binned ? nlohmann::json{{"bin_octaves", reduced.bin_octaves},
                                                         {"statistic", "median"},
                                                         {"points", reduced.curve.points.size()}}
                                        : nlohmann::json(nullptr);
  model["memory"]["levels"] = j["levels"];
  model["memory"]["far_l2"] = j["far_l2"];
  model["memory"]["rejected"] = j["rejected"];
  model["memory"]["levels_from"] = "import-csv";
  model["memory"]["paths"]["imported"] = j;
  model["families"] = families_of(model);
  model["metrics"] = build_metrics(model);
  return model;
}

nlohmann::json build_machine_model_from_small_kernels(
    const std::vector<std::pair<std::string, std::vector<SmallKernelPoint>>>& methods,
    const std::string& source) {
  nlohmann::json model = model_skeleton();
  model["device"] = {{"name", "imported curve: " + std::filesystem::path(source).filename().string()},
                     {"simulated", false}};
  model["simulated"] = false;
  std::size_t rows = 0;
  nlohmann::json& small = model["launch"]["small_kernels"];
  for (const auto& [method, points] : methods) {
    rows += points.size();
    try {
      small[method] = to_json(fit_small_kernels(points));
    } catch (const Error& e) {
      throw Error(source + ": method '" + method + "': " + e.what());
    }
  }
  model["launch"]["source"] = "imported from " + source + " (gpuprobe analyze --import-csv)";
  model["sources"] = {{{"file", source}, {"probe", "import-csv"}, {"curve", "small_kernels"}, {"rows", rows}}};
  model["families"] = families_of(model);
  model["metrics"] = build_metrics(model);
  return model;
}

nlohmann::json build_machine_model_from_bandwidth(const nlohmann::json& sweep, const std::string& key,
                                                  const std::string& source, int sm_count) {
  nlohmann::json model = model_skeleton();
  model["device"] = {{"name", "imported curve: " + std::filesystem::path(source).filename().string()},
                     {"simulated", false}};
  if (sm_count > 0) model["device"]["sm_count"] = sm_count;
  model["simulated"] = false;
  model["sources"] = {{{"file", source}, {"probe", "import-csv"}, {"curve", key},
                       {"rows", sweep.value("input_points", 0)}}};
  model["bandwidth"]["imported"] = {{"source", "imported from " + source + " (gpuprobe analyze --import-csv)"},
                                    {key, sweep}};
  add_roofline(model);
  model["families"] = families_of(model);
  model["metrics"] = build_metrics(model);
  return model;
}

nlohmann::json build_machine_model_from_intensity(const nlohmann::json& imported, const std::string& source,
                                                  int sm_count) {
  nlohmann::json model = model_skeleton();
  model["device"] = {{"name", "imported curve: " + std::filesystem::path(source).filename().string()},
                     {"simulated", false}};
  if (sm_count > 0) model["device"]["sm_count"] = sm_count;
  model["simulated"] = false;
  model["sources"] = {{{"file", source}, {"probe", "import-csv"}, {"curve", "intensity_sweep"},
                       {"rows", imported.value("points", 0)}}};
  model["compute"] = {{"imported", imported}};
  add_roofline(model);  // the sweep's FP32 and DRAM ceilings, so `gpuprobe roofline` reads them as is
  model["families"] = families_of(model);
  model["metrics"] = build_metrics(model);
  return model;
}

}  // namespace gpuprobe::analysis
