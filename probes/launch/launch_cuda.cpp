// LaunchOps on a CUDA GPU. Every kernel goes through the harness's launch path (a
// cuda::PreparedLaunch: checked once, then enqueued, also into the stream captures that become the
// graphs); GPU-side times come from the timing layer (cuda::time_with_events_ms: events behind a
// spin kernel, so the host's enqueueing is hidden), host-side times from steady_clock around the
// calls; every graph API call here is checked. Plain C++ (g++); the kernels are launch.cu.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"
#include "harness/ops.hpp"
#include "probes/common/cuda_host.hpp"
#include "probes/common/units.hpp"
#include "probes/launch/launch_ops.hpp"

using gpuprobe::probes::launch::LaunchStamp;
using gpuprobe::probes::launch::ScaleArgs;
extern "C" {
void gpuprobe_launch_empty(uint32_t* counters);
void gpuprobe_launch_stamp(LaunchStamp* stamps, uint32_t index, uint32_t* counters);
void gpuprobe_launch_pdl_primary(LaunchStamp* stamps, uint32_t index, uint64_t spin_ns, uint32_t* counters);
void gpuprobe_launch_pdl_secondary(LaunchStamp* stamps, uint32_t index, uint32_t* counters);
void gpuprobe_launch_device_graph(uint64_t graph_exec, LaunchStamp* stamps, uint32_t index, uint32_t* counters);
void gpuprobe_launch_scale(ScaleArgs a);
void gpuprobe_launch_scale_gsync(ScaleArgs a);
void gpuprobe_launch_scale_pt(ScaleArgs a);
}

namespace gpuprobe::probes {
namespace {

using Clock = std::chrono::steady_clock;
namespace lk = launch;
using cuda::capture;
using cuda::DeviceArray;
using cuda::Graph;
using cuda::GraphExec;
using cuda::PreparedLaunch;
using cuda::Stream;

// The spin kernel in front of N timed launches lasts N x this (ns): longer than their enqueueing.
constexpr uint64_t kSpinPerLaunchNs = 8000;
// In front of one timed launch (a whole graph, a persistent kernel): the timing layer's default.
constexpr uint64_t kOneLaunchSpinNs = cuda::EventTimingOptions{}.spin_ns;
constexpr uint32_t kScaleBlockThreads = 256;
// Blocks per SM of the persistent SCALE kernels (gsync, pt), at most what fits.
constexpr int kPersistentBlocksPerSm = 4;

double ns_since(Clock::time_point start) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

// A one-warp launch (the empty, stamping, PDL and device-graph kernels).
PreparedLaunch one_warp(const void* kernel, const char* name, bool pdl = false) {
  LaunchConfig c = launch_config(1, 32);
  c.programmatic_dependent_launch = pdl;
  return PreparedLaunch(kernel, name, c);
}

// What every measurement has: a stream of its own and the kernels' counters, zeroed.
struct Bench {
  Stream stream;
  DeviceArray<uint32_t> counters{lk::kCounterWords};

  Bench() { fill(counters, 0); }
  uint32_t* c() const { return counters.get(); }
  // The untimed first run (the module loads): enqueue(stream), wait, then the counters from zero.
  template <class F>
  void warm_up(F&& enqueue) {
    enqueue(stream.get());
    stream.sync();
    fill(counters, 0);
  }
  // Enqueues a stamping kernel that writes stamps[index].
  void stamp(const PreparedLaunch& kernel, LaunchStamp* stamps, uint32_t index, cudaStream_t st) const {
    uint32_t* counters_ptr = c();
    void* args[] = {&stamps, &index, &counters_ptr};
    kernel.enqueue(args, st);
  }
  // What the counters read, then the shared arithmetic and self-check.
  LaunchMeasurement finish(LaunchSample& s) const {
    const auto host = to_host(counters);
    s.launches_counted = host[lk::kCounterLaunches];
    s.iterations_counted = host[lk::kCounterIterations];
    return summarize_launch_sample(s);
  }
};

class CudaLaunchOps final : public LaunchOps {
 public:
  explicit CudaLaunchOps(cuda::CudaDevice& gpu) : gpu_(gpu) {}

