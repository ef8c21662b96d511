#include "harness/cuda/wait_timeout.hpp"

#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include "harness/cuda/check.hpp"

namespace gpuprobe::cuda {

namespace {

std::vector<WaitTimeoutSetter>& setters() {
  static std::vector<WaitTimeoutSetter> all;
  return all;
}

// Host memory, mapped into every device's address space (cudaHostAllocPortable; with unified
// addressing its device address is its host address). Never freed: a trapped kernel may still be
// described after everything else is torn down.
volatile WaitTimeout* mapped_record = nullptr;
std::mutex arm_mutex;

// Errors a module without code for this device gives (it is simply not loaded); clear them.
bool module_absent(cudaError_t status) {
  return status == cudaErrorNoKernelImageForDevice || status == cudaErrorInvalidKernelImage ||
         status == cudaErrorInvalidSymbol || status == cudaErrorInvalidDeviceFunction ||
         status == cudaErrorUnsupportedPtxVersion || status == cudaErrorSymbolNotFound;
}

}  // namespace

bool register_wait_timeout_setter(WaitTimeoutSetter setter) {
  setters().push_back(setter);
  return true;
}

void arm_wait_timeouts() {
  static std::set<int> armed;  // device ordinals
  int device = 0;
  GPUPROBE_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(arm_mutex);
  if (armed.count(device) != 0) return;
  if (mapped_record == nullptr) {
    void* host = nullptr;
    GPUPROBE_CUDA_CHECK(cudaHostAlloc(&host, sizeof(WaitTimeout), cudaHostAllocMapped | cudaHostAllocPortable));
    std::memset(host, 0, sizeof(WaitTimeout));
    mapped_record = static_cast<volatile WaitTimeout*>(host);
  }
  void* on_device = nullptr;
  GPUPROBE_CUDA_CHECK(cudaHostGetDevicePointer(&on_device, const_cast<WaitTimeout*>(mapped_record), 0));
  for (WaitTimeoutSetter set : setters()) {
    const cudaError_t status = set(static_cast<WaitTimeout*>(on_device));
    if (status == cudaSuccess) continue;
    if (!module_absent(status)) GPUPROBE_CUDA_CHECK(status);
    static_cast<void>(cudaGetLastError());
  }
  armed.insert(device);
}

std::optional<WaitTimeout> written_wait_timeout() {
  if (mapped_record == nullptr || mapped_record->magic != kWaitTimeoutMagic) return std::nullopt;
  WaitTimeout copy;
  std::memcpy(&copy, const_cast<const WaitTimeout*>(mapped_record), sizeof copy);
  return copy;
}

}  // namespace gpuprobe::cuda
