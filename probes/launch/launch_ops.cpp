#include "probes/launch/launch_ops.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "harness/self_check.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::probes {

LaunchSample overhead_sample(OverheadMeasure m, uint32_t count) {
  const bool pdl = m == OverheadMeasure::pdl_serialized || m == OverheadMeasure::pdl_overlapped;
  LaunchSample s;
  s.kernel = pdl ? std::string("gpuprobe_launch_pdl_primary/secondary") +
                       (m == OverheadMeasure::pdl_overlapped ? " (PDL)" : "")
             : m == OverheadMeasure::gap ? "gpuprobe_launch_stamp"
                                         : "gpuprobe_launch_empty";
  s.rule = pdl ? SampleRule::pair_gap : m == OverheadMeasure::gap ? SampleRule::gap : SampleRule::per_unit;
  s.units = count;
  s.launches_expected = (pdl ? 2 : 1) * uint64_t(count);
  return s;
}

LaunchSample graph_sample(GraphMeasure m, uint32_t nodes, uint32_t count) {
  LaunchSample s;
  s.units = count;
  if (m == GraphMeasure::device_launch) {
    s.kernel = "gpuprobe_launch_device_graph";
    s.rule = SampleRule::pair_start;
    s.launches_expected = 2 * uint64_t(count);
    return s;
  }
  s.kernel = "a graph of " + std::to_string(nodes) + " gpuprobe_launch_stamp nodes";
  // The closing run of the graph, and for `launch` the timed ones: every node stamps and counts.
  s.launches_expected = (m == GraphMeasure::launch ? uint64_t(count) + 1 : 1) * nodes;
  return s;
}

LaunchSample small_kernel_sample(SmallKernelMethod m, uint32_t iterations) {
  LaunchSample s;
  s.kernel = scale_kernel(m);
  s.units = s.iterations_expected = iterations;
  s.launches_expected = m == SmallKernelMethod::gsync || m == SmallKernelMethod::pt ? 1 : iterations;
  return s;
}

LaunchMeasurement summarize_launch_sample(const LaunchSample& s) {
  const std::string failed = s.kernel + ": ";
  if (s.units == 0) throw SelfCheckFailed(failed + "no units timed");
  if (s.launches_counted != s.launches_expected)
    throw SelfCheckFailed(
        failed + "its kernels counted " + std::to_string(s.launches_counted) + " runs, expected " +
        std::to_string(s.launches_expected) +
        (s.launches_counted < s.launches_expected ? " (a kernel or graph node did not run)" : ""));
  if (s.iterations_counted != s.iterations_expected)
    throw SelfCheckFailed(failed + "counted " + std::to_string(s.iterations_counted) +
                          " SCALE passes, expected " + std::to_string(s.iterations_expected));
  for (std::size_t i = 0; i < s.scale_out.size(); ++i)
    if (s.scale_out[i] != kScaleFactor * kScaleInput)
      throw SelfCheckFailed(failed + "SCALE output sample " + std::to_string(i) + " is " +
                            std::to_string(s.scale_out[i]) + ", expected " +
                            std::to_string(kScaleFactor * kScaleInput));
  for (std::size_t i = 0; i < s.stamps.size(); ++i) {
    const auto& st = s.stamps[i];
    const std::string stamp = failed + "stamp " + std::to_string(i);
    if (st.ran == 0) throw Error(stamp + " was never written (its kernel did not run)");
    if (st.ran != 1)
      throw Error(stamp + ": the device-side cudaGraphLaunch returned error " + std::to_string(st.ran - 1));
    if (st.end_ns < st.start_ns) throw Error(stamp + " ends before it starts");
  }
  LaunchMeasurement m;
  m.units = s.units;
  m.launch = s.launch;
  if (s.rule == SampleRule::per_unit) {
    if (!(s.elapsed_ns > 0) || !std::isfinite(s.elapsed_ns))
      throw SelfCheckFailed(failed + "the timer measured " + std::to_string(s.elapsed_ns) + " ns");
    m.ns = s.elapsed_ns / double(s.units);
    return m;
  }
  const auto signed_diff = [](uint64_t later, uint64_t earlier) {
    return later >= earlier ? double(later - earlier) : -double(earlier - later);
  };
  // gap: each kernel and the next; pair_gap and pair_start: stamps 2k and 2k + 1.
  const bool gap = s.rule == SampleRule::gap;
  if (gap ? (s.stamps.size() != s.units || s.units < 2) : s.stamps.size() != 2 * s.units)
    throw SelfCheckFailed(failed + std::to_string(s.stamps.size()) + " stamps for " +
                          std::to_string(s.units) + (gap ? " kernels (a gap needs two at least)" : " pairs"));
  for (std::size_t k = 0; k < (gap ? s.units - 1 : s.units); ++k) {
    const auto& first = s.stamps[gap ? k : 2 * k];
    const auto& second = s.stamps[gap ? k + 1 : 2 * k + 1];
    // Kernels of one stream run in order: the next one cannot start before this one started.
    if (gap && second.start_ns < first.start_ns)
      throw SelfCheckFailed(failed + "kernel " + std::to_string(k + 1) + " started before kernel " +
                            std::to_string(k));
    if (s.rule == SampleRule::pair_start && second.start_ns < first.start_ns)
      throw SelfCheckFailed(failed + "pair " + std::to_string(k) + ": the child started before its launcher");
    m.per_unit_ns.push_back(s.rule == SampleRule::pair_start ? signed_diff(second.start_ns, first.start_ns)
                                                             : signed_diff(second.start_ns, first.end_ns));
  }
  if (!gap)
    for (const auto* st : {&s.stamps[0], &s.stamps[1]})
      for (uint64_t t : {st->start_ns, st->end_ns}) m.first_pair_ns.push_back(signed_diff(t, s.stamps[0].start_ns));
  m.ns = stats::median(m.per_unit_ns);
  return m;
}

}  // namespace gpuprobe::probes
