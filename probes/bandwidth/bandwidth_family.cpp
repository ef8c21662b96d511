// The bandwidth family (harness/family.hpp): the stream probes per level and the loaded-latency
// chase; its model section and metrics are analysis/bandwidth_model.cpp's.
#include "analysis/bandwidth_model.hpp"
#include "probes/common/family_spec.hpp"
#include "probes/common/plan.hpp"

namespace gpuprobe::probes {
namespace {

using namespace plan;

// A stream point times n and 4n passes per repeat (stream_point.cpp): 5 regions.
constexpr double kStreamRegionsPerRepeat = 5;
// The concurrency ladder of a bandwidth probe (concurrency_configs in stream_point.cpp): points
// per kind streamed, on the simulated H100.
constexpr double kConcurrencyPoints = 24;
constexpr double kSharedConcurrencyPoints = 27;

// A point of a stream: the calibration (about one region) and the repeats of n and 4n passes,
// each region at least the minimum.
double stream_points_seconds(double points) {
  return points * ((1 + 3 * kStreamRegionsPerRepeat) * kMinRegionSeconds + kPointOverheadSeconds);
}

double estimate(const std::string& probe, const Params& p) {
  if (probe == "bandwidth/loaded_latency") {
    // A chase of --hops under streamers: the loaded latency is several times the idle one (the
    // simulated H100's full-rate point: 11x), the chain one warm-up lap of 1024 hops.
    const bool dram = p.get_text("level") == "dram";
    const double idle_cycles = dram ? kDramCycles : kL2NearCycles;
    const double points =
        static_cast<double>(p.get_u64_list("throttle-cycles").size()) + (p.get_text("idle") == "on" ? 1 : 0);
    const double loaded_hop_s = 4 * idle_cycles / kClockHz;
    const double chain_slots = dram ? 8.0 * kL2Bytes / 128 : 2.0 * (1 << 20) / 128;
    return points * (kNoisyRunsPerPoint *
                         std::max(static_cast<double>(p.get_u64("hops") + 1024) * loaded_hop_s, kMinRegionSeconds) +
                     kPointOverheadSeconds) +
           chain_slots * kChainBuildSecondsPerSlot;
  }
  const bool concurrency = p.get_text("concurrency") == "on";
  // The size sweep of bandwidth/l1 (windows) or bandwidth/l2 (footprints), then its concurrency.
  auto size_sweep = [&](const std::string& what, uint64_t max_default) {
    uint64_t max_bytes = p.get_u64("max-" + what + "-bytes");
    if (max_bytes == 0) max_bytes = max_default;
    const double sizes = geometric_points(p.get_u64("min-" + what + "-bytes"), max_bytes,
                                          p.get_u64("points-per-octave"), 1024);
    return stream_points_seconds(sizes + (concurrency ? kConcurrencyPoints : 0));
  };
  if (probe == "bandwidth/l1") return size_sweep("window", 2 * 228u << 10);
  if (probe == "bandwidth/l2") return size_sweep("footprint", 4 * kL2Bytes);
  if (probe == "bandwidth/shared")
    return stream_points_seconds(static_cast<double>(p.get_u64_list("strides").size()) +
                                 (concurrency ? kSharedConcurrencyPoints : 0));
  // bandwidth/dram
  const double streamed = p.get_text("kind") == "all" ? 3 : 1;  // read, write, copy
  return stream_points_seconds(streamed * (1 + (concurrency ? kConcurrencyPoints : 0)));
}

std::vector<PlannedRun> runs(RunProfile profile) {
  const bool quick = profile == RunProfile::quick;
  // --quick: L1 windows 2 per octave, shared strides 1, 2, 4, 8, 32, loaded latency 4 throttles;
  // the L2 sweep stays whole (its far-L2 plateau is a ceiling).
  using Map = std::map<std::string, std::string>;
  return {run("bandwidth/l1", quick ? Map{{"points-per-octave", "2"}} : Map{}, "bandwidth_l1.json"),
          run("bandwidth/shared", quick ? Map{{"strides", "1,2,4,8,32"}} : Map{}, "bandwidth_shared.json"),
          run("bandwidth/l2", {}, "bandwidth_l2.json"),
          run("bandwidth/dram", {}, "bandwidth_dram.json"),
          run("bandwidth/loaded_latency",
              quick ? Map{{"level", "l2"}, {"throttle-cycles", "65536,1024,64,0"}} : Map{{"level", "l2"}},
              "bandwidth_loaded_latency_l2.json"),
          run("bandwidth/loaded_latency",
              quick ? Map{{"level", "dram"}, {"throttle-cycles", "65536,1024,64,0"}} : Map{{"level", "dram"}},
              "bandwidth_loaded_latency_dram.json")};
}

constexpr const char* kClosedLoop = "tests/analysis/test_bandwidth_model.cpp";

ProbeProvenance stream(const char* probe, const char* kernel_file, const char* real) {
  return generic_probe(probe, kernel_file, closed_loop_naming(kClosedLoop, probe),
                       self_check_evidence("probes/bandwidth/stream_point.cpp"),
                       {real_data_check("tests/analysis/test_bandwidth_real.cpp", real)});
}

FamilySpec bandwidth_family() {
  return {.name = "bandwidth",
          .title = "Bandwidth",
          .order = 20,
          .plan = runs,
          .estimate_h100_seconds = estimate,
          .add_run = add_run_by(analysis::add_bandwidth_from_run),
          .metrics = analysis::bandwidth_metrics,
          .provenance = {stream("bandwidth/l1", "stream.cu", "gpu-cache/"),
                         stream("bandwidth/l2", "stream.cu", "gpu-l2-cache/"),
                         stream("bandwidth/dram", "stream.cu", "gpu-stream/"),
                         stream("bandwidth/shared", "stream_shared.cu", "gpu-strides/"),
                         generic_probe("bandwidth/loaded_latency", "loaded.cu",
                                       closed_loop_naming(kClosedLoop, "bandwidth/loaded_latency"),
                                       self_check_evidence("probes/bandwidth/loaded_latency.cpp"))}};
}

const FamilyRegistration kFamily(bandwidth_family);

}  // namespace
}  // namespace gpuprobe::probes
