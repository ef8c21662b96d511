// compute/alu: the CUDA-core kernels (probes/compute/alu.cuh: the op table and the contract).
// Per op of GPUPROBE_ALU_OPS two extern "C" kernels:
//   gpuprobe_alu_<op>_lat   one dependent chain per thread, 64 ops per loop iteration
//   gpuprobe_alu_<op>_thr   kAluThroughputChains chains per thread, interleaved, 8 ops each per
//                           iteration (64 in all)
// Operands and start values come from the arguments; the closing %clock64 read depends on every
// chain's result (x & zero, zero a runtime 0), so no op is dead, and the results are stored when
// the `store` argument asks. An op whose instruction this compile pass lacks (bf16x2 before sm_80,
// tanh before sm_75, f32x2 before sm_100) traps; the host refuses it before that.
// Device code only (NVRTC-safe); the host side is alu_cuda.cpp.
#include "probes/compute/alu.cuh"
#include "ptx/alu.cuh"
#include "ptx/sreg.cuh"

namespace gpuprobe::probes::compute::device {

// One struct per op: its register type, bit conversions, step(x, b, c) and whether this compile
// pass has it (kOnThisPass; step exists only where it is true).
struct F32Reg {
  using Reg = float;
  static __device__ __forceinline__ Reg from(uint64_t v) {
    return __uint_as_float(static_cast<uint32_t>(v));
  }
  static __device__ __forceinline__ uint64_t bits(Reg x) { return __float_as_uint(x); }
};
struct F64Reg {
  using Reg = double;
  static __device__ __forceinline__ Reg from(uint64_t v) {
    return __longlong_as_double(static_cast<long long>(v));
  }
  static __device__ __forceinline__ uint64_t bits(Reg x) {
    return static_cast<uint64_t>(__double_as_longlong(x));
  }
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

struct fma_rn_f32 : F32Reg {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ Reg step(Reg x, Reg b, Reg c) { return ptx::fma_rn_f32(x, b, c); }
};
struct fma_rn_f64 : F64Reg {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ Reg step(Reg x, Reg b, Reg c) { return ptx::fma_rn_f64(x, b, c); }
};
struct fma_rn_f16x2 : U32Reg {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ Reg step(Reg x, Reg b, Reg c) {
    return ptx::fma_rn_f16x2(x, b, c);
  }
};
struct fma_rn_bf16x2 : U32Reg {
  static constexpr bool kOnThisPass = GPUPROBE_PTX_HAS_FMA_BF16X2;
#if GPUPROBE_PTX_HAS_FMA_BF16X2
  static __device__ __forceinline__ Reg step(Reg x, Reg b, Reg c) {
    return ptx::fma_rn_bf16x2(x, b, c);
  }
#endif
};
struct fma_rn_f32x2 : U64Reg {
  static constexpr bool kOnThisPass = GPUPROBE_PTX_HAS_FMA_F32X2;
#if GPUPROBE_PTX_HAS_FMA_F32X2
  static __device__ __forceinline__ Reg step(Reg x, Reg b, Reg c) {
    return ptx::fma_rn_f32x2(x, b, c);
  }
#endif
};
struct mad_lo_s32 : U32Reg {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ Reg step(Reg x, Reg b, Reg c) {
    return static_cast<uint32_t>(ptx::mad_lo_s32(static_cast<int32_t>(x), static_cast<int32_t>(b),
                                                 static_cast<int32_t>(c)));
  }
};
struct add_add_u32 : U32Reg {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ Reg step(Reg x, Reg b, Reg c) { return ptx::add_add_u32(x, b, c); }
};
struct ex2_approx_ftz_f32 : F32Reg {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ Reg step(Reg x, Reg, Reg) { return ptx::ex2_approx_ftz_f32(-x); }
};
struct rsqrt_approx_ftz_f32 : F32Reg {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ Reg step(Reg x, Reg, Reg) { return ptx::rsqrt_approx_ftz_f32(x); }
};
struct sin_approx_ftz_f32 : F32Reg {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ Reg step(Reg x, Reg, Reg) { return ptx::sin_approx_ftz_f32(x); }
};
struct tanh_approx_f32 : F32Reg {
  static constexpr bool kOnThisPass = GPUPROBE_PTX_HAS_TANH_APPROX;
#if GPUPROBE_PTX_HAS_TANH_APPROX
  static __device__ __forceinline__ Reg step(Reg x, Reg, Reg) { return ptx::tanh_approx_f32(x); }
#endif
};
struct cvt_f16_f32 : F32Reg {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ Reg step(Reg x, Reg, Reg) {
    return ptx::cvt_f32_f16(ptx::cvt_rn_f16_f32(x));
  }
};
struct cvt_s32_f32 : F32Reg {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ Reg step(Reg x, Reg, Reg) {
    return ptx::cvt_rn_f32_s32(ptx::cvt_rzi_s32_f32(x));
  }
};

template <class Op, int kChains>
__device__ __forceinline__ void run_chains(const AluArgs& a, AluWarpOut* out) {
  using Reg = typename Op::Reg;
  constexpr int kPerChain = kAluOpsPerIteration / kChains;
  // Every thread's values are the arguments', but through threadIdx & zero (zero a runtime 0)
  // they are per-thread as far as the compiler knows: the chains run on the vector pipes, not on
  // the uniform datapath that warp-uniform integer chains would get (UIMAD, UIADD3).
  const uint64_t thread_zero = (uint64_t(threadIdx.x) * 0x100000001ull) & a.zero;  // both halves
  Reg x[kChains];
  uint64_t first = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k) {
    x[k] = Op::from(a.start[k] ^ thread_zero);
    first ^= Op::bits(x[k]);
  }
  const Reg b = Op::from(a.b);
  const Reg c = Op::from(a.c);
  // The opening read follows the start values' arrival; the closing one waits for every result.
  const uint64_t c0 = ptx::get_sreg_clock64_after(first, a.zero);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < kPerChain; ++u) {
#pragma unroll
      for (int k = 0; k < kChains; ++k) x[k] = Op::step(x[k], b, c);
    }
  }
  uint64_t last = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k) last ^= Op::bits(x[k]);
  const uint64_t c1 = ptx::get_sreg_clock64_after(last, a.zero);
  if ((threadIdx.x & 31) != 0) return;
  AluWarpOut& o = out[(uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32];
  o.start_cycles = c0;
  o.end_cycles = c1;
  o.smid = ptx::get_sreg_smid();
  if (a.store != 0) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) o.result[k] = Op::bits(x[k]);
  }
  o.ran = 1;
}

