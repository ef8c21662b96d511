// atomics: the atomic kernels gpuprobe_atomics_<op>_lat and _thr (probes/atomics/atomics.cuh: the
// contract). A chain's operand is v + (old & zero), zero a runtime 0: a dependent chain of round
// trips; red's chains are independent (a fence closes its timed region). The opening %clock64 read
// follows the start values, the closing one waits for every chain's result. Device code only
// (NVRTC-safe); the host side is atomics.cpp.
#include "probes/atomics/atomics.cuh"
#include "probes/common/unit_record.cuh"
#include "ptx/sreg.cuh"

namespace gpuprobe::probes::atomics::device {

// ---- the PTX forms (PTX ISA: atom, red) -------------------------------------------------------
// Global: a 64-bit generic address of global memory; shared: a 32-bit shared-window address.
#define GPUPROBE_ATOM2(fn, form, T, c, A, ac)                                                      \
  __device__ __forceinline__ T fn(A p, T v) {                                                    \
    T d;                                                                                         \
    asm volatile(form " %0, [%1], %2;" : "=" c(d) : ac(p), c(v) : "memory");                     \
    return d;                                                                                    \
  }
#define GPUPROBE_CAS(fn, form, T, c, A, ac)                                                        \
  __device__ __forceinline__ T fn(A p, T cmp, T v) {                                             \
    T d;                                                                                         \
    asm volatile(form " %0, [%1], %2, %3;" : "=" c(d) : ac(p), c(cmp), c(v) : "memory");         \
    return d;                                                                                    \
  }
#define GPUPROBE_RED(fn, form, T, c, A, ac)                                                        \
  __device__ __forceinline__ void fn(A p, T v) {                                                 \
    asm volatile(form " [%0], %1;" ::ac(p), c(v) : "memory");                                    \
  }
// Each form at 32 and 64 bits, overloaded on the value's type and the address's (space).
#define GPUPROBE_ATOMICS_FORMS(space, A, ac)                                 \
  GPUPROBE_ATOM2(atom_add, "atom." space ".add.u32", uint32_t, "r", A, ac)   \
  GPUPROBE_ATOM2(atom_add, "atom." space ".add.u64", uint64_t, "l", A, ac)   \
  GPUPROBE_ATOM2(atom_exch, "atom." space ".exch.b32", uint32_t, "r", A, ac) \
  GPUPROBE_ATOM2(atom_exch, "atom." space ".exch.b64", uint64_t, "l", A, ac) \
  GPUPROBE_CAS(atom_cas, "atom." space ".cas.b32", uint32_t, "r", A, ac)     \
  GPUPROBE_CAS(atom_cas, "atom." space ".cas.b64", uint64_t, "l", A, ac)     \
  GPUPROBE_RED(red_add, "red." space ".add.u32", uint32_t, "r", A, ac)       \
  GPUPROBE_RED(red_add, "red." space ".add.u64", uint64_t, "l", A, ac)
GPUPROBE_ATOMICS_FORMS("global", uint64_t, "l")
GPUPROBE_ATOMICS_FORMS("shared", uint32_t, "r")
GPUPROBE_ATOM2(atom_add_f32, "atom.shared.add.f32", float, "f", uint32_t, "r")
#undef GPUPROBE_ATOMICS_FORMS
#undef GPUPROBE_ATOM2
#undef GPUPROBE_CAS
#undef GPUPROBE_RED

template <bool kShared>
struct Addr {
  using type = uint64_t;
};
template <>
struct Addr<true> {
  using type = uint32_t;
};

template <bool k64>
struct Word {
  using T = uint32_t;
  static constexpr T kInit = kAtomicsInit32;
  static constexpr T kAddend = 1;
};
template <>
struct Word<true> {
  using T = uint64_t;
  static constexpr T kInit = kAtomicsInit64;
  static constexpr T kAddend = kAtomicsAddend64;
};

// One chain step: the op on `p` with an operand that depends on `last` (the previous result).
template <AtomicsOperation kOperation, class T, class A>
__device__ __forceinline__ T step(A p, T last, T& seen, uint64_t& next, uint32_t& hits, uint64_t zero) {
  using W = Word<sizeof(T) == 8>;
  const T dep = last & static_cast<T>(zero);
  if constexpr (kOperation == AtomicsOperation::add) {
    return atom_add(p, static_cast<T>(W::kAddend + dep));
  } else if constexpr (kOperation == AtomicsOperation::exch) {
    const T token = static_cast<T>(next) + dep;
    ++next;
    return atom_exch(p, token);
  } else if constexpr (kOperation == AtomicsOperation::cas) {
    const T cmp = seen + dep;
    const T got = atom_cas(p, cmp, static_cast<T>(cmp + 1));
    const bool hit = got == cmp;
    hits += hit;
    seen = hit ? static_cast<T>(cmp + 1) : got;
    return seen;  // depends on got; one register per chain rather than two (no spill at 4 chains)
  } else if constexpr (kOperation == AtomicsOperation::red_add) {
    red_add(p, W::kAddend);
    return last;
  } else {  // add_f32 (shared)
    const float got = atom_add_f32(p, __uint_as_float(0x3f800000u | dep));
    return __float_as_uint(got);
  }
}

template <AtomicsOp kOp, int kChains>
__device__ __forceinline__ void run(const AtomicsArgs& a, AtomicsWarpOut* out) {
  constexpr AtomicsOpInfo info = atomics_op_info(kOp);
  constexpr bool kUniform = info.lowering == AtomicsLowering::warp_aggregated;
  constexpr bool kRed = info.operation == AtomicsOperation::red_add;
  constexpr bool kF32 = info.operation == AtomicsOperation::add_f32;
  using T = typename Word<info.bytes == 8>::T;
  const T init = kF32 ? T{0} : Word<info.bytes == 8>::kInit;
  extern __shared__ __align__(16) uint64_t gpuprobe_atomics_smem[];
  T* smem = reinterpret_cast<T*>(gpuprobe_atomics_smem);
  __shared__ __align__(8) T uniform_words[kChains];

  const uint32_t lane = threadIdx.x & 31;
  const uint32_t wpb = blockDim.x / 32;
  // The grid's warp (recomputed at the end rather than held across the loop: with 4 CAS chains a
  // live 64-bit value spills under __launch_bounds__(1024)'s 64 registers).
  const auto grid_warp = [] { return (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; };
  const auto pattern = static_cast<AtomicsPattern>(a.pattern);
  // 32-bit: a 64-bit trip count makes ptxas call a division routine (sm_100+).
  const uint32_t block_words = static_cast<uint32_t>(atomics_block_words(pattern, kChains, wpb));
  if constexpr (info.shared) {
    if constexpr (kUniform) {
      if (threadIdx.x < kChains) uniform_words[threadIdx.x] = init;
    } else {
      for (uint32_t i = threadIdx.x; i < block_words; i += blockDim.x) smem[i] = init;
    }
    __syncthreads();
  }

  using A = typename Addr<info.shared>::type;
  A addr[kChains];
  T last[kChains], seen[kChains];
  uint64_t next[kChains];
  uint32_t hits[kChains];
  uint64_t first = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k) {
    if constexpr (kUniform) {
      if constexpr (info.shared) addr[k] = static_cast<A>(__cvta_generic_to_shared(&uniform_words[k]));
      else addr[k] = reinterpret_cast<uint64_t>(static_cast<T*>(a.words) + k);
    } else {
      if constexpr (info.shared)
        addr[k] = static_cast<A>(__cvta_generic_to_shared(
            smem + atomics_block_word(pattern, kChains, threadIdx.x / 32, lane, k)));
      else
        addr[k] = reinterpret_cast<uint64_t>(static_cast<T*>(a.words) +
                                             atomics_word(pattern, false, kChains, grid_warp(), wpb, lane, k));
    }
    last[k] = 0;
    seen[k] = init;
    hits[k] = 0;
    next[k] = atomics_exch_token((uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) * kChains + k,
                                 a.ops_per_chain, 0);
    first ^= addr[k];
  }
  const uint64_t c0 = ptx::get_sreg_clock64_after(first, a.zero);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < int(kAtomicsOpsPerIteration); ++u) {
#pragma unroll
      for (int k = 0; k < kChains; ++k)
        last[k] = step<info.operation>(addr[k], last[k], seen[k], next[k], hits[k], a.zero);
    }
  }
  if constexpr (kRed) __threadfence();  // red returns nothing: wait until the reds are done
  uint64_t end = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k) end ^= last[k];
  const uint64_t c1 = ptx::get_sreg_clock64_after(end, a.zero);

  if constexpr (info.shared) {  // copy the block's words out
    __syncthreads();
    if constexpr (kUniform) {
      if (threadIdx.x < kChains)
        static_cast<T*>(a.words)[uint64_t(blockIdx.x) * kChains + threadIdx.x] = uniform_words[threadIdx.x];
    } else {
      for (uint32_t i = threadIdx.x; i < block_words; i += blockDim.x)
        static_cast<T*>(a.words)[uint64_t(blockIdx.x) * block_words + i] = smem[i];
    }
  }
  uint32_t sums[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k)
    sums[k] = warp_sum(info.operation == AtomicsOperation::cas
                           ? hits[k]
                           : static_cast<uint32_t>(a.iterations * kAtomicsOpsPerIteration));
  record_unit<32>(out, c0, c1, [&](AtomicsWarpOut& o) {
    if (a.store != 0)
      for (int k = 0; k < kChains; ++k) o.hits[k] = sums[k];
  });
}

// red has no latency kernel body: it returns nothing to chain on.
#define GPUPROBE_ATOMICS_OP(op, ...)                                                               \
  extern "C" __global__ void __launch_bounds__(1024)                                               \
      gpuprobe_atomics_##op##_lat(AtomicsArgs a, AtomicsWarpOut* out) {                            \
    if constexpr (atomics_op_info(AtomicsOp::op).operation == AtomicsOperation::red_add) __trap(); \
    else run<AtomicsOp::op, 1>(a, out);                                                            \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(1024)                                               \
      gpuprobe_atomics_##op##_thr(AtomicsArgs a, AtomicsWarpOut* out) {                            \
    run<AtomicsOp::op, kAtomicsThroughputChains>(a, out);                                          \
  }
#include "probes/atomics/atomics.def"
#undef GPUPROBE_ATOMICS_OP

}  // namespace gpuprobe::probes::atomics::device
