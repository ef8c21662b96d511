// memory/chase: latency against footprint for one global-load cache operator. A random single
// cycle at slot (line) granularity, one thread, warm-up pass, timed mean + per-hop samples.
// Kernels: probes/memory/chase.cu (CUDA) or the simulator.
#include <string>

#include "harness/error.hpp"
#include "probes/memory/chase_point.hpp"
#include "probes/memory/registrations.hpp"

namespace gpuprobe::probes {

ProbeSpec chase_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "memory/chase";
  p.summary = "global-memory latency against footprint (L1/L2/far-L2/DRAM), one cache operator";
  p.params = {
      {"min-footprint-bytes", K::bytes, "1K", "smallest footprint", {}},
      {"max-footprint-bytes", K::bytes, "0", "largest footprint (0: 4x the L2 size)", {}},
      {"points-per-octave", K::integer, "8", "footprints per doubling", {}},
      {"slot-bytes", K::bytes, "128", "distance between chain slots (one per cache line)", {}},
      {"seed", K::integer, "1", "seed of the random cycle", {}},
  };
  add_chase_params(p.params, MemorySpace::global, "ca", "512");
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const auto& info = ctx.device().info();
    uint64_t max_bytes = prm.get_u64("max-footprint-bytes");
    if (max_bytes == 0) max_bytes = 4 * info.l2_bytes;
    if (max_bytes == 0) throw Error("device reports no L2 size: give --max-footprint-bytes");
    require_free_memory(ctx, "footprint", max_bytes, "max-footprint-bytes");
    sweep_random_cycles(ctx, MemorySpace::global, max_bytes);
  };
  return p;
}

}  // namespace gpuprobe::probes
