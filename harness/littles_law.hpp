// The loaded-latency model of a memory level, shared by the simulator (which produces bandwidth
// from it) and the analysis (which fits it): Little's law
//     bandwidth x latency(bandwidth) = bytes in flight
// with a latency that grows as the bandwidth approaches the level's peak (a queue in front of it):
//     latency(B) = unloaded + queue x B / (peak - B)
// Units are the caller's, consistently: e.g. bytes/cycle, cycles and bytes. Host code only.
#pragma once
#include <cmath>

namespace gpuprobe::littles_law {

struct LoadedLatency {
  double unloaded = 0;   // latency at no load
  double queue = 0;      // how fast the latency grows near the peak (same unit as unloaded)
  double peak = 0;       // bandwidth the level cannot exceed
};

// latency(B) for 0 <= B < peak; infinity at or past the peak.
inline double latency_at(const LoadedLatency& m, double bandwidth) {
  if (bandwidth >= m.peak) return INFINITY;
  return m.unloaded + m.queue * bandwidth / (m.peak - bandwidth);
}

// The bandwidth that `bytes_in_flight` sustains: the B in [0, peak) with B x latency(B) equal to
// it. B x latency(B) grows strictly with B, so the root is unique; bisection to 1e-12 of the peak.
inline double bandwidth_for(const LoadedLatency& m, double bytes_in_flight) {
  if (!(bytes_in_flight > 0) || !(m.peak > 0) || !(m.unloaded > 0)) return 0;
  double lo = 0, hi = m.peak;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * m.peak; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid * latency_at(m, mid) < bytes_in_flight) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

// The bytes in flight that reach `fraction` (0..1) of the peak.
inline double bytes_in_flight_for(const LoadedLatency& m, double fraction) {
  const double b = fraction * m.peak;
  return b * latency_at(m, b);
}

}  // namespace gpuprobe::littles_law
