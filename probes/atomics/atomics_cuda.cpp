// AtomicsOps on a CUDA GPU: one launch of the op's kernel through the harness's launch path (the
// words in global memory start at the op's init value; a shared op's dynamic shared memory holds
// its block's words, copied out at the end), timed in the kernel by %clock64 (each warp's own
// bracket; compared only within one SM); the warps' records and the final words go to
// summarize_atomics_launch for the numbers and the self-check. Plain C++ (g++); the kernels are
// atomics.cu.
#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <vector>

#include "harness/cuda/check.hpp"
#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"
#include "harness/ops.hpp"
#include "probes/atomics/atomics_ops.hpp"

using gpuprobe::probes::atomics::AtomicsArgs;
using gpuprobe::probes::atomics::AtomicsWarpOut;
extern "C" {
#define GPUPROBE_ATOMICS_DECLARE(op)                                     \
  void gpuprobe_atomics_##op##_lat(AtomicsArgs a, AtomicsWarpOut* out);  \
  void gpuprobe_atomics_##op##_thr(AtomicsArgs a, AtomicsWarpOut* out);
GPUPROBE_ATOMICS_OPS(GPUPROBE_ATOMICS_DECLARE)
#undef GPUPROBE_ATOMICS_DECLARE
}

namespace gpuprobe::probes {
namespace {

const void* kernel_of(AtomicsOp op, AtomicsKind kind) {
#define GPUPROBE_ATOMICS_CASE(name)                                                   \
  if (op == AtomicsOp::name)                                                          \
    return kind == AtomicsKind::latency                                               \
               ? reinterpret_cast<const void*>(&gpuprobe_atomics_##name##_lat)        \
               : reinterpret_cast<const void*>(&gpuprobe_atomics_##name##_thr);
  GPUPROBE_ATOMICS_OPS(GPUPROBE_ATOMICS_CASE)
#undef GPUPROBE_ATOMICS_CASE
  throw Error("no atomics kernel for op " + std::to_string(static_cast<int>(op)));
}

class CudaAtomicsOps final : public AtomicsOps {
 public:
  explicit CudaAtomicsOps(cuda::CudaDevice& gpu) : gpu_(gpu) {}

  AtomicsResult run(const AtomicsSetup& setup, const AtomicsRun& run) override {
    gpu_.select();
    check_atomics_fits(setup, gpu_.info());
    const std::string name = atomics_kernel_name(setup.op, setup.kind);
    if (run.iterations == 0) throw Error(name + ": no iterations");
    const uint32_t bytes = atomics_info(setup.op).bytes;
    const uint64_t warps = uint64_t(setup.blocks) * setup.block_threads / 32;
    cuda::DeviceArray<AtomicsWarpOut> out(warps);
    GPUPROBE_CUDA_CHECK(cudaMemset(out.get(), 0, out.bytes()));
    const uint64_t n = atomics_word_count(setup);
    std::vector<unsigned char> host_words(n * bytes);
    const uint64_t init = atomics_init_word(setup.op);
    for (uint64_t i = 0; i < n; ++i) std::memcpy(&host_words[i * bytes], &init, bytes);
    cuda::DeviceArray<unsigned char> words(host_words.size());
    GPUPROBE_CUDA_CHECK(
        cudaMemcpy(words.get(), host_words.data(), words.bytes(), cudaMemcpyHostToDevice));
    AtomicsArgs args{};
    args.words = words.get();
    args.iterations = run.iterations;
    args.zero = 0;
    args.ops_per_chain = run.iterations * atomics::kAtomicsOpsPerIteration;
    args.pattern = static_cast<uint32_t>(setup.pattern);
    args.store = run.store ? 1 : 0;
    AtomicsWarpOut* out_ptr = out.get();
    void* kernel_args[] = {&args, &out_ptr};
    LaunchConfig config;
    config.grid = Dim3{setup.blocks, 1, 1};
    config.block = Dim3{setup.block_threads, 1, 1};
    config.dynamic_smem_bytes = atomics_dynamic_smem_bytes(setup);
    const LaunchRecord record =
        cuda::launch(kernel_of(setup.op, setup.kind), name.c_str(), config, kernel_args);
    std::vector<AtomicsWarpOut> host(warps);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(host.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    GPUPROBE_CUDA_CHECK(
        cudaMemcpy(host_words.data(), words.get(), words.bytes(), cudaMemcpyDeviceToHost));
    std::vector<uint64_t> final_words(n, 0);
    for (uint64_t i = 0; i < n; ++i) std::memcpy(&final_words[i], &host_words[i * bytes], bytes);
    AtomicsResult r = summarize_atomics_launch(setup, run, host, final_words);
    r.launch = record;
    return r;
  }

 private:
  cuda::CudaDevice& gpu_;
};

const OpsRegistration<AtomicsOps> kRegistration("cuda", __FILE__, [](Device& d) {
  return std::make_unique<CudaAtomicsOps>(dynamic_cast<cuda::CudaDevice&>(d));
});

}  // namespace
}  // namespace gpuprobe::probes
