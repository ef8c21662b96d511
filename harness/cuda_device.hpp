// The CUDA device backend. Built from harness/cuda/cuda_device.cu when GPUPROBE_WITH_CUDA is on,
// from harness/cuda_device_none.cpp otherwise (which always throws DeviceUnavailable).
#pragma once
#include <memory>

#include "harness/device.hpp"

namespace gpuprobe {

// Opens CUDA device `ordinal`. Throws DeviceUnavailable with one actionable line when there is no
// driver, no GPU, no such ordinal, or no code for the GPU's architecture in this build.
std::unique_ptr<Device> make_cuda_device(int ordinal);

// Whether this build has the CUDA backend (GPUPROBE_WITH_CUDA), for code compiled alike in both.
bool built_with_cuda();

}  // namespace gpuprobe
