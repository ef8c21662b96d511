// compute/alu: the CUDA-core kernels (device code only, NVRTC-safe), two per op of compute.def (which
// says what each runs), from probes/common/value_chain.cuh. An op this compile pass lacks (bf16x2
// before sm_80, tanh before sm_75, f32x2 before sm_100) traps; the host, compute.cpp, refuses it first.
#include "probes/common/value_chain.cuh"
#include "ptx/alu.cuh"

namespace gpuprobe::probes::compute::device {

// One struct per op, as run_value_chains (probes/common/value_chain.cuh) takes it.
struct F32Reg {
  using Reg = float;
  static __device__ __forceinline__ Reg from(uint64_t v) { return __uint_as_float(static_cast<uint32_t>(v)); }
  static __device__ __forceinline__ uint64_t bits(Reg x) { return __float_as_uint(x); }
};
struct F64Reg {
  using Reg = double;
  static __device__ __forceinline__ Reg from(uint64_t v) { return __longlong_as_double(static_cast<long long>(v)); }
  static __device__ __forceinline__ uint64_t bits(Reg x) { return static_cast<uint64_t>(__double_as_longlong(x)); }
};
template <class R>
struct IntReg {
  using Reg = R;
  static __device__ __forceinline__ Reg from(uint64_t v) { return static_cast<R>(v); }
  static __device__ __forceinline__ uint64_t bits(Reg x) { return x; }
};

// An op every pass has: Base's register, step = body.
#define GPUPROBE_COMPUTE_STEP(op, Base, body)                                                   \
  struct op : Base {                                                                            \
    static constexpr bool kOnThisPass = true;                                                   \
    static __device__ __forceinline__ Reg step([[maybe_unused]] Reg x, [[maybe_unused]] Reg b, \
                                               [[maybe_unused]] Reg c) {                        \
      return body;                                                                              \
    }                                                                                           \
  };
GPUPROBE_COMPUTE_STEP(fma_rn_f32, F32Reg, ptx::fma_rn_f32(x, b, c))
GPUPROBE_COMPUTE_STEP(fma_rn_f64, F64Reg, ptx::fma_rn_f64(x, b, c))
GPUPROBE_COMPUTE_STEP(fma_rn_f16x2, IntReg<uint32_t>, ptx::fma_rn_f16x2(x, b, c))
GPUPROBE_COMPUTE_STEP(mad_lo_s32, IntReg<uint32_t>,
                      static_cast<uint32_t>(ptx::mad_lo_s32(static_cast<int32_t>(x), static_cast<int32_t>(b),
                                                            static_cast<int32_t>(c))))
GPUPROBE_COMPUTE_STEP(add_add_u32, IntReg<uint32_t>, ptx::add_add_u32(x, b, c))
GPUPROBE_COMPUTE_STEP(ex2_approx_ftz_f32, F32Reg, ptx::ex2_approx_ftz_f32(-x))
GPUPROBE_COMPUTE_STEP(rsqrt_approx_ftz_f32, F32Reg, ptx::rsqrt_approx_ftz_f32(x))
GPUPROBE_COMPUTE_STEP(sin_approx_ftz_f32, F32Reg, ptx::sin_approx_ftz_f32(x))
GPUPROBE_COMPUTE_STEP(cvt_f16_f32, F32Reg, ptx::cvt_f32_f16(ptx::cvt_rn_f16_f32(x)))
GPUPROBE_COMPUTE_STEP(cvt_s32_f32, F32Reg, ptx::cvt_rn_f32_s32(ptx::cvt_rzi_s32_f32(x)))
#undef GPUPROBE_COMPUTE_STEP

// The ops some passes lack.
struct fma_rn_bf16x2 : IntReg<uint32_t> {
  static constexpr bool kOnThisPass = GPUPROBE_PTX_HAS_FMA_BF16X2;
#if GPUPROBE_PTX_HAS_FMA_BF16X2
  static __device__ __forceinline__ Reg step(Reg x, Reg b, Reg c) { return ptx::fma_rn_bf16x2(x, b, c); }
#endif
};
struct fma_rn_f32x2 : IntReg<uint64_t> {
  static constexpr bool kOnThisPass = GPUPROBE_PTX_HAS_FMA_F32X2;
#if GPUPROBE_PTX_HAS_FMA_F32X2
  static __device__ __forceinline__ Reg step(Reg x, Reg b, Reg c) { return ptx::fma_rn_f32x2(x, b, c); }
#endif
};
struct tanh_approx_f32 : F32Reg {
  static constexpr bool kOnThisPass = GPUPROBE_PTX_HAS_TANH_APPROX;
#if GPUPROBE_PTX_HAS_TANH_APPROX
  static __device__ __forceinline__ Reg step(Reg x, Reg, Reg) { return ptx::tanh_approx_f32(x); }
#endif
};

#define GPUPROBE_COMPUTE_OP(op, ...)                                                                       \
  extern "C" __global__ void __launch_bounds__(32)                                                         \
      gpuprobe_alu_##op##_lat(ValueChainArgs a, ValueChainOut* out) {                                      \
    gpuprobe::probes::device::run_value_chains<op, 1>(a, out);                                             \
  }                                                                                                        \
  extern "C" __global__ void __launch_bounds__(1024)                                                       \
      gpuprobe_alu_##op##_thr(ValueChainArgs a, ValueChainOut* out) {                                      \
    gpuprobe::probes::device::run_value_chains<op, gpuprobe::probes::kValueChainThroughputChains>(a, out); \
  }
#include "probes/compute/compute.def"
#undef GPUPROBE_COMPUTE_OP

}  // namespace gpuprobe::probes::compute::device
