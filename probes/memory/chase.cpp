// memory/chase: latency against footprint for one global load variant. A random single cycle at
// slot (line) granularity, one thread, warm-up pass, calibrated timed region, per-hop samples.
// With --sm all: the L2 latency map instead, every SM at two footprints (inside the near L2
// partition and past it). Kernels: probes/memory/chase.cu; operations: chase_ops.hpp.
#include <string>

#include "harness/error.hpp"
#include "probes/memory/chase_point.hpp"

namespace gpuprobe::probes {
namespace {

// The per-SM L2 map: for each SM, a point inside the near L2 partition (an eighth of the L2) and
// one past it (three quarters of the L2: the far-L2 plateau where there is one).
void sm_map(ProbeContext& ctx, ChaseSettings s) {
  const auto& prm = ctx.params();
  const DeviceInfo& info = ctx.device().info();
  uint64_t near_bytes = prm.get_u64("map-near-bytes");
  uint64_t far_bytes = prm.get_u64("map-far-bytes");
  if (near_bytes == 0) near_bytes = info.l2_bytes / 8;
  if (far_bytes == 0) far_bytes = info.l2_bytes / 4 * 3;
  if (near_bytes == 0 || far_bytes <= near_bytes)
    throw Error("--sm all needs --map-near-bytes below --map-far-bytes (the device reports an L2 "
                "of " + std::to_string(info.l2_bytes) + " bytes)");
  require_free_memory(ctx, "map footprint", far_bytes, "map-far-bytes");
  const uint64_t slot = prm.get_u64("slot-bytes");
  const uint64_t seed = prm.get_u64("seed");
  // The map is of the L2: a load that can hit L1 would mix L1 hits into small footprints.
  if (ptx::info(s.load).first_level == ptx::CacheLevel::L1) s.load = ptx::LoadVariant::cg;
  std::vector<PlannedPoint> points;
  for (int sm = 0; sm < info.sm_count; ++sm) {
    for (const auto& [level, bytes] : {std::pair{"L2", near_bytes}, std::pair{"L2-far", far_bytes}}) {
      ChaseSettings pinned = s;
      pinned.sm = sm;
      const uint64_t f = bytes;
      points.push_back(chase_point(ctx, {{"map_level", level}, {"footprint_bytes", f}, {"pinned_sm", sm}},
                                   [=] { return make_random_cycle(f, static_cast<uint32_t>(slot), seed); },
                                   pinned));
    }
  }
  ctx.extra()["sm_map"] = {{"near_footprint_bytes", near_bytes},
                           {"far_footprint_bytes", far_bytes}};
  measure_points(ctx, points);
}

ProbeSpec chase_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "memory/chase";
  p.summary = "global-memory latency against footprint (L1/L2/far-L2/DRAM), one load variant; "
              "--sm all: per-SM L2 latency map";
  p.params = size_sweep_params("footprint", "1K", "4x the L2 size", "8");
  p.params.insert(p.params.end(), {
      {"slot-bytes", K::bytes, "128", "distance between chain slots (one per cache line)", {}, kMaxSlotBytes,
       8, 8},
      {"seed", K::integer, "1", "seed of the random cycle", {}},
      {"map-near-bytes", K::bytes, "0", "--sm all: the near-L2 footprint (0: L2 / 8)", {}},
      {"map-far-bytes", K::bytes, "0", "--sm all: the far-L2 footprint (0: 3/4 of the L2)", {}},
  });
  add_chase_params(p.params, MemorySpace::global, "default", "512", /*sm_all_allowed=*/true);
  p.check = check_chase_params;
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const auto& info = ctx.device().info();
    ChaseSettings s = chase_settings(ctx, MemorySpace::global);
    if (prm.get_sm("sm") == Params::kSmAll) return sm_map(ctx, s);
    uint64_t max_bytes = prm.get_u64("max-footprint-bytes");
    if (max_bytes == 0) max_bytes = 4 * info.l2_bytes;
    if (max_bytes == 0) throw Error("device reports no L2 size: give --max-footprint-bytes");
    require_free_memory(ctx, "footprint", max_bytes, "max-footprint-bytes");
    sweep_random_cycles(ctx, MemorySpace::global, max_bytes);
  };
  return p;
}

const ProbeRegistration kRegistration(chase_probe);

}  // namespace
}  // namespace gpuprobe::probes
