// The launch family's operations (probes/launch/launch.cuh: the kernels): what one launch, one
// CUDA graph and the ways of running many small kernels cost. Each backend (launch_cuda.cpp,
// launch_sim.cpp) implements LaunchOps (ctx.ops<LaunchOps>()) and hands what it timed and what the
// kernels recorded (a LaunchSample) to summarize_launch_sample: the arithmetic and the self-check
// (every kernel and graph node counted, every stamp written, SCALE's output right) exist once.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/device.hpp"
#include "harness/error.hpp"
#include "harness/launch_config.hpp"
#include "probes/launch/launch.cuh"

namespace gpuprobe::probes {

// Empty-kernel launches:
//   host_enqueue      host time of one launch call, no wait (steady_clock around N launches)
//   round_trip        launch + cudaStreamSynchronize, per launch
//   back_to_back      GPU time per kernel of N launches queued behind a spin kernel (events)
//   gap               %globaltimer from one kernel's end to the next one's start, N in a row
//   pdl_serialized    from a primary's end to its secondary's start, no PDL attribute
//   pdl_overlapped    the same with programmatic dependent launch (sm_90+): negative = overlap
enum class OverheadMeasure { host_enqueue, round_trip, back_to_back, gap, pdl_serialized, pdl_overlapped };
inline constexpr const char* kOverheadMeasureNames[] = {"host_enqueue", "round_trip", "back_to_back", "gap",
                                                        "pdl_serialized", "pdl_overlapped"};
// CUDA graphs of n empty (stamping) kernel nodes in a chain:
//   instantiate       host time of cudaGraphInstantiate
//   update            host time of cudaGraphExecUpdate with a graph of the same shape
//   launch            GPU time per cudaGraphLaunch of an uploaded graph (events, N in a row)
//   device_launch     from a kernel's cudaGraphLaunch (fire and forget) to the child's start
enum class GraphMeasure { instantiate, update, launch, device_launch };
inline constexpr const char* kGraphMeasureNames[] = {"instantiate", "update", "launch", "device_launch"};
// Many SCALE passes of V bytes (gpu-benches gpu-small-kernels):
//   stream   one launch per pass; graph: the passes captured into one graph; gsync: one
//   cooperative kernel with grid.sync() between passes; pt: persistent threads with an
//   atomic-flag barrier (launched cooperatively, so the harness checks they are co-resident)
enum class SmallKernelMethod { stream, graph, gsync, pt };
inline constexpr const char* kSmallKernelMethodNames[] = {"stream", "graph", "gsync", "pt"};

inline const char* to_string(OverheadMeasure m) { return kOverheadMeasureNames[static_cast<int>(m)]; }
inline const char* to_string(GraphMeasure m) { return kGraphMeasureNames[static_cast<int>(m)]; }
inline const char* to_string(SmallKernelMethod m) { return kSmallKernelMethodNames[static_cast<int>(m)]; }
// The SCALE kernel a method launches.
inline const char* scale_kernel(SmallKernelMethod m) {
  return m == SmallKernelMethod::gsync ? "gpuprobe_launch_scale_gsync"
         : m == SmallKernelMethod::pt  ? "gpuprobe_launch_scale_pt"
                                       : "gpuprobe_launch_scale";
}

// How the number comes out of a sample.
enum class SampleRule {
  per_unit,       // elapsed_ns / units
  gap,            // median of stamps[k+1].start - stamps[k].end
  pair_gap,       // median of stamps[2k+1].start - stamps[2k].end (primary, secondary)
  pair_start,     // median of stamps[2k+1].start - stamps[2k].start (launcher, child)
};

// What one backend call timed and what its kernels recorded.
struct LaunchSample {
  std::string kernel;                 // for messages: the kernel timed
  SampleRule rule = SampleRule::per_unit;
  uint64_t units = 0;                 // launches, graphs, instantiations, updates or passes
  double elapsed_ns = 0;              // per_unit: over all units
  std::vector<launch::LaunchStamp> stamps;
  // The kernels' counters and what they must read: every kernel (every graph node) and every
  // SCALE pass counted exactly once.
  uint64_t launches_counted = 0, launches_expected = 0;
  uint64_t iterations_counted = 0, iterations_expected = 0;
  // SCALE's output, sampled: every element must hold kScaleFactor x kScaleInput.
  std::vector<double> scale_out;
  LaunchRecord launch;
};

struct LaunchMeasurement {
  double ns = 0;                      // per launch, graph, instantiation, update or pass
  uint64_t units = 0;
  std::vector<double> per_unit_ns;    // stamp rules: each gap or latency
  // Pair rules: the first pair's raw stamps, ns from the first kernel's start: its start (0) and
  // end, the second's start and end (what a PDL or device-launch figure was taken from).
  std::vector<double> first_pair_ns;
  LaunchRecord launch;
};

// A wrong counter, stamp or SCALE output throws gpuprobe::Error "self-check failed: ..." naming the kernel.
LaunchMeasurement summarize_launch_sample(const LaunchSample& sample);

// A measure's sample before it runs, the same on every backend: the kernel named in messages, the
// rule, the units and what its kernels must count. The backend adds what it timed and recorded.
LaunchSample overhead_sample(OverheadMeasure m, uint32_t count);
LaunchSample graph_sample(GraphMeasure m, uint32_t nodes, uint32_t count);
LaunchSample small_kernel_sample(SmallKernelMethod m, uint32_t iterations);

// The SCALE problem of a small-kernel point: doubles per pass (V / 16, at least 1).
inline uint64_t scale_elements(uint64_t bytes) {
  return std::max<uint64_t>(1, bytes / launch::kScaleBytesPerElement);
}
// SCALE's input (element i) and factor: the output is scale x input, exact in binary64.
constexpr double kScaleInput = 1.5;
constexpr double kScaleFactor = 3.0;

class LaunchOps : public FamilyOps {
 public:
  static constexpr const char* kFamily = "launch";
  // count: launches (pairs for PDL) per sample.
  virtual LaunchMeasurement overhead(OverheadMeasure m, uint32_t count) = 0;
  // nodes: the graph's kernel nodes; count: graphs instantiated, updated or launched.
  virtual LaunchMeasurement graph(GraphMeasure m, uint32_t nodes, uint32_t count) = 0;
  // bytes per pass (V), passes per sample.
  virtual LaunchMeasurement small_kernel(SmallKernelMethod m, uint64_t bytes, uint32_t iterations) = 0;
};

}  // namespace gpuprobe::probes