  LaunchMeasurement overhead(OverheadMeasure m, uint32_t count) override {
    gpu_.select();
    Bench b;
    LaunchSample s = overhead_sample(m, count);
    if (m == OverheadMeasure::pdl_serialized || m == OverheadMeasure::pdl_overlapped)
      return pdl(m == OverheadMeasure::pdl_overlapped, s, b);
    if (m == OverheadMeasure::gap) {
      DeviceArray<LaunchStamp> stamps(count);
      fill(stamps, 0);
      const PreparedLaunch stamp = one_warp(kernel_ptr(&gpuprobe_launch_stamp), "gpuprobe_launch_stamp");
      b.warm_up([&](cudaStream_t st) { b.stamp(stamp, stamps.get(), 0, st); });
      // Queued behind a spin kernel, so each one waits for the GPU, not for the host.
      cuda::enqueue_spin(b.stream.get(), uint64_t(count) * kSpinPerLaunchNs);
      for (uint32_t k = 0; k < count; ++k) b.stamp(stamp, stamps.get(), k, b.stream.get());
      b.stream.sync();
      s.stamps = to_host(stamps);
      s.launch = stamp.record();
      return b.finish(s);
    }
    const PreparedLaunch empty = one_warp(kernel_ptr(&gpuprobe_launch_empty), "gpuprobe_launch_empty");
    uint32_t* c = b.c();
    void* args[] = {&c};
    const auto enqueue = [&](cudaStream_t st) { empty.enqueue(args, st); };
    // Warm-up: the first launch of a kernel loads its module (lazy loading).
    b.warm_up(enqueue);
    s.launch = empty.record();
    // Each timed loop holds only what it measures (no per-launch branch between the calls).
    if (m == OverheadMeasure::host_enqueue) {
      const auto start = Clock::now();
      for (uint32_t k = 0; k < count; ++k) enqueue(b.stream.get());
      s.elapsed_ns = ns_since(start);
      b.stream.sync();
    } else if (m == OverheadMeasure::round_trip) {
      const auto start = Clock::now();
      for (uint32_t k = 0; k < count; ++k) {
        enqueue(b.stream.get());
        b.stream.sync();
      }
      s.elapsed_ns = ns_since(start);
    } else {  // back_to_back
      s.elapsed_ns = events_ns(uint64_t(count) * kSpinPerLaunchNs, count, enqueue);
    }
    return b.finish(s);
  }

  LaunchMeasurement graph(GraphMeasure m, uint32_t nodes, uint32_t count) override {
    gpu_.select();
    Bench b;
    LaunchSample s = graph_sample(m, nodes, count);
    const PreparedLaunch stamp = one_warp(kernel_ptr(&gpuprobe_launch_stamp), "gpuprobe_launch_stamp");
    if (m == GraphMeasure::device_launch) return device_launch(s, b, stamp);
    DeviceArray<LaunchStamp> stamps(2 * uint64_t(nodes));
    fill(stamps, 0);
    // A chain of `nodes` stamping kernels; `offset` moves their stamps (for an update).
    const auto chain = [&](Graph& g, uint32_t offset) {
      capture(g, b.stream.get(), [&](cudaStream_t st) {
        for (uint32_t k = 0; k < nodes; ++k) b.stamp(stamp, stamps.get(), offset + k, st);
      });
    };
    Graph graph;
    chain(graph, 0);
    s.launch = stamp.record();
    GraphExec exec;
    if (m == GraphMeasure::instantiate) {
      for (uint32_t k = 0; k < count; ++k) {
        exec.reset();
        const auto start = Clock::now();
        GPUPROBE_CUDA_CHECK(cudaGraphInstantiate(exec.out(), graph.get(), 0));
        s.elapsed_ns += ns_since(start);
      }
    } else {
      GPUPROBE_CUDA_CHECK(cudaGraphInstantiate(exec.out(), graph.get(), 0));
    }
    if (m == GraphMeasure::update) {
      Graph other;
      chain(other, nodes);
      for (uint32_t k = 0; k < count; ++k) {
        cudaGraphExecUpdateResultInfo info{};
        const auto start = Clock::now();
        GPUPROBE_CUDA_CHECK(cudaGraphExecUpdate(exec.get(), k % 2 == 0 ? other.get() : graph.get(), &info));
        s.elapsed_ns += ns_since(start);
        if (info.result != cudaGraphExecUpdateSuccess)
          throw Error("launch/graph: cudaGraphExecUpdate of a graph of the same shape failed (result " +
                      std::to_string(int(info.result)) + ")");
      }
    }
    // Every measure runs the graph at the end: all its nodes must have run (the self-check).
    GPUPROBE_CUDA_CHECK(cudaGraphUpload(exec.get(), b.stream.get()));
    GPUPROBE_CUDA_CHECK(cudaGraphLaunch(exec.get(), b.stream.get()));
    b.stream.sync();
    if (m == GraphMeasure::launch)
      s.elapsed_ns = events_ns(uint64_t(count) * kSpinPerLaunchNs, count, graph_launch(exec));
    // The stamps of the nodes the last launch ran (after an update, the other half) were written.
    const auto all = to_host(stamps);
    const uint32_t last_offset = (m == GraphMeasure::update && count % 2 == 1) ? nodes : 0;
    s.stamps.assign(all.begin() + last_offset, all.begin() + last_offset + nodes);
    return b.finish(s);
  }

