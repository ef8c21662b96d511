// AsyncOps on a CUDA GPU: the source buffer (the pattern, or the chase's ring), the TMA ops'
// CUtensorMap (KernelRunner::encode_tensor_map), one launch through the harness's launch path,
// timed in the kernel by %clock64 (each CTA's own bracket; only compared within one SM); the
// CTAs' records then go to summarize_async_launch for the numbers and the self-check. Plain C++ (g++); the kernels are
// async.cu.
#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <vector>

#include "harness/cuda/check.hpp"
#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"
#include "harness/kernel_runner.hpp"
#include "harness/ops.hpp"
#include "probes/async/async_ops.hpp"

using gpuprobe::probes::async::AsyncArgs;
using gpuprobe::probes::async::AsyncCtaOut;
using gpuprobe::probes::async::AsyncTensorMap;
extern "C" {
#define GPUPROBE_ASYNC_OP(op, ...)                                                    \
  void gpuprobe_async_##op##_d1(AsyncArgs, AsyncTensorMap, AsyncCtaOut*);             \
  void gpuprobe_async_##op##_d2(AsyncArgs, AsyncTensorMap, AsyncCtaOut*);             \
  void gpuprobe_async_##op##_d4(AsyncArgs, AsyncTensorMap, AsyncCtaOut*);             \
  void gpuprobe_async_##op##_d8(AsyncArgs, AsyncTensorMap, AsyncCtaOut*);
#include "probes/async/async.def"
#undef GPUPROBE_ASYNC_OP
void gpuprobe_async_tma_chase(AsyncArgs, AsyncTensorMap, AsyncCtaOut*);
// multicast.sm90a.cu, built only when the targets include sm_90: a weak reference, so a build
// without it links, and the multicast is refused in one line.
__attribute__((weak)) void gpuprobe_async_tma_multicast(AsyncArgs, AsyncTensorMap, AsyncCtaOut*);
}

