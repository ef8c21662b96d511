// The goodput family (harness/family.hpp): goodput/reference, whose kernels' times the model
// predicts from the other sections once the roofline is drawn; its section, predictions and
// metrics are analysis/goodput_model.cpp's.
#include "analysis/goodput_model.hpp"
#include "probes/common/family_spec.hpp"
#include "probes/common/plan.hpp"

namespace gpuprobe::probes {
namespace {

using namespace plan;

constexpr double kKernels = 5;

double estimate(const std::string&, const Params& p) {
  // Each reference kernel is a point of short launches, except the cuBLAS GEMM: 2 m^3 FLOP per run
  // at about 600 TFLOP/s (assumption: near the H100's dense f16 tensor rate).
  const std::string& kernel = p.get_text("kernel");
  const double m = static_cast<double>(p.get_u64("gemm-size"));
  const double gemm_run_s = std::max(2 * m * m * m / 600e12, kMinRegionSeconds);
  const bool gemm = kernel == "all" || kernel == "cublas_gemm";
  return op_points_seconds(kernel == "all" ? kKernels - 1 : gemm ? 0 : 1) +
         (gemm ? kRunsPerPoint * gemm_run_s + kPointOverheadSeconds : 0);
}

FamilySpec goodput_family() {
  return {.name = "goodput",
          .title = "Goodput",
          .order = 90,
          .plan = one_run_plan("goodput/reference", "goodput_reference.json"),
          .estimate_h100_seconds = estimate,
          .add_run = add_run_by(analysis::add_goodput_from_run),
          .after_roofline = analysis::add_goodput_predictions,
          .metrics = analysis::goodput_metrics,
          .provenance = {
              generic_probe("goodput/reference", "goodput.cu",
                            closed_loop_check("tests/analysis/test_goodput_model.cpp", "goodput closed loop"),
                            self_check_evidence("probes/goodput/goodput_probe.cpp"))}};
}

const FamilyRegistration kFamily(goodput_family);

}  // namespace
}  // namespace gpuprobe::probes
