// run-all's plan (cli/run_plan.cpp): the profiles' budgets on an H100, from the plan's estimates.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "cli/run_plan.hpp"
#include "harness/error.hpp"
#include "harness/params.hpp"
#include "harness/probe.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

namespace {
std::set<std::string> files(const std::vector<PlannedRun>& plan) {
  std::set<std::string> out;
  for (const auto& r : plan) out.insert(r.file);
  return out;
}
}  // namespace

TEST_CASE("run-all plan: --quick takes a minute or less on an H100 and --full ten minutes or less",
          "[cli][plan]") {
  const auto quick = run_all_plan(RunProfile::quick);
  const auto full = run_all_plan(RunProfile::full);
  const double quick_s = estimated_h100_seconds(quick);
  const double full_s = estimated_h100_seconds(full);
  INFO("quick " << quick_s << " s, full " << full_s << " s");
  CHECK(quick_s <= 60);
  CHECK(full_s <= 600);
  CHECK(quick_s < full_s);
  // Every run has an estimate (tcgen05 is skipped on an H100: none), and the plan's parameters
  // are the probe's own.
  for (const auto* plan : {&quick, &full})
    for (const auto& r : *plan) {
      INFO(r.probe << " " << r.file << ": " << r.estimated_device_seconds << " s");
      CHECK_NOTHROW(Params::parse(find_probe(r.probe).params, r.params));
      if (r.probe == "tensor/tcgen05") CHECK(r.estimated_device_seconds == 0);
      else CHECK(r.estimated_device_seconds > 0);
    }
  // No output file twice.
  CHECK(files(full).size() == full.size());
  CHECK(files(quick).size() == quick.size());
}

TEST_CASE("run-all plan: the estimate follows the parameters", "[cli][plan]") {
  // More points, more time: a denser sweep, a larger footprint, more strides, more kinds.
  const double chase8 = estimated_h100_seconds("memory/chase", {});
  CHECK(estimated_h100_seconds("memory/chase", {{"points-per-octave", "2"}}) < chase8 / 2);
  CHECK(estimated_h100_seconds("memory/chase", {{"max-footprint-bytes", "64M"}}) < chase8 / 2);
  // The default footprint is four times the H100's 50 MiB L2.
  CHECK(estimated_h100_seconds("memory/chase", {{"max-footprint-bytes", "200M"}}) ==
        Approx(chase8));
  CHECK(estimated_h100_seconds("memory/stride", {{"strides-bytes", "32,128"}}) <
        estimated_h100_seconds("memory/stride", {}));
  CHECK(estimated_h100_seconds("tensor/mma", {{"operands", "random"}}) ==
        Approx(estimated_h100_seconds("tensor/mma", {}) / 2));
  // A DRAM footprint's warm-up lap costs far more than an L1 one's timed region.
  CHECK(estimated_h100_seconds("memory/chase", {{"min-footprint-bytes", "100M"}}) >
        estimated_h100_seconds("memory/chase", {{"max-footprint-bytes", "100K"}}));
  CHECK_THROWS_AS(estimated_h100_seconds("memory/nope", {}), Error);
  CHECK_THROWS_AS(estimated_h100_seconds("memory/chase", {{"points-per-octave", "x"}}), Error);
}

}  // namespace GPUPROBE_TEST_FILE
