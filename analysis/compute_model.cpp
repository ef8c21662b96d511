#include "analysis/compute_model.hpp"

#include <cmath>
#include <optional>
#include <string>

#include "analysis/datasheet.hpp"
#include "analysis/metric_fields.hpp"
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

// The `peak` an op's percent_of_peak is of: the figure, the SMs and clock it is quoted at (null
// where unpublished) and so its rate per SM per clock, which the percentage compares with.
json peak_entry(const DatasheetPeak& sheet, double figure, SpecClock clock, const std::string& source) {
  const double per_clock = figure_per_sm_per_clock(figure, sheet.sm_count, clock.mhz);
  return {{"gpu", sheet.gpu},
          {"flops_per_s", figure},
          {"source", source},
          {"sm_count", sheet.sm_count > 0 ? json(sheet.sm_count) : json(nullptr)},
          {"clock_mhz", clock.mhz > 0 ? json(clock.mhz) : json(nullptr)},
          {"clock", clock.mhz > 0 ? json(clock.name) : json(nullptr)},
          {"clock_source", clock.mhz > 0 ? json(sheet.clock_source) : json(nullptr)},
          {"flops_per_clk_per_sm", per_clock > 0 ? json(per_clock) : json(nullptr)}};
}

// % of a figure per SM per clock where its clock is known (percent_of_figure), from a point's
// FLOP/s and FLOP per clock per SM.
double op_percent(double flops, const json& per_clk_per_sm, const DatasheetPeak& sheet, double figure,
                  SpecClock clock) {
  const double per = per_clk_per_sm.is_number() ? per_clk_per_sm.get<double>() : 0;
  return percent_of_figure(flops, per, figure, sheet.sm_count, clock.mhz);
}

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
        // Per clock: the datasheet's tensor figures are at the tensor spec clock, not the run's.
        const SpecClock clock = tensor_clock(*sheet, o["precision"].get<std::string>());
        into["percent_of_peak"] = op_percent(flops, into["flops_per_clk_per_sm"], *sheet, peak, clock);
        if (!zeros) o["peak"] = peak_entry(*sheet, peak, clock, sheet->tensor_source);
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
          // Per clock, against the figure at its boost clock.
          o["percent_of_peak"] =
              op_percent(flops, o["flops_per_clk_per_sm"], *sheet, peak, compute_clock(*sheet));
          o["peak"] = peak_entry(*sheet, peak, compute_clock(*sheet), sheet->compute_source);
        }
      }
    } else {
      throw Error(where + ".kind is '" + kind + "', not latency or throughput");
    }
  }
}

