// Block, cluster and grid barriers, distributed shared memory and memory fences for the sync
// probes: one function per PTX instruction form, named after its mnemonic, with the PTX form, the
// ISA version, the minimum SM and the SASS it becomes (PTX ISA; tests/probes/sync/test_sass.py).
// Every barrier and fence carries a "memory" clobber (it orders memory; cicc must not move loads
// or stores across it). Forms newer than the suite's sm_70 minimum exist only on compile passes
// that have them (GPUPROBE_PTX_HAS_*). NVRTC-safe: no standard library, no cooperative_groups
// header (grid_sync() below is what cg::this_grid().sync() lowers to).
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

// Clusters (barrier.cluster, mapa, ld.shared::cluster, %cluster_* registers, .cluster scope) and
// fence.proxy.async: sm_90+ (PTX ISA 7.8 / 8.0).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GPUPROBE_PTX_HAS_CLUSTER 1
#else
#define GPUPROBE_PTX_HAS_CLUSTER 0
#endif

namespace gpuprobe::ptx {

// ---- CTA barriers ------------------------------------------------------------------------------

// PTX: bar.sync 0; PTX ISA 6.0 (barrier.sync.aligned); sm_70+. SASS: BAR.SYNC.DEFER_BLOCKING
__device__ __forceinline__ void bar_sync_0() { asm volatile("bar.sync 0;" ::: "memory"); }

// PTX: bar.sync id, nthreads; PTX ISA 6.0; sm_70+. SASS: BAR.SYNC.DEFER_BLOCKING id, n
__device__ __forceinline__ void bar_sync(uint32_t id, uint32_t nthreads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

// PTX: bar.arrive id, nthreads (no wait: the producer side of a named barrier); PTX ISA 6.0;
// sm_70+. SASS: BAR.ARV
__device__ __forceinline__ void bar_arrive(uint32_t id, uint32_t nthreads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

// PTX: setp.ne.u32 p, a, 0; bar.red.popc.u32 d, 0, p (d: the threads of the CTA whose a is
// non-zero; what __syncthreads_count returns); PTX ISA 6.0; sm_70+. SASS: BAR.RED.POPC
__device__ __forceinline__ uint32_t bar_red_popc_u32(uint32_t a) {
  uint32_t d;
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tbar.red.popc.u32 %0, 0, p;\n\t}"
               : "=r"(d) : "r"(a) : "memory");
  return d;
}

// ---- clusters and distributed shared memory (sm_90+) -------------------------------------------
#if GPUPROBE_PTX_HAS_CLUSTER
// PTX: mov.u32 d, %cluster_ctarank; PTX ISA 7.8; sm_90+. SASS: S2R SR_CgaCtaId-based
__device__ __forceinline__ uint32_t get_sreg_cluster_ctarank() {
  GPUPROBE_PTX_REQUIRE(cluster_dsmem);
  uint32_t r;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// PTX: mov.u32 d, %cluster_nctarank; PTX ISA 7.8; sm_90+
__device__ __forceinline__ uint32_t get_sreg_cluster_nctarank() {
  GPUPROBE_PTX_REQUIRE(cluster_dsmem);
  uint32_t r;
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}

// PTX: barrier.cluster.arrive.release.aligned; PTX ISA 8.0; sm_90+. SASS: UCGABAR_ARV (after the
// release fence: MEMBAR.ALL.GPU-class + ERRBAR + CGAERRBAR)
__device__ __forceinline__ void barrier_cluster_arrive_release_aligned() {
  GPUPROBE_PTX_REQUIRE(cluster_dsmem);
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}

// PTX: barrier.cluster.arrive.relaxed.aligned (no release fence); PTX ISA 8.0; sm_90+.
// SASS: UCGABAR_ARV
__device__ __forceinline__ void barrier_cluster_arrive_relaxed_aligned() {
  GPUPROBE_PTX_REQUIRE(cluster_dsmem);
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

// PTX: barrier.cluster.wait.acquire.aligned; PTX ISA 8.0; sm_90+. SASS: UCGABAR_WAIT
__device__ __forceinline__ void barrier_cluster_wait_acquire_aligned() {
  GPUPROBE_PTX_REQUIRE(cluster_dsmem);
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// PTX: mapa.shared::cluster.u64 d, a, rank (a shared-window address of this CTA -> the
// shared::cluster address of the same offset in CTA `rank` of the cluster); PTX ISA 7.8; sm_90+.
// SASS: MAPA (a register computation, no memory access)
__device__ __forceinline__ uint64_t mapa_shared_cluster_u64(uint64_t shared_addr, uint32_t rank) {
  GPUPROBE_PTX_REQUIRE(cluster_dsmem);
  uint64_t d;
  asm volatile("mapa.shared::cluster.u64 %0, %1, %2;" : "=l"(d) : "l"(shared_addr), "r"(rank));
  return d;
}

// PTX: ld.shared::cluster.u64 d, [a] (a 64-bit shared::cluster address: a 32-bit one costs a
// register move per hop to widen it); PTX ISA 7.8; sm_90+. SASS: LD.E.64 (the generic path)
__device__ __forceinline__ uint64_t ld_shared_cluster_u64(uint64_t cluster_addr) {
  GPUPROBE_PTX_REQUIRE(cluster_dsmem);
  uint64_t d;
  asm volatile("ld.shared::cluster.u64 %0, [%1];" : "=l"(d) : "l"(cluster_addr) : "memory");
  return d;
}

// PTX: fence.acq_rel.cluster; PTX ISA 7.8; sm_90+. SASS: MEMBAR.ALL.GPU-class
__device__ __forceinline__ void fence_acq_rel_cluster() {
  GPUPROBE_PTX_REQUIRE(cluster_dsmem);
  asm volatile("fence.acq_rel.cluster;" ::: "memory");
}

// PTX: fence.proxy.async.shared::cta (orders generic-proxy shared-memory accesses with the async
// proxy: TMA, wgmma); PTX ISA 8.0; sm_90+. SASS: FENCE.VIEW.ASYNC.S
__device__ __forceinline__ void fence_proxy_async_shared_cta() {
  GPUPROBE_PTX_REQUIRE(fence_proxy_async);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
#endif

// ---- fences -------------------------------------------------------------------------------------

// PTX: membar.cta; PTX ISA 1.4; sm_70+. SASS: MEMBAR.SC.CTA (or none where ptxas proves it
// redundant)
__device__ __forceinline__ void membar_cta() { asm volatile("membar.cta;" ::: "memory"); }

// PTX: membar.gl (= fence.sc.gpu); PTX ISA 1.4; sm_70+. SASS: MEMBAR.SC.GPU
__device__ __forceinline__ void membar_gl() { asm volatile("membar.gl;" ::: "memory"); }

// PTX: membar.sys (= fence.sc.sys); PTX ISA 1.4; sm_70+. SASS: MEMBAR.SC.SYS
__device__ __forceinline__ void membar_sys() { asm volatile("membar.sys;" ::: "memory"); }

// PTX: fence.acq_rel.gpu; PTX ISA 6.0; sm_70+. SASS: MEMBAR.ALL.GPU
__device__ __forceinline__ void fence_acq_rel_gpu() {
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
}

// ---- grid-wide barrier ----------------------------------------------------------------------

// PTX: mov.u32 d, %envreg1 / %envreg2: the driver's grid workspace (its address; 0 unless the
// launch is cooperative); PTX ISA 1.0; sm_70+
__device__ __forceinline__ uint64_t get_sreg_envreg_grid_workspace() {
  uint32_t lo, hi;
  asm("mov.u32 %0, %%envreg2;" : "=r"(lo));
  asm("mov.u32 %0, %%envreg1;" : "=r"(hi));
  return (uint64_t(hi) << 32) | lo;
}

// PTX: atom.add.release.gpu.u32 d, [a], b; PTX ISA 6.0; sm_70+. SASS: ATOMG.E.ADD.STRONG.GPU
// (after a MEMBAR: the release)
__device__ __forceinline__ uint32_t atom_add_release_gpu_u32(uint64_t addr, uint32_t b) {
  uint32_t d;
  asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(d) : "l"(addr), "r"(b) : "memory");
  return d;
}

// PTX: ld.acquire.gpu.u32 d, [a]; PTX ISA 6.0; sm_70+. SASS: LDG.E.STRONG.GPU
__device__ __forceinline__ uint32_t ld_acquire_gpu_u32(uint64_t addr) {
  uint32_t d;
  asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(d) : "l"(addr) : "memory");
  return d;
}

// Polls the word at `addr` with acquire loads until (word ^ old) & mask is not 0, giving up
// after `limit_ns` of %globaltimer_lo; returns the ns waited when it gave up (> limit_ns), or at
// most limit_ns once the bits changed. One load per loop; a `{}` block scopes its labels.
// kGlobal: `addr` is a global address (ld.acquire.gpu.global), else generic.
// PTX: mov.u32 %globaltimer_lo; ld.acquire.gpu{.global}.u32; xor/and.b32; setp; bra; PTX ISA 6.0;
// sm_70+. SASS: LDG.E.STRONG.GPU (LD.E.STRONG.GPU generic) and the retry branch
#define GPUPROBE_PTX_POLL_UNTIL_CHANGED(space)                                                      \
  "{\n\t.reg .pred p, q;\n\t.reg .u32 t0, t, v;\n\t"                                            \
  "mov.u32 %0, 0;\n\tmov.u32 t0, %%globaltimer_lo;\n"                                             \
  "WAIT:\n\tld.acquire.gpu" space ".u32 v, [%1];\n\txor.b32 v, v, %2;\n\tand.b32 v, v, %3;\n\t"  \
  "setp.ne.u32 p, v, 0;\n\t@p bra DONE;\n\t"                                                     \
  "mov.u32 t, %%globaltimer_lo;\n\tsub.u32 %0, t, t0;\n\tsetp.le.u32 q, %0, %4;\n\t@q bra WAIT;\n" \
  "DONE:\n\t}"
template <bool kGlobal = false>
__device__ __forceinline__ uint32_t ld_acquire_gpu_u32_until_changed(uint64_t addr, uint32_t old, uint32_t mask,
                                                                     uint32_t limit_ns) {
  uint32_t waited;
  if constexpr (kGlobal)
    asm volatile(GPUPROBE_PTX_POLL_UNTIL_CHANGED(".global")
                 : "=r"(waited) : "l"(addr), "r"(old), "r"(mask), "r"(limit_ns) : "memory");
  else
    asm volatile(GPUPROBE_PTX_POLL_UNTIL_CHANGED("")
                 : "=r"(waited) : "l"(addr), "r"(old), "r"(mask), "r"(limit_ns) : "memory");
  return waited;
}
#undef GPUPROBE_PTX_POLL_UNTIL_CHANGED

// The grid-wide barrier of a cooperative launch, as cg::this_grid().sync() lowers it
// (cooperative_groups/details/sync.h and driver_abi.h of CUDA 12/13):
// the workspace's second word counts arrivals. bar.sync; thread 0 of each CTA adds 1 (the CTA
// with blockIdx 0 adds 0x80000000 - (nCTAs - 1), so the sign bit flips once every CTA arrived)
// and polls with acquire loads until the sign bit differs from what it saw; bar.sync. A launch
// that is not cooperative has no workspace: trap, as cooperative groups does.
// `wait(arrived, old)` does the polling (returns once grid_sync_released(arrived, old)): a caller
// may bound it (probes/sync/sync.cu); grid_sync() spins.
__device__ __forceinline__ bool grid_sync_released(uint64_t arrived, uint32_t old) {
  return ((old ^ ld_acquire_gpu_u32(arrived)) & 0x80000000u) != 0;
}

template <class Wait>
__device__ __forceinline__ void grid_sync(Wait wait) {
  const uint64_t workspace = get_sreg_envreg_grid_workspace();
  if (workspace == 0) __trap();
  const uint64_t arrived = workspace + 4;  // struct grid_workspace { wsSize; barrier; }
  bar_sync_0();
  if (threadIdx.x + threadIdx.y + threadIdx.z == 0) {
    const uint32_t expected = gridDim.x * gridDim.y * gridDim.z;
    const bool master = blockIdx.x + blockIdx.y + blockIdx.z == 0;
    const uint32_t old = atom_add_release_gpu_u32(arrived, master ? 0x80000000u - (expected - 1) : 1u);
    wait(arrived, old);
  }
  bar_sync_0();
}

__device__ __forceinline__ void grid_sync() {
  grid_sync([](uint64_t arrived, uint32_t old) {
    while (!grid_sync_released(arrived, old)) {
    }
  });
}

}  // namespace gpuprobe::ptx
