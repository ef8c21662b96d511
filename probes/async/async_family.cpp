// The async family (harness/family.hpp): async/copy (cp.async, bulk, TMA, multicast and the TMA
// chase); its model section and metrics are analysis/async_model.cpp's.
#include "analysis/async_model.hpp"
#include "probes/common/family_spec.hpp"
#include "probes/common/plan.hpp"

namespace gpuprobe::probes {
namespace {

using namespace plan;

// Points per kind, counted in the simulated H100's records.
constexpr double kLatencyOps = 23, kThroughputPoints = 93, kThroughputPointsPerOp = 10, kMulticastPoints = 4;

double estimate(const std::string&, const Params& p) {
  const std::string& kind = p.get_text("kind");
  const bool all = kind == "all";
  const bool every_op = p.get_text("op") == "all";
  double s = op_points_seconds((all || kind == "latency" ? (every_op ? kLatencyOps : 1) : 0) +
                               (all || kind == "throughput" ? (every_op ? kThroughputPoints : kThroughputPointsPerOp) : 0) +
                               (all || kind == "multicast" ? kMulticastPoints : 0));
  // The TMA chase: footprints of 1 MiB to 4x the L2 (four per octave), each a warm-up lap of at
  // most 2^18 hops and the timed hops, in 128-byte slots; a TMA hop costs about 90 cycles more
  // than a load's (the simulated H100's TMA chase: L2 372 cycles against 283).
  if (all || kind == "chase") {
    for (uint64_t f : geometric_sweep(1u << 20, 4 * kL2Bytes, 4, 128)) {
      const double slots = std::min(static_cast<double>(f / 128), static_cast<double>(1u << 18));
      s += chase_point_seconds(slots, chase_cycles(static_cast<double>(f), false) + 90,
                               static_cast<double>(p.get_u64("chase-hops")), 0);
    }
  }
  return s;
}

std::vector<PlannedRun> runs(RunProfile profile) {
  if (profile == RunProfile::full) return {run("async/copy", {}, "async_copy.json")};
  // --quick: the latencies and bandwidths without the TMA chase (its levels are the chase's): two
  // runs, as --kind takes one kind or all.
  return {run("async/copy", {{"kind", "latency"}}, "async_copy.json"),
          run("async/copy", {{"kind", "throughput"}}, "async_copy_throughput.json")};
}

FamilySpec async_family() {
  return op_table_family({.name = "async",
                          .title = "Asynchronous copies",
                          .order = 70,
                          .section = "async_copy",
                          .plan = runs,
                          .estimate_h100_seconds = estimate,
                          .add_run = add_run_by(analysis::add_async_copy_from_run),
                          .metrics = analysis::async_metrics},
                         "async/copy");
}

const FamilyRegistration kFamily(async_family);

}  // namespace
}  // namespace gpuprobe::probes
