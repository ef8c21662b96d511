#include "probes/tensor/tensor_point.hpp"

#include "harness/error.hpp"
#include "harness/points.hpp"
#include "probes/common/op_costs.hpp"
#include "probes/common/op_probe.hpp"

namespace gpuprobe::probes::tensor {

const TensorCost& tensor_cost(const sim::Preset& p, const std::string& op) {
  return op_cost(p, op_costs<TensorCost>(p, kCostTable), op);
}

Operands parse_operands(const std::string& name) {
  return name == "zeros" ? Operands::zeros : Operands::random;
}

ParamSpec operands_param(const std::string& help) {
  return {"operands", ParamSpec::Kind::choice, "both", help, {"both", "random", "zeros"}};
}

std::vector<Axis> point_axes(std::vector<std::string> ops) {
  return {op_axis(std::move(ops)), kind_axis(), fixed_axis("operands", {"random", "zeros"}, "both")};
}

double write_timing(nlohmann::json& p, ProbeContext& ctx, const RepeatOutcome& outcome, bool latency,
                    uint64_t iterations, const TensorResult& first) {
  const double clock_mhz = write_point_repeats(p, ctx, outcome, iterations);
  p["sms"] = first.sms;
  if (latency) write_latency(p, outcome.summary, clock_mhz);
  else
    write_rate(p, ctx, "flops", outcome.summary, first.flops_per_clk_per_sm_min,
               first.flops_per_clk_per_sm_max, clock_mhz);
  return clock_mhz;
}

nlohmann::json tile_check_json(const TileCheck& c, const std::string& tolerance_is) {
  return {{"passed", c.passed},
          {"max_abs_error", c.max_abs_error},
          {"tolerance", c.tolerance_rel},
          {"tolerance_is", tolerance_is},
          {"elements", c.elements}};
}

}  // namespace gpuprobe::probes::tensor
