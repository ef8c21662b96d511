// bandwidth/dram: device-memory bandwidth for reads, writes and copies, over a footprint far
// beyond the L2 (flushed before each launch), each against bytes in flight per SM: the peak and
// the concurrency that reaches 90% of it (Little's law).
#include <algorithm>
#include <string>

#include "harness/error.hpp"
#include "probes/bandwidth/stream_point.hpp"
#include "probes/common/size_sweep.hpp"

namespace gpuprobe::probes {
namespace {

// Disjoint windows that cover the buffer exactly once (what writes and copies need).
StreamSetup disjoint_windows(const DeviceInfo& info, const StreamConfig& c, uint64_t footprint) {
  return own_windows(info, c, footprint / (uint64_t(info.sm_count) * c.blocks_per_sm));
}

ProbeSpec dram_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "bandwidth/dram";
  p.summary = "device-memory read, write and copy bandwidth against bytes in flight per SM";
  p.params = {
      {"footprint-bytes", K::bytes, "0",
       "bytes per buffer (0: four times the L2, at least 256 MiB)", {}},
      {"kind", K::choice, "all", "what to stream: read, write, copy or all",
       {"read", "write", "copy", "all"}},
  };
  add_stream_params(p.params, "256", "16", "4", "4");
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const DeviceInfo& info = ctx.device().info();
    uint64_t footprint = prm.get_u64("footprint-bytes");
    if (footprint == 0) footprint = std::max<uint64_t>(4 * info.l2_bytes, 256ull << 20);
    const std::string which = prm.get_text("kind");
    std::vector<StreamKind> kinds;
    for (StreamKind k : {StreamKind::read, StreamKind::write, StreamKind::copy})
      if (which == "all" || which == stream_kind_name(k)) kinds.push_back(k);
    // A copy holds two buffers.
    const bool copies = std::find(kinds.begin(), kinds.end(), StreamKind::copy) != kinds.end();
    require_free_memory(ctx, "buffers", copies ? 2 * footprint : footprint, "footprint-bytes");
    std::vector<PlannedPoint> points;
    for (StreamKind kind : kinds) {
      const StreamConfig c = stream_config(ctx, kind);
      const StreamSetup s = disjoint_windows(info, c, footprint);
      points.push_back({{{"sweep", "base"}, {"level", "DRAM"}, {"kind", stream_kind_name(kind)},
                         {"footprint_bytes", footprint}},
                        [&ctx, s] { return measure_stream(ctx, s, true); }});
      plan_concurrency(ctx, c, "DRAM", [&info, footprint](const StreamConfig& k) {
        return std::optional<StreamSetup>(disjoint_windows(info, k, footprint));
      }, points, true);
    }
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(dram_probe);

}  // namespace
}  // namespace gpuprobe::probes
