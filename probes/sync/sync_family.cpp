// The sync family (harness/family.hpp): sync/primitives; its model section and metrics are
// analysis/sync_model.cpp's.
#include "analysis/sync_model.hpp"
#include "probes/common/family_spec.hpp"
#include "probes/common/plan.hpp"

namespace gpuprobe::probes {
namespace {

using namespace plan;

double estimate(const std::string&, const Params& p) {
  return op_points_seconds(op_kind_points(p, p.get_text("op") == "all", 53, 27));
}

FamilySpec sync_family() {
  return op_table_family({.name = "sync",
                          .title = "Synchronization",
                          .order = 50,
                          .plan = one_run_plan("sync/primitives", "sync_primitives.json"),
                          .estimate_h100_seconds = estimate,
                          .add_run = add_run_by(analysis::add_sync_from_run),
                          .metrics = analysis::sync_metrics},
                         "sync/primitives");
}

const FamilyRegistration kFamily(sync_family);

}  // namespace
}  // namespace gpuprobe::probes
