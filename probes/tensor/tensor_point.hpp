// What the tensor probes (tensor/mma, tensor/wgmma, tensor/tcgen05) share when they plan and
// write a point: the --kind, --operands and --iterations parameters, the repeat loop that keeps
// the first launch's result (harness/repeat.hpp's repeat_point) and the timing fields of a point
// (harness/points.hpp: repeats, the SM clock measured right after, then latency in cycles and ns
// or throughput in FLOP/clk/SM, its spread over the SMs and FLOP/s). Each probe keeps its own
// fields (form, shape, kernel, self-check...).
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/params.hpp"
#include "harness/probe.hpp"
#include "harness/repeat.hpp"

namespace gpuprobe::probes::tensor {

constexpr uint64_t kMaxIterations = uint64_t{1} << 20;

// --kind latency|throughput|both.
ParamSpec kind_param();
// --operands random|zeros|both, with the probe's help text.
ParamSpec operands_param(const std::string& help);
// --iterations (1 to kMaxIterations), with the probe's default and help text.
ParamSpec iterations_param(const std::string& default_value, const std::string& help);
// The --iterations value; outside 1 to kMaxIterations throws the one-line error.
uint64_t iterations(const Params& params);

// repeat_point over run() (a Result with latency_cycles and flops_per_clk_per_sm): the latency
// for a latency point, else the throughput; a Skip skips the point.
template <class Run>
auto repeat_point(ProbeContext& ctx, bool latency, Run&& run) {
  return gpuprobe::repeat_point(ctx.repeat(), run, [latency](const auto& r) {
    return latency ? r.latency_cycles : r.flops_per_clk_per_sm;
  });
}

// Measures the SM clock, then writes into p the fields every tensor point has: repeats,
// converged, iterations, sms, region_sm_clock_mhz and, for a latency point, latency_cycles,
// ci95_cycles, latency_ns (null without a clock); for a throughput point flops_per_clk_per_sm,
// its ci95, sm_spread_flops_per_clk and flops_per_s. Returns the clock (MHz).
double write_timing(nlohmann::json& p, ProbeContext& ctx, const RepeatOutcome& outcome,
                    bool latency, uint64_t iterations, uint32_t sms, double spread_min,
                    double spread_max);

// The same, from the first launch's result (a Result with sms and flops_per_clk_per_sm_min/max).
template <class Result>
double write_timing(nlohmann::json& p, ProbeContext& ctx, const RepeatOutcome& outcome,
                    bool latency, uint64_t iterations, const Result& first) {
  return write_timing(p, ctx, outcome, latency, iterations, first.sms,
                      first.flops_per_clk_per_sm_min, first.flops_per_clk_per_sm_max);
}

}  // namespace gpuprobe::probes::tensor
