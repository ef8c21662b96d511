// compute/alu: CUDA-core latency and issue rate per op (probes/compute/alu.cuh): for each op of
// GPUPROBE_ALU_OPS (or the one asked for) a latency point (one dependent chain in one warp:
// cycles per op) and a throughput point (8 independent chains per thread, block-threads x
// blocks-per-sm threads on every SM: thread-ops per clock per SM, and per second at the SM clock
// measured right after). Each point repeats its launch until stable; every launch's results pass
// the self-check. An op the device lacks is recorded as skipped with the reason.
#include <string>
#include <vector>

#include "harness/error.hpp"
#include "harness/points.hpp"
#include "harness/probe.hpp"
#include "harness/repeat.hpp"
#include "probes/compute/alu_ops.hpp"

namespace gpuprobe::probes {
namespace {

constexpr uint64_t kMaxIterations = uint64_t{1} << 20;

nlohmann::json measure_alu(ProbeContext& ctx, const AluSetup& setup, const AluRun& run) {
  const compute::AluOpInfo& info = alu_info(setup.op);
  const bool latency = setup.kind == AluKind::latency;
  const auto r = repeat_point<AluOpUnavailable>(
      ctx.repeat(), [&] { return ctx.ops<AluOps>().run(setup, run); },
      [&](const AluResult& x) { return latency ? x.latency_cycles : x.ops_per_clk_per_sm; });
  if (r.skipped) return {{"ptx", info.ptx}, {"skipped", *r.skipped}};
  const AluResult& first = r.first;
  nlohmann::json p = {{"ptx", info.ptx},
                      {"path", info.path},
                      {"precision", info.precision},
                      {"elements_per_op", info.elements},
                      {"ops_per_chain", first.ops_per_chain},
                      {"chains_per_thread", alu_chains(setup.kind)},
                      {"warps_per_sm", first.warps_per_sm},
                      {"sms", first.sms},
                      {"kernel", alu_kernel_name(setup.op, setup.kind)},
                      {"launch", to_json(first.launch)},
                      {"self_check", "passed"}};
  const double clock_mhz = write_point_repeats(p, ctx, r.outcome, run.iterations);
  const auto& sum = r.outcome.summary;
  if (latency) {
    write_latency(p, sum, clock_mhz);
  } else {
    const double sms = ctx.device().info().sm_count;
    write_rate(p, ctx, "ops", sum, first.ops_per_clk_per_sm_min, first.ops_per_clk_per_sm_max,
               clock_mhz);
    if (info.flops_per_element > 0) {
      const double per_op = double(info.elements) * info.flops_per_element;
      p["flops_per_clk_per_sm"] = sum.median * per_op;
      p["flops_per_s"] = sum.median * per_op * sms * clock_mhz * 1e6;
    }
  }
  return p;
}

ProbeSpec alu_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "compute/alu";
  p.summary = "CUDA-core latency (cycles/op) and issue rate (ops/clk/SM) per op and precision";
  std::vector<std::string> op_choices{"all"};
  for (const auto& info : compute::kAluOps) op_choices.push_back(info.name);
  p.params = {
      {"op", K::choice, "all", "the op to measure (all: every op of probes/compute/alu.cuh)",
       op_choices},
      {"kind", K::choice, "both", "latency, throughput or both", {"both", "latency", "throughput"}},
      {"iterations", K::integer, "2048",
       "loop iterations per launch (64 ops per thread each)", {}, kMaxIterations},
      {"block-threads", K::integer, "256",
       "threads per block of a throughput launch (a multiple of 32, at most 1024)", {}, 1024},
      {"blocks-per-sm", K::integer, "4", "blocks per SM of a throughput launch (1 to 32)", {}, 32},
  };
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const uint32_t threads = read_block_threads(prm);
    const uint32_t per_sm = read_blocks_per_sm(prm);
    AluRun run;
    run.iterations = read_iterations(prm, kMaxIterations);
    const std::string which = prm.get_text("op");
    const std::string kinds = prm.get_text("kind");
    const DeviceInfo& device = ctx.device().info();
    std::vector<PlannedPoint> points;
    for (const auto& info : compute::kAluOps) {
      if (which != "all" && which != info.name) continue;
      for (AluKind kind : {AluKind::latency, AluKind::throughput}) {
        if (kinds != "both" && kinds != alu_kind_name(kind)) continue;
        AluSetup s;
        s.op = info.op;
        s.kind = kind;
        if (kind == AluKind::throughput) {
          s.block_threads = threads;
          s.blocks = static_cast<uint32_t>(device.sm_count * per_sm);
        }
        points.push_back({{{"op", info.name}, {"kind", alu_kind_name(kind)}},
                          [&ctx, s, run] { return measure_alu(ctx, s, run); }});
      }
    }
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(alu_probe);

}  // namespace
}  // namespace gpuprobe::probes
