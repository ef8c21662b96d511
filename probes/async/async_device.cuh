// Device code the async kernels share (async.cu, multicast.sm90a.cu): the dynamic shared memory,
// the slots' layout, the end of every copy kernel (the closing clock, the slots' fingerprint, the
// CTA's record) and the wait for an mbarrier phase. NVRTC-safe.
#pragma once
#include "harness/cuda/bounded_wait.cuh"
#include "probes/async/async.cuh"
#include "probes/common/unit_record.cuh"
#include "ptx/barrier.cuh"
#include "ptx/ld.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/sreg.cuh"

namespace gpuprobe::probes::async::device {

extern __shared__ __align__(128) uint32_t gpuprobe_async_smem[];

// Words between the starts of two slots: the copy rounded up to 128 bytes (TMA's alignment).
__device__ __forceinline__ uint32_t slot_words(uint32_t copy_bytes) {
  return (copy_bytes + 127) / 128 * 32;
}

__device__ __forceinline__ uint32_t shared_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Every thread: after its own copies landed. Thread 0 reads the clock once the whole CTA is there,
// the CTA fingerprints its slots, thread 0 writes the record.
template <int kDepth>
__device__ __forceinline__ void finish(const AsyncArgs& a, AsyncCtaOut* out, uint64_t c0,
                                       uint32_t* sum) {
  ptx::bar_sync_0();
  const uint32_t first = ptx::LdShared<1>::load(shared_addr(gpuprobe_async_smem)).w[0];
  const uint64_t c1 = ptx::get_sreg_clock64_after(first, a.zero);
  if (a.store != 0) {
    const uint32_t copy_words = a.copy_bytes / 4, stride = slot_words(a.copy_bytes);
    uint32_t part = 0;
    for (uint32_t k = threadIdx.x; k < kDepth * copy_words; k += blockDim.x)
      part += async_fingerprint_step(k, gpuprobe_async_smem[k / copy_words * stride + k % copy_words]);
    atomicAdd(sum, part);
    ptx::bar_sync_0();
  }
  record_cta(out, c0, c1, [&](AsyncCtaOut& o) { o.result = a.store != 0 ? *sum : 0; });
}

#if GPUPROBE_PTX_HAS_MBARRIER_TRY_WAIT
// The phase of parity `parity` of the mbarrier at `bar`, waited for under the deadline of
// harness/cuda/bounded_wait.cuh; `iteration` and `expected_bytes` (the copy's expect_tx) are what
// a timeout reports.
__device__ __forceinline__ void wait_phase(uint32_t bar, uint32_t parity, uint32_t iteration,
                                           uint32_t expected_bytes) {
  cuda::wait_mbarrier_parity(bar, parity, iteration, expected_bytes);
}
#endif

}  // namespace gpuprobe::probes::async::device