namespace gpuprobe::probes {
namespace {

static_assert(sizeof(TensorMap) == sizeof(AsyncTensorMap), "a TMA descriptor is 128 bytes");

const void* kernel_of(const AsyncSetup& s) {
  if (s.kind == AsyncKind::chase) return reinterpret_cast<const void*>(&gpuprobe_async_tma_chase);
  if (s.kind == AsyncKind::multicast) {
    if (&gpuprobe_async_tma_multicast == nullptr)
      throw Skip("the TMA multicast kernel is built for sm_90a only (probes/async/"
                               "multicast.sm90a.cu), and this build has no sm_90a code");
    return reinterpret_cast<const void*>(&gpuprobe_async_tma_multicast);
  }
#define GPUPROBE_ASYNC_OP(name, ...)                                                          \
  if (s.op == AsyncOp::name) {                                                                \
    switch (s.depth) {                                                                        \
      case 1: return reinterpret_cast<const void*>(&gpuprobe_async_##name##_d1);             \
      case 2: return reinterpret_cast<const void*>(&gpuprobe_async_##name##_d2);             \
      case 4: return reinterpret_cast<const void*>(&gpuprobe_async_##name##_d4);             \
      case 8: return reinterpret_cast<const void*>(&gpuprobe_async_##name##_d8);             \
      default: break;                                                                         \
    }                                                                                         \
  }
#include "probes/async/async.def"
#undef GPUPROBE_ASYNC_OP
  throw Error("no async kernel " + async_kernel_name(s));
}

// The map of a TMA op over the source (32-bit words): 1D boxes of copy_bytes / 4 words (the chase:
// 4), or 2D boxes of 64 words by box_rows rows over rows of 1024 words.
AsyncTensorMap encode_map(KernelRunner& gpu, const AsyncSetup& s, const uint32_t* src) {
  const uint64_t words = s.footprint_bytes / 4;
  const uint32_t copy_words = async_copy_bytes(s) / 4;
  TiledTensor t;
  t.base = src;
  if (s.kind != AsyncKind::chase && async_info(s.op).engine == AsyncEngine::tma_2d) {
    t.rank = 2;
    t.dims[0] = async::kAsyncTma2dRowWords;
    t.dims[1] = words / async::kAsyncTma2dRowWords;
    t.row_stride_bytes = 4ull * async::kAsyncTma2dRowWords;
    t.box[0] = async::kAsyncTma2dBoxWords;
    t.box[1] = copy_words / async::kAsyncTma2dBoxWords;
  } else {
    t.dims[0] = words;
    t.box[0] = copy_words;
  }
  const TensorMap map = gpu.encode_tensor_map(t, async_kernel_name(s));
  AsyncTensorMap out;
  std::memcpy(&out, &map, sizeof out);
  return out;
}

class CudaAsyncOps final : public AsyncOps {
 public:
  explicit CudaAsyncOps(cuda::CudaDevice& gpu) : gpu_(gpu) {}

  AsyncResult run(const AsyncSetup& setup, const AsyncRun& run) override {
    gpu_.select();
    check_async_fits(setup, gpu_.info());
    if (setup.kind == AsyncKind::multicast && gpu_.info().cc.sm() != 90)
      throw Skip("the TMA multicast kernel is built for sm_90a only; " + gpu_.info().name +
                               " is sm_" + std::to_string(gpu_.info().cc.sm()));
    const std::string name = async_kernel_name(setup);
    if (run.iterations == 0) throw Error(name + ": no iterations");
    const bool chase = setup.kind == AsyncKind::chase;
    const uint64_t words = setup.footprint_bytes / 4;
    // The source: the pattern, or the chase's ring (every node's first word the next node's),
    // kept between launches of the same footprint (a point's repeats).
    Chain ring;
    if (chase) ring = async_chase_chain(setup);
    if (src_words_ != words || src_chase_ != chase) {
      std::vector<uint32_t> host_src(words, 0);
      if (chase) {
        for (uint64_t i = 0; i < ring.slots(); ++i)
          host_src[ring.offset_bytes[i] / 4] = static_cast<uint32_t>(ring.offset_bytes[ring.next[i]] / 4);
      } else {
        for (uint64_t i = 0; i < words; ++i) host_src[i] = async::async_pattern(i);
      }
      src_ = cuda::DeviceArray<uint32_t>();
      src_words_ = 0;
      src_ = cuda::DeviceArray<uint32_t>(words);
      GPUPROBE_CUDA_CHECK(
          cudaMemcpy(src_.get(), host_src.data(), src_.bytes(), cudaMemcpyHostToDevice));
      src_words_ = words;
      src_chase_ = chase;
    }
    const cuda::DeviceArray<uint32_t>& src = src_;
    cuda::DeviceArray<AsyncCtaOut> out(setup.blocks);
    GPUPROBE_CUDA_CHECK(cudaMemset(out.get(), 0, out.bytes()));

    AsyncArgs args{};
    args.src = src.get();
    args.src_words = words;
    args.iterations = run.iterations;
    args.warmup = chase ? run.warmup : 0;
    args.zero = 0;
    args.copy_bytes = async_copy_bytes(setup);
    args.box_rows = args.copy_bytes / (4 * async::kAsyncTma2dBoxWords);
    args.tma2d_tiles = args.box_rows == 0 ? 1 : words / (uint64_t{async::kAsyncTma2dBoxWords} * args.box_rows);
    args.start_word = chase ? static_cast<uint32_t>(ring.offset_bytes[ring.start] / 4) : 0;
    args.store = run.store ? 1 : 0;
    const AsyncEngine engine = async_info(setup.op).engine;
    AsyncTensorMap map{};
    if (chase || engine == AsyncEngine::tma_1d || engine == AsyncEngine::tma_2d)
      map = encode_map(kernel_runner(gpu_), setup, src.get());
    AsyncCtaOut* out_ptr = out.get();
    void* kernel_args[] = {&args, &map, &out_ptr};
    LaunchConfig config;
    config.grid = Dim3{setup.blocks, 1, 1};
    config.block = Dim3{setup.block_threads, 1, 1};
    config.dynamic_smem_bytes = async_dynamic_smem_bytes(setup);
    if (setup.cluster_size != 0) config.cluster = Dim3{setup.cluster_size, 1, 1};
    const void* kernel = kernel_of(setup);
    const LaunchRecord record = cuda::launch(kernel, name.c_str(), config, kernel_args);
    std::vector<AsyncCtaOut> host(setup.blocks);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(host.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    AsyncResult r = summarize_async_launch(setup, run, host,
                                           chase && run.store ? async_chase_reference(ring, run) : 0);
    r.launch = record;
    return r;
  }

 private:
  cuda::CudaDevice& gpu_;
  cuda::DeviceArray<uint32_t> src_;  // the last launch's source
  uint64_t src_words_ = 0;
  bool src_chase_ = false;
};

const OpsRegistration<AsyncOps> kRegistration("cuda", __FILE__, [](Device& d) {
  return std::make_unique<CudaAsyncOps>(dynamic_cast<cuda::CudaDevice&>(d));
});

}  // namespace
}  // namespace gpuprobe::probes
