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
  return {.name = "sync",
          .title = "Synchronization",
          .order = 50,
          .plan = one_run_plan("sync/primitives", "sync_primitives.json"),
          .estimate_h100_seconds = estimate,
          .add_run = add_run_by(analysis::add_sync_from_run),
          .metrics = analysis::sync_metrics,
          .provenance = {
              generic_probe("sync/primitives", "sync.cu",
                            closed_loop_check("tests/analysis/test_sync_model.cpp", "sync model closed loop"),
                            op_layer_self_check())}};
}

const FamilyRegistration kFamily(sync_family);

}  // namespace
}  // namespace gpuprobe::probes