  LaunchMeasurement small_kernel(SmallKernelMethod m, uint64_t bytes, uint32_t iterations) override {
    gpu_.select();
    const uint64_t n = scale_elements(bytes);
    const std::vector<double> input(n, kScaleInput);
    DeviceArray<double> a(n), out(n);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(a.get(), input.data(), a.bytes(), cudaMemcpyHostToDevice));
    fill(out, 0);
    Bench b;
    DeviceArray<uint32_t> barrier(lk::kBarrierWords);
    fill(barrier, 0);
    ScaleArgs args{a.get(), out.get(), kScaleFactor, n, 1, b.c(), barrier.get()};
    void* kernel_args[] = {&args};
    const int sms = gpu_.info().sm_count;
    const bool persistent = m == SmallKernelMethod::gsync || m == SmallKernelMethod::pt;
    LaunchConfig config;
    config.block = Dim3{kScaleBlockThreads, 1, 1};
    const void* kernel = m == SmallKernelMethod::gsync ? kernel_ptr(&gpuprobe_launch_scale_gsync)
                         : m == SmallKernelMethod::pt  ? kernel_ptr(&gpuprobe_launch_scale_pt)
                                                       : kernel_ptr(&gpuprobe_launch_scale);
    if (!persistent) {
      const uint64_t blocks = (n + kScaleBlockThreads - 1) / kScaleBlockThreads;
      config.grid = Dim3{static_cast<uint32_t>(std::min<uint64_t>(blocks, uint64_t(sms) * 32)), 1, 1};
    } else {
      int per_sm = 0;
      GPUPROBE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kScaleBlockThreads, 0));
      config.grid = Dim3{static_cast<uint32_t>(sms * std::max(1, std::min(per_sm, kPersistentBlocksPerSm))), 1, 1};
      // Both wait for every block: the cooperative attribute makes the harness check that they
      // are all resident at once, which grid.sync needs (CUDA C++ Programming Guide, "Grid
      // Synchronization").
      config.cooperative = true;
    }
    const PreparedLaunch launch(kernel, scale_kernel(m), config);
    const auto enqueue = [&](cudaStream_t st) { launch.enqueue(kernel_args, st); };
    // Warm-up pass (module load, first touch), then the counters start from zero.
    b.warm_up(enqueue);
    LaunchSample s = small_kernel_sample(m, iterations);
    s.launch = launch.record();
    if (m == SmallKernelMethod::stream) {
      s.elapsed_ns = events_ns(uint64_t(iterations) * kSpinPerLaunchNs, iterations, enqueue);
    } else if (m == SmallKernelMethod::graph) {
      GraphExec exec;
      instantiate_captured(exec, b.stream.get(), [&](cudaStream_t st) {
        for (uint32_t k = 0; k < iterations; ++k) enqueue(st);
      });
      b.stream.sync();
      s.elapsed_ns = events_ns(kOneLaunchSpinNs, 1, graph_launch(exec));
    } else {
      args.iterations = iterations;
      s.elapsed_ns = events_ns(kOneLaunchSpinNs, 1, enqueue);
    }
    // SCALE's output: up to 1024 elements spread over the array.
    const auto host = to_host(out);
    const uint64_t step = std::max<uint64_t>(1, n / 1024);
    for (uint64_t i = 0; i < n; i += step) s.scale_out.push_back(host[i]);
    s.scale_out.push_back(host[n - 1]);
    return b.finish(s);
  }

 private:
  LaunchMeasurement pdl(bool overlapped, LaunchSample& s, Bench& b) {
    const uint32_t pairs = static_cast<uint32_t>(s.units);
    DeviceArray<LaunchStamp> stamps(2 * uint64_t(pairs));
    fill(stamps, 0);
    const PreparedLaunch primary =
        one_warp(kernel_ptr(&gpuprobe_launch_pdl_primary), "gpuprobe_launch_pdl_primary");
    const PreparedLaunch secondary =
        one_warp(kernel_ptr(&gpuprobe_launch_pdl_secondary), "gpuprobe_launch_pdl_secondary", overlapped);
    uint32_t* c = b.c();
    const auto enqueue_pair = [&](uint32_t k) {
      LaunchStamp* p = stamps.get();
      uint32_t first = 2 * k, second = 2 * k + 1;
      uint64_t spin = lk::kPdlSpinNs;
      void* pargs[] = {&p, &first, &spin, &c};
      void* sargs[] = {&p, &second, &c};
      primary.enqueue(pargs, b.stream.get());
      secondary.enqueue(sargs, b.stream.get());
    };
    b.warm_up([&](cudaStream_t) { enqueue_pair(0); });
    cuda::enqueue_spin(b.stream.get(), uint64_t(pairs) * 2 * kSpinPerLaunchNs);
    for (uint32_t k = 0; k < pairs; ++k) enqueue_pair(k);
    b.stream.sync();
    s.stamps = to_host(stamps);
    s.launch = secondary.record();
    return b.finish(s);
  }

  // A parent graph whose one kernel launches a child graph (one stamping kernel) from the
  // device; per parent launch the child's start less the launcher's.
  LaunchMeasurement device_launch(LaunchSample& s, Bench& b, const PreparedLaunch& stamp) {
    DeviceArray<LaunchStamp> stamps(2);
    Graph child;
    capture(child, b.stream.get(), [&](cudaStream_t st) { b.stamp(stamp, stamps.get(), 1, st); });
    GraphExec child_exec;
    GPUPROBE_CUDA_CHECK(
        cudaGraphInstantiateWithFlags(child_exec.out(), child.get(), cudaGraphInstantiateFlagDeviceLaunch));
    GPUPROBE_CUDA_CHECK(cudaGraphUpload(child_exec.get(), b.stream.get()));
    const PreparedLaunch launcher =
        one_warp(kernel_ptr(&gpuprobe_launch_device_graph), "gpuprobe_launch_device_graph");
    GraphExec parent_exec;
    instantiate_captured(parent_exec, b.stream.get(), [&](cudaStream_t st) {
      uint64_t handle = reinterpret_cast<uint64_t>(child_exec.get());
      LaunchStamp* p = stamps.get();
      uint32_t index = 0;
      uint32_t* c = b.c();
      void* args[] = {&handle, &p, &index, &c};
      launcher.enqueue(args, st);
    });
    const auto run = graph_launch(parent_exec);
    b.warm_up(run);
    s.launch = launcher.record();
    for (uint64_t k = 0; k < s.units; ++k) {
      fill(stamps, 0);
      run(b.stream.get());
      b.stream.sync();
      const auto pair = to_host(stamps);
      s.stamps.insert(s.stamps.end(), pair.begin(), pair.end());
    }
    return b.finish(s);
  }

  cuda::CudaDevice& gpu_;
};

const auto kRegistration = register_ops<LaunchOps, CudaLaunchOps, cuda::CudaDevice>("cuda", __FILE__);

}  // namespace
}  // namespace gpuprobe::probes
