// memory/stride: sequential stride rings, latency against footprint for each stride. The L1
// capacity knee grows with the stride once the stride passes the line size (each hop then holds a
// whole line's tag for one sector), and beyond the knee the miss fraction is
// min(1, stride / sector): analysis/line_sector_fit.cpp reads both. Each slot sits at a random
// offset inside its stride-sized block so that power-of-two strides don't alias into a subset of
// the cache sets (harness/chain.hpp).
#include <algorithm>
#include <string>

#include "harness/error.hpp"
#include "probes/memory/chase_point.hpp"

namespace gpuprobe::probes {
namespace {

ProbeSpec stride_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "memory/stride";
  p.summary = "stride sweep: latency against footprint per stride (line and sector size)";
  p.params = size_sweep_params("footprint", "4K",
                               "min(8 MiB, L2 / 2): room past the 1 KiB-stride knee, inside L2", "4");
  p.params.insert(p.params.end(), {
      {"strides-bytes", K::list, "8,16,32,64,128,256,512,1024", "strides to sweep", {}, kMaxStrides, 8, 8},
      {"scatter-seed", K::integer, "1", "seed of the in-block slot offsets (0: slots at block starts)", {}},
  });
  add_chase_params(p.params, MemorySpace::global, "default", "0");
  p.check = check_chase_params;
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    uint64_t max_bytes = prm.get_u64("max-footprint-bytes");
    if (max_bytes == 0) max_bytes = std::min<uint64_t>(8ull << 20, ctx.device().info().l2_bytes / 2);
    require_free_memory(ctx, "footprint", max_bytes, "max-footprint-bytes");
    const ChaseSettings s = chase_settings(ctx, MemorySpace::global);
    const uint64_t scatter_seed = prm.get_u64("scatter-seed");
    std::vector<PlannedPoint> points;
    for (uint64_t stride : prm.get_u64_list("strides-bytes")) {
      if (stride < 8 || stride % 8 != 0)
        throw Error("stride " + std::to_string(stride) + " is not a positive multiple of 8 bytes");
      const uint64_t lo = std::max(prm.get_u64("min-footprint-bytes"), 2 * stride);
      for (uint64_t f : geometric_sweep(lo, max_bytes, prm.get_u64("points-per-octave"), stride))
        points.push_back(chase_point(ctx, {{"stride_bytes", stride}, {"footprint_bytes", f}}, [=] {
          return make_stride_ring(f, static_cast<uint32_t>(stride), scatter_seed);
        }, s));
    }
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(stride_probe);

}  // namespace
}  // namespace gpuprobe::probes
