// The machine model's `goodput` section (docs/SCHEMA.md "goodput", docs/ANALYSIS.md "Goodput"):
// the model predicts the time of the goodput/reference kernels from the numbers the other probes
// measured, and sets the prediction against the time the kernel took:
//   triad             kappa (R / DRAM read + W / DRAM write) + one launch, with
//                     kappa = (1 / DRAM copy) / (1/2 read + 1/2 write): the read/write turnaround
//                     the measured copy shows (1 without a copy measurement)
//   l2_reduction      bytes / the L2 ceiling + one launch
//   tensor_tile_loop  max(FLOP / the mma.sync m16n8k16 f16 -> f32 rate, shared bytes / the shared
//                     ceiling) + one launch: the roofline of the two resources it uses
//   graph_chain       the launch model's graph launch fit a + b n (its kernels count only, so
//                     their work is the b the fit measured with empty nodes)
// One launch is launch/overhead's back-to-back GPU time per kernel. And where cuBLAS ran, its GEMM
// rate as a % of the measured f16 tensor peak (the roofline's f16 ceiling: its best native path).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "harness/family.hpp"

namespace gpuprobe::analysis {

// What the predictions read from a model, each with the model path it came from ("" = absent).
struct GoodputInputs {
  double dram_read_bytes_per_s = 0, dram_write_bytes_per_s = 0, dram_copy_bytes_per_s = 0;
  double l2_bytes_per_s = 0, shared_bytes_per_s = 0;
  double mma_f16_flops_per_s = 0;    // the tile loop's instruction (else the f16 ceiling)
  double tensor_peak_flops_per_s = 0;  // the f16 roofline ceiling (cuBLAS's reference)
  double launch_s = 0;               // one kernel, back to back
  double graph_per_graph_s = 0, graph_per_node_s = 0;
  std::string dram_read_from, dram_write_from, dram_copy_from, l2_from, shared_from, mma_from, tensor_peak_from,
      launch_from, graph_from;
};
GoodputInputs goodput_inputs(const nlohmann::json& model);

// One prediction: seconds (0 when an input is missing: `missing` says which), the bound and the
// method in words.
struct GoodputPrediction {
  double seconds = 0;
  std::string bound;
  std::string method;
  std::string missing;
};
GoodputPrediction predict_triad(const GoodputInputs& in, double bytes_read, double bytes_written);
GoodputPrediction predict_l2_reduction(const GoodputInputs& in, double bytes_read);
GoodputPrediction predict_tensor_tile_loop(const GoodputInputs& in, double flops, double shared_bytes);
GoodputPrediction predict_graph_chain(const GoodputInputs& in, double nodes);

// 100 x (predicted - measured) / measured: > 0 when the model predicts slower than measured.
double signed_prediction_error_percent(double predicted_s, double measured_s);
// Its absolute value.
double prediction_error_percent(double predicted_s, double measured_s);

// Keeps what a goodput/* record measured in `goodput` (an object, the section under
// construction): its points by kernel, and the run's clock. Throws gpuprobe::Error (one line) when
// a point lacks what the predictions need.
void add_goodput_from_run(const nlohmann::json& run, nlohmann::json& goodput);

// Turns the kept points into `kernels[]` and `cublas` once the model's other sections and its
// roofline are complete (machine_model.cpp calls it last); a model without a goodput section is
// left as it is.
void add_goodput_predictions(nlohmann::json& model);


// metrics[] of the model's goodput section.
void goodput_metrics(const nlohmann::json& model, const MetricSink& add);

}  // namespace gpuprobe::analysis
