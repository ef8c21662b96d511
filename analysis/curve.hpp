// A latency curve: what the analysis consumes, from our own probes or imported from any tool.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gpuprobe::analysis {

struct CurvePoint {
  double x = 0;                 // footprint_bytes, stride_bytes or span_bytes (see Curve::x_name)
  double latency_cycles = 0;    // the value the fit uses (mean latency per hop)
  double latency_ns = 0;        // 0 when unknown
};

struct Curve {
  std::string x_name = "footprint_bytes";
  double clock_mhz = 0;         // SM clock the cycles were counted at; 0 when unknown
  std::vector<CurvePoint> points;  // sorted by x, strictly increasing
};

}  // namespace gpuprobe::analysis
