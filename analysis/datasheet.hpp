// Published peaks to put measured numbers against ("% of the datasheet"), with their sources
// (docs/FIGURES.md keys). A small table on purpose: only figures a vendor page or datasheet gives.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpuprobe::analysis {

struct DatasheetPeak {
  std::string gpu;            // the table's name for the part
  double dram_bytes_per_s = 0;  // 0: no one figure published for the part (no DRAM % then)
  std::string source;         // FIGURES.md key
  // CUDA-core peaks (dense, non-tensor; 0 where FIGURES §1 gives none), at the boost clock.
  double fp32_flops_per_s = 0;
  double fp64_flops_per_s = 0;
  std::string compute_source;
  // Dense tensor-core peaks per input precision ("f16", "bf16", "tf32", "f64", "e4m3", "e5m2",
  // "s8", "s4"; the block-scaled "mxf8_e4m3", "mxf4", "nvf4": tensor/mma's mma_precision), from
  // FIGURES §1's TC columns; a precision left out has no published peak. Blackwell's FP4 figures
  // are the block-scaled kinds': no entry says "e2m1" (plain kind::f8f6f4 fp4 runs at the FP8 rate).
  std::vector<std::pair<std::string, double>> tensor_flops_per_s;
  std::string tensor_source;
};

// The dense tensor-core peak for `precision` (names as in tensor_flops_per_s), or 0.
double tensor_peak_flops_per_s(const DatasheetPeak& peak, const std::string& precision);

// The entry whose pattern the device name contains (the most specific pattern first), or none.
std::optional<DatasheetPeak> datasheet_for(const std::string& device_name);

}  // namespace gpuprobe::analysis
