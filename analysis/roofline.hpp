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

// The precisions a roofline knows (the model's ops, ncu's tensor types): a precision outside them
// and outside the model's own ceilings is a typo (`fp99`), refused rather than left with no ceiling.
inline const std::vector<std::string> kKnownPrecisions = {
    "f64",  "f32", "tf32",    "f16",  "bf16", "e4m3",      "e5m2",      "e3m2",      "e2m3",
    "e2m1", "fp8", "fp4_fp6", "nvf4", "mxf4", "mxf6_e3m2", "mxf6_e2m3", "mxf8_e4m3", "mxf8_e5m2",
    "s32",  "u32", "s16",     "u16",  "s8",   "u8",        "s4",        "u4",        "b1"};

// Whether `precision` (normalized) is known, or has a compute entry in the `roofline` section.
bool known_precision(const std::string& precision, const nlohmann::json& roofline);

// One kernel to place on the roofline: its launches summed (analysis/roofline_kernels.hpp
// aggregate_launches): FLOPs, bytes and time are totals over `launches`.
struct RooflineKernel {
  std::string name;
  std::string source;      // where it came from: "--kernel", "FILE:LINE" (of its first launch)
  std::string precision;   // "" = the default precision
  std::string path;        // "" = the best native path of the precision; else that path's ceiling
  double flops = 0;        // > 0
  double time_s = 0;       // > 0, the total over its launches
  std::size_t launches = 1;
  double min_time_s = 0, max_time_s = 0;  // of one launch; 0: time_s (one launch)
  std::map<std::string, double> bytes;  // level (kRooflineLevels) -> bytes moved there, >= 0
  nlohmann::json flops_by_precision;    // an object (ncu import), or null
};

// The kernel against the section's ceilings: its achieved FLOP/s, per level given its intensity
// (FLOP/byte) and ceiling (intensity x bandwidth), the compute ceiling of its precision, the
// attainable FLOP/s (the least of them), the bound and the % of the attainable. A level the model
// has no ceiling for, or a precision without a compute ceiling, is named in `notes`; with no
// ceiling at all, attainable, bound and percent are null. Throws gpuprobe::Error (one line naming
// the kernel's source) when a derived value is not a finite number (flops=1e308 over
// time_s=1e-10 overflows) or the achieved or attainable FLOP/s underflows to 0: what is written
// must be what docs/SCHEMA.md says, numbers.
nlohmann::json classify_kernel(const nlohmann::json& roofline, const RooflineKernel& kernel,
                               const std::string& default_precision);

}  // namespace gpuprobe::analysis
