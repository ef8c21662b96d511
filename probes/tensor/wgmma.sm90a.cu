// tensor/wgmma: the wgmma kernels (probes/tensor/wgmma.cuh: the op table and the contract). Built
// for sm_90a only (cmake/GpuprobeCuda.cmake), and its build fails when ptxas reports that it
// serialised a wgmma (C7510/C7511/C7517/C7519): no accumulator is touched between a wgmma and
// the wait_group that covers it, every accumulator index is a constant.
// Per op of wgmma.def: gpuprobe_wgmma_<op>_lat and gpuprobe_wgmma_<op>_thr, and one
// gpuprobe_wgmma_baseline_lat. Device code only (NVRTC-safe); the host side is wgmma.cpp.
#include "probes/common/unit_record.cuh"
#include "probes/tensor/wgmma.cuh"
#include "ptx/sreg.cuh"
#include "ptx/wgmma.cuh"

namespace gpuprobe::probes::tensor::device {

// The operand images, copied from global memory; 128-byte aligned (a core matrix).
struct Smem {
  alignas(128) uint32_t a[kWgmmaAImageBytes / 4];
  alignas(128) uint32_t b[kWgmmaMaxBImageBytes / 4];
};

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Copies A and B into shared memory and makes them visible to the async proxy; returns the
// descriptors. Every thread of the block takes part.
__device__ __forceinline__ void load_operands(const WgmmaArgs& a, uint32_t n, Smem& s,
                                              uint64_t& a_desc, uint64_t& b_desc) {
  for (uint32_t i = threadIdx.x; i < kWgmmaAImageBytes / 4; i += blockDim.x) s.a[i] = a.a_image[i];
  for (uint32_t i = threadIdx.x; i < n * kWgmmaRowBytes / 4; i += blockDim.x) s.b[i] = a.b_image[i];
  ptx::fence_proxy_async_shared_cta();
  __syncthreads();
  a_desc = ptx::wgmma_desc_interleave(smem_addr(s.a), kWgmmaLboBytes, kWgmmaSboBytes);
  b_desc = ptx::wgmma_desc_interleave(smem_addr(s.b), kWgmmaLboBytes, kWgmmaSboBytes);
}

template <uint32_t kRegs>
__device__ __forceinline__ void fence_operands(uint32_t (&d)[kRegs]) {
#pragma unroll
  for (uint32_t r = 0; r < kRegs; ++r) ptx::wgmma_fence_operand(d[r]);
}

template <uint32_t kRegs>
__device__ __forceinline__ uint64_t fold(const uint32_t (&d)[kRegs]) {
  uint64_t x = 0;
#pragma unroll
  for (uint32_t r = 0; r < kRegs; ++r) x ^= uint64_t(d[r]) << (r % 2 ? 32 : 0);
  return x;
}

__device__ __forceinline__ void record(const WgmmaArgs& a, WgmmaGroupOut* out, uint64_t c0,
                                       uint64_t c1, uint64_t checksum) {
  record_unit<kWgmmaThreads>(out, c0, c1, [&](WgmmaGroupOut& o) { o.checksum = checksum; });
}

// One measurement loop with `mma(d, a_fragment, a_desc, b_desc)`:
//   latency (!kThr): one wgmma per commit group, waited for before the next;
//   throughput: kWgmmaThroughputPerIteration wgmmas per commit group, round robin over kAcc
//     accumulators (wgmmas on one accumulator pipeline in hardware); one group stays in flight
//     while the next issues.
template <uint32_t kRegs, bool kRs, uint32_t kN, bool kThr, uint32_t kAcc, class Mma>
__device__ __forceinline__ void measure(const WgmmaArgs& a, WgmmaGroupOut* out, Mma mma) {
  __shared__ Smem s;
  uint64_t a_desc, b_desc;
  load_operands(a, kN, s, a_desc, b_desc);
  const uint32_t thread = kThr ? threadIdx.x % kWgmmaThreads : threadIdx.x;
  uint32_t frag[kWgmmaARegs];
#pragma unroll
  for (uint32_t r = 0; r < kWgmmaARegs; ++r) frag[r] = kRs ? a.a_frag[thread * kWgmmaARegs + r] : 0;
  uint32_t d[kAcc][kRegs];
#pragma unroll
  for (uint32_t k = 0; k < kAcc; ++k) {
#pragma unroll
    for (uint32_t r = 0; r < kRegs; ++r) d[k][r] = 0;
    fence_operands(d[k]);
  }
  const uint64_t c0 = ptx::get_sreg_clock64_after(a_desc ^ frag[0], a.zero);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
    ptx::wgmma_fence();
    if constexpr (kThr) {
#pragma unroll
      for (uint32_t j = 0; j < kWgmmaThroughputPerIteration; ++j) mma(d[j % kAcc], frag, a_desc, b_desc);
      ptx::wgmma_commit_group();
      ptx::wgmma_wait_group<1>();
    } else {
      mma(d[0], frag, a_desc, b_desc);
      ptx::wgmma_commit_group();
      ptx::wgmma_wait_group<0>();
    }
  }
  if constexpr (kThr) ptx::wgmma_wait_group<0>();
  uint64_t sum = 0;
#pragma unroll
  for (uint32_t k = 0; k < kAcc; ++k) {
    fence_operands(d[k]);
    sum ^= fold(d[k]);
  }
  const uint64_t c1 = ptx::get_sreg_clock64_after(sum, a.zero);
  if (!kThr && a.store != 0) {
#pragma unroll
    for (uint32_t r = 0; r < kRegs; ++r) a.tile[threadIdx.x * kRegs + r] = d[0][r];
  }
  record(a, out, c0, c1, sum);
}

