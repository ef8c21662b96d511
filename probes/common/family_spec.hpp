// What a family's registration (its <family>_family.cpp) shares with the others' (harness/family.hpp).
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/family.hpp"
#include "probes/common/plan.hpp"

namespace gpuprobe::probes {

// FamilySpec::add_run for a family whose section builder records its own reasons (returns none).
inline std::function<std::string(const nlohmann::json&, nlohmann::json&)> add_run_by(
    void (*add)(const nlohmann::json& run, nlohmann::json& section)) {
  return [add](const nlohmann::json& run, nlohmann::json& section) {
    add(run, section);
    return std::string();
  };
}

// FamilySpec::plan of a family that runs one probe, with its defaults, in either profile.
inline std::function<std::vector<PlannedRun>(RunProfile)> one_run_plan(std::string probe, std::string file) {
  return [probe = std::move(probe), file = std::move(file)](RunProfile) {
    return std::vector<PlannedRun>{plan::run(probe, {}, file)};
  };
}

// The checks of a probe whose kernels are one generic source, probes/<family>/<kernel_file>: the
// compile matrix builds it, the family's SASS test (tests/probes/<family>/test_sass.py) reads it;
// then its closed loop, any further checks (real data) and where its self-check is written.
inline ProbeProvenance generic_probe(const std::string& probe, const std::string& kernel_file,
                                     CheckEvidence closed_loop, CheckEvidence self_check,
                                     std::vector<CheckEvidence> more = {}) {
  const std::string family = probe.substr(0, probe.find('/'));
  ProbeProvenance p{probe, "probes/" + family + "/" + kernel_file,
                    {compile_matrix_check(), sass_check("tests/probes/" + family + "/test_sass.py", kernel_file),
                     std::move(closed_loop)}};
  for (CheckEvidence& e : more) p.checks.push_back(std::move(e));
  p.checks.push_back(std::move(self_check));
  return p;
}

// The closed loop of a probe in a test that names it ("\"memory/chase\"").
inline CheckEvidence closed_loop_naming(std::string test, const std::string& probe) {
  return closed_loop_check(std::move(test), "\"" + probe + "\"");
}

// The self-check the op-table layer writes for its families' probes (probes/common/op_probe.cpp).
inline CheckEvidence op_layer_self_check() {
  return self_check_evidence("probes/common/op_probe.cpp", "p[\"self_check\"] = \"passed\"");
}

// An op-table family of one probe (compute, sync, atomics, async): `f` with its provenance, the
// generic_probe checks of probes/<family>/<family>.cu, the closed loop of
// tests/analysis/test_<family>_model.cpp ("<family> model closed loop") and the op layer's
// self-check.
inline FamilySpec op_table_family(FamilySpec f, const std::string& probe) {
  f.provenance = {generic_probe(probe, f.name + ".cu",
                                closed_loop_check("tests/analysis/test_" + f.name + "_model.cpp",
                                                  f.name + " model closed loop"),
                                op_layer_self_check())};
  return f;
}

}  // namespace gpuprobe::probes
