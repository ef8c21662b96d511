// The per-clock bounds the tensor smoke tests hold a throughput point to, and the check that they
// are tight (tests/probes/tensor/test_gpu_smoke_{wgmma,tcgen05}.cpp). A rate per SM clock cannot
// exceed the peak because of the clock: at most 2% above it (a FLOP-count bug shows); with zero
// operands at N >= 128 (not bound by shared memory, the least power) at least half of a measured
// peak (a serialisation shows); a tenth otherwise.
#pragma once
#include <catch2/catch.hpp>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

namespace gpuprobe::testing {

// N of a tensor shape "m<M>n<N>k<K>" (a record's `shape`); 0 when it has no n.
inline int tensor_shape_n(const std::string& shape) {
  const auto n = shape.find('n');
  return n == std::string::npos ? 0 : std::atoi(shape.c_str() + n + 1);
}

// What is wrong with throughput point `p` against `peak` FLOP/clk/SM ("" if nothing);
// `peak_measured` false: the peak is only an upper bound, so no floor of a half.
inline std::string tensor_rate_problem(const nlohmann::json& p, double peak, bool peak_measured) {
  const bool at_full_rate =
      peak_measured && p["operands"] == "zeros" && tensor_shape_n(p["shape"]) >= 128;
  const double rate = p["flops_per_clk_per_sm"].get<double>();
  if (rate > 1.02 * peak) return "above 1.02x the peak " + std::to_string(peak);
  if (rate < (at_full_rate ? 0.5 : 0.1) * peak) return "below the least share of the peak " + std::to_string(peak);
  return "";
}

// A simulated run at the preset's peaks meets the bounds, and they are tight: each N >= 128
// throughput point of a measured peak fails them with 3% more FLOP, and with zero operands at a
// third of its rate. problem(p): "" or what is wrong; measured(p): whether p's peak was measured.
template <class Problem, class Measured>
void check_bounds_tight(const nlohmann::json& record, Problem problem, Measured measured) {
  REQUIRE(record["status"] == "ok");
  int near_peak = 0;
  for (const auto& p : record["series"]) {
    INFO(p.dump());
    if (p["kind"] != "throughput") continue;
    CHECK(problem(p) == "");
    if (tensor_shape_n(p["shape"]) < 128 || !measured(p)) continue;
    nlohmann::json high = p, slow = p;
    high["flops_per_clk_per_sm"] = 1.03 * p["flops_per_clk_per_sm"].get<double>();
    slow["flops_per_clk_per_sm"] = p["flops_per_clk_per_sm"].get<double>() / 3;
    CHECK(problem(high) != "");
    if (p["operands"] == "zeros") {
      CHECK(problem(slow) != "");
      ++near_peak;
    }
  }
  CHECK(near_peak > 0);
}

}  // namespace gpuprobe::testing
