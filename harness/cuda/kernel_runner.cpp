// KernelRunner (harness/kernel_runner.hpp) on a CUDA GPU: cudaMalloc'd buffers, and launches
// through the one launch path (harness/cuda/launch.hpp).
#include "harness/kernel_runner.hpp"

#include <cuda_runtime.h>

#include "harness/cuda/check.hpp"
#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"

namespace gpuprobe::cuda {
namespace {

class CudaKernelRunner final : public KernelRunner {
 public:
  explicit CudaKernelRunner(CudaDevice& gpu) : gpu_(gpu) {}

  const DeviceInfo& info() const override { return gpu_.info(); }

  DeviceBuffer alloc(uint64_t bytes, const void* init, uint64_t init_bytes) override {
    gpu_.select();
    void* p = nullptr;
    if (bytes > 0) GPUPROBE_CUDA_CHECK(cudaMalloc(&p, bytes));
    std::shared_ptr<void> owned(p, [](void* q) {
      if (q != nullptr) static_cast<void>(cudaFree(q));  // a sticky error surfaces at the next call
    });
    if (bytes > 0) GPUPROBE_CUDA_CHECK(cudaMemset(p, 0, bytes));
    if (init != nullptr && init_bytes > 0)
      GPUPROBE_CUDA_CHECK(cudaMemcpy(p, init, init_bytes, cudaMemcpyHostToDevice));
    return DeviceBuffer(std::move(owned), bytes);
  }

  void copy_to_host(void* dst, const DeviceBuffer& src, uint64_t bytes) override {
    if (bytes > 0) GPUPROBE_CUDA_CHECK(cudaMemcpy(dst, src.get(), bytes, cudaMemcpyDeviceToHost));
  }

  LaunchRecord launch(const void* kernel, const std::string& name, const LaunchConfig& config,
                      void** args) override {
    gpu_.select();
    if (kernel == nullptr) throw Error(name + " is not in this build (its code object was not built)");
    return cuda::launch(kernel, name.c_str(), config, args);
  }

 private:
  CudaDevice& gpu_;
};

}  // namespace

std::unique_ptr<KernelRunner> make_kernel_runner(CudaDevice& gpu) {
  return std::make_unique<CudaKernelRunner>(gpu);
}

}  // namespace gpuprobe::cuda
