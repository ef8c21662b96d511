// The family is the unit of registration. A probe family (probes/<family>/) registers, from its own
// folder, everything the rest of the tool needs of it, in one FamilyRegistration (a namespace-scope
// constant, linked whole like the probes):
//   - its runs in run-all's quick and full profiles, and the per-run time estimate the ETA uses;
//   - its machine-model section, built from its records, and what it derives once every section
//     is there;
//   - its metrics[] entries (analysis/metrics.cpp adds provenance, per-clock values and %);
//   - the checks behind each of its probes (the evidence tests/analysis/test_metrics.cpp reads);
//   - its report section's title.
// Its simulator cost tables register beside it (harness/sim/family_tables.hpp). No central list of
// families exists anywhere else: run-all, analyze, compare and the reports iterate families()
// (tests/harness/test_family.cpp checks every registered probe belongs to a family that has all
// of these, and that run-all plans it). Plain C++ with JSON: the harness holds no family's types.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/params.hpp"

namespace gpuprobe {

// --quick: a minute or less on an H100, every ceiling within 3% of --full; --full: ten minutes
// or less (run-all's default: every probe with its defaults).
enum class RunProfile { quick, full };

struct PlannedRun {
  std::string probe;
  std::map<std::string, std::string> params;
  std::string file;  // under raw/
  // The run's estimated time on an H100 SXM (seconds): its points x (calibration + repeats) x
  // timed region and warm-up, from its parameters. For planning and the ETA; a real run differs
  // by its device and by how many repeats each point needs.
  double estimated_device_seconds = 0;
};

// One entry of metrics[] as a family states it (docs/SCHEMA.md "metrics"); the analysis adds its
// family, source, checks, per-SM-per-clock value and % of the datasheet.
struct MetricRow {
  std::string id, label;
  nlohmann::json value;             // a number, or null when unknown
  std::string unit, better;         // better: "lower" or "higher"; "" (null): no direction
  bool ceiling = false;
  std::string method;
  std::string probe;                // "" for a derived or imported number
  nlohmann::json samples = nullptr, confidence = nullptr, clock_mhz = nullptr;
  nlohmann::json datasheet = nullptr;  // {value, unit, source} of the published figure, or null
};
using MetricSink = std::function<void(MetricRow)>;

// The check names, in the order the report lists them (docs/SCHEMA.md `metrics[].checks`).
inline const std::vector<std::string> kCheckNames = {"compile-matrix", "sass", "sim-closed-loop",
                                                     "real-data", "gpu-self-check"};

struct CheckEvidence {
  std::string check;   // one of kCheckNames
  std::string file;    // relative to the source tree: the test (or, gpu-self-check, the probe
                       // source writing the record's self_check)
  std::string needle;  // text the file holds for this probe (a kernel source, a probe id, a data set)
};

// The evidence of each check, as families state it.
inline CheckEvidence compile_matrix_check() {
  return {"compile-matrix", "tests/probes/test_compile_matrix.py", "\"probes\", \"*\", \"*.cu\""};
}
inline CheckEvidence sass_check(std::string test, std::string kernel_file) {
  return {"sass", std::move(test), std::move(kernel_file)};
}
inline CheckEvidence closed_loop_check(std::string test, std::string needle) {
  return {"sim-closed-loop", std::move(test), std::move(needle)};
}
inline CheckEvidence real_data_check(std::string test, std::string needle) {
  return {"real-data", std::move(test), std::move(needle)};
}
// The probe source that writes the record's self_check, and the text that writes it.
inline CheckEvidence self_check_evidence(std::string source, std::string needle = "{\"self_check\", \"passed\"}") {
  return {"gpu-self-check", std::move(source), std::move(needle)};
}

struct ProbeProvenance {
  std::string probe;          // "compute/alu"
  std::string kernel_source;  // the CUDA source of its kernels, relative to the source tree
  std::vector<CheckEvidence> checks;
};

struct FamilySpec {
  std::string name{};    // "compute": its folder, its probe ids' prefix, its metric ids' prefix
  std::string title{};   // its report section's heading
  double order = 0;    // where it runs in run-all and stands in the reports (ascending)
  // The model section its records fill (model[section]); default: the name.
  std::string section{};
  // run-all's runs of a profile (their estimates are filled in from estimate_h100_seconds).
  std::function<std::vector<PlannedRun>(RunProfile)> plan{};
  // The estimated seconds of a run of `probe` with `params` on an H100 SXM.
  std::function<double(const std::string& probe, const Params& params)> estimate_h100_seconds{};
  // Adds one of its records (a run of one of its probes, not skipped) to its section. Returns why
  // the record gave no result ("" when it did), where the family recorded that itself; a fit that
  // throws is recorded under the section's "errors" (analysis/record_fields.hpp RecordError: the
  // record is unreadable and the analysis stops).
  std::function<std::string(const nlohmann::json& run, nlohmann::json& section)> add_run{};
  // Once every record is in, before the roofline (analysis/roofline.hpp) is drawn from the
  // sections: what the family derives from its own section (may be empty).
  std::function<void(nlohmann::json& model)> finish{};
  // After the roofline: what the family derives from the whole model (goodput's predictions).
  std::function<void(nlohmann::json& model)> after_roofline{};
  // Its metrics[] entries from the whole model (the roofline included).
  std::function<void(const nlohmann::json& model, const MetricSink& add)> metrics{};
  // The checks behind each of its probes.
  std::vector<ProbeProvenance> provenance{};

  const std::string& section_name() const { return section.empty() ? name : section; }
};

// Every registered family, in `order`.
const std::vector<FamilySpec>& families();
// The family a probe id ("compute/alu") belongs to (its prefix before the '/'), or nullptr.
const FamilySpec* family_of_probe(const std::string& probe);
const FamilySpec* find_family(const std::string& name);

struct FamilyRegistration {
  explicit FamilyRegistration(FamilySpec (*make)());
};

}  // namespace gpuprobe
