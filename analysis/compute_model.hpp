// The machine model's `compute` section from compute/alu run records: per op (instruction path
// and precision) its latency (cycles per dependent op), issue rate (thread-ops per clock per SM,
// ops/s and FLOP/s at the run's SM clock), the % of the published FP32 or FP64 peak where
// analysis/datasheet has one (per SM per clock, against the figure at its boost clock), and
// whether the target runs the op natively or emulates it.
// Schema: docs/SCHEMA.md "compute".
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "harness/family.hpp"

namespace gpuprobe::analysis {

// Adds what the run measured to `compute` (an object: {"ops": {op: ...}, "skipped": {op: why}}).
// A tensor probe's record (tensor/mma: the mma.sync forms) adds its forms the same way, with
// path, precision, accumulate, implementation, FLOP rates, the zero-operand run under `zeros` and
// % of the datasheet's dense tensor peak (tensor_peak_flops_per_s) for native forms only, per SM
// per clock against the peak at its tensor spec clock (analysis/datasheet.hpp tensor_clock).
// Throws gpuprobe::Error (one line) when a point lacks what the section needs.
void add_compute_from_run(const nlohmann::json& run, nlohmann::json& compute);

// How a target of SM number `sm` runs the op (`op` as named by probes/compute/compute.def):
// "native", or "emulated (...)" where ptxas turns one PTX op into several instructions of
// another kind (fma.rn.f32x2 on sm_110/120/121: two FFMA, tests/probes/compute/test_sass.py).
const char* compute_implementation(const std::string& op, int sm);

// The SASS instructions one op becomes on SM number `sm` (what tests/probes/compute/test_sass.py
// asserts per target), so a rate per op reads as a rate per instruction.
std::string compute_sass_per_op(const std::string& op, int sm);

// Integer precisions: the tensor ones (s8, u8, s4, u4, b1), whose rates count operations, 2 per
// multiply-accumulate, not FLOP (metric ids `.ops_per_s`, unit op/s, printed OP/s, ridge points in
// op/byte), and the wider s16...u64 that a roofline kernel may name (its rate in OP/s too).
bool integer_precision(const std::string& precision);

// metrics[] of the compute section's CUDA-core ops (compute.<op>.*) and of its tensor-core forms
// with the best native tensor path per precision (tensor.<op>.*, tensor.<precision>.flops_per_s, or
// .ops_per_s for an integer precision).
void compute_metrics(const nlohmann::json& model, const MetricSink& add);
void tensor_metrics(const nlohmann::json& model, const MetricSink& add);

}  // namespace gpuprobe::analysis
