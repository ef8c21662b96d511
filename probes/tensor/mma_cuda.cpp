// MmaOps on a CUDA GPU: the tile kernel (one warp, one mma) for the self-check and one launch of a
// form's latency or throughput kernel through the harness's launch path, timed in the kernel by
// %clock64 (each warp's own bracket; only compared within one SM). The warps' records go to
// summarize_mma_launch. Plain C++ (g++); the kernels are mma.cu.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "harness/cuda/check.hpp"
#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"
#include "harness/ops.hpp"
#include "probes/tensor/mma_ops.hpp"

using gpuprobe::probes::tensor::MmaArgs;
using gpuprobe::probes::tensor::MmaWarpOut;
extern "C" {
#define GPUPROBE_MMA_FORM(id, m, n, k, input, acc, min_sm, ptx)      \
  void gpuprobe_mma_##id##_tile(MmaArgs a, uint32_t* d);            \
  void gpuprobe_mma_##id##_lat(MmaArgs a, MmaWarpOut* out);         \
  void gpuprobe_mma_##id##_thr(MmaArgs a, MmaWarpOut* out);
#define GPUPROBE_MMA_FORM_SM120A(id, m, n, k, input, acc, min_sm, ptx)         \
  __attribute__((weak)) void gpuprobe_mma_##id##_tile(MmaArgs a, uint32_t* d);    \
  __attribute__((weak)) void gpuprobe_mma_##id##_lat(MmaArgs a, MmaWarpOut* out); \
  __attribute__((weak)) void gpuprobe_mma_##id##_thr(MmaArgs a, MmaWarpOut* out);
#include "ptx/mma_forms.def"
#undef GPUPROBE_MMA_FORM_SM120A
#undef GPUPROBE_MMA_FORM
}

namespace gpuprobe::probes {
namespace {

using tensor::kMmaMaxCWords;
using tensor::MmaLane;

const void* kernel_or_null(MmaOp op, int which);

// which: 0 tile, 1 latency, 2 throughput. The sm_120a forms' kernels (probes/tensor/mma.sm120a.cu)
// are weak references: null where the build has no sm_120a code, and the form is refused.
const void* kernel_of(MmaOp op, int which) {
  const void* k = kernel_or_null(op, which);
  if (k == nullptr)
    throw Skip(mma_kernel_name(op, which == 1 ? MmaKind::latency : MmaKind::throughput) +
                           ": this build has no " + mma_info(op).arch_target +
                           " code (CMAKE_CUDA_ARCHITECTURES lacks 120)");
  return k;
}

const void* kernel_or_null(MmaOp op, int which) {
#define GPUPROBE_MMA_FORM(id, m, n, k, input, acc, min_sm, ptx)                          \
  if (op == MmaOp::id)                                                                  \
    return which == 0   ? reinterpret_cast<const void*>(&gpuprobe_mma_##id##_tile)     \
           : which == 1 ? reinterpret_cast<const void*>(&gpuprobe_mma_##id##_lat)      \
                        : reinterpret_cast<const void*>(&gpuprobe_mma_##id##_thr);
#include "ptx/mma_forms.def"
#undef GPUPROBE_MMA_FORM
  throw Error("no tensor kernel for op " + std::to_string(static_cast<int>(op)));
}

class CudaMmaOps final : public MmaOps {
 public:
  explicit CudaMmaOps(cuda::CudaDevice& gpu) : gpu_(gpu) {}

  std::vector<uint32_t> run_tile(MmaOp op, const std::vector<MmaLane>& lanes) override {
    gpu_.select();
    MmaSetup s;
    s.op = op;
    check_mma_fits(s, gpu_.info());
    if (lanes.size() != 32) throw Error("tensor/mma: a tile needs 32 lanes");
    cuda::DeviceArray<MmaLane> in(32);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(in.get(), lanes.data(), in.bytes(), cudaMemcpyHostToDevice));
    cuda::DeviceArray<uint32_t> d(32 * kMmaMaxCWords);
    GPUPROBE_CUDA_CHECK(cudaMemset(d.get(), 0, d.bytes()));
    MmaArgs args{in.get(), 1, 0, 1};
    uint32_t* d_ptr = d.get();
    void* kernel_args[] = {&args, &d_ptr};
    LaunchConfig config;
    config.grid = Dim3{1, 1, 1};
    config.block = Dim3{32, 1, 1};
    const std::string name = mma_tile_kernel_name(op);
    cuda::launch(kernel_of(op, 0), name.c_str(), config, kernel_args);
    std::vector<uint32_t> host(32 * kMmaMaxCWords);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(host.data(), d.get(), d.bytes(), cudaMemcpyDeviceToHost));
    return host;
  }

  MmaResult run(const MmaSetup& setup, const MmaRun& run) override {
    gpu_.select();
    check_mma_fits(setup, gpu_.info());
    const std::string name = mma_kernel_name(setup.op, setup.kind);
    if (run.iterations == 0) throw Error(name + ": no iterations");
    const MmaTile tile = mma_tile(setup.op, run.operands);
    cuda::DeviceArray<MmaLane> in(32);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(in.get(), tile.lanes.data(), in.bytes(), cudaMemcpyHostToDevice));
    const uint64_t warps = uint64_t(setup.blocks) * setup.block_threads / 32;
    cuda::DeviceArray<MmaWarpOut> out(warps);
    GPUPROBE_CUDA_CHECK(cudaMemset(out.get(), 0, out.bytes()));
    MmaArgs args{in.get(), run.iterations, 0, run.store ? 1u : 0u};
    MmaWarpOut* out_ptr = out.get();
    void* kernel_args[] = {&args, &out_ptr};
    LaunchConfig config;
    config.grid = Dim3{setup.blocks, 1, 1};
    config.block = Dim3{setup.block_threads, 1, 1};
    const LaunchRecord record = cuda::launch(
        kernel_of(setup.op, setup.kind == MmaKind::latency ? 1 : 2), name.c_str(), config, kernel_args);
    std::vector<MmaWarpOut> host(warps);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(host.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    MmaResult r = summarize_mma_launch(setup, run, host);
    r.launch = record;
    return r;
  }

 private:
  cuda::CudaDevice& gpu_;
};

const OpsRegistration<MmaOps> kRegistration("cuda", __FILE__, [](Device& d) {
  return std::make_unique<CudaMmaOps>(dynamic_cast<cuda::CudaDevice&>(d));
});

}  // namespace
}  // namespace gpuprobe::probes
