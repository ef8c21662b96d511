// The contract between the harness's kernels (harness/cuda/kernels.cu) and their host side
// (harness/cuda/cuda_device.cpp, timing.cpp). Plain C++ that nvcc, NVRTC and g++ all compile.
#pragma once
#include "ptx/types.cuh"

namespace gpuprobe::cuda {

// What gpuprobe_sm_clock reports: %clock64 and %globaltimer over one spin, and the SM.
struct ClockOut {
  uint64_t cycles;
  uint64_t ns;
  uint32_t smid;
};

}  // namespace gpuprobe::cuda
