// The atomics family's simulator cost tables (probes/atomics/atomics.cpp): red returns nothing,
// so its entries carry no latency (0) and their source says so rather than citing a latency;
// every other entry has a latency and says where it comes from.
#include <catch2/catch.hpp>

#include <string>

#include "harness/sim/preset.hpp"
#include "probes/common/op_costs.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

TEST_CASE("atomics costs: red has no latency and its source says so, every other op has one", "[atomics][sim]") {
  for (const auto& preset : sim::presets()) {
    INFO(preset.name);
    const auto& costs = *preset.table<probes::OpCosts>("atomics");
    REQUIRE_FALSE(costs.empty());
    int reds = 0;
    for (const auto& m : costs) {
      INFO(m.op << ": " << m.source);
      CHECK(m.rate > 0);
      if (m.op.find("_red_add_") != std::string::npos) {
        ++reds;
        CHECK(m.latency_cycles == 0);
        CHECK(m.source.rfind("no latency: red returns nothing; rate", 0) == 0);
        CHECK(m.source.find("latency (") == std::string::npos);  // no latency figure cited
      } else {
        CHECK(m.latency_cycles > 0);
        CHECK(m.source.find("no latency") == std::string::npos);
      }
    }
    CHECK(reds == 2 * 3 + 2 * 2);  // global red in 3 patterns, shared red in 2, at 32 and 64 bits
  }
}

}  // namespace GPUPROBE_TEST_FILE
