// The bandwidth family (harness/family.hpp): the stream probes per level and the loaded-latency
// chase; its model section and metrics are analysis/bandwidth_model.cpp's.
#include "analysis/bandwidth_model.hpp"
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
  if (probe == "bandwidth/l1") {
    uint64_t max_bytes = p.get_u64("max-window-bytes");
    if (max_bytes == 0) max_bytes = 2 * 228u << 10;
    return stream_points_seconds(
        geometric_points(p.get_u64("min-window-bytes"), max_bytes, p.get_u64("points-per-octave"), 1024) +
        (concurrency ? kConcurrencyPoints : 0));
  }
  if (probe == "bandwidth/shared")
    return stream_points_seconds(static_cast<double>(p.get_u64_list("strides").size()) +
                                 (concurrency ? kSharedConcurrencyPoints : 0));
  if (probe == "bandwidth/l2") {
    uint64_t max_bytes = p.get_u64("max-footprint-bytes");
    if (max_bytes == 0) max_bytes = 4 * kL2Bytes;
    return stream_points_seconds(
        geometric_points(p.get_u64("min-footprint-bytes"), max_bytes, p.get_u64("points-per-octave"), 1024) +
        (concurrency ? kConcurrencyPoints : 0));
  }
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

constexpr const char* kStreamPoint = "probes/bandwidth/stream_point.cpp";
constexpr const char* kClosedLoop = "tests/analysis/test_bandwidth_model.cpp";
constexpr const char* kReal = "tests/analysis/test_bandwidth_real.cpp";
constexpr const char* kSass = "tests/probes/test_sass_bandwidth.py";

ProbeProvenance stream(const char* probe, const char* source, const char* kernel_file, const char* real) {
  return {probe, source,
          {compile_matrix_check(), sass_check(kSass, kernel_file),
           closed_loop_check(kClosedLoop, "\"" + std::string(probe) + "\""), real_data_check(kReal, real),
           self_check_evidence(kStreamPoint)}};
}

FamilySpec bandwidth_family() {
  FamilySpec f;
  f.name = "bandwidth";
  f.title = "Bandwidth";
  f.order = 20;
  f.plan = runs;
  f.estimate_h100_seconds = estimate;
  f.add_run = [](const nlohmann::json& run, nlohmann::json& section) {
    analysis::add_bandwidth_from_run(run, section);
    return std::string();
  };
  f.metrics = analysis::bandwidth_metrics;
  f.provenance = {
      stream("bandwidth/l1", "probes/bandwidth/stream.cu", "stream.cu", "gpu-cache/"),
      stream("bandwidth/l2", "probes/bandwidth/stream.cu", "stream.cu", "gpu-l2-cache/"),
      stream("bandwidth/dram", "probes/bandwidth/stream.cu", "stream.cu", "gpu-stream/"),
      stream("bandwidth/shared", "probes/bandwidth/stream_shared.cu", "stream_shared.cu", "gpu-strides/"),
      {"bandwidth/loaded_latency", "probes/bandwidth/loaded.cu",
       {compile_matrix_check(), sass_check(kSass, "loaded.cu"),
        closed_loop_check(kClosedLoop, "\"bandwidth/loaded_latency\""),
        self_check_evidence("probes/bandwidth/loaded_latency.cpp")}},
  };
  return f;
}

const FamilyRegistration kFamily(bandwidth_family);

}  // namespace
}  // namespace gpuprobe::probes
