// Readers for the text output of te42kyfo/gpu-benches bandwidth benchmarks (formats:
// tests/data/real/gpu-benches/*/PROVENANCE.md), and their conversion to the inputs of
// analysis/bandwidth_fit.hpp. The files' "kB" are KiB (the benchmarks print bytes / 1024) and
// "GB/s" are 1e9 bytes/s. Every malformed input throws gpuprobe::Error with one line
// "path:line: problem".
#pragma once
#include <string>
#include <vector>

#include "analysis/bandwidth_fit.hpp"
#include "analysis/roofline_fit.hpp"

namespace gpuprobe::analysis {

// Counters in GB/s that gpu-cache and gpu-l2-cache print after the bandwidth (0: not collected).
struct GpuBenchesCounters {
  double dram_read_bytes_per_s = 0;
  double dram_write_bytes_per_s = 0;
  double l2_read_bytes_per_s = 0;
  double l2_write_bytes_per_s = 0;
};

// gpu-cache: one block per SM, all re-reading one buffer. Rows
// "data_set_kB exec_time_ms spread_% bandwidth_GB/s [4 counters GB/s]"; an optional first line
// "clock: <MHz samples>".
struct GpuBenchesCacheRow {
  double footprint_bytes = 0;
  double exec_time_ms = 0;
  double spread_percent = 0;
  double bandwidth_bytes_per_s = 0;  // summed over all SMs
  GpuBenchesCounters counters;
};
struct GpuBenchesCacheFile {
  std::vector<double> clock_mhz_samples;  // empty when the file has no clock line
  std::vector<GpuBenchesCacheRow> rows;   // in file order (increasing footprint)
};
GpuBenchesCacheFile read_gpubenches_cache(const std::string& path);

// gpu-l2-cache: blocks re-reading slices shared with other blocks. Rows
// "per_block_kB total_kB time_ms spread_% bandwidth_GB/s [4 counters GB/s]".
struct GpuBenchesL2Row {
  double per_block_bytes = 0;
  double footprint_bytes = 0;        // the total footprint
  double time_ms = 0;
  double spread_percent = 0;
  double bandwidth_bytes_per_s = 0;
  GpuBenchesCounters counters;
};
std::vector<GpuBenchesL2Row> read_gpubenches_l2_cache(const std::string& path);

// gpu-stream: a header naming the kernels after '|', rows
// "blockSize threads occupancy % | GB/s: <one value per kernel>" with threads = blockSize x SMs.
struct GpuBenchesStreamRow {
  int block_size = 0;
  long long threads = 0;
  double occupancy_percent = 0;
  std::vector<double> bandwidth_bytes_per_s;  // one per kernel, in header order
};
struct GpuBenchesStreamFile {
  std::vector<std::string> kernels;  // "init", "read", "scale", "triad", ...
  std::vector<GpuBenchesStreamRow> rows;
  int sm_count = 0;                  // threads / blockSize, the same on every row (checked)
};
GpuBenchesStreamFile read_gpubenches_stream(const std::string& path);

// gpu-strides: rows "type mode stride arg cycles bytes_per_cycle [counters]", type float or
// double, mode "stride" or "block"; an optional "clock:" line; blank lines between groups.
struct GpuBenchesStrideRow {
  std::string type;                  // "float", "double"
  int word_bytes = 0;                // 4, 8
  std::string mode;                  // "stride", "block"
  int stride = 0;                    // stride in elements (mode stride) or block width (block)
  int arg = 0;                       // the second number (stride again, or the block pitch)
  double cycles = 0;                 // per warp-wide load
  double bytes_per_cycle = 0;        // of one SM
  // Per warp-wide load: l1tex__data_pipe_lsu_wavefronts, l1tex__t_output_wavefronts (global
  // loads), lts__t_sectors (gpu-strides/main.cu); empty when not printed.
  std::vector<double> counters;
};
struct GpuBenchesStridesFile {
  std::vector<double> clock_mhz_samples;
  std::vector<GpuBenchesStrideRow> rows;
};
GpuBenchesStridesFile read_gpubenches_strides(const std::string& path);

// gpu-roofline: an FP32 FMA/load intensity sweep, one line per device and configuration:
// "device blocks blocks its its flop_per_byte Fl/B GB/s GB/s GF/s GF/s MHz Mhz W W degC°C"
// (values glued to or followed by their units). Before the first row a file may hold a preamble
// of lines that are one whole number each (the sweep's iteration counts and device count the run
// printed) and a "-- Finished Building --" line; both are skipped there and rejected later.
struct GpuBenchesRooflineRow {
  int device = 0;                    // the GPU of a multi-GPU node the line came from
  int blocks = 0;
  int iterations = 0;                // inner FMA iterations per load
  double flop_per_byte = 0;
  double bytes_per_s = 0;
  double flop_per_s = 0;
  double sm_clock_mhz = 0;           // as recorded on the line (NVML)
  double watts = 0;
  double temperature_c = 0;
};
std::vector<GpuBenchesRooflineRow> read_gpubenches_roofline(const std::string& path);

// --- conversions to the fits' inputs ----------------------------------------------------------
std::vector<FootprintPoint> footprint_points(const GpuBenchesCacheFile& file);
std::vector<FootprintPoint> footprint_points(const std::vector<GpuBenchesL2Row>& rows);
// One kernel's column as a concurrency sweep. gpu-stream does not say how many blocks are
// resident per SM, so x = block_size x bytes_per_thread_in_flight: proportional to the bytes in
// flight per SM (exact for one resident block), enough for the peak, not for absolute latency.
// Throws gpuprobe::Error naming the kernels when `kernel` is not one of them.
std::vector<ConcurrencyPoint> concurrency_points(const GpuBenchesStreamFile& file,
                                                 const std::string& kernel,
                                                 double bytes_per_thread_in_flight);
// The rows (of one device when device >= 0, of all when -1) as roofline-fit points, each with its
// recorded clock.
std::vector<IntensityPoint> intensity_points(const std::vector<GpuBenchesRooflineRow>& rows, int device = -1);
// The rows of one element type in mode "stride", as stride points.
std::vector<StridePoint> stride_points(const GpuBenchesStridesFile& file, int word_bytes);

}  // namespace gpuprobe::analysis
