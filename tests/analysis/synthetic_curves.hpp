// Synthetic latency curves with known levels, for the analysis tests and benchmarks.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "analysis/curve.hpp"

namespace gpuprobe::analysis::testing {

struct SyntheticLevel {
  double latency_cycles = 0;
  double capacity_bytes = 0;  // last footprint at this level; ignored for the last level
  // Extra noise on this level's flat part only, uniform in +-wobble_rel (a noisy far L2).
  double wobble_rel = 0;
};

struct SyntheticSpec {
  std::vector<SyntheticLevel> levels;
  double x_first_bytes = 1024;
  double x_ratio = 1.1;           // geometric sweep step
  int points = 120;
  double knee_octaves = 0;        // 0: sharp knee; else the step spreads over this many octaves
  double noise_rel = 0;           // multiplicative Gaussian noise (sigma, relative)
  std::uint32_t seed = 1;
  double clock_mhz = 0;
};

// Latency at footprint x: level k up to its capacity, then a smoothstep in log2(x) over
// knee_octaves to level k+1 (a sharp step when knee_octaves == 0).
inline double synthetic_latency(const SyntheticSpec& spec, double x) {
  double latency = spec.levels.front().latency_cycles;
  for (std::size_t k = 0; k + 1 < spec.levels.size(); ++k) {
    const double c = spec.levels[k].capacity_bytes;
    const double step = spec.levels[k + 1].latency_cycles - spec.levels[k].latency_cycles;
    double t = 0;
    if (x > c) {
      if (spec.knee_octaves <= 0) {
        t = 1;
      } else {
        const double s = std::min(1.0, std::log2(x / c) / spec.knee_octaves);
        t = s * s * (3 - 2 * s);
      }
    }
    latency += t * step;
  }
  return latency;
}

// Index of the level whose flat part holds x (past the previous knee, up to its capacity), or -1.
inline int flat_level_at(const SyntheticSpec& spec, double x) {
  for (std::size_t k = 0; k < spec.levels.size(); ++k) {
    const bool last = k + 1 == spec.levels.size();
    if (!last && x > spec.levels[k].capacity_bytes) continue;
    if (k > 0 && x <= spec.levels[k - 1].capacity_bytes * std::exp2(spec.knee_octaves)) return -1;
    return static_cast<int>(k);
  }
  return -1;
}

inline Curve make_curve(const SyntheticSpec& spec) {
  Curve curve;
  curve.clock_mhz = spec.clock_mhz;
  std::mt19937 rng(spec.seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::uniform_real_distribution<double> wobble(-1.0, 1.0);
  double x = spec.x_first_bytes;
  for (int i = 0; i < spec.points; ++i) {
    CurvePoint p;
    p.x = std::round(x);
    p.latency_cycles = synthetic_latency(spec, p.x) * (1.0 + spec.noise_rel * noise(rng));
    const int flat = flat_level_at(spec, p.x);
    if (flat >= 0 && spec.levels[static_cast<std::size_t>(flat)].wobble_rel > 0)
      p.latency_cycles *= 1.0 + spec.levels[static_cast<std::size_t>(flat)].wobble_rel * wobble(rng);
    if (!curve.points.empty() && p.x <= curve.points.back().x) p.x = curve.points.back().x + 1;
    curve.points.push_back(p);
    x *= spec.x_ratio;
  }
  return curve;
}

}  // namespace gpuprobe::analysis::testing
