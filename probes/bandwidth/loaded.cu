// bandwidth/loaded_latency: one thread chases a chain while the blocks on every other SM stream
// at a throttled rate (the contract, roles and self-checks: probes/bandwidth/loaded.cuh). One
// extern "C" kernel, gpuprobe_bw_loaded. Device code only (NVRTC-safe); the host side is
// stream_cuda.cpp.
#include "harness/cuda/pin.cuh"
#include "probes/bandwidth/loaded.cuh"
#include "probes/bandwidth/stream_device.cuh"
#include "ptx/ld.cuh"
#include "ptx/sreg.cuh"
#include "ptx/st.cuh"

namespace gpuprobe::probes::bandwidth::device {

// Raises every copy of the flag to `phase`.
__device__ __forceinline__ void raise_flag(uint64_t flag, uint32_t phase) {
#pragma unroll 1
  for (uint32_t c = 0; c < kLoadedFlagCopies; ++c)
    ptx::st_relaxed_gpu_global_u32(flag + c * kLoadedFlagStrideBytes, phase);
}

// The chaser (one thread). Each flag store carries (x & zero): it waits for the load before it.
__device__ __forceinline__ void chase(const LoadedParams& p, uint64_t flag, LoadedOut* out) {
  using Load = ptx::load::cg;
  uint64_t x = p.chain_base + p.start_offset_bytes;
#pragma unroll 1
  for (uint64_t i = kLoadedHopsPerIteration; i < p.warmup_hops; ++i) x = Load::load(x);
#pragma unroll
  for (uint64_t k = 0; k < kLoadedHopsPerIteration; ++k) x = Load::load(x);
  raise_flag(flag, kLoadedTimed + static_cast<uint32_t>(x & p.zero));

  const uint64_t c0 = ptx::get_sreg_clock64_after(x, p.zero);
  const uint64_t g0 = ptx::get_sreg_globaltimer();
  uint64_t executed = 0;
#pragma unroll 1
  for (uint64_t i = p.timed_iterations; i != 0; --i) {
#pragma unroll
    for (uint64_t k = 0; k < kLoadedHopsPerIteration; ++k) x = Load::load(x);
    ++executed;
  }
  const uint64_t c1 = ptx::get_sreg_clock64_after(x, p.zero);
  const uint64_t g1 = ptx::get_sreg_globaltimer();
  raise_flag(flag, kLoadedStop + static_cast<uint32_t>(x & p.zero));

  out->final_offset_bytes = x - p.chain_base;
  out->timed_cycles = c1 - c0;
  out->timed_ns = g1 - g0;
  out->timed_iterations = executed;
  out->smid = ptx::get_sreg_smid();
  out->ran = 1;
}

// A streamer thread: groups over the block's region until the flag says stop (or the time bound).
__device__ __forceinline__ void stream(const LoadedParams& p, uint64_t flag, LoadedOut* out,
                                       uint32_t* warp_groups) {
  constexpr int kWords = kLoadedVecBytes / 4;
  const uint64_t stride = uint64_t(blockDim.x) * kLoadedVecBytes;   // between a thread's accesses
  const uint64_t tile = stride * kLoadedIlp;
  const uint64_t region_bytes = p.region_tiles * tile;
  const uint64_t first = p.stream_base + uint64_t(blockIdx.x) * region_bytes +
                         uint64_t(threadIdx.x) * kLoadedVecBytes;
  const uint64_t end = first + region_bytes;
  // This warp's copy of the flag.
  const uint64_t warp = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  flag += (warp % kLoadedFlagCopies) * kLoadedFlagStrideBytes;
  uint64_t addr = first;
  uint32_t sum = 0, groups = 0, timed = 0;
  const uint64_t started = ptx::get_sreg_clock64();
  uint64_t now = started;
  uint32_t phase = kLoadedWarmup;
#pragma unroll 1
  for (;;) {
    // The flag, and the time bound (kLoadedOverran) as of the previous group.
    const uint32_t seen = ptx::ld_relaxed_gpu_global_u32(flag) |
                          (now - started > p.max_stream_cycles ? kLoadedOverran : 0u);
    ptx::Words<kWords> v[kLoadedIlp];
#pragma unroll
    for (int k = 0; k < int(kLoadedIlp); ++k)
      v[k] = ptx::LdGlobal<kWords, ptx::GlobalCache::l2_only>::load(addr + k * stride);
#pragma unroll
    for (int k = 0; k < int(kLoadedIlp); ++k) sum += sum_words(v[k]);
    ++groups;
    addr += tile;
    if (addr >= end) addr = first;
    // One decision per warp (lane 0's reading): a warp's lanes count the same groups and leave
    // the loop together.
    phase = __shfl_sync(0xffffffffu, seen, 0);
    timed += phase == kLoadedTimed;
    if (phase >= kLoadedStop) break;
    // The throttle starts when the group's data has arrived.
    now = ptx::get_sreg_clock64_after(sum, p.zero);
#pragma unroll 1
    while (ptx::get_sreg_clock64() - now < p.throttle_cycles) {
    }
  }
  add_checksum(sum, &out->checksum);
  if ((threadIdx.x & 31) == 0) {
    warp_groups[(uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32] = groups;
    atomicAdd(&out->timed_stream_bytes,
              static_cast<unsigned long long>(timed) * kLoadedWarpGroupBytes);
    if (phase & kLoadedOverran) atomicAdd(&out->overran, 1u);
  }
}

}  // namespace gpuprobe::probes::bandwidth::device

// block_smid[b]: the SM block b streamed on, or kLoadedNotStreaming (host-initialised to it).
// warp_groups[w]: the groups warp w (blockIdx.x x warps per block + warp) streamed (host: 0).
extern "C" __global__ void gpuprobe_bw_loaded(gpuprobe::probes::bandwidth::LoadedParams p,
                                              gpuprobe::cuda::SmPin pin, uint32_t* flag,
                                              gpuprobe::probes::bandwidth::LoadedOut* out,
                                              uint32_t* block_smid, uint32_t* warp_groups) {
  namespace bw = gpuprobe::probes::bandwidth;
  const uint64_t flag_addr = reinterpret_cast<uint64_t>(flag);
  if (gpuprobe::ptx::get_sreg_smid() == static_cast<uint32_t>(pin.sm)) {
    // Exactly one thread on the pinned SM wins the claim and chases; the others return.
    if (gpuprobe::cuda::claim_pinned_sm(pin)) bw::device::chase(p, flag_addr, out);
    return;
  }
  if (p.region_tiles == 0) return;   // the idle point: the chaser alone
  if (threadIdx.x == 0) block_smid[blockIdx.x] = gpuprobe::ptx::get_sreg_smid();
  bw::device::stream(p, flag_addr, out, warp_groups);
}
