#include "probes/memory/chase_ops.hpp"

#include <string>

#include "harness/error.hpp"

namespace gpuprobe::probes {

uint64_t check_chase_fits(const ChaseSetup& setup, const DeviceInfo& info, uint64_t free_bytes) {
  if (setup.chain == nullptr) throw Error("chase setup without a chain");
  check_chain(*setup.chain);
  const Chain& chain = *setup.chain;
  const bool shared = setup.space == MemorySpace::shared;
  const uint64_t smem_bytes = shared ? shared_chase_bytes(chain.span_bytes, setup.sampled_hops)
                                     : global_chase_smem_bytes(setup.sampled_hops);
  if (smem_bytes > info.shared_memory_per_block_optin_bytes)
    throw Error((shared ? "shared-memory chase of " + std::to_string(chain.span_bytes) +
                              " bytes with "
                        : std::string("global chase with ")) +
                std::to_string(setup.sampled_hops) + " samples needs " +
                std::to_string(smem_bytes) + " bytes of shared memory; " + info.name + " allows " +
                std::to_string(info.shared_memory_per_block_optin_bytes) + " per block");
  if (setup.pinned_sm != kAnySm && (setup.pinned_sm < 0 || setup.pinned_sm >= info.sm_count))
    throw Error("--sm " + std::to_string(setup.pinned_sm) + " does not exist: " + info.name +
                " has SMs 0 to " + std::to_string(info.sm_count - 1));
  const uint64_t need = (shared ? 0 : chain.span_bytes) +
                        chain.slots() * (sizeof(uint64_t) + sizeof(uint32_t));
  if (need > free_bytes)
    throw Error("chain of " + std::to_string(need >> 20) + " MiB exceeds the free device memory (" +
                std::to_string(free_bytes >> 20) + " MiB) of " + info.name);
  return smem_bytes;
}

void check_chase_run(const ChaseRun& run) {
  if (run.warmup_hops < kChaseHopsPerIteration || run.timed_hops == 0 ||
      run.timed_hops % kChaseHopsPerIteration != 0)
    throw Error("chase run needs at least " + std::to_string(kChaseHopsPerIteration) +
                " warm-up hops and a positive multiple of " +
                std::to_string(kChaseHopsPerIteration) + " timed hops");
}

}  // namespace gpuprobe::probes
