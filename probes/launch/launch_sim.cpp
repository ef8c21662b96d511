// LaunchOps on the simulated device: every cost comes from the preset's launch table
// (harness/sim/preset.hpp, LaunchCostModel; presets/launch_costs.cpp cites each number), with the
// preset's relative noise, as what a GPU would have recorded (elapsed times, %globaltimer stamps,
// the kernels' counters, SCALE's output) for the shared summarize_launch_sample.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "harness/ops.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/launch/launch_ops.hpp"

namespace gpuprobe::probes {
namespace {

using launch::LaunchStamp;

// Where the simulated %globaltimer starts (any value: only differences count).
constexpr uint64_t kSimStartNs = 1'000'000'000;
// An empty or stamping kernel's own run, start stamp to end stamp (assumption, as in
// presets/launch_costs.cpp).
constexpr double kSimKernelRunNs = 600;

class SimLaunchOps final : public LaunchOps {
 public:
  explicit SimLaunchOps(sim::SimDevice& device) : device_(device) {}

  LaunchMeasurement overhead(OverheadMeasure m, uint32_t count) override {
    const sim::LaunchCostModel& c = costs();
    LaunchSample s = overhead_sample(m, count);
    s.launches_counted = s.launches_expected;
    switch (m) {
      case OverheadMeasure::host_enqueue: s.elapsed_ns = count * c.host_enqueue_ns * jitter(); break;
      case OverheadMeasure::round_trip: s.elapsed_ns = count * c.round_trip_ns * jitter(); break;
      case OverheadMeasure::back_to_back: s.elapsed_ns = count * c.back_to_back_ns * jitter(); break;
      case OverheadMeasure::gap: {
        double t = kSimStartNs;
        for (uint32_t k = 0; k < count; ++k) {
          const double end = t + kSimKernelRunNs * jitter();
          s.stamps.push_back(stamp(t, end));
          t = end + c.gap_ns * jitter();
        }
        break;
      }
      case OverheadMeasure::pdl_serialized:
      case OverheadMeasure::pdl_overlapped: {
        if (m == OverheadMeasure::pdl_overlapped && !(c.pdl_launch_ns > 0))
          throw Skip("the simulated " + device_.preset().name + " has no PDL model");
        double t = kSimStartNs;
        for (uint32_t k = 0; k < count; ++k) {
          // The primary triggers at once and spins kPdlSpinNs; the secondary starts pdl_launch_ns
          // after the trigger with PDL, gap_ns after the primary's end without.
          const double end = t + launch::kPdlSpinNs * jitter();
          const double second = m == OverheadMeasure::pdl_overlapped ? t + c.pdl_launch_ns * jitter()
                                                                      : end + c.gap_ns * jitter();
          const double second_end = std::max(second + kSimKernelRunNs * jitter(), end);
          s.stamps.push_back(stamp(t, end));
          s.stamps.push_back(stamp(second, second_end));
          t = second_end + c.gap_ns;
        }
        break;
      }
    }
    return summarize_launch_sample(s);
  }

  LaunchMeasurement graph(GraphMeasure m, uint32_t nodes, uint32_t count) override {
    const sim::LaunchCostModel& c = costs();
    LaunchSample s = graph_sample(m, nodes, count);
    s.launches_counted = s.launches_expected;
    const double n = nodes;
    if (m == GraphMeasure::device_launch) {
      for (uint32_t k = 0; k < count; ++k) {
        const double t = kSimStartNs + 1e5 * k;
        const double child = t + c.device_graph_launch_ns * jitter();
        s.stamps.push_back(stamp(t, t + kSimKernelRunNs));
        s.stamps.push_back(stamp(child, child + kSimKernelRunNs));
      }
      return summarize_launch_sample(s);
    }
    const double per_graph = m == GraphMeasure::instantiate ? c.graph_instantiate_ns + n * c.graph_instantiate_per_node_ns
                             : m == GraphMeasure::update    ? c.graph_update_ns + n * c.graph_update_per_node_ns
                                                            : c.graph_launch_ns + n * c.graph_launch_per_node_ns;
    s.elapsed_ns = count * per_graph * jitter();
    double t = kSimStartNs;
    for (uint32_t k = 0; k < nodes; ++k, t += c.graph_launch_per_node_ns) s.stamps.push_back(stamp(t, t + kSimKernelRunNs));
    return summarize_launch_sample(s);
  }

  LaunchMeasurement small_kernel(SmallKernelMethod m, uint64_t bytes, uint32_t iterations) override {
    const sim::LaunchCostModel& c = costs();
    const auto& table = c.small_kernels;
    const auto it = std::find_if(table.begin(), table.end(),
                                 [&](const sim::SmallKernelCost& k) { return k.method == to_string(m); });
    if (it == table.end())
      throw Skip("the simulated " + device_.preset().name + " has no model of " + to_string(m));
    const double v = double(scale_elements(bytes) * launch::kScaleBytesPerElement);
    LaunchSample s = small_kernel_sample(m, iterations);
    s.elapsed_ns = iterations * (it->overhead_ns + v / it->bytes_per_s * 1e9) * jitter();
    s.iterations_counted = s.iterations_expected;
    s.launches_counted = s.launches_expected;
    s.scale_out.assign(4, kScaleFactor * kScaleInput);
    return summarize_launch_sample(s);
  }

 private:
  const sim::LaunchCostModel& costs() {
    const sim::Preset& p = device_.preset();
    if (!(p.launch.host_enqueue_ns > 0))
      throw OpsUnavailable("the simulated " + p.name + " has no launch cost model");
    return p.launch;
  }

  double jitter() {
    std::normal_distribution<double> noise(0.0, device_.preset().noise_rel);
    return std::max(0.5, 1.0 + noise(rng_));
  }

  static LaunchStamp stamp(double start, double end) {
    return LaunchStamp{static_cast<uint64_t>(start), static_cast<uint64_t>(std::max(start, end)), 0, 1};
  }

  sim::SimDevice& device_;
  std::mt19937_64 rng_{0x1a0c4};
};

const auto kRegistration = register_ops<LaunchOps, SimLaunchOps, sim::SimDevice>("sim", __FILE__);

}  // namespace
}  // namespace gpuprobe::probes
