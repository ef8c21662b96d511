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
  return {"block-threads", K::integer, "256", help, {}, 1024, 32, 32};
}

ParamSpec blocks_per_sm_param(const std::string& help) {
  return {"blocks-per-sm", K::integer, "4", help, {}, 32, 1};
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

ChainPoint measure_op_point(ProbeContext& ctx, bool latency, const std::string& unit, uint64_t iterations,
                            const std::string& ptx, nlohmann::json fields,
                            const std::function<ChainResult()>& run) {
  const auto r = repeat_point(ctx.repeat(), run, [&](const ChainResult& x) {
    return latency ? x.latency_cycles : x.ops_per_clk_per_sm;
  });
  ChainPoint out;
  if (r.skipped) {
    out.point = {{"ptx", ptx}, {"skipped", *r.skipped}};
    out.skipped = true;
    return out;
  }
  const ChainResult& first = out.first = r.first;
  nlohmann::json& p = out.point = std::move(fields);
  p["ptx"] = ptx;
  p["sms"] = first.sms;
  p["kernel"] = first.launch.kernel;
  p["launch"] = to_json(first.launch);
  p["self_check"] = "passed";
  out.clock_mhz = write_point_repeats(p, ctx, r.outcome, iterations);
  out.summary = r.outcome.summary;
  if (latency)
    write_latency(p, out.summary, out.clock_mhz);
  else
    write_rate(p, ctx, unit, out.summary, first.ops_per_clk_per_sm_min, first.ops_per_clk_per_sm_max,
               out.clock_mhz);
  return out;
}

ChainPoint measure_chain_point(ProbeContext& ctx, Kind kind, uint64_t iterations, uint32_t chains,
                               const std::string& ptx, nlohmann::json fields,
                               const std::function<ChainResult()>& run, bool slowest_warp) {
  ChainPoint c = measure_op_point(ctx, kind == Kind::latency, "ops", iterations, ptx, std::move(fields), run);
  if (c.skipped) return c;
  c.point["ops_per_chain"] = c.first.ops_per_chain;
  c.point["chains_per_thread"] = chains;
  c.point["warps_per_sm"] = c.first.warps_per_sm;
  if (kind == Kind::latency && slowest_warp) c.point["slowest_warp_cycles"] = c.first.latency_cycles_max;
  return c;
}

void require_cap(ptx::Cap cap, const std::string& what, const DeviceInfo& info) {
  const int sm = info.cc.sm();
  if (!ptx::device_has(cap, sm))
    skip(what + " needs " + ptx::capability_info(cap).targets + "; " + info.name + " is sm_" +
         std::to_string(sm));
}

void check_blocks(const std::string& kernel, uint32_t block_threads, uint32_t blocks, uint32_t max_threads) {
  if (block_threads == 0 || block_threads % 32 != 0 || block_threads > max_threads)
    throw Error(kernel + ": block size " + std::to_string(block_threads) +
                " is not a multiple of 32 between 32 and " + std::to_string(max_threads));
  if (blocks == 0) throw Error(kernel + ": a launch needs a block");
}

}  // namespace gpuprobe::probes
