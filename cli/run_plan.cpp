#include "cli/run_plan.hpp"

#include "harness/error.hpp"
#include "harness/params.hpp"
#include "harness/probe.hpp"

namespace gpuprobe {

double estimated_h100_seconds(const std::string& probe, const std::map<std::string, std::string>& params) {
  const ProbeSpec& spec = find_probe(probe);
  const FamilySpec* family = family_of_probe(probe);
  if (family == nullptr || !family->estimate_h100_seconds) throw Error("no time estimate for probe " + probe);
  return family->estimate_h100_seconds(probe, Params::parse(spec.params, params));
}

double estimated_h100_seconds(const std::vector<PlannedRun>& plan) {
  double s = 0;
  for (const auto& r : plan) s += r.estimated_device_seconds;
  return s;
}

std::vector<PlannedRun> run_all_plan(RunProfile profile) {
  std::vector<PlannedRun> plan;
  for (const FamilySpec& f : families()) {
    if (!f.plan) continue;
    for (PlannedRun r : f.plan(profile)) {
      r.estimated_device_seconds = estimated_h100_seconds(r.probe, r.params);
      plan.push_back(std::move(r));
    }
  }
  return plan;
}

}  // namespace gpuprobe