// The latency loop without the wgmma.
__device__ __forceinline__ void baseline(const WgmmaArgs& a, WgmmaGroupOut* out) {
  const uint64_t c0 = ptx::get_sreg_clock64_after(a.iterations, a.zero);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
    ptx::wgmma_fence();
    ptx::wgmma_commit_group();
    ptx::wgmma_wait_group<0>();
  }
  const uint64_t c1 = ptx::get_sreg_clock64_after(c0, a.zero);
  record(a, out, c0, c1, 0);
}

// The wgmma of an op as a functor over (accumulators, A fragment, A descriptor, B descriptor), one
// per op at namespace scope (NVRTC, which CUDA 12 tests use, rejects a lambda without an execution
// space inside a kernel, and a local class cannot have the member template the accumulator needs).
#define GPUPROBE_WGMMA_INVOKE_ss(fn) \
  (void)f;                           \
  gpuprobe::ptx::fn(d, ad, bd)
#define GPUPROBE_WGMMA_INVOKE_rs(fn) \
  (void)ad;                          \
  gpuprobe::ptx::fn(d, f, bd)
#define GPUPROBE_WGMMA_FUNCTOR(in, acc, n, kdim, form)                                          \
  struct WgmmaCall_##in##_##acc##_n##n##_##form {                                               \
    template <class D>                                                                          \
    __device__ __forceinline__ void operator()(D& d, const uint32_t (&f)[4], uint64_t ad,       \
                                               uint64_t bd) const {                             \
      GPUPROBE_WGMMA_INVOKE_##form(wgmma_m64n##n##k##kdim##_##acc##_##in##_##form);              \
    }                                                                                           \
  };
#define GPUPROBE_WGMMA_OP GPUPROBE_WGMMA_FUNCTOR
#include "probes/tensor/wgmma.def"
#undef GPUPROBE_WGMMA_OP
#undef GPUPROBE_WGMMA_FUNCTOR
#define GPUPROBE_WGMMA_CALL(in, acc, n, form) WgmmaCall_##in##_##acc##_n##n##_##form{}

#define GPUPROBE_WGMMA_KERNELS(in, acc, n, kdim, form)                                        \
  extern "C" __global__ void __launch_bounds__(128, 1)                                        \
      gpuprobe_wgmma_##in##_##acc##_n##n##_##form##_lat(WgmmaArgs a, WgmmaGroupOut* out) {    \
    constexpr WgmmaOpInfo info = wgmma_op_info(WgmmaOp::in##_##acc##_n##n##_##form);          \
    measure<wgmma_acc_regs(info), info.rs, n, false, 1>(a, out,                                \
                                                        GPUPROBE_WGMMA_CALL(in, acc, n, form)); \
  }                                                                                           \
  extern "C" __global__ void __launch_bounds__(128)                                           \
      gpuprobe_wgmma_##in##_##acc##_n##n##_##form##_thr(WgmmaArgs a, WgmmaGroupOut* out) {    \
    constexpr WgmmaOpInfo info = wgmma_op_info(WgmmaOp::in##_##acc##_n##n##_##form);          \
    measure<wgmma_acc_regs(info), info.rs, n, true, wgmma_throughput_accumulators(info)>(     \
        a, out, GPUPROBE_WGMMA_CALL(in, acc, n, form));                                       \
  }
#define GPUPROBE_WGMMA_OP GPUPROBE_WGMMA_KERNELS
#include "probes/tensor/wgmma.def"
#undef GPUPROBE_WGMMA_OP
#undef GPUPROBE_WGMMA_KERNELS

extern "C" __global__ void __launch_bounds__(128, 1)
    gpuprobe_wgmma_baseline_lat(WgmmaArgs a, WgmmaGroupOut* out) {
  baseline(a, out);
}

}  // namespace gpuprobe::probes::tensor::device
