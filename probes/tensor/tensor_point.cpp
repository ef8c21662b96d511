#include "probes/tensor/tensor_point.hpp"

#include "harness/error.hpp"

namespace gpuprobe::probes::tensor {

ParamSpec kind_param() {
  return {"kind", ParamSpec::Kind::choice, "both", "latency, throughput or both",
          {"both", "latency", "throughput"}};
}

ParamSpec operands_param(const std::string& help) {
  return {"operands", ParamSpec::Kind::choice, "both", help, {"both", "random", "zeros"}};
}

ParamSpec iterations_param(const std::string& default_value, const std::string& help) {
  return {"iterations", ParamSpec::Kind::integer, default_value, help, {}, kMaxIterations};
}

uint64_t iterations(const Params& params) {
  const uint64_t n = params.get_u64("iterations");
  if (n == 0 || n > kMaxIterations)
    throw Error("--iterations must be 1 to " + std::to_string(kMaxIterations));
  return n;
}

double write_timing(nlohmann::json& p, ProbeContext& ctx, const RepeatOutcome& outcome,
                    bool latency, uint64_t iterations, uint32_t sms, double spread_min,
                    double spread_max) {
  const double clock_mhz = ctx.device().measure_sm_clock_mhz(kPointClockSpinNs);
  const auto& sum = outcome.summary;
  p["repeats"] = sum.n;
  p["converged"] = outcome.converged;
  p["iterations"] = iterations;
  p["sms"] = sms;
  p["region_sm_clock_mhz"] = clock_mhz;
  if (latency) {
    p["latency_cycles"] = sum.median;
    p["ci95_cycles"] = {sum.median_ci95.lo, sum.median_ci95.hi};
    p["latency_ns"] = clock_mhz > 0 ? nlohmann::json(sum.median / clock_mhz * 1000)
                                    : nlohmann::json(nullptr);
  } else {
    const double device_sms = ctx.device().info().sm_count;
    p["flops_per_clk_per_sm"] = sum.median;
    p["ci95_flops_per_clk_per_sm"] = {sum.median_ci95.lo, sum.median_ci95.hi};
    p["sm_spread_flops_per_clk"] = {spread_min, spread_max};
    p["flops_per_s"] = sum.median * device_sms * clock_mhz * 1e6;
  }
  return clock_mhz;
}

}  // namespace gpuprobe::probes::tensor
