// tensor/mma: the mma.sync kernels, three per form of ptx/mma_forms.def (probes/tensor/mma.cuh:
// what each does, the form table and the contract). A form whose instruction this compile pass
// lacks traps; the host refuses it before that. The arch-specific forms (GPUPROBE_MMA_FORM_SM120A)
// get kernels only in probes/tensor/mma.sm120a.cu (this file with GPUPROBE_MMA_SM120A_UNIT).
// Device code only (NVRTC-safe); the host side is mma.cpp.
#include "probes/common/unit_record.cuh"
#include "probes/tensor/mma.cuh"
#include "ptx/mma.cuh"
#include "ptx/sreg.cuh"
#if defined(GPUPROBE_MMA_SM120A_UNIT)
#include "ptx/mma_sm120a.cuh"
#endif

namespace gpuprobe::probes::tensor::device {

// Register <-> words.
__device__ __forceinline__ uint64_t reg_bits(uint32_t x) { return x; }
__device__ __forceinline__ uint64_t reg_bits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ uint64_t reg_bits(double x) {
  return static_cast<uint64_t>(__double_as_longlong(x));
}
__device__ __forceinline__ uint32_t reg_with_bits(uint32_t, uint64_t v) { return static_cast<uint32_t>(v); }
__device__ __forceinline__ float reg_with_bits(float, uint64_t v) {
  return __uint_as_float(static_cast<uint32_t>(v));
}
__device__ __forceinline__ double reg_with_bits(double, uint64_t v) {
  return __longlong_as_double(static_cast<long long>(v));
}
template <class T>
__device__ __forceinline__ T reg_from(const uint32_t* w, int i) {
  if constexpr (sizeof(T) == 8) return reg_with_bits(T{}, uint64_t(w[2 * i]) | uint64_t(w[2 * i + 1]) << 32);
  else return reg_with_bits(T{}, w[i]);
}
template <class T>
__device__ __forceinline__ void reg_store(uint32_t* w, int i, T x) {
  const uint64_t b = reg_bits(x);
  if constexpr (sizeof(T) == 8) {
    w[2 * i] = static_cast<uint32_t>(b);
    w[2 * i + 1] = static_cast<uint32_t>(b >> 32);
  } else {
    w[i] = static_cast<uint32_t>(b);
  }
}

// One Form per form: register types and counts (Regs, from the ptx/ wrapper's signature), whether
// this pass has it (kOnThisPass; a form the pass lacks keeps the primary template, whose kernels
// trap) and whether ptxas emulates it here (kEmulated: the kernels feed the accumulator back into
// A). mma takes the lane's two scale words too; only the block-scaled forms use them.
template <MmaOp>
struct Form {
  static constexpr bool kOnThisPass = false;
};

template <class Wrapper>
struct Regs;
template <class CT, class AT, int nc, int na, int nb>
struct Regs<void(CT (&)[nc], const AT (&)[na], const AT (&)[nb])> {
  using AReg = AT;
  using CReg = CT;
  static constexpr int kA = na, kB = nb, kC = nc;
  static constexpr bool kOnThisPass = true;
};

#define GPUPROBE_MMA_STRUCT(id, emulated, wrapper)                                               \
  template <>                                                                                    \
  struct Form<MmaOp::id> : Regs<decltype(ptx::wrapper)> {                                        \
    static constexpr bool kEmulated = emulated;                                                  \
    static __device__ __forceinline__ void mma(CReg (&d)[kC], const AReg (&a)[kA],               \
                                               const AReg (&b)[kB], uint32_t, uint32_t) {        \
      ptx::wrapper(d, a, b);                                                                     \
    }                                                                                            \
  };

// A block-scaled form (sm_120a unit only): its wrapper with the lane's scale words and the form's
// selectors (mma.cuh mma_block_scale_of), native, 4 A, 2 B and 4 f32 C registers.
#define GPUPROBE_MMA_SCALED_STRUCT(id, wrapper)                                                  \
  template <>                                                                                    \
  struct Form<MmaOp::id> : Regs<void(float (&)[4], const uint32_t (&)[4], const uint32_t (&)[2])> { \
    static constexpr bool kEmulated = false;                                                     \
    static __device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4],            \
                                               const uint32_t (&b)[2], uint32_t scale_a,         \
                                               uint32_t scale_b) {                               \
      constexpr MmaBlockScale s = mma_block_scale_of(MmaOp::id);                                 \
      static_assert(s.vec != 0, "a block-scaled form needs its selectors in mma.cuh");           \
      ptx::wrapper<s.byte_a, s.thread_a, s.byte_b, s.thread_b>(d, a, b, scale_a, scale_b);       \
    }                                                                                            \
  };

