// Fixed-width integers for code that NVRTC compiles too (CI checks every kernel with NVRTC 12.9,
// which has no C++ standard library headers).
#pragma once
#if defined(__CUDACC_RTC__)
using uint8_t = unsigned char;
using uint16_t = unsigned short;
using uint32_t = unsigned int;
using int32_t = int;
using uint64_t = unsigned long long;
using int64_t = long long;
#else
#include <cstdint>
#endif

// Functions that host code and device code (nvcc, NVRTC) both call.
#if defined(__CUDACC__)
#define GPUPROBE_HD __host__ __device__
#else
#define GPUPROBE_HD
#endif

namespace gpuprobe::ptx {
// kWords 32-bit words moved by one vector load or store (1, 2, 4 or 8: 4 to 32 bytes).
template <int kWords>
struct Words {
  uint32_t w[kWords];
};
}  // namespace gpuprobe::ptx
