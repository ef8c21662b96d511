// tensor/tcgen05: the tcgen05 kernels (probes/tensor/tcgen05.cuh: the op table and the contract).
// Built for sm_100a only (cmake/GpuprobeCuda.cmake): kind::i8 exists only on `a` targets, and an
// `a` cubin runs on compute capability 10.0 alone. Per op of tcgen05.def:
// gpuprobe_tcgen05_<op>_lat and gpuprobe_tcgen05_<op>_thr; per cta_group one
// gpuprobe_tcgen05_baseline_cg<N>_lat. Device code only (NVRTC-safe); the host side is
// tcgen05.cpp.
#include "harness/cuda/bounded_wait.cuh"
#include "probes/common/unit_record.cuh"
#include "probes/tensor/tcgen05.cuh"
#include "ptx/barrier.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/sreg.cuh"
#include "ptx/tcgen05.cuh"

// The PTX wrappers this unit uses exist only on device passes (GPUPROBE_PTX_HAS_*). nvcc's host
// pass compiles each __global__ kernel into the host function that launches it and never
// instantiates device code, so that pass sees only the declarations of the two device templates
// the kernels name (below); their definitions are device-pass code.
#if defined(__CUDA_ARCH__)
namespace gpuprobe::probes::tensor::device {

// One CTA's operand images (128-byte aligned: a core matrix), the scale factors of the
// block-scaled kinds, its mbarriers (two for the loops, one for the scale factors' copy) and the
// TMEM address the allocation wrote.
struct Smem {
  alignas(128) uint32_t a[kTcgen05AImageBytes / 4];
  alignas(128) uint32_t b[kTcgen05MaxBImageBytes / 4];
  alignas(128) uint32_t sf[kTcgen05SfImageBytes / 4];
  alignas(8) uint64_t bar[3];
  uint32_t tmem;
};

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// cta_group::2: every thread of both CTAs of the pair meets here (cta_group::1: nothing).
template <int kCg>
__device__ __forceinline__ void pair_sync() {
  if constexpr (kCg == 2) {
    ptx::barrier_cluster_arrive_release_aligned();
    ptx::barrier_cluster_wait_acquire_aligned();
  }
}

// Every thread of the CTA group (the CTA, or both CTAs of the pair) meets here; tcgen05
// operations before it are ordered before those after it.
template <int kCg>
__device__ __forceinline__ void group_sync() {
  ptx::tcgen05_fence_before_thread_sync();
  if constexpr (kCg == 1) __syncthreads();
  else pair_sync<kCg>();
  ptx::tcgen05_fence_after_thread_sync();
}

// A commit's mbarrier phase, waited for under the deadline of harness/cuda/bounded_wait.cuh;
// `iteration` is what a timeout reports (a commit expects no transaction bytes).
__device__ __forceinline__ void wait_phase(uint32_t bar, uint32_t parity, uint32_t iteration) {
  cuda::wait_mbarrier_parity(bar, parity, iteration, 0);
}

template <int kCg>
__device__ __forceinline__ uint32_t cta_rank() {
  if constexpr (kCg == 1) return 0;
  else return ptx::get_sreg_cluster_ctarank();
}

// The CTA's share of the operands into shared memory (and, TS, A into TMEM; kBs, the scale
// factors into TMEM columns a_col..), the mbarriers initialised, TMEM allocated; returns the TMEM
// base address. Every thread takes part.
template <int kCg, bool kBs>
__device__ __forceinline__ uint32_t setup(const Tcgen05Args& a, Smem& s, uint32_t b_rows,
                                          uint32_t cols, bool ts, uint32_t a_col) {
  const uint32_t rank = cta_rank<kCg>();
  const uint32_t* a_src = a.a_image + rank * (kTcgen05AImageBytes / 4);
  const uint32_t* b_src = a.b_image + rank * (b_rows * kTcgen05RowBytes / 4);
  for (uint32_t i = threadIdx.x; i < kTcgen05AImageBytes / 4; i += kTcgen05Threads) s.a[i] = a_src[i];
  for (uint32_t i = threadIdx.x; i < b_rows * kTcgen05RowBytes / 4; i += kTcgen05Threads) s.b[i] = b_src[i];
  if constexpr (kBs)
    for (uint32_t i = threadIdx.x; i < kTcgen05SfImageBytes / 4; i += kTcgen05Threads)
      s.sf[i] = a.sf_image[i];
  if (threadIdx.x == 0) {
    ptx::mbarrier_init_shared_b64(smem_addr(&s.bar[0]), 1);
    ptx::mbarrier_init_shared_b64(smem_addr(&s.bar[1]), 1);
    ptx::mbarrier_init_shared_b64(smem_addr(&s.bar[2]), 1);
    ptx::fence_mbarrier_init_release_cluster();
  }
  // The generic-proxy stores become visible to the tensor core's (async proxy) reads.
  ptx::fence_proxy_async_shared_cta();
  // cta_group::2: both CTAs of the pair are running before their warps 0 allocate together.
  pair_sync<kCg>();
  if (threadIdx.x / 32 == 0) {
    ptx::tcgen05_alloc<kCg>(smem_addr(&s.tmem), cols);
    ptx::tcgen05_relinquish_alloc_permit<kCg>();
  }
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = s.tmem;
  if (ts) {
    // Thread t (warp w = t / 32) holds row t: TMEM lane t, columns a_col .. a_col + 7.
    uint32_t row[kTcgen05AWords];
    const uint32_t* src = a.a_tmem + (rank * kTcgen05RowsPerCta + threadIdx.x) * kTcgen05AWords;
#pragma unroll
    for (uint32_t w = 0; w < kTcgen05AWords; ++w) row[w] = src[w];
    ptx::tcgen05_st_32x32b_x8(tmem + ((threadIdx.x / 32 * 32) << 16) + a_col, row);
    ptx::tcgen05_wait_st();
  }
  if constexpr (kBs) {
    // Thread 0 copies A's scale factors into columns a_col..+3 and B's into a_col+4..+11 (all
    // 128 lanes: warpx4), commits the copies and waits for them.
    if (threadIdx.x == 0) {
      const uint64_t sfa = tcgen05_sf_desc(smem_addr(s.sf));
      const uint64_t sfb = tcgen05_sf_desc(smem_addr(s.sf + 32 * kTcgen05SfRowBytes / 4));
      ptx::tcgen05_cp_32x128b_warpx4<kCg>(tmem + a_col, sfa);
      ptx::tcgen05_cp_32x128b_warpx4<kCg>(tmem + a_col + 4, sfb);
      ptx::tcgen05_cp_32x128b_warpx4<kCg>(tmem + a_col + 8, sfb);
      ptx::tcgen05_commit<kCg>(smem_addr(&s.bar[2]));
      wait_phase(smem_addr(&s.bar[2]), 0, 0);
    }
  }
  // The peer's operands (and A in its TMEM) are in place before the leader issues.
  group_sync<kCg>();
  return tmem;
}

// D (accumulator 0) from TMEM to `tile`: thread t stores row t of its CTA, N words (32-bit D)
// or N / 2 (16-bit D, two columns per word: kD16).
template <int kCg, bool kD16>
__device__ __forceinline__ void store_tile(const Tcgen05Args& a, uint32_t tmem, uint32_t n) {
  const uint32_t row = cta_rank<kCg>() * kTcgen05RowsPerCta + threadIdx.x;
  const uint32_t lane_base = (threadIdx.x / 32 * 32) << 16;
  const uint32_t row_words = kD16 ? n / 2 : n;
  for (uint32_t w = 0; w < row_words; w += 8) {
    uint32_t r[8];
    if constexpr (kD16) ptx::tcgen05_ld_32x32b_x8_pack_16b(tmem + lane_base + 2 * w, r);
    else ptx::tcgen05_ld_32x32b_x8(tmem + lane_base + w, r);
    ptx::tcgen05_wait_ld();
#pragma unroll
    for (uint32_t j = 0; j < 8; ++j) a.tile[uint64_t(row) * row_words + w + j] = r[j];
  }
}

// Thread 0 writes the CTA's record (the cycles are the issuing thread's, 0 elsewhere).
__device__ __forceinline__ void record(Tcgen05CtaOut* out, uint64_t c0, uint64_t c1, bool leader) {
  record_cta(out, c0, c1, [&](Tcgen05CtaOut& o) { o.leader = leader ? 1 : 0; });
}

template <int kCg, bool kD16>
__device__ __forceinline__ void finish(const Tcgen05Args& a, Tcgen05CtaOut* out, uint32_t tmem,
                                       uint32_t n, uint32_t cols, uint64_t c0, uint64_t c1,
                                       bool leader) {
  // The leader saw the last commit complete; every thread of the group may now read D.
  group_sync<kCg>();
  if (a.store != 0) store_tile<kCg, kD16>(a, tmem, n);
  record(out, c0, c1, leader);
  // Both CTAs are done with their TMEM before either frees it.
  group_sync<kCg>();
  if (threadIdx.x / 32 == 0) ptx::tcgen05_dealloc<kCg>(tmem, cols);
  // cta_group::2: neither CTA exits while the pair's deallocation may still reach it.
  pair_sync<kCg>();
}

// One measurement loop, issued and timed by the group's thread 0 (the leader), with
// `mma(d_tmem, a_operand, b_desc, accumulate, sf_tmem)`; kD16: D is 16-bit (its read-back); kBs:
// block-scaled (its scale factors at sf_tmem):
//   latency (!kThroughput): one MMA, commit, wait, per iteration;
//   throughput: kTcgen05ThroughputPerIteration MMAs per commit, round robin over kAcc TMEM
//     accumulators; iteration i commits to mbarrier i % 2 and then waits for iteration i - 1's
//     commit, so one commit's MMAs are in flight while the next ones issue.
template <int kCg, uint32_t kN, bool kTs, bool kThroughput, uint32_t kAcc, bool kD16, bool kBs,
          class Mma>
__device__ __forceinline__ void measure(const Tcgen05Args& a, Tcgen05CtaOut* out,
                                        const Tcgen05OpInfo& info, Mma mma) {
  __shared__ Smem s;
  const uint32_t cols = tcgen05_tmem_columns(info, kThroughput);
  const uint32_t a_col = tcgen05_a_column(info, kThroughput);
  const uint32_t tmem = setup<kCg, kBs>(a, s, kN / kCg, cols, kTs, a_col);
  const uint32_t sf = tmem + a_col;   // block-scaled: A's scale factors, then B's
  const bool leader = cta_rank<kCg>() == 0 && threadIdx.x == 0;
  uint64_t c0 = 0, c1 = 0;
  if (leader) {
    const uint64_t a_operand = kTs ? uint64_t(tmem + a_col) : tcgen05_smem_desc(smem_addr(s.a));
    const uint64_t b_desc = tcgen05_smem_desc(smem_addr(s.b));
    const uint32_t bar0 = smem_addr(&s.bar[0]), bar1 = smem_addr(&s.bar[1]);
    c0 = ptx::get_sreg_clock64_after(a_operand ^ b_desc, a.zero);
    if constexpr (!kThroughput) {
      uint32_t parity = 0;
#pragma unroll 1
      for (uint64_t i = a.iterations; i != 0; --i) {
        mma(tmem, a_operand, b_desc, i != a.iterations ? 1u : 0u, sf);
        ptx::tcgen05_commit<kCg>(bar0);
        wait_phase(bar0, parity, static_cast<uint32_t>(i));  // i: iterations left
        parity ^= 1;
      }
      c1 = ptx::get_sreg_clock64_after(parity, a.zero);
    } else {
      uint64_t i = 0;
#pragma unroll 1
      for (; i < a.iterations; ++i) {
        const uint32_t again = i != 0 ? 1u : 0u;
#pragma unroll
        for (uint32_t j = 0; j < kTcgen05ThroughputPerIteration; ++j)
          mma(tmem + (j % kAcc) * kN, a_operand, b_desc, j < kAcc ? again : 1u, sf);
        ptx::tcgen05_commit<kCg>((i & 1) ? bar1 : bar0);
        if (i != 0) wait_phase(((i - 1) & 1) ? bar1 : bar0, uint32_t((i - 1) >> 1) & 1, uint32_t(i - 1));
      }
      wait_phase(((i - 1) & 1) ? bar1 : bar0, uint32_t((i - 1) >> 1) & 1, uint32_t(i - 1));
      c1 = ptx::get_sreg_clock64_after(i, a.zero);
    }
  }
  finish<kCg, kD16>(a, out, tmem, kN, cols, c0, c1, leader);
}

// The latency loop without the MMA: a commit with nothing outstanding, and its wait.
template <int kCg>
__device__ __forceinline__ void baseline(const Tcgen05Args& a, Tcgen05CtaOut* out) {
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init_shared_b64(smem_addr(&bar), 1);
    ptx::fence_mbarrier_init_release_cluster();
  }
  group_sync<kCg>();
  const bool leader = cta_rank<kCg>() == 0 && threadIdx.x == 0;
  uint64_t c0 = 0, c1 = 0;
  if (leader) {
    uint32_t parity = 0;
    c0 = ptx::get_sreg_clock64_after(a.iterations, a.zero);
#pragma unroll 1
    for (uint64_t i = a.iterations; i != 0; --i) {
      ptx::tcgen05_commit<kCg>(smem_addr(&bar));
      wait_phase(smem_addr(&bar), parity, static_cast<uint32_t>(i));  // i: iterations left
      parity ^= 1;
    }
    c1 = ptx::get_sreg_clock64_after(parity, a.zero);
  }
  group_sync<kCg>();
  record(out, c0, c1, leader);
}

}  // namespace gpuprobe::probes::tensor::device
#else
namespace gpuprobe::probes::tensor::device {
template <int kCg, uint32_t kN, bool kTs, bool kThroughput, uint32_t kAcc, bool kD16, bool kBs,
          class Mma>
__device__ void measure(const Tcgen05Args&, Tcgen05CtaOut*, const Tcgen05OpInfo&, Mma);
template <int kCg>
__device__ void baseline(const Tcgen05Args&, Tcgen05CtaOut*);
}  // namespace gpuprobe::probes::tensor::device
#endif