#if GPUPROBE_PTX_HAS_MMA_SM70
GPUPROBE_MMA_STRUCT(m8n8k4_f16_f16, GPUPROBE_PTX_MMA_M8N8K4_F16_EMULATED,
                    mma_sync_aligned_m8n8k4_row_col_f16_f16_f16_f16)
GPUPROBE_MMA_STRUCT(m8n8k4_f16_f32, GPUPROBE_PTX_MMA_M8N8K4_F16_EMULATED,
                    mma_sync_aligned_m8n8k4_row_col_f32_f16_f16_f32)
#endif
#if GPUPROBE_PTX_HAS_MMA_SM75
GPUPROBE_MMA_STRUCT(m16n8k8_f16_f16, false, mma_sync_aligned_m16n8k8_row_col_f16_f16_f16_f16)
GPUPROBE_MMA_STRUCT(m16n8k8_f16_f32, false, mma_sync_aligned_m16n8k8_row_col_f32_f16_f16_f32)
GPUPROBE_MMA_STRUCT(m8n8k16_s8_s32, GPUPROBE_PTX_MMA_M8N8K16_S8_EMULATED,
                    mma_sync_aligned_m8n8k16_row_col_s32_s8_s8_s32)
GPUPROBE_MMA_STRUCT(m8n8k32_s4_s32, GPUPROBE_PTX_MMA_S4_EMULATED,
                    mma_sync_aligned_m8n8k32_row_col_s32_s4_s4_s32)
#endif
#if GPUPROBE_PTX_HAS_MMA_SM80
GPUPROBE_MMA_STRUCT(m16n8k16_f16_f16, false, mma_sync_aligned_m16n8k16_row_col_f16_f16_f16_f16)
GPUPROBE_MMA_STRUCT(m16n8k16_f16_f32, false, mma_sync_aligned_m16n8k16_row_col_f32_f16_f16_f32)
GPUPROBE_MMA_STRUCT(m16n8k16_bf16_f32, false, mma_sync_aligned_m16n8k16_row_col_f32_bf16_bf16_f32)
GPUPROBE_MMA_STRUCT(m16n8k8_tf32_f32, false, mma_sync_aligned_m16n8k8_row_col_f32_tf32_tf32_f32)
GPUPROBE_MMA_STRUCT(m8n8k4_f64_f64, false, mma_sync_aligned_m8n8k4_row_col_f64_f64_f64_f64)
GPUPROBE_MMA_STRUCT(m16n8k32_s8_s32, false, mma_sync_aligned_m16n8k32_row_col_s32_s8_s8_s32)
GPUPROBE_MMA_STRUCT(m16n8k64_s4_s32, GPUPROBE_PTX_MMA_S4_EMULATED,
                    mma_sync_aligned_m16n8k64_row_col_s32_s4_s4_s32)
#endif
#if GPUPROBE_PTX_HAS_MMA_F64_M16N8K16
GPUPROBE_MMA_STRUCT(m16n8k16_f64_f64, false, mma_sync_aligned_m16n8k16_row_col_f64_f64_f64_f64)
#endif
#if GPUPROBE_PTX_HAS_MMA_FP8
GPUPROBE_MMA_STRUCT(m16n8k32_e4m3_f32, GPUPROBE_PTX_MMA_FP8_EMULATED,
                    mma_sync_aligned_m16n8k32_row_col_f32_e4m3_e4m3_f32)
GPUPROBE_MMA_STRUCT(m16n8k32_e5m2_f32, GPUPROBE_PTX_MMA_FP8_EMULATED,
                    mma_sync_aligned_m16n8k32_row_col_f32_e5m2_e5m2_f32)
#endif

#if defined(GPUPROBE_MMA_SM120A_UNIT)
// kind::f8f6f4 (ptx/mma_sm120a.cuh): native on sm_120a, never emulated.
GPUPROBE_MMA_STRUCT(m16n8k32_e2m1_f32, false, mma_sync_aligned_m16n8k32_row_col_kind_f8f6f4_f32_e2m1_e2m1_f32)
GPUPROBE_MMA_STRUCT(m16n8k32_e3m2_f32, false, mma_sync_aligned_m16n8k32_row_col_kind_f8f6f4_f32_e3m2_e3m2_f32)
GPUPROBE_MMA_STRUCT(m16n8k32_e2m3_f32, false, mma_sync_aligned_m16n8k32_row_col_kind_f8f6f4_f32_e2m3_e2m3_f32)
// Block-scaled kinds: the lane's scale words, the form's selectors.
GPUPROBE_MMA_SCALED_STRUCT(
    m16n8k32_mxf8f6f4_e4m3_f32,
    mma_sync_aligned_kind_mxf8f6f4_block_scale_scale_vec_1x_m16n8k32_row_col_f32_e4m3_e4m3_f32_ue8m0)
