// A GPU's memory, the one launch path (harness/cuda/launch.hpp) and the TMA descriptors a kernel
// may take, in plain C++ with no CUDA type, so that a family's host code (probes/<family>/*.cpp,
// built by g++ with or without CUDA) launches its own kernels and needs no *_cuda.cpp:
// `kernel_runner(device)`. The CUDA device
// implements it (harness/cuda/kernel_runner.cpp); the simulator does not (a family simulates its
// launches instead), so on a host-only build the kernels a family names are never reached.
// Kernels are extern "C"; the family declares each one's host-side symbol (weak, so that a build
// without the kernels still links: probes/common/op_table.hpp GPUPROBE_KERNEL_TABLE).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/device.hpp"
#include "harness/launch_config.hpp"

namespace gpuprobe {

// One device allocation, zero-filled, freed with its owner.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::shared_ptr<void> ptr, uint64_t bytes) : ptr_(std::move(ptr)), bytes_(bytes) {}
  void* get() const { return ptr_.get(); }
  uint64_t bytes() const { return bytes_; }

 private:
  std::shared_ptr<void> ptr_;
  uint64_t bytes_ = 0;
};

// A tensor of 32-bit words in device memory as the TMA reads it (cp.async.bulk.tensor): `rank`
// (1 or 2) dimensions of dims[d] elements, innermost first, rows row_stride_bytes apart (rank 2),
// read in boxes of box[d] elements; every element stride 1, no interleave, swizzle, L2 promotion
// or out-of-bounds fill.
struct TiledTensor {
  const void* base = nullptr;
  uint32_t rank = 1;
  uint64_t dims[2] = {};
  uint64_t row_stride_bytes = 0;
  uint32_t box[2] = {};
};

// Its TMA descriptor (the driver's CUtensorMap), 128 opaque bytes: a kernel takes it by value as
// a __grid_constant__ argument of its own 128-byte, 64-aligned type.
struct alignas(64) TensorMap {
  uint64_t opaque[16];
};

class KernelRunner {
 public:
  virtual ~KernelRunner() = default;
  virtual const DeviceInfo& info() const = 0;
  // `bytes` of device memory, zero-filled; `init`, if not null, copied to its start.
  virtual DeviceBuffer alloc(uint64_t bytes, const void* init = nullptr, uint64_t init_bytes = 0) = 0;
  virtual void copy_to_host(void* dst, const DeviceBuffer& src, uint64_t bytes) = 0;
  // kernel(args) through the launch path, waited for and checked.
  virtual LaunchRecord launch(const void* kernel, const std::string& name, const LaunchConfig& config,
                              void** args) = 0;
  // The descriptor of `tensor` (cuTensorMapEncodeTiled, found through the runtime: no link to
  // libcuda). A failure throws one line starting with `name` (the kernel that wanted it).
  virtual TensorMap encode_tensor_map(const TiledTensor& tensor, const std::string& name) = 0;

  // A buffer holding `values`, and one of `count` zero-filled Ts.
  template <class T>
  DeviceBuffer upload(const std::vector<T>& values) {
    return alloc(values.size() * sizeof(T), values.data(), values.size() * sizeof(T));
  }
  template <class T>
  std::vector<T> download(const DeviceBuffer& buffer, uint64_t count) {
    std::vector<T> out(count);
    copy_to_host(out.data(), buffer, count * sizeof(T));
    return out;
  }
};

// The device's KernelRunner; a device without one (the simulator) throws OpsUnavailable.
KernelRunner& kernel_runner(Device& device);

}  // namespace gpuprobe
