// The sync family (harness/family.hpp): sync/primitives; its model section and metrics are
// analysis/sync_model.cpp's.
#include "analysis/sync_model.hpp"
#include "probes/common/family_spec.hpp"
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
  f.add_run = add_run_by(analysis::add_sync_from_run);
  f.metrics = analysis::sync_metrics;
  f.provenance = {{"sync/primitives", "probes/sync/sync.cu",
                   {compile_matrix_check(), sass_check("tests/probes/sync/test_sass.py", "sync.cu"),
                    closed_loop_check("tests/analysis/test_sync_model.cpp", "sync model closed loop"),
                    self_check_evidence("probes/common/op_probe.cpp", "p[\"self_check\"] = \"passed\"")}}};
  return f;
}

const FamilyRegistration kFamily(sync_family);

}  // namespace
}  // namespace gpuprobe::probes