GPUPROBE_MMA_SCALED_STRUCT(
    m16n8k32_mxf8f6f4_e5m2_f32,
    mma_sync_aligned_kind_mxf8f6f4_block_scale_scale_vec_1x_m16n8k32_row_col_f32_e5m2_e5m2_f32_ue8m0)
GPUPROBE_MMA_SCALED_STRUCT(
    m16n8k32_mxf8f6f4_e3m2_f32,
    mma_sync_aligned_kind_mxf8f6f4_block_scale_scale_vec_1x_m16n8k32_row_col_f32_e3m2_e3m2_f32_ue8m0)
GPUPROBE_MMA_SCALED_STRUCT(
    m16n8k64_mxf4_e2m1_f32,
    mma_sync_aligned_kind_mxf4_block_scale_scale_vec_2x_m16n8k64_row_col_f32_e2m1_e2m1_f32_ue8m0)
GPUPROBE_MMA_SCALED_STRUCT(
    m16n8k64_mxf4nvf4_e2m1_f32,
    mma_sync_aligned_kind_mxf4nvf4_block_scale_scale_vec_2x_m16n8k64_row_col_f32_e2m1_e2m1_f32_ue8m0)
GPUPROBE_MMA_SCALED_STRUCT(
    m16n8k64_mxf4nvf4_ue4m3_e2m1_f32,
    mma_sync_aligned_kind_mxf4nvf4_block_scale_scale_vec_4x_m16n8k64_row_col_f32_e2m1_e2m1_f32_ue4m3)
#endif

#undef GPUPROBE_MMA_STRUCT
#undef GPUPROBE_MMA_SCALED_STRUCT

// Each form's Form by its name (the kernels' and tests/probes/tensor/test_sass_mma.py's mutants').
#define GPUPROBE_MMA_FORM(id, ...) using id = Form<MmaOp::id>;
#include "ptx/mma_forms.def"
#undef GPUPROBE_MMA_FORM

template <class F>
struct Operands {
  typename F::AReg a[F::kA];
  typename F::AReg b[F::kB];
  typename F::AReg b_neg[F::kB];
  typename F::CReg c[F::kC];
  uint32_t scale_a, scale_b;
};

template <class F>
__device__ __forceinline__ Operands<F> load_operands(const MmaLane& l) {
  Operands<F> o;
#pragma unroll
  for (int i = 0; i < F::kA; ++i) o.a[i] = reg_from<typename F::AReg>(l.a, i);
#pragma unroll
  for (int i = 0; i < F::kB; ++i) {
    o.b[i] = reg_from<typename F::AReg>(l.b, i);
    o.b_neg[i] = reg_from<typename F::AReg>(l.b_neg, i);
  }
#pragma unroll
  for (int i = 0; i < F::kC; ++i) o.c[i] = reg_from<typename F::CReg>(l.c, i);
  o.scale_a = l.scale_a;
  o.scale_b = l.scale_b;
  return o;
}

template <class F>
__device__ __forceinline__ void run_tile(const MmaArgs& args, uint32_t* d) {
  const uint32_t lane = threadIdx.x & 31;
  Operands<F> o = load_operands<F>(args.lanes[lane]);
  F::mma(o.c, o.a, o.b, o.scale_a, o.scale_b);
#pragma unroll
  for (int i = 0; i < F::kC; ++i) reg_store(d + lane * kMmaMaxCWords, i, o.c[i]);
}

// One mma of chain `acc`; emulated forms first feed the accumulator into A (see mma.cuh).
template <class F>
__device__ __forceinline__ void step(typename F::CReg (&acc)[F::kC], const typename F::AReg (&a)[F::kA],
                                     const typename F::AReg (&b)[F::kB], uint64_t zero,
                                     uint32_t scale_a, uint32_t scale_b) {
  if constexpr (F::kEmulated) {
    typename F::AReg fed[F::kA];
#pragma unroll
    for (int i = 0; i < F::kA; ++i) fed[i] = a[i];
    fed[0] = reg_with_bits(fed[0], reg_bits(fed[0]) ^ (reg_bits(acc[0]) & zero));
    F::mma(acc, fed, b, scale_a, scale_b);
  } else {
    F::mma(acc, a, b, scale_a, scale_b);
  }
}

