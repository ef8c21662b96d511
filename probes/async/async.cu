// async: the async-copy kernels, gpuprobe_async_<op>_d<D> and gpuprobe_async_tma_chase
// (probes/async/async.cuh: the op table, the kernels and the contract; async_device.cuh: the slots
// and the closing clock). An op this compile pass lacks (cp.async before sm_80, bulk and TMA before
// sm_90) traps; the host refuses it before that. Device code only (NVRTC-safe); the host side is
// async.cpp.
#include "probes/async/async_device.cuh"
#include "ptx/async_copy.cuh"
#include "ptx/barrier.cuh"
#include "ptx/ld.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/sreg.cuh"
#include "ptx/st.cuh"

namespace gpuprobe::probes::async::device {

// ---- thread ops: cp.async with commit/wait groups ----------------------------------------------
#if GPUPROBE_PTX_HAS_CP_ASYNC
template <int kBytes, bool kBypassL1, int kDepth>
__device__ __forceinline__ void run_cp_async(const AsyncArgs& a, AsyncCtaOut* out) {
  __shared__ uint32_t sum;
  if (threadIdx.x == 0) sum = 0;
  const uint32_t stride_bytes = slot_words(a.copy_bytes) * 4;
  const uint32_t dst = shared_addr(gpuprobe_async_smem) + threadIdx.x * kBytes;
  const uint64_t src = reinterpret_cast<uint64_t>(a.src) + threadIdx.x * kBytes;
  const uint64_t copy_words = a.copy_bytes / 4, mask = a.src_words - 1;
  const uint64_t step = uint64_t(gridDim.x) * kDepth;  // copy index advance per iteration
  ptx::bar_sync_0();
  const uint64_t c0 = ptx::get_sreg_clock64_after(src, a.zero);
  uint64_t c = async_copy_index(0, blockIdx.x, gridDim.x, 0, kDepth);
#pragma unroll
  for (int s = 0; s < kDepth; ++s) {
    ptx::cp_async_shared_global<kBytes, kBypassL1>(dst + s * stride_bytes,
                                                   src + 4 * ((c + s) * copy_words & mask));
    ptx::cp_async_commit_group();
  }
#pragma unroll 1
  for (uint64_t i = a.iterations - 1; i != 0; --i) {
    c += step;
#pragma unroll
    for (int s = 0; s < kDepth; ++s) {
      ptx::cp_async_wait_group<kDepth - 1>();  // slot s's previous copy (the oldest group)
      ptx::cp_async_shared_global<kBytes, kBypassL1>(dst + s * stride_bytes,
                                                     src + 4 * ((c + s) * copy_words & mask));
      ptx::cp_async_commit_group();
    }
  }
  ptx::cp_async_wait_group<0>();
  finish<kDepth>(a, out, c0, &sum);
}
#endif

// ---- thread ops: the synchronous comparison (ld.global into registers, then st.shared) --------
// Each iteration loads its kDepth copies first (kDepth loads in flight), then stores them. The next
// iteration's addresses depend on this one's first word (x & zero): one CTA at depth 1 is a chain.
template <int kBytes, int kDepth>
__device__ __forceinline__ void run_ld_st(const AsyncArgs& a, AsyncCtaOut* out) {
  constexpr int kWords = kBytes / 4;
  __shared__ uint32_t sum;
  if (threadIdx.x == 0) sum = 0;
  const uint32_t stride_bytes = slot_words(a.copy_bytes) * 4;
  const uint32_t dst = shared_addr(gpuprobe_async_smem) + threadIdx.x * kBytes;
  const uint64_t src = reinterpret_cast<uint64_t>(a.src) + threadIdx.x * kBytes;
  const uint64_t copy_words = a.copy_bytes / 4, mask = a.src_words - 1;
  const uint64_t step = uint64_t(gridDim.x) * kDepth;
  ptx::bar_sync_0();
  const uint64_t c0 = ptx::get_sreg_clock64_after(src, a.zero);
  uint64_t c = async_copy_index(0, blockIdx.x, gridDim.x, 0, kDepth);
  uint32_t carry = 0;
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
    ptx::Words<kWords> v[kDepth];
    const uint64_t dep = carry & a.zero;
#pragma unroll
    for (int s = 0; s < kDepth; ++s)
      v[s] = ptx::LdGlobal<kWords, ptx::GlobalCache::all_levels>::load(
          src + 4 * ((c + s) * copy_words & mask) + dep);
#pragma unroll
    for (int s = 0; s < kDepth; ++s) ptx::StShared<kWords>::store(dst + s * stride_bytes, v[s]);
    carry = v[0].w[0];
    c += step;
  }
  finish<kDepth>(a, out, c0, &sum);
}

