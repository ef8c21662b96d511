#include "analysis/datasheet.hpp"

#include <algorithm>
#include <cctype>

namespace gpuprobe::analysis {
namespace {

struct Entry {
  const char* pattern;   // lower case, matched against the lower-cased device name
  DatasheetPeak peak;
};

// docs/FIGURES.md section 1 ("Mem BW", "FP32", "FP64"); most specific patterns first.
const Entry kTable[] = {
    {"h100 pcie", {"H100 PCIe", 2000e9, "FIGURES §1 D [HPCTECH], [MLE]", 51e12, 26e12, "FIGURES §1 D [HPCTECH]"}},
    {"h100 nvl", {"H100 NVL", 3900e9, "FIGURES §1 S via [MLE]"}},
    {"h100", {"H100 SXM5", 3350e9, "FIGURES §1 D [HPCTECH]", 67e12, 34e12, "FIGURES §1 D [HPCTECH]"}},
    {"h200", {"H200 SXM", 4800e9, "FIGURES §1 D [MLE]", 67e12, 34e12, "FIGURES §1 D [MLE]"}},
    {"a100 80gb pcie", {"A100 80GB PCIe", 1935e9, "FIGURES §1 D [GLK], [TC-A100]", 19.5e12, 9.7e12, "FIGURES §1 D [GLK]"}},
    {"a100-sxm4-80gb", {"A100 80GB SXM", 2039e9, "FIGURES §1 D [GLK], [TC-A100]", 19.5e12, 9.7e12, "FIGURES §1 D [GLK]"}},
    {"a100", {"A100 40GB", 1555e9, "FIGURES §1 D [A100-DS via GLK, PC2]", 19.5e12, 9.7e12, "FIGURES §1 D [A100-DS via GLK, PC2]"}},
    // The PCIe card boosts to 1380 MHz, not the SXM2's 1530: its CUDA-core peak is derived from
    // FIGURES §1's clock and SM count (80 SMs x 128 FP32 FLOP/clk x 1380 MHz; FP64 half of it).
    {"v100-pcie", {"V100 PCIe", 900e9, "FIGURES §1 D [NVBLOG-TC9]", 14.13e12, 7.07e12,
                   "derived: 80 SMs x 128 FLOP/clk x 1380 MHz (FIGURES §1 D [TPU-DB] clocks, P [MT4G] SMs)"}},
    {"v100", {"V100", 900e9, "FIGURES §1 D [NVBLOG-TC9]", 15.7e12, 7.8e12, "FIGURES §1 D [FUDZ] (SXM2)"}},
    {"l40s", {"L40S", 860e9, "FIGURES §1 D [MLE]", 91.6e12, 0, "FIGURES §1 D [MLE]"}},
    {"a40", {"A40", 696e9, "FIGURES §1 D [A40-DS via ecer]", 37.4e12, 0, "FIGURES §1 D [A40-DS via ecer]"}},
    {"b200", {"B200", 8000e9, "FIGURES §1", 80e12, 0, "FIGURES §1 D [MLE] (FP64 37 uncertain: left out)"}},
};

}  // namespace

std::optional<DatasheetPeak> datasheet_for(const std::string& device_name) {
  std::string name = device_name;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& e : kTable)
    if (name.find(e.pattern) != std::string::npos) return e.peak;
  return std::nullopt;
}

}  // namespace gpuprobe::analysis
