// The atomics family (harness/family.hpp): atomics/ops; its model section and metrics are
// analysis/atomics_model.cpp's.
#include "analysis/atomics_model.hpp"
#include "probes/common/family_spec.hpp"
#include "probes/common/plan.hpp"

namespace gpuprobe::probes {
namespace {

using namespace plan;

double estimate(const std::string&, const Params& p) {
  const bool all = p.get_text("op") == "all" && p.get_text("pattern") == "all";
  // Atomics under contention are noisy: more repeats.
  return op_points_seconds(op_kind_points(p, all, 34, 44), kNoisyRunsPerPoint);
}

FamilySpec atomics_family() {
  return op_table_family({.name = "atomics",
                          .title = "Atomics",
                          .order = 60,
                          .plan = one_run_plan("atomics/ops", "atomics_ops.json"),
                          .estimate_h100_seconds = estimate,
                          .add_run = add_run_by(analysis::add_atomics_from_run),
                          .metrics = analysis::atomics_metrics},
                         "atomics/ops");
}

const FamilyRegistration kFamily(atomics_family);

}  // namespace
}  // namespace gpuprobe::probes