// ---- bulk and TMA: one thread issues, each slot completes on its own mbarrier ------------------
#if GPUPROBE_PTX_HAS_BULK_COPY
template <AsyncEngine kEngine>
__device__ __forceinline__ void issue(const AsyncArgs& a, const AsyncTensorMap& map, uint32_t dst,
                                      uint64_t c, uint32_t bar) {
  const uint64_t copy_words = a.copy_bytes / 4;
  ptx::mbarrier_arrive_expect_tx_shared_cta(bar, a.copy_bytes);
  if constexpr (kEngine == AsyncEngine::bulk) {
    ptx::cp_async_bulk_shared_global(
        dst, reinterpret_cast<uint64_t>(a.src) + 4 * (c * copy_words & (a.src_words - 1)),
        a.copy_bytes, bar);
  } else if constexpr (kEngine == AsyncEngine::tma_1d) {
    ptx::cp_async_bulk_tensor_1d(dst, &map,
                                 static_cast<int32_t>(c * copy_words & (a.src_words - 1)), bar);
  } else {
    // Boxes of 64 words x box_rows rows; 16 boxes per 1024-word row band (async.cuh).
    const uint64_t t = c & (a.tma2d_tiles - 1);
    ptx::cp_async_bulk_tensor_2d(dst, &map, static_cast<int32_t>(t % 16 * kAsyncTma2dBoxWords),
                                 static_cast<int32_t>(t / 16 * a.box_rows), bar);
  }
}

template <AsyncEngine kEngine, int kDepth>
__device__ __forceinline__ void run_bulk(const AsyncArgs& a, const AsyncTensorMap& map,
                                         AsyncCtaOut* out) {
  __shared__ uint32_t sum;
  const uint32_t stride_bytes = slot_words(a.copy_bytes) * 4;
  const uint32_t dst = shared_addr(gpuprobe_async_smem);
  const uint32_t bars = dst + kDepth * stride_bytes;
  if (threadIdx.x == 0) {
    sum = 0;
#pragma unroll
    for (int s = 0; s < kDepth; ++s) ptx::mbarrier_init_shared_b64(bars + 8 * s, 1);
    ptx::fence_proxy_async_shared_cta();  // the barriers, seen by the async proxy
  }
  ptx::bar_sync_0();
  const uint64_t c0 = ptx::get_sreg_clock64_after(bars, a.zero);
  if (threadIdx.x == 0) {
    uint64_t c = async_copy_index(0, blockIdx.x, gridDim.x, 0, kDepth);
    const uint64_t step = uint64_t(gridDim.x) * kDepth;
#pragma unroll
    for (int s = 0; s < kDepth; ++s) issue<kEngine>(a, map, dst + s * stride_bytes, c + s, bars + 8 * s);
    uint32_t parity = 0;
#pragma unroll 1
    for (uint64_t i = a.iterations - 1; i != 0; --i) {
      c += step;
#pragma unroll
      for (int s = 0; s < kDepth; ++s) {
        wait_phase(bars + 8 * s, parity, static_cast<uint32_t>(i), a.copy_bytes);  // i: rounds left
        issue<kEngine>(a, map, dst + s * stride_bytes, c + s, bars + 8 * s);
      }
      parity ^= 1;
    }
#pragma unroll
    for (int s = 0; s < kDepth; ++s) wait_phase(bars + 8 * s, parity, 0, a.copy_bytes);
  }
  finish<kDepth>(a, out, c0, &sum);
}

