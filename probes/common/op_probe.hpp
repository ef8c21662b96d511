// What every op-table probe (compute, atomics, sync, tensor, async) shares when it declares its
// parameters and axes and measures a point, written once; a family adds only its own fields.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/axes.hpp"
#include "harness/device.hpp"
#include "harness/params.hpp"
#include "harness/probe.hpp"
#include "harness/stats.hpp"
#include "probes/common/op_table.hpp"
#include "probes/common/units.hpp"
#include "ptx/capability.hpp"

namespace gpuprobe::probes {

// --op all|<name>: "the op to measure (all: every op of <table>)".
ParamSpec op_param(std::vector<std::string> choices, const std::string& table);
// --kind both|latency|throughput.
ParamSpec kind_param();
ParamSpec iterations_param(const std::string& default_value, const std::string& help, uint64_t max);
ParamSpec block_threads_param(const std::string& help);
ParamSpec blocks_per_sm_param(const std::string& help);

// The launch parameters of an op-table probe, read and checked in this order: --block-threads,
// --blocks-per-sm, --iterations (at most max_iterations); and the device's SM count.
struct LaunchParams {
  uint32_t block_threads = 0;
  uint32_t blocks_per_sm = 0;
  uint64_t iterations = 0;
  uint32_t sms = 0;
};
LaunchParams read_launch_params(ProbeContext& ctx, uint64_t max_iterations);

// The op axis over `names` (filtered by --op) and the kind axis (filtered by --kind).
Axis op_axis(std::vector<std::string> names);
Axis kind_axis();

// A measured point of an op-table probe (harness/points.hpp fields), or a skipped one.
struct ChainPoint {
  nlohmann::json point;
  bool skipped = false;
  double clock_mhz = 0;       // the SM clock measured right after
  stats::Summary summary;     // of the repeats' latencies or rates
  ChainResult first;          // the first repeat's
};

// Repeats run() until its latency (`latency`) or its rate settles. A Skip gives {ptx, skipped}.
// Else `fields` plus: ptx, sms, kernel, launch, self_check "passed", repeats, converged,
// iterations, region_sm_clock_mhz and, for latency, latency_cycles, ci95_cycles, latency_ns, for a
// rate <unit>_per_clk_per_sm, its ci95, sm_spread_<unit>_per_clk and <unit>_per_s.
ChainPoint measure_op_point(ProbeContext& ctx, bool latency, const std::string& unit, uint64_t iterations,
                            const std::string& ptx, nlohmann::json fields,
                            const std::function<ChainResult()>& run);

// The point of a chain family: measure_op_point's in ops, plus ops_per_chain, chains_per_thread,
// warps_per_sm and (latency, `slowest_warp`) slowest_warp_cycles.
ChainPoint measure_chain_point(ProbeContext& ctx, Kind kind, uint64_t iterations, uint32_t chains,
                               const std::string& ptx, nlohmann::json fields,
                               const std::function<ChainResult()>& run, bool slowest_warp);

// Skips what the device lacks: "<what> needs <the cap's targets>; <device> is sm_<N>".
void require_cap(ptx::Cap cap, const std::string& what, const DeviceInfo& info);

// One-line Errors for a launch no kernel takes: "<kernel>: block size <N> is not a multiple of 32
// between 32 and <max_threads>", "<kernel>: a launch needs a block".
void check_blocks(const std::string& kernel, uint32_t block_threads, uint32_t blocks,
                  uint32_t max_threads = 1024);

}  // namespace gpuprobe::probes
