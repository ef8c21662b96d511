// AluOps on a CUDA GPU: one launch of the op's kernel through the harness's launch path, timed
// in the kernel by %clock64 (each warp's own bracket; only compared within one SM), then the
// warps' records go to summarize_alu_launch for the numbers and the self-check. Plain C++ (g++);
// the kernels are alu.cu.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "harness/cuda/check.hpp"
#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"
#include "harness/ops.hpp"
#include "probes/compute/alu_ops.hpp"

using gpuprobe::probes::compute::AluArgs;
using gpuprobe::probes::compute::AluWarpOut;
extern "C" {
#define GPUPROBE_ALU_DECLARE(op)                                 \
  void gpuprobe_alu_##op##_lat(AluArgs a, AluWarpOut* out);     \
  void gpuprobe_alu_##op##_thr(AluArgs a, AluWarpOut* out);
GPUPROBE_ALU_OPS(GPUPROBE_ALU_DECLARE)
#undef GPUPROBE_ALU_DECLARE
}

namespace gpuprobe::probes {
namespace {

const void* kernel_of(AluOp op, AluKind kind) {
#define GPUPROBE_ALU_CASE(name)                                                       \
  if (op == AluOp::name)                                                              \
    return kind == AluKind::latency                                                   \
               ? reinterpret_cast<const void*>(&gpuprobe_alu_##name##_lat)            \
               : reinterpret_cast<const void*>(&gpuprobe_alu_##name##_thr);
  GPUPROBE_ALU_OPS(GPUPROBE_ALU_CASE)
#undef GPUPROBE_ALU_CASE
  throw Error("no compute kernel for op " + std::to_string(static_cast<int>(op)));
}

class CudaAluOps final : public AluOps {
 public:
  explicit CudaAluOps(cuda::CudaDevice& gpu) : gpu_(gpu) {}

  AluResult run(const AluSetup& setup, const AluRun& run) override {
    gpu_.select();
    check_alu_fits(setup, gpu_.info());
    const std::string name = alu_kernel_name(setup.op, setup.kind);
    if (run.iterations == 0) throw Error(name + ": no iterations");
    const uint64_t warps = uint64_t(setup.blocks) * setup.block_threads / 32;
    cuda::DeviceArray<AluWarpOut> out(warps);
    GPUPROBE_CUDA_CHECK(cudaMemset(out.get(), 0, out.bytes()));
    AluArgs args = alu_args(setup.op, run);
    AluWarpOut* out_ptr = out.get();
    void* kernel_args[] = {&args, &out_ptr};
    LaunchConfig config;
    config.grid = Dim3{setup.blocks, 1, 1};
    config.block = Dim3{setup.block_threads, 1, 1};
    const LaunchRecord record =
        cuda::launch(kernel_of(setup.op, setup.kind), name.c_str(), config, kernel_args);
    std::vector<AluWarpOut> host(warps);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(host.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    AluResult r = summarize_alu_launch(setup, run, host);
    r.launch = record;
    return r;
  }

 private:
  cuda::CudaDevice& gpu_;
};

const OpsRegistration<AluOps> kRegistration("cuda", __FILE__, [](Device& d) {
  return std::make_unique<CudaAluOps>(dynamic_cast<cuda::CudaDevice&>(d));
});

}  // namespace
}  // namespace gpuprobe::probes