template <class F, int kChains>
__device__ __forceinline__ void run_chains(const MmaArgs& args, MmaWarpOut* out) {
  using CReg = typename F::CReg;
  constexpr int kPerChain = kMmaPerIteration / kChains;
  static_assert(kPerChain % 2 == 0, "each chain alternates B and -B");
  const Operands<F> o = load_operands<F>(args.lanes[threadIdx.x & 31]);
  // Distinct starts (C ^ (k & zero)): ptxas cannot merge chains it cannot prove equal.
  CReg acc[kChains][F::kC];
  uint64_t first = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k) {
#pragma unroll
    for (int i = 0; i < F::kC; ++i) {
      acc[k][i] = reg_with_bits(o.c[i], reg_bits(o.c[i]) ^ (uint64_t(k) & args.zero));
      first ^= reg_bits(acc[k][i]);
    }
  }
  const uint64_t c0 = ptx::get_sreg_clock64_after(first, args.zero);
#pragma unroll 1
  for (uint64_t it = args.iterations; it != 0; --it) {
#pragma unroll
    for (int u = 0; u < kPerChain; u += 2) {
#pragma unroll
      for (int k = 0; k < kChains; ++k) step<F>(acc[k], o.a, o.b, args.zero, o.scale_a, o.scale_b);
#pragma unroll
      for (int k = 0; k < kChains; ++k) step<F>(acc[k], o.a, o.b_neg, args.zero, o.scale_a, o.scale_b);
    }
  }
  uint64_t last = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k) {
#pragma unroll
    for (int i = 0; i < F::kC; ++i) last ^= reg_bits(acc[k][i]);
  }
  const uint64_t c1 = ptx::get_sreg_clock64_after(last, args.zero);
  record_unit<32>(out, c0, c1, [&](MmaWarpOut& w) {
    if (args.store != 0) w.checksum = last;
  });
}

template <class F, int kChains>
__device__ __forceinline__ void chains_or_trap(const MmaArgs& args, MmaWarpOut* out) {
  if constexpr (F::kOnThisPass) run_chains<F, kChains>(args, out);
  else __trap();
}

template <class F>
__device__ __forceinline__ void tile_or_trap(const MmaArgs& args, uint32_t* d) {
  if constexpr (F::kOnThisPass) run_tile<F>(args, d);
  else __trap();
}

}  // namespace gpuprobe::probes::tensor::device

namespace mma_device = gpuprobe::probes::tensor::device;
using gpuprobe::probes::tensor::MmaArgs;
using gpuprobe::probes::tensor::MmaWarpOut;

#define GPUPROBE_MMA_KERNELS(id)                                                               \
  extern "C" __global__ void __launch_bounds__(32)                                             \
      gpuprobe_mma_##id##_tile(MmaArgs a, uint32_t* d) {                                       \
    mma_device::tile_or_trap<mma_device::id>(a, d);                                            \
  }                                                                                            \
  extern "C" __global__ void __launch_bounds__(32)                                             \
      gpuprobe_mma_##id##_lat(MmaArgs a, MmaWarpOut* out) {                                    \
    mma_device::chains_or_trap<mma_device::id, 1>(a, out);                                     \
  }                                                                                            \
  extern "C" __global__ void __launch_bounds__(gpuprobe::probes::tensor::kMmaMaxBlockThreads)  \
      gpuprobe_mma_##id##_thr(MmaArgs a, MmaWarpOut* out) {                                    \
    mma_device::chains_or_trap<mma_device::id, gpuprobe::probes::tensor::kMmaThroughputChains>( \
        a, out);                                                                               \
  }
#if defined(GPUPROBE_MMA_SM120A_UNIT)
#define GPUPROBE_MMA_FORM(id, m, n, k, input, acc, min_sm, ptx)
#define GPUPROBE_MMA_FORM_SM120A(id, m, n, k, input, acc, min_sm, ptx) GPUPROBE_MMA_KERNELS(id)
#else
#define GPUPROBE_MMA_FORM(id, m, n, k, input, acc, min_sm, ptx) GPUPROBE_MMA_KERNELS(id)
#define GPUPROBE_MMA_FORM_SM120A(id, m, n, k, input, acc, min_sm, ptx)
#endif
#include "ptx/mma_forms.def"
#undef GPUPROBE_MMA_FORM_SM120A
#undef GPUPROBE_MMA_FORM
#undef GPUPROBE_MMA_KERNELS
