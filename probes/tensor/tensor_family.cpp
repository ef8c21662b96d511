// The tensor family (harness/family.hpp): mma.sync (tensor/mma), wgmma (tensor/wgmma, sm_90a) and
// tcgen05 (tensor/tcgen05, sm_100a). Their records share the compute section with the CUDA-core
// ops (one op table for the roofline's compute ceilings); the section and the metrics are
// analysis/compute_model.cpp's.
#include "analysis/compute_model.hpp"
#include "probes/common/family_spec.hpp"
#include "probes/common/plan.hpp"

namespace gpuprobe::probes {
namespace {

using namespace plan;

// Points per kind (latency, throughput) and operand kind, counted in the simulated H100's records.
constexpr double kMmaForms = 25, kWgmmaForms = 42;

double estimate(const std::string& probe, const Params& p) {
  // tcgen05 runs on sm_100 only: skipped on an H100, with the reason.
  if (probe == "tensor/tcgen05") return 0;
  const double forms = p.get_text("op") != "all" ? 1 : probe == "tensor/mma" ? kMmaForms : kWgmmaForms;
  return op_points_seconds(forms * kinds(p, "kind", "both") * kinds(p, "operands", "both"));
}

std::vector<PlannedRun> runs(RunProfile profile) {
  // --quick: random operands only (the ceilings' operands), no zero-operand points.
  using Map = std::map<std::string, std::string>;
  const Map params = profile == RunProfile::quick ? Map{{"operands", "random"}} : Map{};
  return {run("tensor/mma", params, "tensor_mma.json"), run("tensor/tcgen05", params, "tensor_tcgen05.json"),
          run("tensor/wgmma", params, "tensor_wgmma.json")};
}

FamilySpec tensor_family() {
  return {
      .name = "tensor",
      .title = "Tensor cores",
      .order = 40,
      .section = "compute",
      .plan = runs,
      .estimate_h100_seconds = estimate,
      .add_run = add_run_by(analysis::add_compute_from_run),
      .metrics = analysis::tensor_metrics,
      .provenance = {
          {"tensor/mma",
           "probes/tensor/mma.cu",
           {compile_matrix_check(), sass_check("tests/probes/tensor/test_sass_mma.py", "mma.cu"),
            closed_loop_check("tests/probes/tensor/test_mma.cpp", "tensor/mma closed loop"),
            self_check_evidence("probes/tensor/mma.cpp", "{\"self_check\", self_check_json(")}},
          // The arch-specific units are not in the compile matrix (it compiles the generic
          // probes/*/*.cu): tensor/wgmma and tensor/tcgen05 do not claim it.
          {"tensor/wgmma",
           "probes/tensor/wgmma.sm90a.cu",
           {sass_check("tests/probes/tensor/test_sass_wgmma.py", "wgmma.sm90a.cu"),
            closed_loop_check("tests/probes/tensor/test_wgmma.cpp", "recovers their wgmma tables"),
            self_check_evidence("probes/tensor/wgmma.cpp", "self_check_json(const tensor::TileCheck& c)")}},
          {"tensor/tcgen05",
           "probes/tensor/tcgen05.sm100a.cu",
           {sass_check("tests/probes/tensor/test_sass_tcgen05.py", "tcgen05.sm100a.cu"),
            closed_loop_check("tests/probes/tensor/test_tcgen05.cpp", "recovers a preset's tcgen05 table"),
            self_check_evidence("probes/tensor/tcgen05.cpp", "self_check_json(const tensor::TileCheck& c)")}},
      }};
}

const FamilyRegistration kFamily(tensor_family);

}  // namespace
}  // namespace gpuprobe::probes
