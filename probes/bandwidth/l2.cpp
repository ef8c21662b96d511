// bandwidth/l2: L2 load bandwidth. Blocks re-read windows that overlap across CTAs, through
// ld.global.cg (L2 only), so the data is shared by SMs of both L2 partitions; the total footprint
// sweeps across the near partition and the whole L2 into DRAM (gpu-benches gpu-l2-cache's
// method). Then the concurrency sweep at a footprint inside the near partition.
#include <algorithm>
#include <string>

#include "harness/error.hpp"
#include "probes/bandwidth/stream_point.hpp"
#include "probes/common/size_sweep.hpp"

namespace gpuprobe::probes {
namespace {

// Each block re-reads this much (or the step between block starts, if larger: the windows then
// still cover the footprint).
constexpr uint64_t kWindowBytes = 512 << 10;

StreamSetup shared_windows(const DeviceInfo& info, const StreamConfig& c, uint64_t footprint) {
  StreamSetup s = stream_setup(info, c);
  const uint64_t tile = bandwidth::tile_bytes(c.block_threads, c.shape.vec_bytes, c.shape.ilp);
  s.geometry.footprint_tiles = tiles_in(footprint, tile);
  s.geometry.block_step_tiles =
      std::max<uint64_t>(1, (s.geometry.footprint_tiles + s.blocks - 1) / s.blocks);
  s.geometry.tiles_per_block = std::max(tiles_in(kWindowBytes, tile), s.geometry.block_step_tiles);
  s.geometry.passes = 1;
  return s;
}

ProbeSpec l2_probe() {
  ProbeSpec p;
  p.id = "bandwidth/l2";
  p.summary = "L2 load bandwidth (data re-read by other CTAs) against footprint and bytes in flight";
  p.params = size_sweep_params("footprint", "1M", "four times the L2", "6");
  add_stream_params(p.params, "256", "16", "4", "4");
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const DeviceInfo& info = ctx.device().info();
    const StreamConfig c = stream_config(ctx, StreamKind::read_l2);
    uint64_t max_bytes = prm.get_u64("max-footprint-bytes");
    if (max_bytes == 0) max_bytes = 4 * info.l2_bytes;
    const uint64_t tile = bandwidth::tile_bytes(c.block_threads, c.shape.vec_bytes, c.shape.ilp);
    require_free_memory(ctx, "footprint", max_bytes, "max-footprint-bytes");
    std::vector<PlannedPoint> points;
    for (uint64_t f : geometric_sweep(std::max(prm.get_u64("min-footprint-bytes"), tile),
                                      max_bytes, prm.get_u64("points-per-octave"), tile)) {
      const StreamSetup s = shared_windows(info, c, f);
      points.push_back({{{"sweep", "footprint"}, {"level", "L2"}, {"footprint_bytes", f}},
                        [&ctx, s] { return measure_stream(ctx, s); }});
    }
    const uint64_t inside = std::max<uint64_t>(info.l2_bytes / 4, 1 << 20);
    plan_concurrency(ctx, c, "L2", [&info, inside](const StreamConfig& k) {
      return std::optional<StreamSetup>(shared_windows(info, k, inside));
    }, points);
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(l2_probe);

}  // namespace
}  // namespace gpuprobe::probes
