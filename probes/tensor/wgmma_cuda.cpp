// WgmmaOps on a CUDA GPU: each launch of run_wgmma's flow goes through the harness's launch path
// (one warpgroup per block), timed in the kernel by %clock64 (compared within one SM only).
// Plain C++ (g++); the kernels are wgmma.sm90a.cu, built only when the targets include sm_90. Its
// kernels are weak references here: a build without them links, and the probe is skipped before
// it gets here (ProbeSpec::needs, probe_unavailable_reason); should one still be missing, the op
// is refused in one line.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "harness/cuda/check.hpp"
#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"
#include "harness/ops.hpp"
#include "probes/tensor/wgmma_ops.hpp"

using gpuprobe::probes::tensor::WgmmaArgs;
using gpuprobe::probes::tensor::WgmmaGroupOut;
extern "C" {
#define GPUPROBE_WGMMA_DECLARE(in, acc, n, k, form)                                          \
  __attribute__((weak)) void gpuprobe_wgmma_##in##_##acc##_n##n##_##form##_lat(WgmmaArgs,    \
                                                                               WgmmaGroupOut*); \
  __attribute__((weak)) void gpuprobe_wgmma_##in##_##acc##_n##n##_##form##_thr(WgmmaArgs,    \
                                                                               WgmmaGroupOut*);
GPUPROBE_WGMMA_OPS(GPUPROBE_WGMMA_DECLARE)
#undef GPUPROBE_WGMMA_DECLARE
__attribute__((weak)) void gpuprobe_wgmma_baseline_lat(WgmmaArgs, WgmmaGroupOut*);
}

namespace gpuprobe::probes {
namespace {

const void* kernel_of(const WgmmaLaunch& l) {
  if (l.baseline) return reinterpret_cast<const void*>(&gpuprobe_wgmma_baseline_lat);
#define GPUPROBE_WGMMA_CASE(in, acc, n, k, form)                                              \
  if (l.op == WgmmaOp::in##_##acc##_n##n##_##form)                                            \
    return l.kind == WgmmaKind::latency                                                        \
               ? reinterpret_cast<const void*>(&gpuprobe_wgmma_##in##_##acc##_n##n##_##form##_lat) \
               : reinterpret_cast<const void*>(&gpuprobe_wgmma_##in##_##acc##_n##n##_##form##_thr);
  GPUPROBE_WGMMA_OPS(GPUPROBE_WGMMA_CASE)
#undef GPUPROBE_WGMMA_CASE
  return nullptr;
}

class CudaWgmmaOps final : public WgmmaOps {
 public:
  explicit CudaWgmmaOps(cuda::CudaDevice& gpu) : gpu_(gpu) {}

  WgmmaResult run(const WgmmaSetup& setup, const WgmmaRun& run) override {
    gpu_.select();
    check_wgmma_fits(setup, gpu_.info());
    return run_wgmma(setup, run, [this](const WgmmaLaunch& l) { return launch(l); });
  }

 private:
  WgmmaLaunchOut launch(const WgmmaLaunch& l) {
    const std::string name = l.baseline ? kWgmmaBaselineKernel : wgmma_kernel_name(l.op, l.kind);
    const void* kernel = kernel_of(l);
    if (kernel == nullptr)
      throw Skip(name + " is not in this build (it needs sm_90a code: "
                               "CMAKE_CUDA_ARCHITECTURES with 90)");
    const WgmmaOperandData& d = *l.operands;
    const uint32_t regs = tensor::wgmma_acc_regs(wgmma_info(l.op));
    cuda::DeviceArray<uint32_t> a_image(d.a_image.size()), b_image(d.b_image.size()),
        a_frag(d.a_frag.size()), tile(size_t(tensor::kWgmmaThreads) * regs);
    cuda::DeviceArray<WgmmaGroupOut> out(l.blocks);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(a_image.get(), d.a_image.data(), a_image.bytes(),
                                   cudaMemcpyHostToDevice));
    GPUPROBE_CUDA_CHECK(cudaMemcpy(b_image.get(), d.b_image.data(), b_image.bytes(),
                                   cudaMemcpyHostToDevice));
    GPUPROBE_CUDA_CHECK(cudaMemcpy(a_frag.get(), d.a_frag.data(), a_frag.bytes(),
                                   cudaMemcpyHostToDevice));
    GPUPROBE_CUDA_CHECK(cudaMemset(tile.get(), 0, tile.bytes()));
    GPUPROBE_CUDA_CHECK(cudaMemset(out.get(), 0, out.bytes()));
    WgmmaArgs args{};
    args.a_image = a_image.get();
    args.b_image = b_image.get();
    args.a_frag = a_frag.get();
    args.tile = tile.get();
    args.iterations = l.iterations;
    args.zero = 0;
    args.store = l.store ? 1 : 0;
    WgmmaGroupOut* out_ptr = out.get();
    void* kernel_args[] = {&args, &out_ptr};
    LaunchConfig config;
    config.grid = Dim3{l.blocks, 1, 1};
    config.block = Dim3{tensor::kWgmmaThreads, 1, 1};
    WgmmaLaunchOut o;
    o.launch = cuda::launch(kernel, name.c_str(), config, kernel_args);
    o.groups.resize(l.blocks);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(o.groups.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    if (l.store) {
      o.tile.resize(tile.size());
      GPUPROBE_CUDA_CHECK(cudaMemcpy(o.tile.data(), tile.get(), tile.bytes(), cudaMemcpyDeviceToHost));
    }
    return o;
  }

  cuda::CudaDevice& gpu_;
};

const OpsRegistration<WgmmaOps> kRegistration("cuda", __FILE__, [](Device& d) {
  return std::make_unique<CudaWgmmaOps>(dynamic_cast<cuda::CudaDevice&>(d));
});

}  // namespace
}  // namespace gpuprobe::probes
