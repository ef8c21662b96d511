// async: the TMA multicast kernel (probes/async/async.cuh), in its own sm_90a unit: ptxas warns
// (an Advisory) about .multicast::cluster on plain targets, and the multicast form is meant for
// the a/f targets (ptx/async_multicast.cuh). gpuprobe_async_tma_multicast: clusters of one-warp
// CTAs; each round every CTA arms its mbarrier with the box's bytes, the cluster meets at its
// barrier (every CTA armed, the previous round consumed), CTA rank 0 issues one TMA 2D load
// multicast to every CTA of the cluster, and every CTA waits for its own copy. A round's latency
// so includes one cluster barrier. Copy c = round x clusters + cluster; the slot's fingerprint is
// checked as the other copies' are. The host side is async.cpp (weak reference).
#include "probes/async/async_device.cuh"
#include "ptx/async_multicast.cuh"

namespace gpuprobe::probes::async::device {

// The device pass for sm_90a only (nvcc's host pass parses the kernel too).
#if GPUPROBE_PTX_HAS_BULK_COPY
__device__ __forceinline__ void cluster_sync() {
  ptx::barrier_cluster_arrive_release_aligned();
  ptx::barrier_cluster_wait_acquire_aligned();
}

__device__ __forceinline__ void run_multicast(const AsyncArgs& a, const AsyncTensorMap& map,
                                              AsyncCtaOut* out) {
  __shared__ uint32_t sum;
  const uint32_t dst = shared_addr(gpuprobe_async_smem);
  const uint32_t bar = dst + slot_words(a.copy_bytes) * 4;
  const uint32_t rank = ptx::get_sreg_cluster_ctarank();
  const uint32_t size = ptx::get_sreg_cluster_nctarank();
  const unsigned short mask = static_cast<unsigned short>((1u << size) - 1);
  const uint64_t clusters = gridDim.x / size;
  if (threadIdx.x == 0) {
    sum = 0;
    ptx::mbarrier_init_shared_b64(bar, 1);
    ptx::fence_proxy_async_shared_cta();
  }
  cluster_sync();  // every CTA's barrier initialised before any multicast reaches it
  const uint64_t c0 = ptx::get_sreg_clock64_after(bar, a.zero);
  uint64_t c = blockIdx.x / size;
  uint32_t parity = 0;
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
    if (threadIdx.x == 0) ptx::mbarrier_arrive_expect_tx_shared_cta(bar, a.copy_bytes);
    cluster_sync();
    if (threadIdx.x == 0) {
      if (rank == 0) {
        const uint64_t t = c & (a.tma2d_tiles - 1);
        ptx::cp_async_bulk_tensor_2d_multicast(dst, &map, static_cast<int32_t>(t % 16 * kAsyncTma2dBoxWords),
                                               static_cast<int32_t>(t / 16 * a.box_rows), bar, mask);
      }
      wait_phase(bar, parity, static_cast<uint32_t>(i), a.copy_bytes);  // i: rounds left
    }
    parity ^= 1;
    c += clusters;
  }
  cluster_sync();  // no CTA leaves while a multicast may still write into it
  finish<1>(a, out, c0, &sum);
}
#endif

}  // namespace gpuprobe::probes::async::device

extern "C" __global__ void __launch_bounds__(32) gpuprobe_async_tma_multicast(
    gpuprobe::probes::async::AsyncArgs a,
    const __grid_constant__ gpuprobe::probes::async::AsyncTensorMap map,
    gpuprobe::probes::async::AsyncCtaOut* out) {
#if GPUPROBE_PTX_HAS_BULK_COPY
  gpuprobe::probes::async::device::run_multicast(a, map, out);
#else
  __trap();
#endif
}
