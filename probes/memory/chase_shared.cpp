// memory/chase_shared: shared-memory (ld.shared.u32) load-to-use latency against footprint.
#include <string>

#include "harness/error.hpp"
#include "probes/memory/chase_point.hpp"

namespace gpuprobe::probes {
namespace {

ProbeSpec chase_shared_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "memory/chase_shared";
  p.summary = "shared-memory latency (ld.shared chase) against footprint";
  p.params = size_sweep_params("footprint", "1K", "the block's opt-in shared memory less the sample buffer", "2");
  p.params.insert(p.params.end(), {
      {"slot-bytes", K::bytes, "8", "distance between chain slots", {}, kMaxSlotBytes, 8, 8},
      {"seed", K::integer, "1", "seed of the random cycle", {}},
  });
  add_chase_params(p.params, MemorySpace::shared, "", "512");
  p.check = check_chase_params;
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const uint64_t sampled = prm.get_u64("sampled-hops");
    const uint64_t optin = ctx.device().info().shared_memory_per_block_optin_bytes;
    // What the chain may take next to the scratch slot and the samples (harness/device.hpp).
    const uint64_t beside = shared_chase_bytes(0, static_cast<uint32_t>(sampled));  // chase.cuh
    const uint64_t room = optin > beside ? (optin - beside) / 8 * 8 : 0;
    uint64_t max_bytes = prm.get_u64("max-footprint-bytes");
    if (max_bytes == 0) max_bytes = room;
    if (max_bytes > room)
      throw Error("shared-memory footprint " + std::to_string(max_bytes) +
                  " bytes exceeds the " + std::to_string(room) +
                  " bytes a block can use next to its samples");
    sweep_random_cycles(ctx, MemorySpace::shared, max_bytes);
  };
  return p;
}

const ProbeRegistration kRegistration(chase_shared_probe);

}  // namespace
}  // namespace gpuprobe::probes
