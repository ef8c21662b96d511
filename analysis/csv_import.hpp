// Import latency curves measured by other tools (docs/ANALYSIS.md, "CSV format").
#pragma once
#include <string>

#include "analysis/curve.hpp"

namespace gpuprobe::analysis {

// Comma-separated file with a header naming its columns, in any order:
//   footprint_bytes  (required, > 0, no duplicates)
//   latency_cycles   (required, > 0)
//   latency_ns       (optional, >= 0; 0 = unknown)
// Columns with other names are ignored. Blank lines and lines whose first non-blank character is
// '#' are skipped anywhere. Rows come back sorted by footprint_bytes. At least 6 rows (what
// fit_hierarchy needs). clock_mhz_override > 0 sets Curve::clock_mhz and, when the file has no
// latency_ns column, fills latency_ns = latency_cycles / clock_mhz * 1000; 0 means no clock.
// Every malformed input throws gpuprobe::Error with one line "path:line: problem".
Curve read_latency_csv(const std::string& path, double clock_mhz_override = 0);

// The text output of te42kyfo/gpu-benches gpu-latency: a first line "clock: <MHz samples...>",
// then rows "iters clock_MHz footprint_KiB dt_ms*1000 cycles_per_load". The footprint column is
// the buffer size divided by 1024 with integer division (gpu-latency/main.cu prints
// bytes / 1024), so footprint_bytes = value * 1024 (up to 1023 bytes low). Column 4 is not ns:
// latency_ns = cycles / clock_MHz * 1000. Curve::clock_mhz = median of the rows' clocks.
Curve read_gpubenches_latency(const std::string& path);

}  // namespace gpuprobe::analysis
