// compute/alu: the CUDA-core kernels. Per op of probes/compute/compute.def two extern "C" kernels
// (the value-chain kernel of probes/common/value_chain.cuh):
//   gpuprobe_alu_<op>_lat   one dependent chain per thread, 64 ops per loop iteration
//   gpuprobe_alu_<op>_thr   kValueChainThroughputChains chains per thread, interleaved, 8 ops
//                           each per iteration (64 in all)
// An op whose instruction this compile pass lacks (bf16x2 before sm_80, tanh before sm_75, f32x2
// before sm_100) traps; the host refuses it before that. Device code only (NVRTC-safe); the host
// side is compute.cpp.
#include "probes/common/value_chain.cuh"
#include "ptx/alu.cuh"

namespace gpuprobe::probes::compute::device {

// One struct per op: its register type, bit conversions, step(x, b, c) and whether this compile
// pass has it (kOnThisPass; step exists only where it is true).
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
struct U32Reg {
  using Reg = uint32_t;
  static __device__ __forceinline__ Reg from(uint64_t v) { return static_cast<uint32_t>(v); }
  static __device__ __forceinline__ uint64_t bits(Reg x) { return x; }
};
struct U64Reg {
  using Reg = uint64_t;
  static __device__ __forceinline__ Reg from(uint64_t v) { return v; }
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
GPUPROBE_COMPUTE_STEP(fma_rn_f16x2, U32Reg, ptx::fma_rn_f16x2(x, b, c))
GPUPROBE_COMPUTE_STEP(mad_lo_s32, U32Reg,
                      static_cast<uint32_t>(ptx::mad_lo_s32(static_cast<int32_t>(x), static_cast<int32_t>(b),
                                                            static_cast<int32_t>(c))))
GPUPROBE_COMPUTE_STEP(add_add_u32, U32Reg, ptx::add_add_u32(x, b, c))
GPUPROBE_COMPUTE_STEP(ex2_approx_ftz_f32, F32Reg, ptx::ex2_approx_ftz_f32(-x))
GPUPROBE_COMPUTE_STEP(rsqrt_approx_ftz_f32, F32Reg, ptx::rsqrt_approx_ftz_f32(x))
GPUPROBE_COMPUTE_STEP(sin_approx_ftz_f32, F32Reg, ptx::sin_approx_ftz_f32(x))
GPUPROBE_COMPUTE_STEP(cvt_f16_f32, F32Reg, ptx::cvt_f32_f16(ptx::cvt_rn_f16_f32(x)))
GPUPROBE_COMPUTE_STEP(cvt_s32_f32, F32Reg, ptx::cvt_rn_f32_s32(ptx::cvt_rzi_s32_f32(x)))
#undef GPUPROBE_COMPUTE_STEP

// The ops some passes lack.
struct fma_rn_bf16x2 : U32Reg {
  static constexpr bool kOnThisPass = GPUPROBE_PTX_HAS_FMA_BF16X2;
#if GPUPROBE_PTX_HAS_FMA_BF16X2
  static __device__ __forceinline__ Reg step(Reg x, Reg b, Reg c) { return ptx::fma_rn_bf16x2(x, b, c); }
#endif
};
struct fma_rn_f32x2 : U64Reg {
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
