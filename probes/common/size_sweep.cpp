#include "probes/common/size_sweep.hpp"

#include <cmath>
#include <string>

#include "harness/error.hpp"

namespace gpuprobe::probes {

std::vector<uint64_t> geometric_sweep(uint64_t min_bytes, uint64_t max_bytes,
                                      uint64_t points_per_octave, uint64_t granularity_bytes) {
  if (points_per_octave == 0) throw Error("points per octave must be at least 1");
  if (granularity_bytes == 0) throw Error("sweep granularity must be positive");
  if (min_bytes < granularity_bytes) min_bytes = granularity_bytes;
  if (max_bytes < min_bytes)
    throw Error("sweep maximum " + std::to_string(max_bytes) + " bytes is below the minimum " +
                std::to_string(min_bytes) + " bytes");
  std::vector<uint64_t> out;
  const double octaves = std::log2(static_cast<double>(max_bytes) / static_cast<double>(min_bytes));
  const auto steps = static_cast<uint64_t>(std::floor(octaves * static_cast<double>(points_per_octave) + 1e-9));
  for (uint64_t i = 0; i <= steps; ++i) {
    const double x = static_cast<double>(min_bytes) *
                     std::exp2(static_cast<double>(i) / static_cast<double>(points_per_octave));
    uint64_t b = static_cast<uint64_t>(std::llround(x));
    b -= b % granularity_bytes;
    if (b >= granularity_bytes && (out.empty() || b > out.back()) && b <= max_bytes)
      out.push_back(b);
  }
  uint64_t last = max_bytes - max_bytes % granularity_bytes;
  if (out.empty() || last > out.back()) out.push_back(last);
  return out;
}

void require_free_memory(ProbeContext& ctx, const char* what, uint64_t bytes, const char* param) {
  const uint64_t free_bytes = ctx.device().free_memory_bytes();
  if (bytes > free_bytes)
    throw Error(std::string(what) + " of " + std::to_string(bytes) +
                " bytes exceeds free device memory (" + std::to_string(free_bytes) +
                " bytes): lower --" + param);
}

}  // namespace gpuprobe::probes