// The TMA chase: thread 0 hops through the ring (host: a stride ring of 128-byte nodes, each
// node's first word the next node's word index); every hop a 16-byte TMA 1D load into the slot,
// its mbarrier's phase, and the word it brought.
__device__ __forceinline__ void run_chase(const AsyncArgs& a, const AsyncTensorMap& map,
                                          AsyncCtaOut* out) {
  const uint32_t dst = shared_addr(gpuprobe_async_smem);
  const uint32_t bar = dst + 128;
  if (threadIdx.x != 0) return;
  ptx::mbarrier_init_shared_b64(bar, 1);
  ptx::fence_proxy_async_shared_cta();
  uint32_t x = a.start_word, parity = 0;
  const auto hops = [&](uint64_t n) {
#pragma unroll 1
    for (uint64_t i = n; i != 0; --i) {
      ptx::mbarrier_arrive_expect_tx_shared_cta(bar, 4 * kAsyncChaseBoxWords);
      ptx::cp_async_bulk_tensor_1d(dst, &map, static_cast<int32_t>(x), bar);
      wait_phase(bar, parity, static_cast<uint32_t>(i), 4 * kAsyncChaseBoxWords);  // i: hops left
      parity ^= 1;
      x = ptx::LdShared<1>::load(dst).w[0];
    }
  };
  hops(a.warmup);
  const uint64_t c0 = ptx::get_sreg_clock64_after(x, a.zero);
  hops(a.iterations);
  const uint64_t c1 = ptx::get_sreg_clock64_after(x, a.zero);
  record_cta(out, c0, c1, [&](AsyncCtaOut& o) { o.result = x; });
}
#endif

template <AsyncOp kOp, int kDepth>
__device__ __forceinline__ void run(const AsyncArgs& a, const AsyncTensorMap& map,
                                    AsyncCtaOut* out) {
  constexpr AsyncOpInfo info = async_op_info(kOp);
  if constexpr (info.engine == AsyncEngine::thread_sync) {
    run_ld_st<info.thread_bytes, kDepth>(a, out);
  } else if constexpr (info.engine == AsyncEngine::thread_async) {
#if GPUPROBE_PTX_HAS_CP_ASYNC
    run_cp_async<info.thread_bytes, kOp == AsyncOp::cp_async_cg_16, kDepth>(a, out);
#else
    __trap();
#endif
  } else {
#if GPUPROBE_PTX_HAS_BULK_COPY
    run_bulk<info.engine, kDepth>(a, map, out);
#else
    __trap();
#endif
  }
}

#define GPUPROBE_ASYNC_KERNEL(op, depth)                                            \
  extern "C" __global__ void __launch_bounds__(512) gpuprobe_async_##op##_d##depth( \
      AsyncArgs a, const __grid_constant__ AsyncTensorMap map, AsyncCtaOut* out) {  \
    run<AsyncOp::op, depth>(a, map, out);                                           \
  }
#define GPUPROBE_ASYNC_OP(op, ...) GPUPROBE_ASYNC_DEPTHS(GPUPROBE_ASYNC_KERNEL, op)
#include "probes/async/async.def"
#undef GPUPROBE_ASYNC_OP
#undef GPUPROBE_ASYNC_KERNEL

extern "C" __global__ void __launch_bounds__(32)
    gpuprobe_async_tma_chase(AsyncArgs a, const __grid_constant__ AsyncTensorMap map, AsyncCtaOut* out) {
#if GPUPROBE_PTX_HAS_BULK_COPY
  run_chase(a, map, out);
#else
  __trap();
#endif
}

}  // namespace gpuprobe::probes::async::device
