// Published peaks to put measured numbers against ("% of the datasheet"), with their sources
// (docs/FIGURES.md keys). A small table on purpose: only figures a vendor page or datasheet gives.
#pragma once
#include <optional>
#include <string>

namespace gpuprobe::analysis {

struct DatasheetPeak {
  std::string gpu;            // the table's name for the part
  double dram_bytes_per_s = 0;
  std::string source;         // FIGURES.md key
  // CUDA-core peaks (dense, non-tensor; 0 where FIGURES §1 gives none), at the boost clock.
  double fp32_flops_per_s = 0;
  double fp64_flops_per_s = 0;
  std::string compute_source;
};

// The entry whose pattern the device name contains (the most specific pattern first), or none.
std::optional<DatasheetPeak> datasheet_for(const std::string& device_name);

}  // namespace gpuprobe::analysis
