// bandwidth/l1: L1 load bandwidth per SM. Each block re-reads its own window (ld.global, which
// allocates in L1) for many passes; the window sweeps from inside L1 to past it, where the passes
// come from the L2 (gpu-benches gpu-cache's method). Then the concurrency sweep, at a window that
// keeps every resident block's data in L1. The bandwidth fit reads the L1 plateau and its end.
#include <algorithm>
#include <string>

#include "harness/error.hpp"
#include "probes/bandwidth/stream_point.hpp"
#include "probes/common/size_sweep.hpp"

namespace gpuprobe::probes {
namespace {

// Data every resident block of an SM keeps for the concurrency sweep: well inside the smallest
// L1 of the supported GPUs (V100 and L40: 128 KB with shared memory).
constexpr uint64_t kConcurrencyL1Bytes = 64 << 10;

constexpr const char* kDefaultMinWindow = "16K";

ProbeSpec l1_probe() {
  ProbeSpec p;
  p.id = "bandwidth/l1";
  p.summary = "L1 load bandwidth per SM against each SM's data, and against bytes in flight";
  // A window: the data per SM.
  p.params = size_sweep_params("window", kDefaultMinWindow, "twice the shared memory per SM, past any L1",
                               "4");
  p.params[0].help =
      "smallest window, at least one tile of a block (block-threads x vec-bytes x ilp; the "
      "default: 16K or that tile, whichever is larger)";
  add_stream_params(p.params, "512", "16", "2", "1");
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const DeviceInfo& info = ctx.device().info();
    const StreamConfig c = stream_config(ctx, StreamKind::read);
    uint64_t max_window = prm.get_u64("max-window-bytes");
    if (max_window == 0) max_window = 2 * info.shared_memory_per_sm_bytes;
    const uint64_t tile = bandwidth::tile_bytes(c.block_threads, c.shape.vec_bytes, c.shape.ilp);
    // A window smaller than one tile cannot be streamed: a value given is refused, never silently
    // enlarged; the default grows to the tile of larger blocks.
    uint64_t min_window = prm.get_u64("min-window-bytes");
    if (prm.get_text("min-window-bytes") == kDefaultMinWindow) min_window = std::max(min_window, tile);
    if (min_window < tile)
      throw Error("--min-window-bytes " + prm.get_text("min-window-bytes") +
                  " is less than one tile of a block (" + std::to_string(tile) +
                  " bytes: block-threads x vec-bytes x ilp), the smallest window");
    require_free_memory(ctx, "data", max_window * info.sm_count, "max-window-bytes");
    std::vector<PlannedPoint> points;
    for (uint64_t w : geometric_sweep(min_window, max_window, prm.get_u64("points-per-octave"), tile)) {
      // Each block its own window: the data per SM is the window times the blocks per SM.
      const StreamSetup s = own_windows(info, c, w / c.blocks_per_sm);
      points.push_back({{{"sweep", "footprint"},
                         {"level", "L1"},
                         {"window_bytes_per_sm", w},
                         {"footprint_bytes", stream_buffer_bytes(s)}},
                        [&ctx, s] { return measure_stream(ctx, s); }});
    }
    plan_concurrency(ctx, c, "L1", [&info](const StreamConfig& k) -> std::optional<StreamSetup> {
      const uint64_t t = bandwidth::tile_bytes(k.block_threads, k.shape.vec_bytes, k.shape.ilp);
      if (uint64_t(k.blocks_per_sm) * t > kConcurrencyL1Bytes) return std::nullopt;
      return own_windows(info, k, kConcurrencyL1Bytes / k.blocks_per_sm);
    }, points);
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(l1_probe);

}  // namespace
}  // namespace gpuprobe::probes
