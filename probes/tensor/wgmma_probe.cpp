// tensor/wgmma: wgmma latency and throughput per form (sm_90a; probes/tensor/wgmma.cuh): for
// each op of GPUPROBE_WGMMA_OPS (or those asked for), with random operands and with zeros, a
// latency point (one wgmma per commit group in one warpgroup, minus the commit/wait baseline:
// cycles) and a throughput point (warpgroups on every SM issuing independent accumulators:
// FLOP per clock per SM, and FLOP/s at the SM clock measured right after). Every launch is
// preceded by the self-check of one tile against the host's float64 reference; a mismatch fails
// the probe. A device without wgmma (not sm_90) or a build without sm_90a code skips the probe
// with the reason; an op the simulator has no model of is recorded as skipped.
#include <string>
#include <vector>

#include "harness/error.hpp"
#include "harness/points.hpp"
#include "harness/probe.hpp"
#include "harness/repeat.hpp"
#include "probes/tensor/tensor_point.hpp"
#include "probes/tensor/wgmma_ops.hpp"

namespace gpuprobe::probes {
namespace {

constexpr uint64_t kMaxBlocksPerSm = 8;

nlohmann::json self_check_json(const tensor::TileCheck& c) {
  // The shape tensor/mma records; the wgmma check is one wgmma with C = 0 on random operands.
  return {{"passed", c.passed},
          {"max_abs_error", c.max_abs_error},
          {"tolerance", c.tolerance_rel},
          {"tolerance_is", "relative to the element's sum of |a*b| terms"},
          {"elements", c.elements},
          {"operands", "random"}};
}

nlohmann::json measure_wgmma(ProbeContext& ctx, const WgmmaSetup& setup, const WgmmaRun& run) {
  const WgmmaOpInfo& info = wgmma_info(setup.op);
  nlohmann::json p = {{"ptx", wgmma_ptx(info)},
                      {"path", "wgmma"},
                      {"shape", wgmma_shape(info)},
                      {"precision", info.input_name},
                      {"accumulate", info.acc_name},
                      {"form", info.rs ? "RS" : "SS"},
                      {"implementation", "native"},
                      {"sass_per_op", "1 " + wgmma_sass(info)}};
  const bool latency = setup.kind == WgmmaKind::latency;
  const auto r = tensor::repeat_point(
      ctx, latency, [&] { return ctx.ops<WgmmaOps>().run(setup, run); });
  if (r.skipped) {
    p["skipped"] = *r.skipped;
    return p;
  }
  const WgmmaResult& first = r.first;
  tensor::write_timing(p, ctx, r.outcome, latency, run.iterations, first);
  p["warpgroups_per_sm"] = first.warpgroups_per_sm;
  p["kernel"] = wgmma_kernel_name(setup.op, setup.kind);
  p["launch"] = to_json(first.launch);
  p["self_check"] = self_check_json(first.self_check);
  if (latency) {
    p["cycles_per_iteration"] = first.cycles_per_iteration;
    p["baseline_cycles"] = first.baseline_cycles;
    p["baseline_kernel"] = kWgmmaBaselineKernel;
  } else {
    p["wgmmas_per_commit_group"] = tensor::kWgmmaThroughputPerIteration;
    p["accumulators"] = tensor::wgmma_throughput_accumulators(info);
  }
  return p;
}

ProbeSpec wgmma_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "tensor/wgmma";
  p.summary = "wgmma (sm_90a) latency (cycles) and throughput (FLOP/clk/SM) per form, N and precision";
  p.needs = ptx::Cap::wgmma;
  std::vector<std::string> op_choices{"all"};
  for (const auto& info : tensor::kWgmmaOps) op_choices.push_back(info.name);
  p.params = {
      {"op", K::choice, "all", "the op to measure (all: every op of probes/tensor/wgmma.cuh)",
       op_choices},
      {"n", K::choice, "all", "only the ops of this N", {"all", "64", "128", "256"}},
      {"form", K::choice, "both", "SS (A in shared memory), RS (A in registers) or both",
       {"both", "ss", "rs"}},
      tensor::kind_param(),
      tensor::operands_param("random, zeros or both (the self-check always uses random)"),
      tensor::iterations_param("1024",
                               "loop iterations per launch (1 wgmma each for latency, 8 for throughput)"),
      {"blocks-per-sm", K::integer, "2",
       "warpgroups (blocks of 128 threads) per SM of a throughput launch (1 to 8)", {},
       kMaxBlocksPerSm},
  };
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const uint64_t per_sm = prm.get_u64("blocks-per-sm");
    if (per_sm == 0 || per_sm > kMaxBlocksPerSm)
      throw Error("--blocks-per-sm must be 1 to " + std::to_string(kMaxBlocksPerSm));
    WgmmaRun run;
    run.iterations = tensor::iterations(prm);
    const std::string which = prm.get_text("op");
    const std::string n = prm.get_text("n");
    const std::string form = prm.get_text("form");
    const std::string kinds = prm.get_text("kind");
    const std::string operands = prm.get_text("operands");
    const DeviceInfo& device = ctx.device().info();
    std::vector<PlannedPoint> points;
    for (const auto& info : tensor::kWgmmaOps) {
      if (which != "all" && which != info.name) continue;
      if (n != "all" && n != std::to_string(info.n)) continue;
      if (form != "both" && form != (info.rs ? "rs" : "ss")) continue;
      for (WgmmaKind kind : {WgmmaKind::latency, WgmmaKind::throughput}) {
        if (kinds != "both" && kinds != wgmma_kind_name(kind)) continue;
        for (WgmmaOperands o : {WgmmaOperands::random, WgmmaOperands::zeros}) {
          if (operands != "both" && operands != wgmma_operands_name(o)) continue;
          WgmmaSetup s;
          s.op = info.op;
          s.kind = kind;
          s.operands = o;
          if (kind == WgmmaKind::throughput)
            s.blocks = static_cast<uint32_t>(device.sm_count * per_sm);
          points.push_back({{{"op", info.name},
                             {"kind", wgmma_kind_name(kind)},
                             {"operands", wgmma_operands_name(o)}},
                            [&ctx, s, run] { return measure_wgmma(ctx, s, run); }});
        }
      }
    }
    if (points.empty())
      throw Error("no wgmma op matches --op " + which + " --n " + n + " --form " + form);
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(wgmma_probe);

}  // namespace
}  // namespace gpuprobe::probes
