// make_cuda_device for builds configured without CUDA, and built_with_cuda for every build.
#include "harness/cuda_device.hpp"
#include "harness/error.hpp"

namespace gpuprobe {

bool built_with_cuda() { return GPUPROBE_WITH_CUDA; }

}  // namespace gpuprobe

#if !GPUPROBE_WITH_CUDA
namespace gpuprobe {

std::unique_ptr<Device> make_cuda_device(int /*ordinal*/) {
  throw DeviceUnavailable(
      "this build has no CUDA support (configured with -DGPUPROBE_WITH_CUDA=OFF): use --device "
      "sim:h100");
}

}  // namespace gpuprobe
#endif
