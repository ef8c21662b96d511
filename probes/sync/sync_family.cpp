// The sync family (harness/family.hpp): sync/primitives; its model section and metrics are
// analysis/sync_model.cpp's.
#include "analysis/sync_model.hpp"
#include "probes/common/plan.hpp"

namespace gpuprobe::probes {
namespace {

using namespace plan;

// Points per kind, counted in the simulated H100's records.
constexpr double kLatencyPoints = 53, kThroughputPoints = 27;

double estimate(const std::string&, const Params& p) {
  const std::string& kind = p.get_text("kind");
  const double ops = (kind != "throughput" ? kLatencyPoints : 0) + (kind != "latency" ? kThroughputPoints : 0);
  return op_points_seconds(p.get_text("op") == "all" ? ops : kinds(p, "kind", "both"));
}

FamilySpec sync_family() {
  FamilySpec f;
  f.name = "sync";
  f.title = "Synchronization";
  f.order = 50;
  f.plan = [](RunProfile) { return std::vector<PlannedRun>{run("sync/primitives", {}, "sync_primitives.json")}; };
  f.estimate_h100_seconds = estimate;
  f.add_run = [](const nlohmann::json& run, nlohmann::json& section) {
    analysis::add_sync_from_run(run, section);
    return std::string();
  };
  f.metrics = analysis::sync_metrics;
  f.provenance = {{"sync/primitives", "probes/sync/sync.cu",
                   {compile_matrix_check(), sass_check("tests/probes/test_sass_sync.py", "sync.cu"),
                    closed_loop_check("tests/analysis/test_sync_model.cpp", "sync model closed loop"),
                    self_check_evidence("probes/common/op_probe.cpp", "p[\"self_check\"] = \"passed\"")}}};
  return f;
}

const FamilyRegistration kFamily(sync_family);

}  // namespace
}  // namespace gpuprobe::probes
