#include "probes/common/op_probe.hpp"

#include "harness/points.hpp"
#include "harness/repeat.hpp"

namespace gpuprobe::probes {

using K = ParamSpec::Kind;

ParamSpec op_param(std::vector<std::string> choices, const std::string& table) {
  return {"op", K::choice, "all", "the op to measure (all: every op of " + table + ")", std::move(choices)};
}

ParamSpec kind_param() {
  return {"kind", K::choice, "both", "latency, throughput or both", {"both", "latency", "throughput"}};
}

ParamSpec iterations_param(const std::string& default_value, const std::string& help, uint64_t max) {
  return {"iterations", K::integer, default_value, help, {}, max};
}

ParamSpec block_threads_param(const std::string& help) {
  return {"block-threads", K::integer, "256", help, {}, 1024};
}

ParamSpec blocks_per_sm_param(const std::string& help) {
  return {"blocks-per-sm", K::integer, "4", help, {}, 32};
}

LaunchParams read_launch_params(ProbeContext& ctx, uint64_t max_iterations) {
  LaunchParams l;
  l.block_threads = read_block_threads(ctx.params());
  l.blocks_per_sm = read_blocks_per_sm(ctx.params());
  l.iterations = read_iterations(ctx.params(), max_iterations);
  l.sms = static_cast<uint32_t>(ctx.device().info().sm_count);
  return l;
}

Axis op_axis(std::vector<std::string> names) { return fixed_axis("op", std::move(names)); }

Axis kind_axis() { return fixed_axis("kind", {"latency", "throughput"}, "both"); }

ChainPoint measure_chain_point(ProbeContext& ctx, Kind kind, uint64_t iterations, uint32_t chains,
                               const std::string& ptx, nlohmann::json fields,
                               const std::function<ChainResult()>& run, bool slowest_warp) {
  const bool latency = kind == Kind::latency;
  const auto r = repeat_point(ctx.repeat(), run, [&](const ChainResult& x) {
    return latency ? x.latency_cycles : x.ops_per_clk_per_sm;
  });
  ChainPoint out;
  if (r.skipped) {
    out.point = {{"ptx", ptx}, {"skipped", *r.skipped}};
    out.skipped = true;
    return out;
  }
  const ChainResult& first = r.first;
  nlohmann::json& p = out.point = std::move(fields);
  p["ptx"] = ptx;
  p["ops_per_chain"] = first.ops_per_chain;
  p["chains_per_thread"] = chains;
  p["warps_per_sm"] = first.warps_per_sm;
  p["sms"] = first.sms;
  p["kernel"] = first.launch.kernel;
  p["launch"] = to_json(first.launch);
  p["self_check"] = "passed";
  out.clock_mhz = write_point_repeats(p, ctx, r.outcome, iterations);
  out.summary = r.outcome.summary;
  if (latency) {
    write_latency(p, out.summary, out.clock_mhz);
    if (slowest_warp) p["slowest_warp_cycles"] = first.latency_cycles_max;
  } else {
    write_rate(p, ctx, "ops", out.summary, first.ops_per_clk_per_sm_min, first.ops_per_clk_per_sm_max,
               out.clock_mhz);
  }
  return out;
}

}  // namespace gpuprobe::probes
