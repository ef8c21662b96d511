// Family operations: registered by the family's own files, found per backend, and a backend
// without them makes the probe skip with the reason. The probe objects are an OBJECT library
// linked whole into this test binary, as into gpuprobe: if the linker dropped a registration,
// these tests would not find it.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "harness/cuda_device.hpp"
#include "harness/ops.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/memory/chase_ops.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

namespace {

bool registered(const std::string& family, const std::string& backend, const std::string& file) {
  for (const OpsEntry& e : ops_registry())
    if (e.family == family && e.backend == backend &&
        e.where.find(file) != std::string::npos)
      return true;
  return false;
}

// A family nobody implements.
class NobodysOps : public FamilyOps {
 public:
  static constexpr const char* kFamily = "test.nobody";
};

}  // namespace

TEST_CASE("the memory family registers its operations from its own files", "[ops][flavour]") {
  CHECK(registered("memory.chase", "sim", "probes/memory/chase_sim.cpp"));
  CHECK(registered("memory.chase", "cuda", "probes/memory/chase_cuda.cpp") == gpuprobe::built_with_cuda());
  // Every probe of the family registered itself too.
  for (const char* id : {"memory/chase", "memory/chase_shared", "memory/stride", "memory/tlb"})
    CHECK_NOTHROW(find_probe(id));
}

TEST_CASE("a device finds its backend's operations once and keeps them", "[ops]") {
  auto device = open_device("sim:v100");
  auto& first = device->ops<probes::ChaseOps>();
  auto& second = device->ops<probes::ChaseOps>();
  CHECK(&first == &second);
}

TEST_CASE("a family without an implementation is unavailable, and its probe is skipped",
          "[ops]") {
  auto device = open_device("sim:v100");
  try {
    device->ops<NobodysOps>();
    FAIL("operations nobody registered were found");
  } catch (const OpsUnavailable& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("test.nobody"));
    CHECK_THAT(what, Catch::Contains("sim"));
    CHECK(what.find('\n') == std::string::npos);
  }
  ProbeSpec probe;
  probe.id = "test/nobody";
  probe.run = [](ProbeContext& ctx) { ctx.ops<NobodysOps>(); };
  std::ostringstream log;
  const auto record = run_probe(*device, probe, Params::parse({}, {}), RepeatPolicy{}, "", log);
  CHECK(record["status"] == "skipped");
  CHECK_THAT(record["skip_reason"].get<std::string>(), Catch::Contains("test.nobody"));
  CHECK_THAT(log.str(), Catch::Contains("skipped"));
}

}  // namespace GPUPROBE_TEST_FILE
