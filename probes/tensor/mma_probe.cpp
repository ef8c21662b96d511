// tensor/mma: warp-level tensor-core (mma.sync) latency and throughput per form and precision
// (ptx/mma_forms.def). Before any timing, each form computes one tile with random operands on
// the device and compares it with the host's float64 reference (mma_self_check; a mismatch fails
// the probe). Then, per form, a latency point (one dependent accumulator chain in one warp:
// cycles per mma) and a throughput point (8 independent accumulators per warp, block-threads x
// blocks-per-sm threads on every SM: FLOP per clock per SM, and FLOP/s at the SM clock measured
// right after), each with random operands and with zeros (their power and clock differ). A form
// the device lacks is recorded as skipped with the reason; a form ptxas emulates on this target
// says so in `implementation` (never a tensor-core peak).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/error.hpp"
#include "harness/points.hpp"
#include "harness/probe.hpp"
#include "harness/repeat.hpp"
#include "probes/tensor/mma_ops.hpp"
#include "probes/tensor/tensor_point.hpp"

namespace gpuprobe::probes {
namespace {

nlohmann::json self_check_json(const tensor::TileCheck& c) {
  return {{"passed", c.passed},
          {"max_abs_error", c.max_abs_error},
          {"tolerance", c.tolerance_rel},
          {"tolerance_is", "relative to the element's sum of |a*b| terms and |c|"},
          {"elements", c.elements}};
}

nlohmann::json measure_mma(ProbeContext& ctx, const MmaSetup& setup, const MmaRun& run,
                           std::map<MmaOp, tensor::TileCheck>& checks) {
  const tensor::MmaOpInfo& info = mma_info(setup.op);
  const int sm = ctx.device().info().cc.sm();
  const bool latency = setup.kind == MmaKind::latency;
  const auto skipped = [&](const std::string& why) -> nlohmann::json {
    return {{"ptx", info.ptx}, {"path", "mma.sync"}, {"skipped", why}};
  };
  try {
    // The tile self-check, once per form, before its first timed launch.
    if (!checks.count(setup.op))
      checks[setup.op] = mma_self_check(ctx.ops<MmaOps>(), ctx.device().info(), setup.op, MmaOperands::random);
  } catch (const Skip& e) {
    return skipped(e.what());
  }
  const auto r = tensor::repeat_point(
      ctx, latency, [&] { return ctx.ops<MmaOps>().run(setup, run); });
  if (r.skipped) return skipped(*r.skipped);
  const MmaResult& first = r.first;
  nlohmann::json p = {{"ptx", info.ptx},
                      {"path", "mma.sync"},
                      {"shape", info.shape},
                      {"precision", mma_precision(setup.op)},
                      {"accumulate", info.accumulator},
                      {"implementation", mma_implementation(setup.op, sm)},
                      {"sass_per_op", mma_sass_per_op(setup.op, sm)},
                      {"flops_per_mma", mma_flops(setup.op)},
                      {"mmas_per_chain", first.mmas_per_chain},
                      {"chains_per_warp", mma_chains(setup.kind)},
                      {"warps_per_sm", first.warps_per_sm},
                      {"kernel", mma_kernel_name(setup.op, setup.kind)},
                      {"launch", to_json(first.launch)},
                      {"self_check", self_check_json(checks.at(setup.op))}};
  if (mma_block_scaled(setup.op)) {
    // The element format and the scales behind a block-scaled precision ("mxf4": e2m1, ue8m0 per 32).
    const tensor::MmaBlockScale s = tensor::mma_block_scale_of(setup.op);
    p["block_scale"] = {{"input", info.input}, {"scale_format", mma_scale_format(setup.op)},
                        {"scales_per_row", s.vec}, {"block_elements", info.k / s.vec}};
  }
  tensor::write_timing(p, ctx, r.outcome, latency, run.iterations, first);
  if (!latency) p["mmas_per_clk_per_sm"] = r.outcome.summary.median / mma_flops(setup.op);
  return p;
}

ProbeSpec mma_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "tensor/mma";
  p.summary = "tensor-core mma.sync latency (cycles/mma) and rate (FLOP/clk/SM, TFLOP/s) per form";
  std::vector<std::string> op_choices{"all"};
  for (const auto& info : tensor::kMmaOps) op_choices.push_back(info.name);
  p.params = {
      {"op", K::choice, "all", "the form to measure (all: every form of ptx/mma_forms.def)", op_choices},
      tensor::kind_param(),
      tensor::operands_param("random, zeros or both (each a point of its own)"),
      tensor::iterations_param("256", "loop iterations per launch (32 mmas per warp each)"),
      {"block-threads", K::integer, "128",
       "threads per block of a throughput launch (a multiple of 32, at most 256)", {},
       tensor::kMmaMaxBlockThreads},
      {"blocks-per-sm", K::integer, "4", "blocks per SM of a throughput launch (1 to 32)", {}, 32},
  };
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const uint32_t threads = read_block_threads(prm, tensor::kMmaMaxBlockThreads);
    const uint32_t per_sm = read_blocks_per_sm(prm);
    const uint64_t iterations = tensor::iterations(prm);
    const std::string which = prm.get_text("op");
    const std::string kinds = prm.get_text("kind");
    const std::string operands = prm.get_text("operands");
    const DeviceInfo& device = ctx.device().info();
    // Shared by the points' closures (measure_points may measure a point again): each form's
    // self-check result, made before its first timed launch.
    auto checks = std::make_shared<std::map<MmaOp, tensor::TileCheck>>();
    std::vector<PlannedPoint> points;
    for (const auto& info : tensor::kMmaOps) {
      if (which != "all" && which != info.name) continue;
      for (MmaKind kind : {MmaKind::latency, MmaKind::throughput}) {
        if (kinds != "both" && kinds != mma_kind_name(kind)) continue;
        for (MmaOperands ops : {MmaOperands::random, MmaOperands::zeros}) {
          if (operands != "both" && operands != mma_operands_name(ops)) continue;
          MmaSetup s;
          s.op = info.op;
          s.kind = kind;
          if (kind == MmaKind::throughput) {
            s.block_threads = threads;
            s.blocks = static_cast<uint32_t>(device.sm_count * per_sm);
          }
          MmaRun run;
          run.iterations = iterations;
          run.operands = ops;
          points.push_back({{{"op", info.name}, {"kind", mma_kind_name(kind)}, {"operands", mma_operands_name(ops)}},
                            [&ctx, s, run, checks] { return measure_mma(ctx, s, run, *checks); }});
        }
      }
    }
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(mma_probe);

}  // namespace
}  // namespace gpuprobe::probes
