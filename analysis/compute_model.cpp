#include "analysis/compute_model.hpp"

#include <cmath>
#include <optional>
#include <string>

#include "analysis/datasheet.hpp"
#include "analysis/record_fields.hpp"
#include "harness/error.hpp"

namespace gpuprobe::analysis {
namespace {

using json = nlohmann::json;

}  // namespace

const char* compute_implementation(const std::string& op, int sm) {
  if (op == "fma_rn_f32x2" && sm != 100 && sm != 103) return "emulated (2 FFMA)";
  return "native";
}

std::string compute_sass_per_op(const std::string& op, int sm) {
  if (op == "fma_rn_f32") return "1 FFMA";
  if (op == "fma_rn_f64") return sm >= 103 ? "1 DFMA (dependent ones NOP-padded)" : "1 DFMA";
  if (op == "fma_rn_f16x2") return sm == 80 || sm == 90 ? "1 HFMA2 (half of them HFMA2.MMA)" : "1 HFMA2";
  if (op == "fma_rn_bf16x2") return "1 HFMA2.BF16_V2";
  if (op == "fma_rn_f32x2") return sm == 100 || sm == 103 ? "1 FFMA2" : "2 FFMA";
  if (op == "mad_lo_s32") return "1 IMAD";
  if (op == "add_add_u32") return sm >= 90 ? "1 IADD3" : "2 IADD3 (the adds are not fused before sm_90)";
  if (op == "ex2_approx_ftz_f32") return "1 MUFU.EX2";
  if (op == "rsqrt_approx_ftz_f32") return "1 MUFU.RSQ";
  if (op == "sin_approx_ftz_f32") return "1 FMUL + 1 MUFU.SIN";
  if (op == "tanh_approx_f32") return "1 MUFU.TANH";
  if (op == "cvt_f16_f32")
    return sm >= 80 ? "1 F2FP + 1 HADD2.F32 (throughput: one F2FP per two chains)" : "1 F2F + 1 HADD2.F32";
  if (op == "cvt_s32_f32") return "1 F2I + 1 I2F";
  return "unknown";
}

namespace {

// A tensor probe's record (tensor/mma, and the other tensor probes writing the same point fields):
// per op, the random-operand latency and rate at the op's top level, the zero-operand run under
// `zeros`, the self-check, and % of the published dense peak for the native forms only.
void add_tensor_points(const json& run, json& compute, const std::optional<DatasheetPeak>& sheet) {
  const json& series = run["series"];
  for (std::size_t i = 0; i < series.size(); ++i) {
    const json& p = series[i];
    const std::string where = "series[" + std::to_string(i) + "]";
    const std::string op = record_text(p, "op", where);
    if (p.contains("skipped")) {
      if (!compute["ops"].contains(op))
        compute["skipped"][op] = record_skip_reason(p);
      continue;
    }
    if (compute.contains("skipped")) compute["skipped"].erase(op);
    const std::string kind = record_text(p, "kind", where);
    const bool zeros = p.value("operands", "random") == "zeros";
    json& o = compute["ops"][op];
    o["ptx"] = record_text(p, "ptx", where);
    o["path"] = record_text(p, "path", where);
    o["precision"] = record_text(p, "precision", where);
    o["accumulate"] = record_text(p, "accumulate", where);
    o["implementation"] = record_text(p, "implementation", where);
    if (p.contains("shape")) o["shape"] = p["shape"];
    if (p.contains("sass_per_op")) o["sass_per_op"] = p["sass_per_op"];
    if (p.contains("self_check")) o["self_check"] = p["self_check"];
    if (p.contains("block_scale")) o["block_scale"] = p["block_scale"];
    json& into = zeros ? o["zeros"] : o;
    if (kind == "latency" || kind == "throughput") record_samples(p, kind, into);
    if (kind == "latency") {
      into["latency_cycles"] = record_number(p, "latency_cycles", where);
      if (p.contains("latency_ns")) into["latency_ns"] = p["latency_ns"];
    } else if (kind == "throughput") {
      const double flops = record_number(p, "flops_per_s", where);
      into["flops_per_clk_per_sm"] = record_number(p, "flops_per_clk_per_sm", where);
      into["flops_per_s"] = flops;
      into["clock_mhz"] = record_number(p, "region_sm_clock_mhz", where);
      // Emulated forms run on other instructions: a tensor-core peak does not apply to them.
      const double peak = sheet && o["implementation"] == "native"
                              ? tensor_peak_flops_per_s(*sheet, o["precision"].get<std::string>())
                              : 0;
      if (peak > 0) {
        into["percent_of_peak"] = 100.0 * flops / peak;
        if (!zeros)
          o["peak"] = {{"gpu", sheet->gpu}, {"flops_per_s", peak}, {"source", sheet->tensor_source}};
      }
    } else {
      throw Error(where + ".kind is '" + kind + "', not latency or throughput");
    }
  }
}

}  // namespace

void add_compute_from_run(const json& run, json& compute) {
  const json& device = run.contains("device") ? run["device"] : json::object();
  const int sm = record_sm(device);
  const auto sheet = datasheet_for(device.is_object() ? device.value("name", "") : "");
  if (!compute.contains("ops")) compute["ops"] = json::object();
  if (!run.contains("series") || !run["series"].is_array())
    throw Error(run.value("probe", std::string("compute/alu")) + " record has no series");
  if (run.value("probe", std::string()).rfind("tensor/", 0) == 0) return add_tensor_points(run, compute, sheet);
  const json& series = run["series"];
  for (std::size_t i = 0; i < series.size(); ++i) {
    const json& p = series[i];
    const std::string where = "series[" + std::to_string(i) + "]";
    const std::string op = record_text(p, "op", where);
    if (p.contains("skipped")) {
      compute["skipped"][op] = record_skip_reason(p);
      continue;
    }
    const std::string kind = record_text(p, "kind", where);
    json& o = compute["ops"][op];
    o["ptx"] = record_text(p, "ptx", where);
    o["path"] = record_text(p, "path", where);
    o["precision"] = record_text(p, "precision", where);
    o["implementation"] = compute_implementation(op, sm);
    o["sass_per_op"] = compute_sass_per_op(op, sm);
    if (kind == "latency" || kind == "throughput") record_samples(p, kind, o);
    if (kind == "latency") {
      o["latency_cycles"] = record_number(p, "latency_cycles", where);
      if (p.contains("latency_ns")) o["latency_ns"] = p["latency_ns"];
    } else if (kind == "throughput") {
      o["ops_per_clk_per_sm"] = record_number(p, "ops_per_clk_per_sm", where);
      o["ops_per_s"] = record_number(p, "ops_per_s", where);
      o["clock_mhz"] = record_number(p, "region_sm_clock_mhz", where);
      if (p.contains("flops_per_s")) {
        const double flops = record_number(p, "flops_per_s", where);
        o["flops_per_clk_per_sm"] = record_number(p, "flops_per_clk_per_sm", where);
        o["flops_per_s"] = flops;
        // The published peaks are the FP32 and FP64 FMA rates; packed f32x2 counts as FP32.
        const std::string precision = o["precision"];
        const double peak = !sheet ? 0
                            : precision == "f32" || precision == "f32x2" ? sheet->fp32_flops_per_s
                            : precision == "f64"                          ? sheet->fp64_flops_per_s
                                                                          : 0;
        if (peak > 0) {
          o["percent_of_peak"] = 100.0 * flops / peak;
          o["peak"] = {{"gpu", sheet->gpu}, {"flops_per_s", peak}, {"source", sheet->compute_source}};
        }
      }
    } else {
      throw Error(where + ".kind is '" + kind + "', not latency or throughput");
    }
  }
}

}  // namespace gpuprobe::analysis
