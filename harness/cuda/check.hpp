// Checking CUDA runtime calls: every call and every launch goes through GPUPROBE_CUDA_CHECK,
// which throws gpuprobe::Error with file:line, the call and the CUDA error name and text.
// A missing kernel image becomes DeviceUnavailable naming the code this build lacks. Plain C++:
// compiled by g++ (harness/cuda/*.cpp, probes/*/*_cuda.cpp) against the CUDA 12 or 13 headers.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>

#include "harness/error.hpp"

namespace gpuprobe::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                   int line);

#define GPUPROBE_CUDA_CHECK(call)                                          \
  do {                                                                     \
    const cudaError_t gpuprobe_status_ = (call);                           \
    if (gpuprobe_status_ != cudaSuccess) {                                 \
      ::gpuprobe::cuda::throw_cuda_error(gpuprobe_status_, #call, __FILE__, \
                                         __LINE__);                        \
    }                                                                      \
  } while (0)

// Owns one cudaMalloc allocation. Freeing errors are ignored in the destructor (it must not
// throw); a sticky error will surface at the next checked call.
template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(uint64_t count) : count_(count) {
    if (count > 0) GPUPROBE_CUDA_CHECK(cudaMalloc(&ptr_, count * sizeof(T)));
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceArray& operator=(DeviceArray&& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(count_, other.count_);
    return *this;
  }
  ~DeviceArray() {
    if (ptr_ != nullptr) static_cast<void>(cudaFree(ptr_));
  }
  T* get() const { return ptr_; }
  uint64_t size() const { return count_; }
  uint64_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  uint64_t count_ = 0;
};

}  // namespace gpuprobe::cuda
