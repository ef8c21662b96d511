// A simulator cost table of an op-table family (compute, ...): per op its rate and its dependent
// latency, each citing its source (docs/FIGURES.md keys, DER, or "assumption"). The family
// registers one per preset (sim::PresetTable under its name) and its simulated launches look ops
// up in it; slowdown=F divides every rate by F and multiplies every latency by it.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "harness/error.hpp"
#include "harness/ops.hpp"
#include "harness/sim/preset.hpp"

namespace gpuprobe::probes {

struct OpCost {
  std::string op;             // the op's name in the family's table
  double rate = 0;            // the family's unit per clock per SM with enough independent work
  double latency_cycles = 0;  // one op of a dependent chain
  std::string source;
};
using OpCosts = std::vector<OpCost>;

// slowdown=F on a table of a Cost (an OpCost, or one with more latency terms: probes/async
// AsyncCost): each member of `terms` (&AsyncCost::cycles_per_kib...) is multiplied too.
template <class Cost, class... Terms>
void slow_op_costs_with(std::vector<Cost>& costs, double factor, Terms... terms) {
  for (Cost& c : costs) {
    c.rate /= factor;
    c.latency_cycles *= factor;
    ((c.*terms *= factor), ...);
  }
}
inline void slow_op_costs(OpCosts& costs, double factor) { slow_op_costs_with(costs, factor); }

// The preset's hit latency of its cache level `level` ("L2"; cited there), 0 if it has none.
inline double cache_hit_cycles(const sim::Preset& p, const std::string& level) {
  for (const auto& c : p.caches)
    if (c.name == level) return c.hit_latency_cycles;
  return 0;
}

// The family's table of this preset: none, or an empty one, makes the probe unavailable
// (OpsUnavailable: "the simulated <preset> has no <family> model"). A family whose costs carry more
// than an OpCost registers a table of its own Cost (an OpCost with more fields: probes/sync).
template <class Cost = OpCost>
const std::vector<Cost>& op_costs(const sim::Preset& p, const std::string& family) {
  const std::vector<Cost>* costs = p.table<std::vector<Cost>>(family);
  if (costs == nullptr || costs->empty())
    throw OpsUnavailable("the simulated " + p.name + " has no " + family + " model");
  return *costs;
}

// The entry of `op`; none skips the point ("the simulated <preset> has no model of <op>").
template <class Cost>
const Cost& op_cost(const sim::Preset& p, const std::vector<Cost>& costs, const std::string& op) {
  const auto it = std::find_if(costs.begin(), costs.end(), [&](const Cost& c) { return c.op == op; });
  if (it == costs.end()) skip("the simulated " + p.name + " has no model of " + op);
  return *it;
}

}  // namespace gpuprobe::probes
