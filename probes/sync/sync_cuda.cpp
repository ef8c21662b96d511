// SyncOps on a CUDA GPU: one launch of the op's kernel through the harness's launch path
// (clusters for the cluster ops, a cooperative launch with its occupancy check for grid_sync, the
// DSMEM ring's dynamic shared memory), timed in the kernel by %clock64 (each warp's own bracket;
// only compared within one SM), then the warps' records go to summarize_sync_launch for the
// numbers and the self-check. Plain C++ (g++); the kernels are sync.cu.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "harness/cuda/check.hpp"
#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"
#include "harness/ops.hpp"
#include "probes/sync/sync_ops.hpp"

using gpuprobe::probes::sync::SyncArgs;
using gpuprobe::probes::sync::SyncWarpOut;
extern "C" {
#define GPUPROBE_SYNC_OP(op, ...)                                  \
  void gpuprobe_sync_##op##_lat(SyncArgs a, SyncWarpOut* out);    \
  void gpuprobe_sync_##op##_thr(SyncArgs a, SyncWarpOut* out);
#include "probes/sync/sync.def"
#undef GPUPROBE_SYNC_OP
}

namespace gpuprobe::probes {
namespace {

const void* kernel_of(SyncOp op, SyncKind kind) {
#define GPUPROBE_SYNC_OP(name, ...)                                                   \
  if (op == SyncOp::name)                                                             \
    return kind == SyncKind::latency                                                  \
               ? reinterpret_cast<const void*>(&gpuprobe_sync_##name##_lat)           \
               : reinterpret_cast<const void*>(&gpuprobe_sync_##name##_thr);
#include "probes/sync/sync.def"
#undef GPUPROBE_SYNC_OP
  throw Error("no sync kernel for op " + std::to_string(static_cast<int>(op)));
}

class CudaSyncOps final : public SyncOps {
 public:
  explicit CudaSyncOps(cuda::CudaDevice& gpu) : gpu_(gpu) {}

  SyncResult run(const SyncSetup& setup, const SyncRun& run) override {
    gpu_.select();
    check_sync_fits(setup, gpu_.info());
    const std::string name = sync_kernel_name(setup.op, setup.kind);
    if (run.iterations == 0) throw Error(name + ": no iterations");
    const uint64_t warps = uint64_t(setup.blocks) * setup.block_threads / 32;
    cuda::DeviceArray<SyncWarpOut> out(warps);
    GPUPROBE_CUDA_CHECK(cudaMemset(out.get(), 0, out.bytes()));
    const auto words = sync_lane_words(setup.op);
    cuda::DeviceArray<uint32_t> lanes(words.size());
    GPUPROBE_CUDA_CHECK(
        cudaMemcpy(lanes.get(), words.data(), lanes.bytes(), cudaMemcpyHostToDevice));
    SyncArgs args{};
    args.lanes = lanes.get();
    args.iterations = run.iterations;
    args.zero = 0;
    args.store = run.store ? 1 : 0;
    args.mask = 0xffffffffu;
    SyncWarpOut* out_ptr = out.get();
    void* kernel_args[] = {&args, &out_ptr};
    LaunchConfig config;
    config.grid = Dim3{setup.blocks, 1, 1};
    config.block = Dim3{setup.block_threads, 1, 1};
    config.dynamic_smem_bytes = sync_dynamic_smem_bytes(setup.op);
    if (setup.cluster_size != 0) config.cluster = Dim3{setup.cluster_size, 1, 1};
    // grid_sync traps unless launched cooperatively; launch() checks the grid is resident.
    config.cooperative = sync_info(setup.op).shape == sync::SyncShape::grid;
    const LaunchRecord record =
        cuda::launch(kernel_of(setup.op, setup.kind), name.c_str(), config, kernel_args);
    std::vector<SyncWarpOut> host(warps);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(host.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    SyncResult r = summarize_sync_launch(setup, run, host);
    r.launch = record;
    return r;
  }

 private:
  cuda::CudaDevice& gpu_;
};

const OpsRegistration<SyncOps> kRegistration("cuda", __FILE__, [](Device& d) {
  return std::make_unique<CudaSyncOps>(dynamic_cast<cuda::CudaDevice&>(d));
});

}  // namespace
}  // namespace gpuprobe::probes
