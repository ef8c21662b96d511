#include "analysis/datasheet.hpp"

#include <algorithm>
#include <cctype>

namespace gpuprobe::analysis {
namespace {

struct Entry {
  const char* pattern;   // lower case, matched against the lower-cased device name
  DatasheetPeak peak;
};

// docs/FIGURES.md section 1 ("Mem BW"); most specific patterns first.
const Entry kTable[] = {
    {"h100 pcie", {"H100 PCIe", 2000e9, "FIGURES §1 D [HPCTECH], [MLE]"}},
    {"h100 nvl", {"H100 NVL", 3900e9, "FIGURES §1 S via [MLE]"}},
    {"h100", {"H100 SXM5", 3350e9, "FIGURES §1 D [HPCTECH]"}},
    {"h200", {"H200 SXM", 4800e9, "FIGURES §1 D [MLE]"}},
    {"a100 80gb pcie", {"A100 80GB PCIe", 1935e9, "FIGURES §1 D [GLK], [TC-A100]"}},
    {"a100-sxm4-80gb", {"A100 80GB SXM", 2039e9, "FIGURES §1 D [GLK], [TC-A100]"}},
    {"a100", {"A100 40GB", 1555e9, "FIGURES §1 D [A100-DS via GLK, PC2]"}},
    {"v100", {"V100", 900e9, "FIGURES §1 D [NVBLOG-TC9]"}},
    {"l40s", {"L40S", 860e9, "FIGURES §1 D [MLE]"}},
    {"a40", {"A40", 696e9, "FIGURES §1 D [A40-DS via ecer]"}},
    {"b200", {"B200", 8000e9, "FIGURES §1"}},
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
