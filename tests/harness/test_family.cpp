// The family registrations (harness/family.hpp) are complete: every registered probe belongs to a
// family, every family registers its plan, estimate, model section, metrics, provenance and report
// title, run-all plans every probe (quick and full), and every probe's provenance names it. A
// family that forgets a registration, or a probe left out of run-all, fails here.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "cli/run_plan.hpp"
#include "harness/family.hpp"
#include "harness/probe.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

TEST_CASE("families: every probe belongs to a family that registers everything", "[family]") {
  REQUIRE_FALSE(families().empty());
  std::set<std::string> names;
  for (const FamilySpec& f : families()) {
    INFO("family " << f.name);
    CHECK(names.insert(f.name).second);
    CHECK_FALSE(f.title.empty());
    CHECK(f.plan);
    CHECK(f.estimate_h100_seconds);
    CHECK(f.add_run);
    CHECK(f.metrics);
    CHECK_FALSE(f.provenance.empty());
    for (const ProbeProvenance& p : f.provenance) {
      INFO("provenance of " << p.probe);
      CHECK(family_of_probe(p.probe) == &f);
      CHECK_NOTHROW(find_probe(p.probe));
      CHECK_FALSE(p.checks.empty());
    }
  }
  for (const ProbeSpec& probe : probe_registry()) {
    INFO("probe " << probe.id);
    const FamilySpec* f = family_of_probe(probe.id);
    REQUIRE(f != nullptr);
    bool has_provenance = false;
    for (const ProbeProvenance& p : f->provenance) has_provenance = has_provenance || p.probe == probe.id;
    CHECK(has_provenance);
  }
}

TEST_CASE("families: run-all plans every registered probe in both profiles", "[family]") {
  for (RunProfile profile : {RunProfile::quick, RunProfile::full}) {
    std::set<std::string> planned;
    for (const PlannedRun& r : run_all_plan(profile)) planned.insert(r.probe);
    for (const ProbeSpec& probe : probe_registry()) {
      INFO((profile == RunProfile::quick ? "--quick: " : "--full: ") << probe.id);
      CHECK(planned.count(probe.id) == 1);
    }
  }
}

TEST_CASE("families: the registry is in order, and finds a probe's family by its id", "[family]") {
  double last = -1;
  for (const FamilySpec& f : families()) {
    CHECK(f.order >= last);
    last = f.order;
  }
  REQUIRE(family_of_probe("compute/alu") != nullptr);
  CHECK(family_of_probe("compute/alu")->name == "compute");
  CHECK(family_of_probe("nosuch/probe") == nullptr);
  CHECK(family_of_probe("noslash") == nullptr);
}

}  // namespace GPUPROBE_TEST_FILE
