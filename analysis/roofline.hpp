// The hierarchical roofline of a machine model (issue 9): per precision the compute ceiling (the
// best native FLOP/s over the model's compute ops of that precision, and which instruction path
// gave it), per memory level the measured bandwidth ceiling (DRAM, L2-far, L2, L1, shared), the
// ridge points where they meet, and the classification of kernels against them: the attainable
// FLOP/s, the ceiling that bounds the kernel (a memory level or a compute path) and the % of the
// attainable it achieves. Schema: docs/SCHEMA.md "roofline"; method: docs/ANALYSIS.md "Roofline".
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuprobe::analysis {

// The memory levels a roofline can have, slowest first (the order they are printed and drawn).
inline const std::vector<std::string> kRooflineLevels = {"DRAM", "L2-far", "L2", "L1", "shared"};

// "fp32", "float", "single" -> "f32"; "fp64", "double" -> "f64"; "fp16", "half" -> "f16";
// "int8" -> "s8", "int4" -> "s4"; "f32x2" (packed FP32 FMA) -> "f32", "f16x2" -> "f16",
// "bf16x2" -> "bf16". Other names come back lower-cased. Throws gpuprobe::Error on an empty name or
// one with characters other than letters, digits and '_'.
std::string normalize_precision(const std::string& precision);

// The model's `roofline` section (built from its `compute` and `bandwidth` sections; a model with
// neither gets one with empty ceilings and `missing` saying so). Never throws on a model of the
// documented shape; a field of another type is skipped as if absent.
nlohmann::json roofline_section(const nlohmann::json& model);

// Adds `roofline` to a model that has a compute or bandwidth section (machine_model.cpp calls it
// once the other sections are finished); a model with neither is left as it is.
void add_roofline(nlohmann::json& model);

// One kernel to place on the roofline.
struct RooflineKernel {
  std::string name;
  std::string source;      // where it came from: "--kernel", "FILE:LINE"
  std::string precision;   // "" = the default precision
  std::string path;        // "" = the best native path of the precision; else that path's ceiling
  double flops = 0;        // > 0
  double time_s = 0;       // > 0
  std::map<std::string, double> bytes;  // level (kRooflineLevels) -> bytes moved there, >= 0
  nlohmann::json flops_by_precision;    // an object (ncu import), or null
};

// The kernel against the section's ceilings: its achieved FLOP/s, per level given its intensity
// (FLOP/byte) and ceiling (intensity x bandwidth), the compute ceiling of its precision, the
// attainable FLOP/s (the least of them), the bound and the % of the attainable. A level the model
// has no ceiling for, or a precision without a compute ceiling, is named in `notes`; with no
// ceiling at all, attainable, bound and percent are null.
nlohmann::json classify_kernel(const nlohmann::json& roofline, const RooflineKernel& kernel,
                               const std::string& default_precision);

}  // namespace gpuprobe::analysis
