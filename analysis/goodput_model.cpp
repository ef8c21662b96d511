#include "analysis/goodput_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>

#include "analysis/metric_fields.hpp"
#include "analysis/record_fields.hpp"
#include "harness/error.hpp"

namespace gpuprobe::analysis {
namespace {

using json = nlohmann::json;

// The value at a JSON pointer ("/launch/overhead/back_to_back/ns") when every step exists, else null.
const json* at(const json& doc, const std::string& pointer) {
  const json::json_pointer p(pointer);
  return doc.contains(p) ? &doc.at(p) : nullptr;
}

// The first positive finite number of `pointers` (scaled), and its model key in dots ("" and 0 if none).
double first_positive(const json& model, std::initializer_list<const char*> pointers, std::string& from,
                      double scale = 1) {
  for (const char* pointer : pointers) {
    const json* j = at(model, pointer);
    if (j && j->is_number() && std::isfinite(j->get<double>()) && j->get<double>() > 0) {
      from = std::string(pointer + 1);
      std::replace(from.begin(), from.end(), '/', '.');
      return j->get<double>() * scale;
    }
  }
  from.clear();
  return 0;
}

std::string g3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string missing_text(std::initializer_list<std::pair<double, const char*>> needs) {
  std::string s;
  for (const auto& [v, what] : needs)
    if (!(v > 0)) s += (s.empty() ? "" : ", ") + std::string(what);
  return s.empty() ? s : "the model has no " + s;
}

constexpr const char* kProbe = "goodput/reference";

}  // namespace

GoodputInputs goodput_inputs(const json& m) {
  GoodputInputs in;
  // A prediction runs the model: a level's bandwidth is the loaded-latency fit's asymptote where
  // the fit reproduces the level's concurrency sweep (what a kernel with enough bytes in flight
  // approaches), else the measured top (the level's reported bandwidth, the roofline's ceiling),
  // else DRAM's base point. `*_from` names the key each prediction used.
  in.dram_read_bytes_per_s = first_positive(m, {"/bandwidth/DRAM/read/concurrency/asymptote_bytes_per_s",
                                                "/bandwidth/DRAM/read/concurrency/peak_bytes_per_s",
                                                "/bandwidth/DRAM/read/bandwidth_bytes_per_s",
                                                "/roofline/memory/DRAM/bytes_per_s"},
                                            in.dram_read_from);
  in.dram_write_bytes_per_s = first_positive(m, {"/bandwidth/DRAM/write/concurrency/asymptote_bytes_per_s",
                                                 "/bandwidth/DRAM/write/concurrency/peak_bytes_per_s",
                                                 "/bandwidth/DRAM/write/bandwidth_bytes_per_s"},
                                             in.dram_write_from);
  in.dram_copy_bytes_per_s = first_positive(m, {"/bandwidth/DRAM/copy/concurrency/asymptote_bytes_per_s",
                                                "/bandwidth/DRAM/copy/concurrency/peak_bytes_per_s",
                                                "/bandwidth/DRAM/copy/bandwidth_bytes_per_s"},
                                            in.dram_copy_from);
  in.l2_bytes_per_s = first_positive(
      m, {"/bandwidth/L2/concurrency/asymptote_bytes_per_s", "/roofline/memory/L2/bytes_per_s"}, in.l2_from);
  in.shared_bytes_per_s = first_positive(
      m, {"/bandwidth/shared/concurrency/asymptote_bytes_per_s", "/roofline/memory/shared/bytes_per_s"},
      in.shared_from);
  in.mma_f16_flops_per_s = first_positive(m, {"/compute/ops/mma_m16n8k16_f16_f32/flops_per_s",
                                              "/roofline/compute/f16/flops_per_s"},
                                          in.mma_from);
  in.tensor_peak_flops_per_s = first_positive(m, {"/roofline/compute/f16/flops_per_s"}, in.tensor_peak_from);
  in.launch_s = first_positive(m, {"/launch/overhead/back_to_back/ns"}, in.launch_from, 1e-9);
  std::string per_node_from;
  in.graph_per_node_s = first_positive(m, {"/launch/graph/launch/per_node_ns"}, per_node_from, 1e-9);
  // a may be fitted at or a little below zero; it is a term, not a divisor.
  if (const json* a = at(m, "/launch/graph/launch/per_graph_ns"); a && a->is_number() && in.graph_per_node_s > 0) {
    in.graph_per_graph_s = std::max(0.0, a->get<double>() * 1e-9);
    in.graph_from = "launch.graph.launch";
  }
  return in;
}

GoodputPrediction predict_triad(const GoodputInputs& in, double bytes_read, double bytes_written) {
  GoodputPrediction p;
  p.bound = "DRAM";
  p.missing = missing_text({{in.dram_read_bytes_per_s, "DRAM read bandwidth"}, {in.launch_s, "launch overhead"}});
  if (!p.missing.empty()) return p;
  const double read = in.dram_read_bytes_per_s;
  const double write = in.dram_write_bytes_per_s > 0 ? in.dram_write_bytes_per_s : read;
  const double kappa = in.dram_copy_bytes_per_s > 0 ? (1 / in.dram_copy_bytes_per_s) / (0.5 / read + 0.5 / write) : 1.0;
  p.seconds = kappa * (bytes_read / read + bytes_written / write) + in.launch_s;
  p.method = "kappa (R / read + W / write) + launch: R " + g3(bytes_read) + " B at " + in.dram_read_from + ", W " +
             g3(bytes_written) + " B at " + (in.dram_write_bytes_per_s > 0 ? in.dram_write_from : "the read bandwidth") +
             ", kappa " + g3(kappa) +
             (in.dram_copy_bytes_per_s > 0 ? " = (1 / copy) / (1/2 read + 1/2 write), copy " + in.dram_copy_from
                                           : " (no copy measured)") +
             ", launch " + in.launch_from;
  return p;
}

GoodputPrediction predict_l2_reduction(const GoodputInputs& in, double bytes_read) {
  GoodputPrediction p;
  p.bound = "L2";
  p.missing = missing_text({{in.l2_bytes_per_s, "L2 ceiling"}, {in.launch_s, "launch overhead"}});
  if (!p.missing.empty()) return p;
  p.seconds = bytes_read / in.l2_bytes_per_s + in.launch_s;
  p.method = "bytes / L2 + launch: " + g3(bytes_read) + " B at " + in.l2_from + ", launch " + in.launch_from;
  return p;
}

GoodputPrediction predict_tensor_tile_loop(const GoodputInputs& in, double flops, double shared_bytes) {
  GoodputPrediction p;
  p.missing = missing_text({{in.mma_f16_flops_per_s, "f16 tensor rate"},
                            {in.shared_bytes_per_s, "shared-memory ceiling"},
                            {in.launch_s, "launch overhead"}});
  if (!p.missing.empty()) return p;
  const double tensor_s = flops / in.mma_f16_flops_per_s, shared_s = shared_bytes / in.shared_bytes_per_s;
  p.bound = tensor_s >= shared_s ? "tensor" : "shared";
  p.seconds = std::max(tensor_s, shared_s) + in.launch_s;
  p.method = "roofline max(FLOP / tensor, shared bytes / shared) + launch: " + g3(flops) + " FLOP at " + in.mma_from +
             " (" + g3(tensor_s) + " s), " + g3(shared_bytes) + " B at " + in.shared_from + " (" + g3(shared_s) +
             " s), launch " + in.launch_from;
  return p;
}

GoodputPrediction predict_graph_chain(const GoodputInputs& in, double nodes) {
  GoodputPrediction p;
  p.bound = "launch";
  p.missing = missing_text({{in.graph_per_node_s, "graph launch fit (launch/graph)"}});
  if (!p.missing.empty()) return p;
  p.seconds = in.graph_per_graph_s + nodes * in.graph_per_node_s;
  p.method = "a + b n from " + in.graph_from + " (a " + g3(in.graph_per_graph_s * 1e9) + " ns, b " +
             g3(in.graph_per_node_s * 1e9) + " ns per node, n " + g3(nodes) +
             "); the nodes only count, so their work is inside b";
  return p;
}

double signed_prediction_error_percent(double predicted_s, double measured_s) {
  return 100.0 * (predicted_s - measured_s) / measured_s;
}

double prediction_error_percent(double predicted_s, double measured_s) {
  return std::fabs(signed_prediction_error_percent(predicted_s, measured_s));
}

void add_goodput_from_run(const json& run, json& goodput) {
  const std::string probe = run.value("probe", "");
  if (probe != kProbe) throw Error("gpuprobe has no goodput analysis for probe '" + probe + "'");
  if (!run.contains("series") || !run["series"].is_array()) throw Error(probe + " record has no series");
  double clock = 0;
  if (run.contains("median_region_sm_clock_mhz") && run["median_region_sm_clock_mhz"].is_number())
    clock = run["median_region_sm_clock_mhz"].get<double>();
  else if (const json* c = at(run, "/sm_clock_mhz/before"); c && c->is_number())
    clock = c->get<double>();
  const json& series = run["series"];
  for (std::size_t i = 0; i < series.size(); ++i) {
    const json& p = series[i];
    const std::string where = "series[" + std::to_string(i) + "]";
    const std::string kernel = record_text(p, "kernel", where);
    json kept = p;
    if (!p.contains("skipped")) {
      record_number(p, "ns", where);
      if (kernel != "cublas_gemm")
        for (const char* key : {"bytes_read", "bytes_written", "shared_bytes", "flops"}) record_number(p, key, where);
    }
    kept["clock_mhz"] = clock > 0 ? json(clock) : json(nullptr);
    goodput["measured"][kernel] = kept;
  }
}

void add_goodput_predictions(json& model) {
  if (!model.is_object() || !model.contains("goodput") || !model["goodput"].is_object()) return;
  json& section = model["goodput"];
  if (!section.contains("measured")) return;
  const json measured = section["measured"];
  section.erase("measured");
  const GoodputInputs in = goodput_inputs(model);
  json kernels = json::array();
  json skipped = json::object();
  for (const char* name : {"triad", "l2_reduction", "tensor_tile_loop", "graph_chain"}) {
    if (!measured.contains(name)) continue;
    const json& p = measured[name];
    if (p.contains("skipped")) {
      skipped[name] = record_skip_reason(p);
      continue;
    }
    const std::string kernel = name;
    GoodputPrediction pr;
    if (kernel == "triad") pr = predict_triad(in, p["bytes_read"].get<double>(), p["bytes_written"].get<double>());
    else if (kernel == "l2_reduction") pr = predict_l2_reduction(in, p["bytes_read"].get<double>());
    else if (kernel == "tensor_tile_loop")
      pr = predict_tensor_tile_loop(in, p["flops"].get<double>(), p["shared_bytes"].get<double>());
    else pr = predict_graph_chain(in, p.value("nodes", 0.0));
    const double measured_s = p["ns"].get<double>() * 1e-9;
    const bool compared = pr.seconds > 0 && measured_s > 0;  // a time of 0 compares with nothing
    json k = {{"name", kernel},
              {"measured_s", measured_s},
              {"predicted_s", pr.seconds > 0 ? json(pr.seconds) : json(nullptr)},
              {"error_percent", compared ? json(prediction_error_percent(pr.seconds, measured_s)) : json(nullptr)},
              {"signed_error_percent",
               compared ? json(signed_prediction_error_percent(pr.seconds, measured_s)) : json(nullptr)},
              {"bound", pr.bound.empty() ? json(nullptr) : json(pr.bound)},
              {"method", pr.seconds > 0 ? pr.method : "not predicted: " + pr.missing},
              {"self_check", p.value("self_check", "unknown")},
              {"probe", kProbe},
              {"samples", p.contains("repeats") ? p["repeats"] : json(nullptr)},
              {"clock_mhz", p.contains("clock_mhz") ? p["clock_mhz"] : json(nullptr)},
              {"bytes_read", p["bytes_read"]},
              {"bytes_written", p["bytes_written"]},
              {"shared_bytes", p["shared_bytes"]},
              {"flops", p["flops"]}};
    if (p.contains("nodes")) k["nodes"] = p["nodes"];
    kernels.push_back(k);
  }
  section["kernels"] = kernels;
  if (!skipped.empty()) section["skipped"] = skipped;
  if (measured.contains("cublas_gemm")) {
    const json& c = measured["cublas_gemm"];
    if (c.contains("skipped")) {
      section["cublas"] = {{"skipped", record_skip_reason(c)}};
    } else {
      const double rate = c.contains("flops_per_s") && c["flops_per_s"].is_number() ? c["flops_per_s"].get<double>() : 0;
      section["cublas"] = {{"flops_per_s", rate},
                           {"percent_of_tensor_peak",
                            in.tensor_peak_flops_per_s > 0 && rate > 0 ? json(100.0 * rate / in.tensor_peak_flops_per_s)
                                                                       : json(nullptr)},
                           {"tensor_peak_flops_per_s",
                            in.tensor_peak_flops_per_s > 0 ? json(in.tensor_peak_flops_per_s) : json(nullptr)},
                           {"tensor_peak_from", in.tensor_peak_from.empty() ? json(nullptr) : json(in.tensor_peak_from)},
                           {"m", c.value("m", 0)},
                           {"n", c.value("n", 0)},
                           {"k", c.value("k", 0)},
                           {"precision", c.value("precision", "")},
                           {"library", c.value("library", "")},
                           {"samples", c.contains("repeats") ? c["repeats"] : json(nullptr)}};
    }
  } else {
    section["cublas"] = {{"skipped", "the goodput/reference record has no cublas_gemm point"}};
  }
  section["method"] =
      "Each reference kernel's time predicted from the model's other sections (docs/ANALYSIS.md \"Goodput\"); "
      "error_percent = 100 |predicted - measured| / measured, signed_error_percent keeps the sign (> 0: the "
      "model is slower than the kernel)";
}

void goodput_metrics(const json& model, const MetricSink& add) {
  const json* goodput = at(model, {"goodput"});
  if (!goodput) return;
  if (const json* kernels = at(*goodput, {"kernels"}); kernels && kernels->is_array())
    for (const auto& k : *kernels) {
      const std::string name = text(&k, "name");
      if (name.empty()) continue;
      add({"goodput." + part(name) + ".prediction_error_percent", name + " prediction error",
             num(&k, "error_percent"), "percent", "lower", false,
             "100 |predicted - measured| / measured time of the reference kernel; predicted: " +
                 text(&k, "method", "(no method given)"),
             text(&k, "probe"), num(&k, "samples"), nullptr, clock_of(k.value("clock_mhz", json()))});
    }
  // cuBLAS GEMM against the measured tensor peak: is all that throughput goodput?
  if (const json* c = at(*goodput, {"cublas"}); c && c->is_object() && !c->contains("skipped")) {
    const std::string what = "goodput/reference cuBLAS GEMM " + text(c, "precision") + " " +
                             std::to_string(c->value("m", 0)) + "x" + std::to_string(c->value("n", 0)) + "x" +
                             std::to_string(c->value("k", 0));
    add({"goodput.cublas_gemm.flops_per_s", "cuBLAS GEMM FLOP rate", num(c, "flops_per_s"), "flop/s",
           "higher", false, what + ", median over repeats", "goodput/reference", num(c, "samples"), nullptr, nullptr});
    add({"goodput.cublas_gemm.tensor_peak_share_percent", "cuBLAS GEMM as % of the measured tensor peak",
           num(c, "percent_of_tensor_peak"), "percent", "higher", false,
           what + " / the measured tensor peak (" + text(c, "tensor_peak_from", "unknown") + ")", "goodput/reference",
           num(c, "samples"), nullptr, nullptr});
  }
}

}  // namespace gpuprobe::analysis
