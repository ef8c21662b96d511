// bandwidth/shared: shared-memory load bandwidth per SM and bank conflicts. Every thread of a
// warp loads at lane x stride elements (plus 128-byte steps for its independent loads), so the
// stride alone sets how many lanes share a bank: a stride sweep gives the N-way conflict
// slowdown (gpu-benches gpu-strides). Then the concurrency sweep at stride 1.
#include <string>

#include "harness/error.hpp"
#include "probes/bandwidth/stream_point.hpp"

namespace gpuprobe::probes {
namespace {

StreamSetup shared_setup(const DeviceInfo& info, const StreamConfig& c, uint32_t stride) {
  StreamSetup s = stream_setup(info, c);
  s.stride_elems = stride;
  return s;
}

ProbeSpec shared_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "bandwidth/shared";
  p.summary = "shared-memory bandwidth per SM against the access stride (bank conflicts) and "
              "bytes in flight";
  p.params = {
      {"strides", K::list, "1,2,3,4,5,6,7,8,9,12,15,16,17,24,31,32,33,48,64",
       "strides in elements of --vec-bytes (1 to 64)", {}, 64, 1},
  };
  add_stream_params(p.params, "256", "4", "4", "4");
  p.run = [](ProbeContext& ctx) {
    const DeviceInfo& info = ctx.device().info();
    const StreamConfig c = stream_config(ctx, StreamKind::shared);
    std::vector<PlannedPoint> points;
    for (uint64_t stride : ctx.params().get_u64_list("strides")) {
      if (stride == 0 || stride > bandwidth::kSharedMaxStrideElems)
        throw Error("--strides: " + std::to_string(stride) + " is not between 1 and " +
                    std::to_string(bandwidth::kSharedMaxStrideElems));
      const StreamSetup s = shared_setup(info, c, static_cast<uint32_t>(stride));
      points.push_back({{{"sweep", "stride"}, {"level", "shared"}, {"stride_elems", stride},
                         {"vec_bytes", c.shape.vec_bytes}},
                        [&ctx, s] { return measure_stream(ctx, s); }});
    }
    plan_concurrency(ctx, c, "shared", [&info](const StreamConfig& k) {
      return std::optional<StreamSetup>(shared_setup(info, k, 1));
    }, points);
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(shared_probe);

}  // namespace
}  // namespace gpuprobe::probes
