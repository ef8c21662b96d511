#include "probes/launch/launch_ops.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "harness/stats.hpp"
#include "ptx/griddep.cuh"

namespace gpuprobe::probes {

const char* to_string(OverheadMeasure m) {
  switch (m) {
    case OverheadMeasure::host_enqueue: return "host_enqueue";
    case OverheadMeasure::round_trip: return "round_trip";
    case OverheadMeasure::back_to_back: return "back_to_back";
    case OverheadMeasure::gap: return "gap";
    case OverheadMeasure::pdl_serialized: return "pdl_serialized";
    case OverheadMeasure::pdl_overlapped: return "pdl_overlapped";
  }
  return "?";
}

const char* to_string(GraphMeasure m) {
  switch (m) {
    case GraphMeasure::instantiate: return "instantiate";
    case GraphMeasure::update: return "update";
    case GraphMeasure::launch: return "launch";
    case GraphMeasure::device_launch: return "device_launch";
  }
  return "?";
}

const char* to_string(SmallKernelMethod m) {
  switch (m) {
    case SmallKernelMethod::stream: return "stream";
    case SmallKernelMethod::graph: return "graph";
    case SmallKernelMethod::gsync: return "gsync";
    case SmallKernelMethod::pt: return "pt";
  }
  return "?";
}

uint64_t scale_elements(uint64_t bytes) {
  return std::max<uint64_t>(1, bytes / launch::kScaleBytesPerElement);
}

void check_overhead_fits(OverheadMeasure m, const DeviceInfo& info) {
  const int sm = info.cc.sm();
  if (m == OverheadMeasure::pdl_overlapped && sm < ptx::kGriddepcontrolMinSm)
    throw Skip("programmatic dependent launch (griddepcontrol) needs sm_90+; " + info.name +
                            " is sm_" + std::to_string(sm));
}

LaunchMeasurement summarize_launch_sample(const LaunchSample& s) {
  const std::string failed = "self-check failed: " + s.kernel + ": ";
  if (s.units == 0) throw Error(failed + "no units timed");
  if (s.launches_counted != s.launches_expected)
    throw Error(failed + "its kernels counted " + std::to_string(s.launches_counted) + " runs, expected " +
                std::to_string(s.launches_expected) +
                (s.launches_counted < s.launches_expected ? " (a kernel or graph node did not run)" : ""));
  if (s.iterations_counted != s.iterations_expected)
    throw Error(failed + "counted " + std::to_string(s.iterations_counted) + " SCALE passes, expected " +
                std::to_string(s.iterations_expected));
  for (std::size_t i = 0; i < s.scale_out.size(); ++i)
    if (s.scale_out[i] != s.scale_expected)
      throw Error(failed + "SCALE output sample " + std::to_string(i) + " is " + std::to_string(s.scale_out[i]) +
                  ", expected " + std::to_string(s.scale_expected));
  for (std::size_t i = 0; i < s.stamps.size(); ++i) {
    const auto& st = s.stamps[i];
    if (st.ran == 0) throw Error(failed + "stamp " + std::to_string(i) + " was never written (its kernel did not run)");
    if (st.ran != 1)
      throw Error(failed + "stamp " + std::to_string(i) + ": the device-side cudaGraphLaunch returned error " +
                  std::to_string(st.ran - 1));
    if (st.end_ns < st.start_ns)
      throw Error(failed + "stamp " + std::to_string(i) + " ends before it starts");
  }
  LaunchMeasurement m;
  m.units = s.units;
  m.launch = s.launch;
  if (s.rule == SampleRule::per_unit) {
    if (!(s.elapsed_ns > 0) || !std::isfinite(s.elapsed_ns))
      throw Error(failed + "the timer measured " + std::to_string(s.elapsed_ns) + " ns");
    m.ns = s.elapsed_ns / double(s.units);
    return m;
  }
  const auto signed_diff = [](uint64_t later, uint64_t earlier) {
    return later >= earlier ? double(later - earlier) : -double(earlier - later);
  };
  if (s.rule == SampleRule::gap) {
    if (s.stamps.size() != s.units || s.units < 2)
      throw Error(failed + std::to_string(s.stamps.size()) + " stamps for " + std::to_string(s.units) +
                  " kernels (a gap needs two at least)");
    for (std::size_t k = 0; k + 1 < s.stamps.size(); ++k) {
      // Kernels of one stream run in order: the next one cannot start before this one started.
      if (s.stamps[k + 1].start_ns < s.stamps[k].start_ns)
        throw Error(failed + "kernel " + std::to_string(k + 1) + " started before kernel " + std::to_string(k));
      m.per_unit_ns.push_back(signed_diff(s.stamps[k + 1].start_ns, s.stamps[k].end_ns));
    }
  } else {
    if (s.stamps.size() != 2 * s.units)
      throw Error(failed + std::to_string(s.stamps.size()) + " stamps for " + std::to_string(s.units) +
                  " pairs");
    for (std::size_t k = 0; k < s.units; ++k) {
      const auto& first = s.stamps[2 * k];
      const auto& second = s.stamps[2 * k + 1];
      if (s.rule == SampleRule::pair_start && second.start_ns < first.start_ns)
        throw Error(failed + "pair " + std::to_string(k) + ": the child started before its launcher");
      m.per_unit_ns.push_back(s.rule == SampleRule::pair_gap ? signed_diff(second.start_ns, first.end_ns)
                                                             : signed_diff(second.start_ns, first.start_ns));
    }
  }
  m.ns = stats::median(m.per_unit_ns);
  return m;
}

}  // namespace gpuprobe::probes
