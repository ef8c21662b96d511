// The CUDA Device, for the family operations that run on it (probes/<family>/*_cuda.cpp):
// `auto& gpu = dynamic_cast<cuda::CudaDevice&>(device); gpu.select();` before any runtime call.
#pragma once
#include <cstdint>
#include <memory>

#include "harness/device.hpp"

namespace gpuprobe::cuda {

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int ordinal);
  std::string_view backend() const override { return "cuda"; }
  const DeviceInfo& info() const override { return info_; }
  uint64_t free_memory_bytes() override;
  double measure_sm_clock_mhz(uint64_t spin_ns) override;
  nlohmann::json warm_up(double max_seconds) override;
  nlohmann::json telemetry() override;
  uint64_t min_timed_region_ns() const override { return 1'000'000; }
  // cudaDeviceReset of this device: its primary context is destroyed (run-all's supervisor,
  // before each probe opens the device in a process of its own).
  void release_context() override;
  KernelRunner* kernels() override;

  int ordinal() const { return ordinal_; }
  // Makes this device current for the calling thread (every runtime call after it is checked).
  void select() const;

 private:
  static constexpr uint64_t kClockSpinNs = 200'000;
  int ordinal_;
  DeviceInfo info_;
  std::unique_ptr<KernelRunner> kernels_;
};

// harness/cuda/kernel_runner.cpp
std::unique_ptr<KernelRunner> make_kernel_runner(CudaDevice& gpu);

}  // namespace gpuprobe::cuda
