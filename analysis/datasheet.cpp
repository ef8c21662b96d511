#include "analysis/datasheet.hpp"

#include <algorithm>
#include <cctype>

namespace gpuprobe::analysis {
namespace {

struct Entry {
  const char* pattern;   // lower case, matched against the lower-cased device name
  DatasheetFigures peak;
};

// docs/FIGURES.md section 1 ("Mem BW", "FP32", "FP64"); most specific patterns first.
const Entry kTable[] = {
    {"h100 pcie", {"H100 PCIe", 2000e9, "FIGURES §1 D [HPCTECH], [MLE]", 51e12, 26e12, "FIGURES §1 D [HPCTECH]",
                   {{"f64", 51e12}, {"tf32", 378e12}, {"f16", 756e12}, {"bf16", 756e12}, {"e4m3", 1513e12}, {"e5m2", 1513e12}, {"s8", 1513e12}},
                   "FIGURES §1 D [HPCTECH]"}},
    {"h100 nvl", {"H100 NVL", 3900e9, "FIGURES §1 S via [MLE]"}},
    {"h100", {"H100 SXM5", 3350e9, "FIGURES §1 D [HPCTECH]", 67e12, 34e12, "FIGURES §1 D [HPCTECH]",
                   {{"f64", 67e12}, {"tf32", 494.5e12}, {"f16", 989e12}, {"bf16", 989e12}, {"e4m3", 1979e12}, {"e5m2", 1979e12}, {"s8", 1979e12}},
                   "FIGURES §1 D [HPCTECH] (sparse figures halved)"}},
    // GH200 (its name holds "h200"): H100 SXM compute; its DRAM is 4000 or 4800 GB/s by the HBM
    // fitted (96 GB HBM3 or 141/144 GB HBM3e), which the name does not tell: no DRAM figure.
    {"gh200", {"GH200", 0, "FIGURES §1 D [MLE] (DRAM 4000 or 4800 GB/s by memory: none taken)", 67e12, 34e12,
                   "FIGURES §1 D [MLE] (= H100 SXM)",
                   {{"f64", 67e12}, {"tf32", 494.5e12}, {"f16", 989e12}, {"bf16", 989e12}, {"e4m3", 1979e12}, {"e5m2", 1979e12}, {"s8", 1979e12}},
                   "FIGURES §1 D [MLE] (= H100 SXM)"}},
    {"h200", {"H200 SXM", 4800e9, "FIGURES §1 D [MLE]", 67e12, 34e12, "FIGURES §1 D [MLE]",
                   {{"f64", 67e12}, {"tf32", 494.5e12}, {"f16", 989e12}, {"bf16", 989e12}, {"e4m3", 1979e12}, {"e5m2", 1979e12}, {"s8", 1979e12}},
                   "FIGURES §1 D [MLE]"}},
    {"a100 80gb pcie", {"A100 80GB PCIe", 1935e9, "FIGURES §1 D [GLK], [TC-A100]", 19.5e12, 9.7e12, "FIGURES §1 D [GLK]",
                   {{"f64", 19.5e12}, {"tf32", 156e12}, {"f16", 312e12}, {"bf16", 312e12}, {"s8", 624e12}, {"s4", 1248e12}}, "FIGURES §1 D [GLK], [TC-A100]"}},
    {"a100-sxm4-80gb", {"A100 80GB SXM", 2039e9, "FIGURES §1 D [GLK], [TC-A100]", 19.5e12, 9.7e12, "FIGURES §1 D [GLK]",
                   {{"f64", 19.5e12}, {"tf32", 156e12}, {"f16", 312e12}, {"bf16", 312e12}, {"s8", 624e12}, {"s4", 1248e12}}, "FIGURES §1 D [GLK], [TC-A100]"}},
    {"a100", {"A100 40GB", 1555e9, "FIGURES §1 D [A100-DS via GLK, PC2]", 19.5e12, 9.7e12, "FIGURES §1 D [A100-DS via GLK, PC2]",
                   {{"f64", 19.5e12}, {"tf32", 156e12}, {"f16", 312e12}, {"bf16", 312e12}, {"s8", 624e12}, {"s4", 1248e12}}, "FIGURES §1 D [A100-DS via GLK, PC2]"}},
    // The PCIe card boosts to 1380 MHz, not the SXM2's 1530: its CUDA-core peak is derived from
    // FIGURES §1's clock and SM count (80 SMs x 128 FP32 FLOP/clk x 1380 MHz; FP64 half of it),
    // its f16 tensor peak from the SXM2's 125 TFLOPS scaled by the clocks (125 x 1380 / 1530).
    {"v100-pcie", {"V100 PCIe", 900e9, "FIGURES §1 D [NVBLOG-TC9]", 14.13e12, 7.07e12,
                   "derived: 80 SMs x 128 FLOP/clk x 1380 MHz (FIGURES §1 D [TPU-DB] clocks, P [MT4G] SMs)",
                   {{"f16", 112.7e12}},
                   "derived: FIGURES §1 D [NVBLOG-TC9] 125 TF (mixed precision, SXM2) x 1380 / 1530 MHz (D [TPU-DB] clocks)"}},
    {"v100", {"V100", 900e9, "FIGURES §1 D [NVBLOG-TC9]", 15.7e12, 7.8e12, "FIGURES §1 D [FUDZ] (SXM2)",
                   {{"f16", 125e12}}, "FIGURES §1 D [NVBLOG-TC9] (mixed precision, SXM2)"}},
    // FIGURES §1 T4 row: 320 GB/s, FP32 8.1, FP64 0.25 TFLOPS, FP16 TC 65 (D [TPU-DB]), INT8 130
    // TOPS (S [T4-INT8]). "tesla t4", not "t4": a Quadro T400 holds "t4" too.
    {"tesla t4", {"T4", 320e9, "FIGURES §1 D [TPU-DB]", 8.1e12, 0.25e12, "FIGURES §1 D [TPU-DB]",
                   {{"f16", 65e12}, {"s8", 130e12}}, "FIGURES §1 D [TPU-DB] (FP16), S [T4-INT8] (INT8)"}},
    // FIGURES §1 RTX 4090 row: 1008 GB/s, FP32 82.6; its tensor figures are marked "likely with
    // sparsity — verify", so none is given here.
    {"rtx 4090", {"RTX 4090", 1008e9, "FIGURES §1 D [TOMS-ADA], [FPSREV]", 82.6e12, 0,
                   "FIGURES §1 D [TOMS-ADA], [FPSREV]", {}, ""}},
    {"l40s", {"L40S", 860e9, "FIGURES §1 D [MLE]", 91.6e12, 0, "FIGURES §1 D [MLE]",
                   {{"tf32", 183e12}, {"f16", 362e12}, {"bf16", 362e12}, {"e4m3", 733e12}, {"e5m2", 733e12}, {"s8", 733e12}},
                   "FIGURES §1 D [MLE]"}},
    {"a40", {"A40", 696e9, "FIGURES §1 D [A40-DS via ecer]", 37.4e12, 0, "FIGURES §1 D [A40-DS via ecer]",
                   {{"tf32", 74.8e12}, {"f16", 149.7e12}, {"bf16", 149.7e12}, {"s8", 299.3e12}, {"s4", 598.7e12}},
                   "FIGURES §1 D [A40-DS via ecer]"}},
    // GB200 before B200: its name contains "b200" and its peaks are higher. The block-scaled
    // mxf8_e4m3 (tcgen05 kind::mxf8f6f4) at the FP8 peak: FIGURES §5a M [SA] "FP8/INT8/MXF8
    // ~16,345 of 16,384"; mxf4/nvf4 (kind::mxf4, mxf4nvf4) at the dense FP4 figure.
    {"gb200", {"GB200", 8000e9, "FIGURES §1 D [MLE]", 80e12, 0, "FIGURES §1 D [MLE]",
                   {{"tf32", 1250e12}, {"f16", 2500e12}, {"bf16", 2500e12}, {"e4m3", 5000e12}, {"e5m2", 5000e12}, {"s8", 5000e12}, {"mxf8_e4m3", 5000e12}, {"mxf4", 10000e12}, {"nvf4", 10000e12}},
                   "FIGURES §1 D [MLE]"}},
    {"b200", {"B200", 8000e9, "FIGURES §1", 80e12, 0, "FIGURES §1 D [MLE] (FP64 37 uncertain: left out)",
                   {{"tf32", 1125e12}, {"f16", 2250e12}, {"bf16", 2250e12}, {"e4m3", 4500e12}, {"e5m2", 4500e12}, {"s8", 4500e12}, {"mxf8_e4m3", 4500e12}, {"mxf4", 9000e12}, {"nvf4", 9000e12}},
                   "FIGURES §1 D [MLE]/DGX-B200 DS"}},
    // FIGURES §1 gives the RTX 5090's tensor-core peaks with sparsity only: dense is half of each.
    // Its FP4 figure is the block-scaled path (OMMA; FIGURES §5a: "FP4 via QMMA unless block-scaled
    // -> OMMA", mma.sync FP4 375.9 vs CUTLASS nvfp4 651.6 TF on the RTX 6000D): mxf4 and nvf4, not
    // plain e2m1 (kind::f8f6f4, QMMA at about the FP8 rate). FP8 covers the block-scaled mxf8 too.
    {"rtx 5090", {"RTX 5090", 1792e9, "FIGURES §1 D [LXF-5090], [SPHERON]", 104e12, 0,
                   "FIGURES §1 D [LXF-5090], [SPHERON] (FP64 not published there)",
                   {{"f16", 419e12}, {"bf16", 419e12}, {"e4m3", 838.5e12}, {"e5m2", 838.5e12},
                    {"mxf8_e4m3", 838.5e12}, {"mxf8_e5m2", 838.5e12}, {"mxf4", 1676e12}, {"nvf4", 1676e12}},
                   "FIGURES §1 D [LXF-5090], [SPHERON] (sparse halved)"}},
};

// The SMs and clocks each part's figures are quoted at (docs/FIGURES.md §1: its SMs and boost
// clock columns), by the table's `gpu`. Each figure / (SMs x clock) is a whole per-SM-per-clock
// rate (256 FP32 FLOP/clk/SM, 4096 dense f16 on GH100: tests/analysis/test_datasheet.cpp checks
// every one), which is how a clock is known to be the one the figure assumes. A part missing here
// (H100 NVL, L40S, GB200: SMs or clock unpublished) keeps its percentages as rate over rate.
struct Clocks {
  const char* gpu;
  int sm_count;
  double compute_mhz, tensor_mhz;  // 0: not published
  const char* source;
};
const Clocks kClocks[] = {
    // NVIDIA's H100 whitepaper (Table 3) quotes the H100 PCIe tensor figures at a 1620 MHz boost
    // clock, below the card's 1755 MHz: 756 TFLOPS = 114 SMs x 4096 FLOP/clk x 1620 MHz.
    {"H100 PCIe", 114, 1755, 1620,
     "FIGURES §1 (114 SMs, 1755 MHz boost; tensor spec clock 1620 MHz [H100-WP])"},
    {"H100 SXM5", 132, 1980, 1830,
     "FIGURES §1 (132 SMs, 1980 MHz boost, 1830 MHz tensor spec clock [MLE]; §9 note 6)"},
    {"GH200", 132, 1980, 1830, "FIGURES §1 (= H100 SXM: 1980 MHz boost, 1830 MHz tensor spec clock)"},
    {"H200 SXM", 132, 1980, 1830,
     "FIGURES §1 (the H100 SXM's figures: 1980 MHz boost, 1830 MHz tensor spec clock)"},
    {"A100 80GB PCIe", 108, 1410, 1410, "FIGURES §1 (108 SMs, 1410 MHz boost)"},
    {"A100 80GB SXM", 108, 1410, 1410, "FIGURES §1 (108 SMs, 1410 MHz boost)"},
    {"A100 40GB", 108, 1410, 1410, "FIGURES §1 (108 SMs, 1410 MHz boost)"},
    {"V100 PCIe", 80, 1380, 1380, "FIGURES §1 (80 SMs, 1380 MHz PCIe boost)"},
    {"V100", 80, 1530, 1530, "FIGURES §1 (80 SMs, 1530 MHz SXM2 boost)"},
    {"T4", 40, 1590, 1590, "FIGURES §1 (40 SMs, 1590 MHz boost)"},
    {"RTX 4090", 128, 2520, 0, "FIGURES §1 (128 SMs, 2520 MHz boost)"},
    {"A40", 84, 1740, 1740,
     "FIGURES §1 (84 SMs, 1740 MHz: its figures are 84 SMs x per-clock rates x 1740 MHz)"},
    // The B200's FP32 80 TFLOPS would need 2.11 GHz at 256 FLOP/clk/SM: no CUDA-core clock.
    {"B200", 148, 0, 1850,
     "FIGURES §1 (148 SMs; tensor clock 1.85 GHz as FIGURES §1 derives the 2250 TF figure)"},
    {"RTX 5090", 170, 2407, 2407, "FIGURES §1 (170 SMs, 2407 MHz boost)"},
};

}  // namespace

std::optional<DatasheetPeak> datasheet_for(const std::string& device_name) {
  std::string name = device_name;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& e : kTable)
    if (name.find(e.pattern) != std::string::npos) {
      DatasheetPeak peak;
      static_cast<DatasheetFigures&>(peak) = e.peak;
      for (const auto& c : kClocks)
        if (peak.gpu == c.gpu) {
          peak.sm_count = c.sm_count;
          peak.compute_clock_mhz = c.compute_mhz;
          peak.tensor_clock_mhz = c.tensor_mhz;
          peak.clock_source = c.source;
        }
      return peak;
    }
  return std::nullopt;
}

double figure_per_sm_per_clock(double figure_per_s, int sm_count, double clock_mhz) {
  return figure_per_s > 0 && sm_count > 0 && clock_mhz > 0 ? figure_per_s / (sm_count * clock_mhz * 1e6) : 0;
}

double percent_of_figure(double measured_per_s, double measured_per_sm_per_clock, double figure_per_s,
                         int sm_count, double clock_mhz) {
  if (!(figure_per_s > 0)) return 0;
  const double figure_per_clock = figure_per_sm_per_clock(figure_per_s, sm_count, clock_mhz);
  if (figure_per_clock > 0 && measured_per_sm_per_clock > 0)
    return 100.0 * measured_per_sm_per_clock / figure_per_clock;
  return 100.0 * measured_per_s / figure_per_s;
}

double tensor_peak_flops_per_s(const DatasheetPeak& peak, const std::string& precision) {
  for (const auto& [p, flops] : peak.tensor_flops_per_s)
    if (p == precision) return flops;
  return 0;
}

}  // namespace gpuprobe::analysis
