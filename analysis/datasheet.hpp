// Published peaks to put measured numbers against ("% of the datasheet"), with their sources
// (docs/FIGURES.md keys). A small table on purpose: only figures a vendor page or datasheet gives.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpuprobe::analysis {

// The figures a part's datasheet publishes (analysis/datasheet.cpp's table).
struct DatasheetFigures {
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

struct DatasheetPeak : DatasheetFigures {
  // The SM count and clocks the figures are quoted at (0: not published), so that "% of the
  // datasheet" compares per SM per clock: a figure / (SMs x its clock) against the measured rate
  // per SM per clock. The CUDA-core figures are at the boost clock; the tensor-core ones at the
  // tensor spec clock (1830 MHz on an H100 SXM, not its 1980 MHz boost).
  int sm_count = 0;
  double compute_clock_mhz = 0;
  double tensor_clock_mhz = 0;
  std::string clock_source;
};

// The clock a figure is quoted at, named for the report: its MHz (0: not published) and which
// clock that is ("boost clock", "tensor spec clock").
struct SpecClock {
  double mhz = 0;
  const char* name = "";
};
inline SpecClock compute_clock(const DatasheetPeak& peak) { return {peak.compute_clock_mhz, "boost clock"}; }
// The tensor figures' clock: the tensor spec clock, except FP64's, which is at the boost clock
// (H100 SXM: 67 TFLOPS = 132 SMs x 256 FLOP/clk x 1980 MHz, where f16's 989 is 4096 x 1830 MHz).
inline SpecClock tensor_clock(const DatasheetPeak& peak, const std::string& precision) {
  if (precision == "f64") return compute_clock(peak);
  return {peak.tensor_clock_mhz, "tensor spec clock"};
}

// A rate figure per SM per clock: figure / (SMs x clock), or 0 when either is unknown.
double figure_per_sm_per_clock(double figure_per_s, int sm_count, double clock_mhz);

// % of a datasheet figure: the measured rate per SM per clock against the figure's
// (figure_per_sm_per_clock) when both are known, else the rates themselves (measured / figure).
// Returns 0 when the figure is 0.
double percent_of_figure(double measured_per_s, double measured_per_sm_per_clock, double figure_per_s,
                         int sm_count, double clock_mhz);

// The dense tensor-core peak for `precision` (names as in tensor_flops_per_s), or 0.
double tensor_peak_flops_per_s(const DatasheetPeak& peak, const std::string& precision);

// The entry whose pattern the device name contains (the most specific pattern first), or none.
std::optional<DatasheetPeak> datasheet_for(const std::string& device_name);

}  // namespace gpuprobe::analysis
