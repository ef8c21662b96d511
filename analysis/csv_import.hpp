// Import curves measured by other tools (docs/ANALYSIS.md, "CSV format"): latency against
// footprint, and bandwidth against footprint or against bytes in flight per SM. The kind of curve
// is told by the file's header; one table reader (csv_import.cpp) parses all three.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "analysis/bandwidth_fit.hpp"
#include "analysis/curve.hpp"
#include "analysis/launch_model.hpp"
#include "analysis/roofline_fit.hpp"

namespace gpuprobe::analysis {

// Every reader below takes a comma-separated file whose header (the first line that is neither
// blank nor a comment) names its columns, in any order; columns with other names are ignored, a
// name given twice is an error. Blank lines and lines whose first non-blank character is '#' are
// skipped anywhere; CRLF and a UTF-8 byte-order mark before the first line are accepted. Every
// data row has the header's field count; numbers are decimal, finite and not negative. Every
// malformed input throws gpuprobe::Error with one line "path:line: problem" (a line split by ';'
// or a tab gets a hint that the separator must be a comma).

enum class CsvCurveKind {
  latency,            // footprint_bytes,latency_cycles[,latency_ns]   -> read_latency_csv
  footprint_sweep,    // footprint_bytes,bandwidth_bytes_per_s         -> read_footprint_csv
  concurrency_sweep,  // bytes_in_flight_per_sm,bandwidth_bytes_per_s  -> read_concurrency_csv
  intensity_sweep,    // flop_per_byte,flop_per_s[,sm_clock_mhz]       -> read_intensity_csv
  small_kernels,      // bytes,time_s,method                           -> read_small_kernels_csv
};

// The kind whose columns the header holds (only the header is read). A header with the columns
// of no kind, or of more than one, throws "path:line: ..." listing the accepted headers.
CsvCurveKind csv_curve_kind(const std::string& path);
// "latency", "footprint sweep", "concurrency sweep", "intensity sweep".
const char* to_string(CsvCurveKind kind);

// Latency against footprint:
//   footprint_bytes  (required, > 0, no duplicates)
//   latency_cycles   (required, > 0)
//   latency_ns       (optional, >= 0; 0 = unknown)
// Rows come back sorted by footprint_bytes. At least 6 rows (what fit_hierarchy needs).
// clock_mhz_override > 0 sets Curve::clock_mhz and, when the file has no latency_ns column,
// fills latency_ns = latency_cycles / clock_mhz * 1000; 0 means no clock.
Curve read_latency_csv(const std::string& path, double clock_mhz_override = 0);

// Bandwidth against footprint (a footprint sweep, for fit_footprint_sweep):
//   footprint_bytes        (required, > 0, no duplicates)
//   bandwidth_bytes_per_s  (required, > 0)
// Rows come back sorted by footprint. At least 3 rows (what the fit needs).
std::vector<FootprintPoint> read_footprint_csv(const std::string& path);

// Bandwidth against bytes in flight per SM (a concurrency sweep, for fit_concurrency_sweep):
//   bytes_in_flight_per_sm  (required, > 0)
//   bandwidth_bytes_per_s   (required, > 0; the whole device)
// Rows come back sorted by bytes in flight (stably). Several rows may share a value (shapes
// of a sweep with the same bytes in flight: the model takes their median, as it does for a run).
// At least 3 rows.
std::vector<ConcurrencyPoint> read_concurrency_csv(const std::string& path);

// Performance against arithmetic intensity (an intensity sweep, for fit_roofline):
//   flop_per_byte          (required, > 0)
//   flop_per_s             (required, > 0; the whole device)
//   sm_clock_mhz           (optional, > 0: the SM clock of that line; the compute ceiling is then
//                           fitted per clock)
//   bandwidth_bytes_per_s  (optional, > 0: bytes/s measured on that line; else flop_per_s /
//                           flop_per_byte)
//   power_w                (optional, >= 0; 0 = unknown; only its range is reported)
// Rows come back sorted by intensity (stably); repeats of an intensity are allowed. At least 4.
std::vector<IntensityPoint> read_intensity_csv(const std::string& path);

// Small-kernel sweeps (a kernel moving `bytes` per iteration run many times; analysis/launch_model.hpp):
//   bytes   (required, > 0): bytes moved per iteration
//   time_s  (required, > 0): seconds per iteration
//   method  (required, text): how the iterations ran (stream, graph, gsync, pt or any name)
// One curve per method, in the order the methods first appear, each with at least 3 rows.
std::vector<std::pair<std::string, std::vector<SmallKernelPoint>>> read_small_kernels_csv(
    const std::string& path);

// What an imported curve's numbers say of their units: one warning line per column whose values
// are orders of magnitude off what any GPU gives in the header's unit, naming the file, the column,
// the value and the unit it reads like ("PATH: bandwidth_bytes_per_s reaches only 25000 bytes/s
// ...: if it is in GB/s, multiply it by 1e9"); none when they are plausible. Warnings, never
// refusals (docs/ANALYSIS.md, "CSV format", gives the ranges).
std::vector<std::string> implausible_units(const std::string& path, const Curve& curve);
std::vector<std::string> implausible_units(const std::string& path,
                                           const std::vector<FootprintPoint>& points);
std::vector<std::string> implausible_units(const std::string& path,
                                           const std::vector<ConcurrencyPoint>& points);
std::vector<std::string> implausible_units(const std::string& path,
                                           const std::vector<IntensityPoint>& points);
std::vector<std::string> implausible_units(
    const std::string& path,
    const std::vector<std::pair<std::string, std::vector<SmallKernelPoint>>>& methods);

// The text output of te42kyfo/gpu-benches gpu-latency: a first line "clock: <MHz samples...>",
// then rows "iters clock_MHz footprint_KiB dt_ms*1000 cycles_per_load" (the 2024 files), or the
// same plus "median p5 p95" cycles (8 columns: the 2025 files, one thread, L1 carve-out 0; the
// percentiles are checked, p5 <= median <= p95, and not used). One file holds one format. The
// footprint column is the buffer size / 1024 (the 2024 main.cu divides integers; the 2025 files
// print one decimal), so footprint_bytes = value * 1024 (up to 1023 bytes low, or 51 bytes off).
// Column 4 is not ns: latency_ns = cycles / clock_MHz * 1000. Curve::clock_mhz = median of the
// rows' clocks.
Curve read_gpubenches_latency(const std::string& path);

}  // namespace gpuprobe::analysis
