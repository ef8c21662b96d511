// Host launchers of the pointer-chase kernels (probes/memory/chase.cu, chase_shared.cu). Plain C++
// declarations so that the CUDA device backend includes them like any header; each launcher runs
// on the current CUDA device, checks every call and synchronizes before it returns.
#pragma once
#include <cstdint>
#include <vector>

#include "harness/device.hpp"

namespace gpuprobe::cuda {

// A chain in device memory: the backing buffer at base_addr and, for the scatter and the shared
// chase, the compact per-slot arrays (device pointers, `slots` entries each).
struct DeviceChain {
  uint64_t base_addr = 0;              // device address of the span (global chase)
  uint64_t span_bytes = 0;
  const uint64_t* offset_bytes = nullptr;
  const uint32_t* next = nullptr;
  uint64_t slots = 0;
};

struct ChaseLaunchResult {
  uint64_t timed_cycles = 0;
  uint64_t timed_ns = 0;
  uint64_t final_offset_bytes = 0;
  uint64_t checkpoint_offset_bytes = 0;  // sampled launch: where the warm-up ended
  uint32_t smid = 0;
};

// Asks the runtime for the chase kernel's attributes: throws DeviceUnavailable naming the
// missing code when this build has no image the current device can load.
void check_chase_kernels_loadable();

// Writes the self-pointers: slot i at base + offset_bytes[i] holds base + offset_bytes[next[i]].
void launch_chain_scatter(const DeviceChain& chain);

// Bulk launch for the mean: warmup_hops untimed, then timed_hops (a multiple of
// kChaseHopsPerIteration) bracketed by %clock64 and %globaltimer. No shared memory, L1 carve-out
// at its maximum (cudaFuncAttributePreferredSharedMemoryCarveout = 0).
ChaseLaunchResult launch_global_chase(CacheOp op, const DeviceChain& chain,
                                      uint64_t start_offset_bytes, uint64_t warmup_hops,
                                      uint64_t timed_hops);

// Distribution launch: warmup_hops untimed (their end is checkpoint_offset_bytes), then
// sampled_hops each timed on its own into dynamic shared memory (4 bytes per sample).
ChaseLaunchResult launch_global_chase_sampled(CacheOp op, const DeviceChain& chain,
                                              uint64_t start_offset_bytes, uint64_t warmup_hops,
                                              uint32_t sampled_hops,
                                              std::vector<uint32_t>& sample_cycles);

// Shared-memory chase in one launch: the block copies the chain into dynamic shared memory,
// thread 0 walks warmup, timed and sampled hops.
ChaseLaunchResult launch_shared_chase(const DeviceChain& chain, uint32_t start_slot,
                                      uint64_t warmup_hops, uint64_t timed_hops,
                                      uint32_t sampled_hops, std::vector<uint32_t>& sample_cycles);

// Dynamic shared memory the sampled global chase needs (the shared chase's is
// gpuprobe::shared_chase_bytes in harness/device.hpp).
uint64_t sampled_chase_smem_bytes(uint32_t sampled_hops);

}  // namespace gpuprobe::cuda
