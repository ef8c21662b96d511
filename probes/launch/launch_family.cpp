// The launch family (harness/family.hpp): launch/overhead, launch/graph and launch/small_kernels;
// its model section and metrics are analysis/launch_model.cpp's.
#include "analysis/launch_model.hpp"
#include "probes/common/family_spec.hpp"
#include "probes/common/plan.hpp"

namespace gpuprobe::probes {
namespace {

using namespace plan;

constexpr double kOverheadMeasures = 6, kSmallKernelMethods = 4, kGraphMeasures = 3;

double estimate(const std::string& probe, const Params& p) {
  if (probe == "launch/overhead") {
    // Each measure: samples of --launches launches (PDL: pairs) of a few microseconds each.
    const double launch_s = 5e-6;
    return kOverheadMeasures *
           (kRunsPerPoint * std::max(2.0 * static_cast<double>(p.get_u64("launches")) * launch_s, kMinRegionSeconds) +
            kPointOverheadSeconds);
  }
  if (probe == "launch/graph") {
    // Per graph size: --graphs graphs instantiated (about 20 us + 1 us per node), updated and
    // launched (a few us per node), per sample.
    double s = op_points_seconds(1);  // the device-side launch
    for (uint64_t nodes : p.get_u64_list("nodes"))
      s += kGraphMeasures * (kRunsPerPoint * static_cast<double>(p.get_u64("graphs")) *
                                 (20e-6 + 3e-6 * static_cast<double>(nodes)) +
                             kPointOverheadSeconds);
    return s;
  }
  // launch/small_kernels: per size and method, --iterations passes of a few microseconds each,
  // per sample.
  const double methods = p.get_text("method") == "all" ? kSmallKernelMethods : 1;
  const double sizes = static_cast<double>(p.get_u64_list("bytes").size());
  return methods * sizes *
         (kRunsPerPoint * static_cast<double>(p.get_u64("iterations")) * 3e-6 + kPointOverheadSeconds);
}

std::vector<PlannedRun> runs(RunProfile profile) {
  using Map = std::map<std::string, std::string>;
  // --quick: graphs of 1, 8, 64 and 128 nodes; all nine small-kernel sizes (fewer leave the fit's
  // bandwidth term, its 1/slope, to the noise).
  return {run("launch/overhead", {}, "launch_overhead.json"),
          run("launch/graph", profile == RunProfile::quick ? Map{{"nodes", "1,8,64,128"}} : Map{}, "launch_graph.json"),
          run("launch/small_kernels", {}, "launch_small_kernels.json")};
}

FamilySpec launch_family() {
  const auto probe = [](const char* id, std::vector<CheckEvidence> more = {}) {
    return generic_probe(id, "launch.cu", closed_loop_naming("tests/probes/launch/test_launch.cpp", id),
                         self_check_evidence("probes/launch/launch_probe.cpp"), std::move(more));
  };
  return {.name = "launch",
          .title = "Launch overheads",
          .order = 80,
          .plan = runs,
          .estimate_h100_seconds = estimate,
          .add_run = add_run_by(analysis::add_launch_from_run),
          .metrics = analysis::launch_metrics,
          .provenance = {
              probe("launch/overhead"), probe("launch/graph"),
              probe("launch/small_kernels", {real_data_check("tests/analysis/test_launch_model.cpp",
                                                             "/real/gpu-benches/gpu-small-kernels/")})}};
}

const FamilyRegistration kFamily(launch_family);

}  // namespace
}  // namespace gpuprobe::probes