namespace {

// The instruction paths of the tensor probes (their ops share the compute section).
bool tensor_path(const std::string& path) { return path == "mma.sync" || path == "wgmma" || path == "tcgen05"; }

const char* rate_unit(bool tensor, const std::string& precision) {
  return tensor && integer_precision(precision) ? "op/s" : "flop/s";
}
// The metric id's rate quantity, as its unit: integer tensor forms count OP, not FLOP.
const char* rate_quantity(bool tensor, const std::string& precision) {
  return tensor && integer_precision(precision) ? ".ops_per_s" : ".flops_per_s";
}

std::string tensor_probe(const std::string& path) {
  return path == "mma.sync" ? "tensor/mma" : "tensor/" + path;
}

// The published peak an op's FLOP/s compares with: FP32/FP64 FMA, or the dense tensor-core peak of
// a native tensor form.
json op_datasheet(const json& o, const std::optional<DatasheetPeak>& sheet, bool tensor) {
  if (!sheet) return nullptr;
  const std::string precision = text(&o, "precision");
  if (tensor) {
    if (text(&o, "implementation", "native").rfind("native", 0) != 0) return nullptr;
    return sheet_entry(tensor_peak_flops_per_s(*sheet, precision), rate_unit(true, precision),
                       sheet->tensor_source, *sheet, tensor_clock(*sheet, precision));
  }
  if (precision == "f32" || precision == "f32x2")
    return sheet_entry(sheet->fp32_flops_per_s, "flop/s", sheet->compute_source, *sheet,
                       compute_clock(*sheet));
  if (precision == "f64")
    return sheet_entry(sheet->fp64_flops_per_s, "flop/s", sheet->compute_source, *sheet,
                       compute_clock(*sheet));
  return nullptr;
}

// The ops of the compute section whose path is (tensor) or is not (compute) a tensor path.
void op_metrics(const json& model, const MetricSink& add, bool tensor_ops) {
  const auto sheet = model_datasheet(model);
  const json* ops = at(model, {"compute", "ops"});
  if (ops && ops->is_object()) {
    for (auto it = ops->begin(); it != ops->end(); ++it) {
      const json& o = it.value();
      if (!o.is_object()) continue;
      const std::string path = text(&o, "path");
      const bool tensor = tensor_path(path);
      if (tensor != tensor_ops) continue;
      const std::string family = tensor ? "tensor" : "compute";
      const std::string probe = tensor ? tensor_probe(path) : "compute/alu";
      const std::string op = it.key(), id = family + "." + part(op);
      const std::string impl = text(&o, "implementation", "native");
      const std::string what = probe + " " + op + " (" + text(&o, "ptx", path) + ", " + impl + ")";
      const json clock = clock_of(o.value("clock_mhz", json()));
      const json lat_repeats = num(&o, "latency_repeats"), thr_repeats = num(&o, "throughput_repeats");
      if (o.contains("latency_cycles"))
        add({id + ".latency_cycles", op + " latency", num(&o, "latency_cycles"), "cycles", "lower", false,
               what + ": one dependent chain, median over repeats of the median warp's cycles per op", probe,
               lat_repeats, nullptr, clock_of(o.value("latency_clock_mhz", json()))});
      if (!tensor && o.contains("ops_per_s"))
        add({id + ".ops_per_s", op + " throughput", num(&o, "ops_per_s"), "ops/s", "higher", true,
               what + ": independent chains on every SM, median SM's ops per clock x SMs x clock", probe,
               thr_repeats, nullptr, clock});
      if (o.contains("flops_per_s"))
        add({id + rate_quantity(tensor, text(&o, "precision")),
             op + (integer_precision(text(&o, "precision")) && tensor ? " OP rate (int)" : " FLOP rate"),
             num(&o, "flops_per_s"), rate_unit(tensor, text(&o, "precision")), "higher", !tensor,
               what + (tensor ? ": random operands, independent accumulators on every SM, median SM x SMs x clock"
                              : ": FMA = 2 FLOP, independent chains on every SM, median SM x SMs x clock"),
               probe, thr_repeats, nullptr, clock, op_datasheet(o, sheet, tensor)});
    }
  }
  if (!tensor_ops) return;
  // tensor.<precision>: the best native tensor path per precision (the roofline's ceiling when a
  // tensor path is the best one).
  const json* compute = at(model, {"roofline", "compute"});
  if (!compute || !compute->is_object()) return;
  for (auto it = compute->begin(); it != compute->end(); ++it) {
    const json* paths = at(it.value(), {"paths"});
    if (!paths || !paths->is_object()) continue;
    std::string best_path;
    double best = 0;
    for (auto p = paths->begin(); p != paths->end(); ++p)
      if (tensor_path(p.key()) && num(&p.value(), "flops_per_s").is_number() &&
          p.value()["flops_per_s"].get<double>() > best) {
        best = p.value()["flops_per_s"].get<double>();
        best_path = p.key();
      }
    if (best_path.empty()) continue;
    const std::string op = text(&(*paths)[best_path], "op");
    const json* o = ops ? at(*ops, {op}) : nullptr;
    const std::string precision = it.key();
    add({"tensor." + part(precision) + rate_quantity(true, precision),
         precision + (integer_precision(precision) ? " tensor-core peak (int)" : " tensor-core peak"), best,
         rate_unit(true, precision),
           "higher", true,
           "the best native tensor op of " + precision + ": " + op + " (" + best_path + "), random operands",
           tensor_probe(best_path), o ? num(o, "throughput_repeats") : json(nullptr), nullptr,
           o ? clock_of(o->value("clock_mhz", json())) : json(nullptr),
           sheet ? sheet_entry(tensor_peak_flops_per_s(*sheet, precision), rate_unit(true, precision),
                               sheet->tensor_source, *sheet, tensor_clock(*sheet, precision))
                 : json(nullptr)});
  }
}


}  // namespace

bool integer_precision(const std::string& precision) {
  // The tensor ones, and the wider integers a roofline kernel may name (s32 math on CUDA cores).
  for (const char* p : {"s8", "u8", "s4", "u4", "b1", "s16", "u16", "s32", "u32", "s64", "u64"})
    if (precision == p) return true;
  return false;
}

void compute_metrics(const json& model, const MetricSink& add) { op_metrics(model, add, false); }
void tensor_metrics(const json& model, const MetricSink& add) { op_metrics(model, add, true); }

}  // namespace gpuprobe::analysis
