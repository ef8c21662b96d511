// tensor/tcgen05: tcgen05.mma latency and throughput per form (sm_100a; probes/tensor/tcgen05.cuh):
// for each op of GPUPROBE_TCGEN05_OPS (or those asked for), with random operands and with zeros,
// a latency point (one MMA per commit, issued by one thread, minus the commit/wait baseline:
// cycles) and a throughput point (one CTA per SM issuing MMAs into TMEM accumulators: FLOP per
// clock per SM, a cta_group::2 MMA counted half on each SM of the pair, and FLOP/s at the SM
// clock measured right after). Every launch is preceded by the self-check of one tile against the
// host's float64 reference; a mismatch fails the probe. A device without tcgen05, a device other
// than compute capability 10.0 (the kernels are sm_100a code) or a build without sm_100a code
// skips the probe with the reason; an op the simulator has no model of is recorded as skipped.
#include <algorithm>
#include <string>
#include <vector>

#include "harness/error.hpp"
#include "harness/points.hpp"
#include "harness/probe.hpp"
#include "harness/repeat.hpp"
#include "probes/tensor/tcgen05_ops.hpp"
#include "probes/tensor/tensor_point.hpp"

namespace gpuprobe::probes {
namespace {

nlohmann::json self_check_json(const tensor::TileCheck& c) {
  return {{"passed", c.passed},
          {"operands", "random"},
          {"reference", "float64"},
          {"elements", c.elements},
          {"max_abs_error", c.max_abs_error},
          {"tolerance_rel", c.tolerance_rel},
          {"error_metric", "|D - reference| <= tolerance_rel x sum_k |a_ik b_kj|"}};
}

nlohmann::json measure_tcgen05(ProbeContext& ctx, const Tcgen05Setup& setup, const Tcgen05Run& run) {
  const Tcgen05OpInfo& info = tcgen05_info(setup.op);
  const bool scaled = tensor::tcgen05_block_scaled(info);
  const std::string ptx = "tcgen05.mma.cta_group::" + std::to_string(info.cta_group) + ".kind::" +
                          info.kind_name +
                          (scaled ? ".block_scale.scale_vec::" +
                                        std::to_string(tensor::tcgen05_scale_vec(info)) + "X"
                                  : "") +
                          (info.ts ? " [d_tmem], [a_tmem], b_desc, idesc, p"
                           : scaled ? " [d_tmem], a_desc, b_desc, idesc, [sfa_tmem], [sfb_tmem], p"
                                    : " [d_tmem], a_desc, b_desc, idesc, p");
  nlohmann::json p = {{"ptx", ptx},
                      {"path", "tcgen05"},
                      {"shape", tcgen05_shape(info)},
                      {"precision", info.input_name},
                      {"accumulate", info.acc_name},
                      {"tcgen05_kind", info.kind_name},
                      {"form", info.ts ? "TS" : "SS"},
                      {"cta_group", info.cta_group},
                      {"implementation", "native"}};
  if (scaled) {
    // As tensor/mma's block_scale: the element format and the scales behind the precision.
    const uint32_t vec = tensor::tcgen05_scale_vec(info);
    p["scale_format"] = tensor::tcgen05_ue4m3_scales(info) ? "ue4m3" : "ue8m0";
    p["block_scale"] = {{"input", tensor::tcgen05_packed_fp4(info) ? "e2m1" : "e4m3"},
                        {"scale_format", p["scale_format"]},
                        {"scales_per_row", vec},
                        {"block_elements", info.k / vec}};
  }
  const bool latency = setup.kind == Tcgen05Kind::latency;
  const auto r = tensor::repeat_point(
      ctx, latency, [&] { return ctx.ops<Tcgen05Ops>().run(setup, run); });
  if (r.skipped) {
    p["skipped"] = *r.skipped;
    return p;
  }
  const Tcgen05Result& first = r.first;
  tensor::write_timing(p, ctx, r.outcome, latency, run.iterations, first);
  p["ctas"] = setup.ctas;
  p["kernel"] = tcgen05_kernel_name(setup.op, setup.kind);
  p["launch"] = to_json(first.launch);
  p["self_check"] = self_check_json(first.self_check);
  if (latency) {
    p["cycles_per_iteration"] = first.cycles_per_iteration;
    p["baseline_cycles"] = first.baseline_cycles;
    p["baseline_kernel"] = tcgen05_baseline_kernel(info.cta_group);
  } else {
    p["mmas_per_commit"] = tensor::kTcgen05ThroughputPerIteration;
    p["accumulators"] = tensor::tcgen05_accumulators(info, true);
  }
  return p;
}

ProbeSpec tcgen05_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "tensor/tcgen05";
  p.summary =
      "tcgen05.mma (sm_100a) latency (cycles) and throughput (FLOP/clk/SM) per kind, N, SS/TS, cta_group";
  p.needs = ptx::Cap::tcgen05;
  std::vector<std::string> op_choices{"all"};
  for (const auto& info : tensor::kTcgen05Ops) op_choices.push_back(info.name);
  p.params = {
      {"op", K::choice, "all", "the op to measure (all: every op of probes/tensor/tcgen05.cuh)",
       op_choices},
      {"n", K::choice, "all", "only the ops of this N", {"all", "64", "256"}},
      {"form", K::choice, "both", "SS (A in shared memory), TS (A in tensor memory) or both",
       {"both", "ss", "ts"}},
      {"cta-group", K::choice, "both", "cta_group::1 (M 128), ::2 (M 256 on an SM pair) or both",
       {"both", "1", "2"}},
      tensor::kind_param(),
      tensor::operands_param("random, zeros or both (the self-check always uses random)"),
      tensor::iterations_param("1024",
                               "loop iterations per launch (1 MMA each for latency, 8 for throughput)"),
  };
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    Tcgen05Run run;
    run.iterations = tensor::iterations(prm);
    const std::string which = prm.get_text("op");
    const std::string n = prm.get_text("n");
    const std::string form = prm.get_text("form");
    const std::string group = prm.get_text("cta-group");
    const std::string kinds = prm.get_text("kind");
    const std::string operands = prm.get_text("operands");
    const uint32_t sms = static_cast<uint32_t>(ctx.device().info().sm_count);
    std::vector<PlannedPoint> points;
    for (const auto& info : tensor::kTcgen05Ops) {
      if (which != "all" && which != info.name) continue;
      if (n != "all" && n != std::to_string(info.n)) continue;
      if (form != "both" && form != (info.ts ? "ts" : "ss")) continue;
      if (group != "both" && group != std::to_string(info.cta_group)) continue;
      for (Tcgen05Kind kind : {Tcgen05Kind::latency, Tcgen05Kind::throughput}) {
        if (kinds != "both" && kinds != tcgen05_kind_name(kind)) continue;
        for (Tcgen05Operands o : {Tcgen05Operands::random, Tcgen05Operands::zeros}) {
          if (operands != "both" && operands != tcgen05_operands_name(o)) continue;
          Tcgen05Setup s;
          s.op = info.op;
          s.kind = kind;
          s.operands = o;
          // Throughput: one CTA per SM (whole pairs for cta_group::2).
          s.ctas = kind == Tcgen05Kind::latency ? info.cta_group
                                                : std::max(info.cta_group, sms / info.cta_group * info.cta_group);
          points.push_back({{{"op", info.name},
                             {"kind", tcgen05_kind_name(kind)},
                             {"operands", tcgen05_operands_name(o)}},
                            [&ctx, s, run] { return measure_tcgen05(ctx, s, run); }});
        }
      }
    }
    if (points.empty())
      throw Error("no tcgen05 op matches --op " + which + " --n " + n + " --form " + form +
                  " --cta-group " + group);
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(tcgen05_probe);

}  // namespace
}  // namespace gpuprobe::probes