template <class Op, int kChains>
__device__ __forceinline__ void run_or_trap(const AluArgs& a, AluWarpOut* out) {
  if constexpr (Op::kOnThisPass) run_chains<Op, kChains>(a, out);
  else __trap();
}

}  // namespace gpuprobe::probes::compute::device

namespace alu_device = gpuprobe::probes::compute::device;
using gpuprobe::probes::compute::AluArgs;
using gpuprobe::probes::compute::AluWarpOut;

#define GPUPROBE_ALU_KERNELS(op)                                                               \
  extern "C" __global__ void __launch_bounds__(32)                                             \
      gpuprobe_alu_##op##_lat(AluArgs a, AluWarpOut* out) {                                    \
    alu_device::run_or_trap<alu_device::op, 1>(a, out);                                        \
  }                                                                                            \
  extern "C" __global__ void __launch_bounds__(1024)                                           \
      gpuprobe_alu_##op##_thr(AluArgs a, AluWarpOut* out) {                                    \
    alu_device::run_or_trap<alu_device::op, gpuprobe::probes::compute::kAluThroughputChains>(  \
        a, out);                                                                               \
  }
GPUPROBE_ALU_OPS(GPUPROBE_ALU_KERNELS)
#undef GPUPROBE_ALU_KERNELS