namespace gpuprobe::probes::tensor::device {

// The MMA of an op as a lambda over (D address, A descriptor or TMEM address, B descriptor,
// accumulate, scale-factor TMEM address); the instruction descriptor is a compile-time constant.
#define GPUPROBE_TCGEN05_CALL(kind, form, cg, idesc)                                              \
  [](uint32_t d, uint64_t a_op, uint64_t b, uint32_t acc, uint32_t sf) {                          \
    (void)sf;                                                                                     \
    gpuprobe::ptx::tcgen05_mma_##kind##_##form##_cg##cg(d, GPUPROBE_TCGEN05_A_##form(a_op), b,    \
                                                         idesc, acc GPUPROBE_TCGEN05_SF_##kind);  \
  }
#define GPUPROBE_TCGEN05_A_ss(x) (x)
#define GPUPROBE_TCGEN05_A_ts(x) static_cast<uint32_t>(x)
// The scale factors' arguments: A's at sf, B's 4 columns on (block-scaled kinds only).
#define GPUPROBE_TCGEN05_SF_f16
#define GPUPROBE_TCGEN05_SF_tf32
#define GPUPROBE_TCGEN05_SF_f8f6f4
#define GPUPROBE_TCGEN05_SF_i8
#define GPUPROBE_TCGEN05_SF_mxf8f6f4 , sf, sf + 4
#define GPUPROBE_TCGEN05_SF_mxf4 , sf, sf + 4
#define GPUPROBE_TCGEN05_SF_mxf4nvf4 , sf, sf + 4

// The op's _lat (kThr false) or _thr kernel.
#define GPUPROBE_TCGEN05_KERNEL(in, acc, kind, n, form, cg, suffix, kThr)                                    \
  extern "C" __global__ void __launch_bounds__(128, 1)                                                     \
      gpuprobe_tcgen05_##in##_##acc##_n##n##_##form##_cg##cg##_##suffix(Tcgen05Args a, Tcgen05CtaOut* out) { \
    constexpr Tcgen05OpInfo info = tcgen05_op_info(Tcgen05Op::in##_##acc##_n##n##_##form##_cg##cg);        \
    constexpr uint32_t idesc = tcgen05_idesc(info);                                                        \
    measure<cg, n, info.ts, kThr, tcgen05_accumulators(info, kThr), tcgen05_d16(info),                     \
            tcgen05_block_scaled(info)>(a, out, info, GPUPROBE_TCGEN05_CALL(kind, form, cg, idesc));       \
  }
#define GPUPROBE_TCGEN05_OP(in, acc, kind, n, k, form, cg)          \
  GPUPROBE_TCGEN05_KERNEL(in, acc, kind, n, form, cg, lat, false) \
  GPUPROBE_TCGEN05_KERNEL(in, acc, kind, n, form, cg, thr, true)
#include "probes/tensor/tcgen05.def"
#undef GPUPROBE_TCGEN05_OP
#undef GPUPROBE_TCGEN05_KERNEL

extern "C" __global__ void __launch_bounds__(128, 1)
    gpuprobe_tcgen05_baseline_cg1_lat(Tcgen05Args a, Tcgen05CtaOut* out) {
  baseline<1>(a, out);
}
extern "C" __global__ void __launch_bounds__(128, 1)
    gpuprobe_tcgen05_baseline_cg2_lat(Tcgen05Args a, Tcgen05CtaOut* out) {
  baseline<2>(a, out);
}

}  // namespace gpuprobe::probes::tensor::device
