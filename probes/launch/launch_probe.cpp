// launch/*: what launching costs (probes/launch/launch_ops.hpp names each measure): launch/overhead
// (empty kernels), launch/graph (graphs of n nodes, against n: the model fits t = a + b*n; and a
// device-side graph launch) and launch/small_kernels (SCALE passes of V bytes four ways: the model
// fits T = a + V/b). Each point repeats its sample until stable (harness/repeat.hpp) and every
// sample, from either backend, passes the self-check here (summarize_launch_sample). A measure the
// device cannot make is recorded as skipped with the reason.
// The family's registration (harness/family.hpp) is here too; its model section and metrics are
// analysis/launch_model.cpp's.
#include <cmath>
#include <string>
#include <vector>

#include "analysis/launch_model.hpp"
#include "harness/error.hpp"
#include "harness/points.hpp"
#include "harness/probe.hpp"
#include "harness/repeat.hpp"
#include "harness/self_check.hpp"
#include "harness/stats.hpp"
#include "probes/common/family_spec.hpp"
#include "probes/common/plan.hpp"
#include "probes/launch/launch_ops.hpp"
#include "ptx/griddep.cuh"

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

namespace {

constexpr uint64_t kMaxCount = 100'000;
constexpr uint64_t kMaxNodes = 4096;
constexpr uint64_t kMaxListEntries = 64;
constexpr uint64_t kMaxSmallKernelBytes = uint64_t{1} << 30;

// A point at `axes` whose sample is sample(ops), repeated until stable: its numbers, or
// {"skipped": why}.
template <class F>
PlannedPoint point(ProbeContext& ctx, nlohmann::json axes, F sample) {
  return {std::move(axes), [&ctx, sample]() -> nlohmann::json {
            const auto r = repeat_point(
                ctx.repeat(), [&] { return sample(ctx.ops<LaunchOps>()); },
                [](const LaunchMeasurement& m) { return m.ns; });
            if (r.skipped) return {{"skipped", *r.skipped}};
            const auto& sum = r.outcome.summary;
            nlohmann::json j = {{"ns", sum.median},
                    {"ci95_ns", {sum.median_ci95.lo, sum.median_ci95.hi}},
                    {"repeats", sum.n},
                    {"converged", r.outcome.converged},
                    {"units_per_sample", r.first.units},
                    {"kernel", r.first.launch.kernel},
                    {"launch", to_json(r.first.launch)},
                    {"self_check", "passed"}};
            if (!r.first.first_pair_ns.empty()) j["first_pair_stamps_ns"] = r.first.first_pair_ns;
            return j;
          }};
}

// A list's entries, each at most `hi` (its spec checks the count, the least value and the multiple).
std::vector<uint64_t> bounded_list(const Params& prm, const char* name, uint64_t lo, uint64_t hi) {
  const auto values = prm.get_u64_list(name);
  for (uint64_t v : values)
    if (v > hi)
      throw Error(std::string("--") + name + " entries must be " + std::to_string(lo) + " to " +
                  std::to_string(hi) + ", got " + std::to_string(v));
  return values;
}

// A count its spec bounds (min and max, both within uint32_t).
uint32_t count_param(const Params& prm, const char* name) { return static_cast<uint32_t>(prm.get_u64(name)); }

using K = ParamSpec::Kind;

ProbeSpec overhead_probe() {
  ProbeSpec p;
  p.id = "launch/overhead";
  p.summary = "empty-kernel launch: host enqueue, round trip, back to back, kernel gap, PDL (ns)";
  p.params = {
      {"launches", K::integer, "200", "launches (PDL: pairs) per sample", {}, kMaxCount, 2},
  };
  p.run = [](ProbeContext& ctx) {
    const uint32_t count = count_param(ctx.params(), "launches");
    const DeviceInfo& info = ctx.device().info();
    std::vector<PlannedPoint> points;
    for (OverheadMeasure m : {OverheadMeasure::host_enqueue, OverheadMeasure::round_trip,
                              OverheadMeasure::back_to_back, OverheadMeasure::gap,
                              OverheadMeasure::pdl_serialized, OverheadMeasure::pdl_overlapped})
      points.push_back(point(ctx, {{"measure", to_string(m)}}, [m, count, &info](LaunchOps& ops) {
        if (m == OverheadMeasure::pdl_overlapped && info.cc.sm() < ptx::kGriddepcontrolMinSm)
          skip("programmatic dependent launch (griddepcontrol) needs sm_90+; " + info.name + " is sm_" +
               std::to_string(info.cc.sm()));
        return ops.overhead(m, count);
      }));
    measure_points(ctx, points);
  };
  return p;
}

ProbeSpec graph_probe() {
  ProbeSpec p;
  p.id = "launch/graph";
  p.summary = "CUDA graphs: instantiate, update and launch against node count; device-side launch (ns)";
  p.params = {
      {"nodes", K::list, "1,2,4,8,16,32,64,128", "graph sizes (kernel nodes in a chain), 1 to 4096 each",
       {}, kMaxListEntries, 1},
      {"graphs", K::integer, "20", "graphs instantiated, updated or launched per sample", {}, kMaxCount, 1},
  };
  p.run = [](ProbeContext& ctx) {
    const auto nodes = bounded_list(ctx.params(), "nodes", 1, kMaxNodes);
    const uint32_t count = count_param(ctx.params(), "graphs");
    std::vector<PlannedPoint> points;
    for (GraphMeasure m : {GraphMeasure::instantiate, GraphMeasure::update, GraphMeasure::launch})
      for (uint64_t n : nodes)
        points.push_back(point(ctx, {{"measure", to_string(m)}, {"nodes", n}},
                               [m, n, count](LaunchOps& ops) { return ops.graph(m, uint32_t(n), count); }));
    points.push_back(point(ctx, {{"measure", "device_launch"}}, [count](LaunchOps& ops) {
      return ops.graph(GraphMeasure::device_launch, 1, count);
    }));
    measure_points(ctx, points);
  };
  return p;
}

ProbeSpec small_kernels_probe() {
  ProbeSpec p;
  p.id = "launch/small_kernels";
  p.summary = "SCALE passes as stream launches, one graph, grid.sync and persistent threads (ns per pass)";
  p.params = {
      {"bytes", K::list, "64K,80K,96K,112K,128K,160K,192K,224K,256K",
       "bytes moved per pass (16 per element; the fit uses up to 4x the smallest), 16 to 1 GiB each", {},
       kMaxListEntries, launch::kScaleBytesPerElement, launch::kScaleBytesPerElement},
      {"iterations", K::integer, "1000", "passes per sample", {}, kMaxCount, 1},
      {"method", K::choice, "all", "stream, graph, gsync, pt or all", {"all", "stream", "graph", "gsync", "pt"}},
  };
  p.run = [](ProbeContext& ctx) {
    const auto sizes = bounded_list(ctx.params(), "bytes", launch::kScaleBytesPerElement, kMaxSmallKernelBytes);
    const uint32_t iterations = count_param(ctx.params(), "iterations");
    const std::string which = ctx.params().get_text("method");
    std::vector<PlannedPoint> points;
    for (SmallKernelMethod m : {SmallKernelMethod::stream, SmallKernelMethod::graph, SmallKernelMethod::gsync,
                                SmallKernelMethod::pt}) {
      if (which != "all" && which != to_string(m)) continue;
      for (uint64_t bytes : sizes) {
        const uint64_t moved = scale_elements(bytes) * launch::kScaleBytesPerElement;
        const auto sample = [=](LaunchOps& ops) { return ops.small_kernel(m, moved, iterations); };
        points.push_back(point(ctx, {{"method", to_string(m)}, {"bytes", moved}}, sample));
      }
    }
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kOverhead(overhead_probe);
const ProbeRegistration kGraph(graph_probe);
const ProbeRegistration kSmallKernels(small_kernels_probe);

using namespace plan;

constexpr double kOverheadMeasures = 6, kSmallKernelMethods = 4, kGraphMeasures = 3;

double estimate(const std::string& probe, const Params& p) {
  if (probe == "launch/overhead") {
    // Each measure: samples of --launches launches (PDL: pairs) of a few microseconds each.
    const double launch_s = 5e-6;
    return kOverheadMeasures *
           (kRunsPerPoint * std::max(2.0 * static_cast<double>(p.get_u64("launches")) * launch_s, kMinRegionSeconds) +
            kPointOverheadSeconds);
  }
  if (probe == "launch/graph") {
    // Per graph size: --graphs graphs instantiated (about 20 us + 1 us per node), updated and
    // launched (a few us per node), per sample.
    double s = op_points_seconds(1);  // the device-side launch
    for (uint64_t nodes : p.get_u64_list("nodes"))
      s += kGraphMeasures * (kRunsPerPoint * static_cast<double>(p.get_u64("graphs")) *
                                 (20e-6 + 3e-6 * static_cast<double>(nodes)) +
                             kPointOverheadSeconds);
    return s;
  }
  // launch/small_kernels: per size and method, --iterations passes of a few microseconds each,
  // per sample.
  const double methods = p.get_text("method") == "all" ? kSmallKernelMethods : 1;
  const double sizes = static_cast<double>(p.get_u64_list("bytes").size());
  return methods * sizes *
         (kRunsPerPoint * static_cast<double>(p.get_u64("iterations")) * 3e-6 + kPointOverheadSeconds);
}

std::vector<PlannedRun> runs(RunProfile profile) {
  using Map = std::map<std::string, std::string>;
  // --quick: graphs of 1, 8, 64 and 128 nodes; all nine small-kernel sizes (fewer leave the fit's
  // bandwidth term, its 1/slope, to the noise).
  return {run("launch/overhead", {}, "launch_overhead.json"),
          run("launch/graph", profile == RunProfile::quick ? Map{{"nodes", "1,8,64,128"}} : Map{}, "launch_graph.json"),
          run("launch/small_kernels", {}, "launch_small_kernels.json")};
}

FamilySpec launch_family() {
  const auto probe = [](const char* id, std::vector<CheckEvidence> more = {}) {
    return generic_probe(id, "launch.cu", closed_loop_naming("tests/probes/launch/test_launch.cpp", id),
                         self_check_evidence("probes/launch/launch_probe.cpp"), std::move(more));
  };
  return {.name = "launch",
          .title = "Launch overheads",
          .order = 80,
          .plan = runs,
          .estimate_h100_seconds = estimate,
          .add_run = add_run_by(analysis::add_launch_from_run),
          .metrics = analysis::launch_metrics,
          .provenance = {
              probe("launch/overhead"), probe("launch/graph"),
              probe("launch/small_kernels", {real_data_check("tests/analysis/test_launch_model.cpp",
                                                             "/real/gpu-benches/gpu-small-kernels/")})}};
}

const FamilyRegistration kFamily(launch_family);

}  // namespace
}  // namespace gpuprobe::probes
