// KernelRunner (harness/kernel_runner.hpp) on a CUDA GPU: cudaMalloc'd buffers, launches
// through the one launch path (harness/cuda/launch.hpp), and TMA descriptors encoded by the
// driver's cuTensorMapEncodeTiled, fetched with cudaGetDriverEntryPointByVersion (no -lcuda: CUDA
// C++ Programming Guide, "Driver Entry Point Access").
#include "harness/kernel_runner.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstring>

#include "harness/cuda/check.hpp"
#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"

namespace gpuprobe::cuda {
namespace {

static_assert(sizeof(CUtensorMap) == sizeof(TensorMap), "a CUtensorMap is 128 bytes");

// cuTensorMapEncodeTiled from the driver, once (the runtime finds it; no link to libcuda).
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    GPUPROBE_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                         cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || fn == nullptr)
      throw Error("the CUDA driver has no cuTensorMapEncodeTiled (a TMA copy needs driver 12.0+)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  return encode;
}

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

  TensorMap encode_tensor_map(const TiledTensor& t, const std::string& name) override {
    cuuint64_t dims[2] = {t.dims[0], t.dims[1]}, strides[1] = {t.row_stride_bytes};
    cuuint32_t box[2] = {t.box[0], t.box[1]}, element_strides[2] = {1, 1};
    CUtensorMap map{};
    const CUresult status = tensor_map_encoder()(
        &map, CU_TENSOR_MAP_DATA_TYPE_UINT32, t.rank, const_cast<void*>(t.base), dims, strides, box,
        element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (status != CUDA_SUCCESS)
      throw Error(name + ": cuTensorMapEncodeTiled failed (CUresult " +
                  std::to_string(static_cast<int>(status)) + ") for a box of " +
                  std::to_string(4ull * t.box[0] * (t.rank == 2 ? t.box[1] : 1)) + " bytes");
    TensorMap out;
    std::memcpy(&out, &map, sizeof out);
    return out;
  }

 private:
  CudaDevice& gpu_;
};

}  // namespace

std::unique_ptr<KernelRunner> make_kernel_runner(CudaDevice& gpu) {
  return std::make_unique<CudaKernelRunner>(gpu);
}

}  // namespace gpuprobe::cuda
