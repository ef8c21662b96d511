// Tcgen05Ops on a CUDA GPU: each launch of run_tcgen05's flow goes through the harness's launch
// path (128 threads per CTA; clusters of 2 for cta_group::2), timed in the kernel by %clock64 of
// the issuing thread (one SM). Plain C++ (g++); the kernels are tcgen05.sm100a.cu, built only when
// the targets include sm_100. They are weak references here: a build without them links, and the
// probe is skipped before it gets here (ProbeSpec::needs, probe_unavailable_reason); should one
// still be missing, the op is refused in one line.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "harness/cuda/check.hpp"
#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"
#include "harness/ops.hpp"
#include "probes/tensor/tcgen05_ops.hpp"

using gpuprobe::probes::tensor::Tcgen05Args;
using gpuprobe::probes::tensor::Tcgen05CtaOut;
extern "C" {
#define GPUPROBE_TCGEN05_DECLARE(in, acc, tk, n, k, form, cg)                                   \
  __attribute__((weak)) void gpuprobe_tcgen05_##in##_##acc##_n##n##_##form##_cg##cg##_lat(        \
      Tcgen05Args, Tcgen05CtaOut*);                                                               \
  __attribute__((weak)) void gpuprobe_tcgen05_##in##_##acc##_n##n##_##form##_cg##cg##_thr(        \
      Tcgen05Args, Tcgen05CtaOut*);
GPUPROBE_TCGEN05_OPS(GPUPROBE_TCGEN05_DECLARE)
#undef GPUPROBE_TCGEN05_DECLARE
__attribute__((weak)) void gpuprobe_tcgen05_baseline_cg1_lat(Tcgen05Args, Tcgen05CtaOut*);
__attribute__((weak)) void gpuprobe_tcgen05_baseline_cg2_lat(Tcgen05Args, Tcgen05CtaOut*);
}

namespace gpuprobe::probes {
namespace {

// More than half of an sm_100 SM's shared memory (228 KiB): one CTA per SM.
constexpr uint64_t kOneCtaPerSmBytes = 128ull << 10;

const void* kernel_of(const Tcgen05Launch& l) {
  if (l.baseline)
    return tcgen05_info(l.op).cta_group == 1
               ? reinterpret_cast<const void*>(&gpuprobe_tcgen05_baseline_cg1_lat)
               : reinterpret_cast<const void*>(&gpuprobe_tcgen05_baseline_cg2_lat);
#define GPUPROBE_TCGEN05_CASE(in, acc, tk, n, k, form, cg)                                      \
  if (l.op == Tcgen05Op::in##_##acc##_n##n##_##form##_cg##cg)                                     \
    return l.kind == Tcgen05Kind::latency                                                         \
               ? reinterpret_cast<const void*>(                                                   \
                     &gpuprobe_tcgen05_##in##_##acc##_n##n##_##form##_cg##cg##_lat)               \
               : reinterpret_cast<const void*>(                                                   \
                     &gpuprobe_tcgen05_##in##_##acc##_n##n##_##form##_cg##cg##_thr);
  GPUPROBE_TCGEN05_OPS(GPUPROBE_TCGEN05_CASE)
#undef GPUPROBE_TCGEN05_CASE
  return nullptr;
}

template <class T>
cuda::DeviceArray<T> upload(const std::vector<T>& host) {
  cuda::DeviceArray<T> d(host.empty() ? 1 : host.size());
  if (!host.empty())
    GPUPROBE_CUDA_CHECK(cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T),
                                   cudaMemcpyHostToDevice));
  return d;
}

class CudaTcgen05Ops final : public Tcgen05Ops {
 public:
  explicit CudaTcgen05Ops(cuda::CudaDevice& gpu) : gpu_(gpu) {}

  Tcgen05Result run(const Tcgen05Setup& setup, const Tcgen05Run& run) override {
    gpu_.select();
    check_tcgen05_fits(setup, gpu_.info());
    return run_tcgen05(setup, run, [this](const Tcgen05Launch& l) { return launch(l); });
  }

 private:
  Tcgen05LaunchOut launch(const Tcgen05Launch& l) {
    const Tcgen05OpInfo& info = tcgen05_info(l.op);
    const std::string name =
        l.baseline ? tcgen05_baseline_kernel(info.cta_group) : tcgen05_kernel_name(l.op, l.kind);
    const void* kernel = kernel_of(l);
    if (kernel == nullptr)
      throw Skip(name + " is not in this build (it needs sm_100a code: "
                                 "CMAKE_CUDA_ARCHITECTURES with 100)");
    const Tcgen05OperandData& d = *l.operands;
    const size_t tile_words =
        size_t(tensor::tcgen05_m(info)) * tensor::tcgen05_tile_row_words(info);
    auto a_image = upload(d.a_image), b_image = upload(d.b_image), a_tmem = upload(d.a_tmem);
    auto sf_image = upload(d.sf_image);
    cuda::DeviceArray<uint32_t> tile(tile_words);
    cuda::DeviceArray<Tcgen05CtaOut> out(l.ctas);
    GPUPROBE_CUDA_CHECK(cudaMemset(tile.get(), 0, tile.bytes()));
    GPUPROBE_CUDA_CHECK(cudaMemset(out.get(), 0, out.bytes()));
    Tcgen05Args args{};
    args.a_image = a_image.get();
    args.b_image = b_image.get();
    args.a_tmem = a_tmem.get();
    args.sf_image = sf_image.get();
    args.tile = tile.get();
    args.iterations = l.iterations;
    args.zero = 0;
    args.store = l.store ? 1 : 0;
    Tcgen05CtaOut* out_ptr = out.get();
    void* kernel_args[] = {&args, &out_ptr};
    LaunchConfig config;
    config.grid = Dim3{l.ctas, 1, 1};
    config.block = Dim3{tensor::kTcgen05Threads, 1, 1};
    if (info.cta_group == 2) config.cluster = Dim3{2, 1, 1};
    // Throughput: unused dynamic shared memory so that no two CTAs share an SM (one issuing thread
    // per SM; two CTAs wanting all 512 TMEM columns would wait on each other's allocation).
    if (l.kind == Tcgen05Kind::throughput && !l.baseline) config.dynamic_smem_bytes = kOneCtaPerSmBytes;
    Tcgen05LaunchOut o;
    o.launch = cuda::launch(kernel, name.c_str(), config, kernel_args);
    o.ctas.resize(l.ctas);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(o.ctas.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    if (l.store) {
      o.tile.resize(tile_words);
      GPUPROBE_CUDA_CHECK(cudaMemcpy(o.tile.data(), tile.get(), tile.bytes(), cudaMemcpyDeviceToHost));
    }
    return o;
  }

  cuda::CudaDevice& gpu_;
};

const OpsRegistration<Tcgen05Ops> kRegistration("cuda", __FILE__, [](Device& d) {
  return std::make_unique<CudaTcgen05Ops>(dynamic_cast<cuda::CudaDevice&>(d));
});

}  // namespace
}  // namespace gpuprobe::probes
