// The atomics family (harness/family.hpp): atomics/ops; its model section and metrics are
// analysis/atomics_model.cpp's.
#include "analysis/atomics_model.hpp"
#include "probes/common/plan.hpp"

namespace gpuprobe::probes {
namespace {

using namespace plan;

// Points per kind, counted in the simulated H100's records.
constexpr double kLatencyPoints = 34, kThroughputPoints = 44;

double estimate(const std::string&, const Params& p) {
  const std::string& kind = p.get_text("kind");
  const double points = (kind != "throughput" ? kLatencyPoints : 0) + (kind != "latency" ? kThroughputPoints : 0);
  const bool all = p.get_text("op") == "all" && p.get_text("pattern") == "all";
  // Atomics under contention are noisy: more repeats.
  return op_points_seconds(all ? points : kinds(p, "kind", "both"), kNoisyRunsPerPoint);
}

FamilySpec atomics_family() {
  FamilySpec f;
  f.name = "atomics";
  f.title = "Atomics";
  f.order = 60;
  f.plan = [](RunProfile) { return std::vector<PlannedRun>{run("atomics/ops", {}, "atomics_ops.json")}; };
  f.estimate_h100_seconds = estimate;
  f.add_run = [](const nlohmann::json& run, nlohmann::json& section) {
    analysis::add_atomics_from_run(run, section);
    return std::string();
  };
  f.metrics = analysis::atomics_metrics;
  f.provenance = {{"atomics/ops", "probes/atomics/atomics.cu",
                   {compile_matrix_check(), sass_check("tests/probes/test_sass_atomics.py", "atomics.cu"),
                    closed_loop_check("tests/analysis/test_atomics_model.cpp", "atomics model closed loop"),
                    self_check_evidence("probes/common/op_probe.cpp", "p[\"self_check\"] = \"passed\"")}}};
  return f;
}

const FamilyRegistration kFamily(atomics_family);

}  // namespace
}  // namespace gpuprobe::probes
