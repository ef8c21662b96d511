// ChaseOps on a CUDA GPU: allocation, upload and scatter once per chain (prepare), then one
// launch of the chase kernel per run through the harness's launch path. Plain C++ (g++); the
// kernels are chase.cu and chase_shared.cu.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "harness/cuda/check.hpp"
#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"
#include "harness/ops.hpp"
#include "probes/common/units.hpp"
#include "probes/memory/chase_ops.hpp"

using gpuprobe::cuda::SmPin;
using gpuprobe::probes::ChaseOut;
extern "C" {
void gpuprobe_chain_scatter(uint64_t base, const uint64_t* offset_bytes, const uint32_t* next,
                            uint64_t slots);
#define GPUPROBE_LOAD_VARIANT(id, name, ptx_form, first, min_sm, sass75, sass80)                 \
  void gpuprobe_chase_global_##id(uint64_t base, uint64_t start_offset_bytes,              \
                                  uint64_t warmup_hops, uint64_t timed_iterations,         \
                                  uint32_t sampled_hops, uint64_t zero, SmPin pin,      \
                                  ChaseOut* out, uint32_t* samples_out);
#include "ptx/load_variants.def"
#undef GPUPROBE_LOAD_VARIANT
void gpuprobe_chase_shared(const uint64_t* offset_bytes, const uint32_t* next, uint64_t slots,
                           uint64_t chain_bytes, uint32_t start_slot, uint64_t warmup_hops,
                           uint64_t timed_iterations, uint32_t sampled_hops, uint64_t zero,
                           SmPin pin, ChaseOut* out, uint32_t* samples_out);
}

namespace gpuprobe::probes {
namespace {

using cuda::DeviceArray;

// The global chase kernels, in LoadVariant's order (ptx/load_variants.def).
const void* const kGlobalKernels[] = {
#define GPUPROBE_LOAD_VARIANT(id, name, ptx_form, first, min_sm, sass75, sass80) \
  reinterpret_cast<const void*>(&gpuprobe_chase_global_##id),
#include "ptx/load_variants.def"
#undef GPUPROBE_LOAD_VARIANT
};

class CudaPreparedChase final : public PreparedChase {
 public:
  // The checks come first (free_memory_bytes() selects the GPU), then the chain is read.
  CudaPreparedChase(cuda::CudaDevice& gpu, const ChaseSetup& setup)
      : gpu_(gpu), setup_(setup), smem_bytes_(check_chase_fits(setup, gpu.info(), gpu.free_memory_bytes())),
        chain_(*setup.chain), offsets_(chain_.slots()), next_(chain_.slots()), out_(1),
        samples_(uint64_t(setup.sampled_hops) + kEmptySamples) {
    GPUPROBE_CUDA_CHECK(cudaMemcpy(offsets_.get(), chain_.offset_bytes.data(), offsets_.bytes(),
                                   cudaMemcpyHostToDevice));
    GPUPROBE_CUDA_CHECK(cudaMemcpy(next_.get(), chain_.next.data(), next_.bytes(),
                                   cudaMemcpyHostToDevice));
    if (setup.pinned_sm != kAnySm) pinning_ = std::make_unique<cuda::SmPinning>(setup.pinned_sm);
    if (setup.space == MemorySpace::global) scatter();
  }

  ChaseResult run(const ChaseRun& run) override {
    gpu_.select();
    check_chase_run(run);
    GPUPROBE_CUDA_CHECK(cudaMemset(out_.get(), 0, sizeof(ChaseOut)));
    LaunchConfig config = launch_config(1, 1, smem_bytes_);
    config.l1_carveout_percent = 0;   // the largest L1 the launch's shared memory leaves
    config.pinned_sm = setup_.pinned_sm;
    uint64_t iterations = run.timed_hops / kChaseHopsPerIteration;
    uint64_t warmup = run.warmup_hops;
    uint32_t sampled = setup_.sampled_hops;
    uint64_t zero = 0;
    SmPin pin = pinning_ ? pinning_->arg() : SmPin{kAnySm, nullptr};
    ChaseOut* out = out_.get();
    uint32_t* samples = samples_.get();
    LaunchRecord record;
    if (setup_.space == MemorySpace::global) {
      uint64_t base = reinterpret_cast<uint64_t>(span_.get());
      uint64_t start = chain_.offset_bytes[chain_.start];
      void* args[] = {&base, &start, &warmup, &iterations, &sampled, &zero, &pin, &out, &samples};
      const std::string name = "gpuprobe_chase_global_" + std::string(ptx::info(setup_.load).id);
      record = cuda::launch(kGlobalKernels[static_cast<int>(setup_.load)], name.c_str(), config, args,
                            pinning_.get());
    } else {
      config.block = Dim3{kSharedChaseThreads, 1, 1};
      const uint64_t* offsets = offsets_.get();
      const uint32_t* next = next_.get();
      uint64_t slots = chain_.slots();
      uint64_t chain_bytes = (chain_.span_bytes + 7) / 8 * 8;
      uint32_t start_slot = chain_.start;
      void* args[] = {&offsets, &next, &slots, &chain_bytes, &start_slot, &warmup,
                      &iterations, &sampled, &zero, &pin, &out, &samples};
      record = cuda::launch(reinterpret_cast<const void*>(&gpuprobe_chase_shared),
                            "gpuprobe_chase_shared", config, args, pinning_.get());
    }
    ChaseOut host{};
    GPUPROBE_CUDA_CHECK(cudaMemcpy(&host, out_.get(), sizeof host, cudaMemcpyDeviceToHost));
    if (host.ran == 0)
      throw Error(record.kernel + ": the walking thread never finished (no block did the work)");
    std::vector<uint32_t> all(uint64_t(sampled) + kEmptySamples);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(all.data(), samples_.get(), all.size() * sizeof(uint32_t),
                                   cudaMemcpyDeviceToHost));
    ChaseResult result;
    result.timed_cycles = host.timed_cycles;
    result.timed_ns = host.timed_ns;
    result.timed_iterations = host.timed_iterations;
    result.final_offset_bytes = host.final_offset_bytes;
    result.sample_cycles.assign(all.begin(), all.begin() + sampled);
    result.empty_sample_cycles.assign(all.begin() + sampled, all.end());
    record.smid = static_cast<int>(host.smid);
    result.launch = record;
    return result;
  }

 private:
  void scatter() {
    span_ = DeviceArray<unsigned char>(chain_.span_bytes);
    uint64_t base = reinterpret_cast<uint64_t>(span_.get());
    const uint64_t* offsets = offsets_.get();
    const uint32_t* next = next_.get();
    uint64_t slots = chain_.slots();
    void* args[] = {&base, &offsets, &next, &slots};
    const auto blocks = static_cast<uint32_t>(std::min<uint64_t>((slots + 255) / 256, 4096));
    cuda::launch(reinterpret_cast<const void*>(&gpuprobe_chain_scatter), "gpuprobe_chain_scatter",
                 launch_config(blocks, 256), args);
  }

  cuda::CudaDevice& gpu_;
  ChaseSetup setup_;
  uint64_t smem_bytes_ = 0;
  const Chain& chain_;
  DeviceArray<unsigned char> span_;
  DeviceArray<uint64_t> offsets_;
  DeviceArray<uint32_t> next_;
  DeviceArray<ChaseOut> out_;
  DeviceArray<uint32_t> samples_;
  std::unique_ptr<cuda::SmPinning> pinning_;
};

const auto kRegistration =
    register_prepare_ops<ChaseOps, cuda::CudaDevice, CudaPreparedChase>("cuda", __FILE__);

}  // namespace
}  // namespace gpuprobe::probes
