// The atomics family (harness/family.hpp): atomics/ops; its model section and metrics are
// analysis/atomics_model.cpp's.
#include "analysis/atomics_model.hpp"
#include "probes/common/family_spec.hpp"
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
  return {.name = "atomics",
          .title = "Atomics",
          .order = 60,
          .plan = one_run_plan("atomics/ops", "atomics_ops.json"),
          .estimate_h100_seconds = estimate,
          .add_run = add_run_by(analysis::add_atomics_from_run),
          .metrics = analysis::atomics_metrics,
          .provenance = {generic_probe(
              "atomics/ops", "atomics.cu",
              closed_loop_check("tests/analysis/test_atomics_model.cpp", "atomics model closed loop"),
              op_layer_self_check())}};
}

const FamilyRegistration kFamily(atomics_family);

}  // namespace
}  // namespace gpuprobe::probes
