// LaunchOps on a CUDA GPU. Every kernel goes through the harness's launch path (a
// cuda::PreparedLaunch: checked once, then enqueued, also into stream captures that become the
// graphs); GPU-side times come from the timing layer (cuda::time_with_events_ms: events behind a
// spin kernel, so the host's enqueueing is hidden), host-side times from steady_clock around the
// calls. The graph API calls (capture, instantiate, update, upload, launch, device launch) live
// here, each checked. What the kernels recorded goes to summarize_launch_sample. Plain C++ (g++);
// the kernels are launch.cu.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "harness/cuda/check.hpp"
#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/handles.hpp"
#include "harness/cuda/launch.hpp"
#include "harness/cuda/timing.hpp"
#include "harness/ops.hpp"
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
using cuda::Graph;
using cuda::GraphExec;
using cuda::Stream;

// The spin kernel in front of N timed launches lasts N x this (ns): longer than their enqueueing.
constexpr uint64_t kSpinPerLaunchNs = 8000;
constexpr uint32_t kScaleBlockThreads = 256;
// Blocks per SM of the persistent SCALE kernels (gsync, pt), at most what fits.
constexpr int kPersistentBlocksPerSm = 4;

// Zeroes device memory and waits: cudaMemset runs on the legacy default stream, which does not
// order with the non-blocking streams the launches use.
void zero(void* p, std::size_t bytes) {
  GPUPROBE_CUDA_CHECK(cudaMemset(p, 0, bytes));
  GPUPROBE_CUDA_CHECK(cudaDeviceSynchronize());
}

template <class F>
const void* kernel_ptr(F* f) {
  return reinterpret_cast<const void*>(f);
}

double ns_since(Clock::time_point start) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

LaunchConfig one_warp() {
  LaunchConfig c;
  c.grid = Dim3{1, 1, 1};
  c.block = Dim3{32, 1, 1};
  return c;
}

class CudaLaunchOps final : public LaunchOps {
 public:
  explicit CudaLaunchOps(cuda::CudaDevice& gpu) : gpu_(gpu) {}

  LaunchMeasurement overhead(OverheadMeasure m, uint32_t count) override {
    gpu_.select();
    check_overhead_fits(m, gpu_.info());
    if (count < 2) throw Error(std::string("launch/overhead ") + to_string(m) + ": needs 2 launches at least");
    Stream stream;
    cuda::DeviceArray<uint32_t> counters(lk::kCounterWords);
    clear(counters);
    LaunchSample s;
    s.units = count;
    s.launches_expected = count;
    if (m == OverheadMeasure::pdl_serialized || m == OverheadMeasure::pdl_overlapped) {
      return pdl(m == OverheadMeasure::pdl_overlapped, count, stream, counters);
    }
    if (m == OverheadMeasure::gap) {
      cuda::DeviceArray<LaunchStamp> stamps(count);
      zero(stamps.get(), stamps.bytes());
      const cuda::PreparedLaunch stamp(kernel_ptr(&gpuprobe_launch_stamp), "gpuprobe_launch_stamp", one_warp());
      warm_up(stamp, stamps.get(), counters, stream);
      // Queued behind a spin kernel, so each one waits for the GPU, not for the host.
      cuda::enqueue_spin(stream.get(), uint64_t(count) * kSpinPerLaunchNs);
      for (uint32_t k = 0; k < count; ++k) {
        LaunchStamp* p = stamps.get();
        uint32_t index = k;
        uint32_t* c = counters.get();
        void* args[] = {&p, &index, &c};
        stamp.enqueue(args, stream.get());
      }
      stream.sync();
      s.kernel = "gpuprobe_launch_stamp";
      s.rule = SampleRule::gap;
      s.stamps = to_host(stamps);
      s.launch = stamp.record();
      read_counters(counters, s);
      return summarize_launch_sample(s);
    }
    const cuda::PreparedLaunch empty(kernel_ptr(&gpuprobe_launch_empty), "gpuprobe_launch_empty", one_warp());
    uint32_t* c = counters.get();
    void* args[] = {&c};
    // Warm-up: the first launch of a kernel loads its module (lazy loading).
    empty.enqueue(args, stream.get());
    stream.sync();
    clear(counters);
    s.kernel = "gpuprobe_launch_empty";
    s.launch = empty.record();
    if (m == OverheadMeasure::host_enqueue) {
      const auto start = Clock::now();
      for (uint32_t k = 0; k < count; ++k) empty.enqueue(args, stream.get());
      s.elapsed_ns = ns_since(start);
      stream.sync();
    } else if (m == OverheadMeasure::round_trip) {
      const auto start = Clock::now();
      for (uint32_t k = 0; k < count; ++k) {
        empty.enqueue(args, stream.get());
        stream.sync();
      }
      s.elapsed_ns = ns_since(start);
    } else {  // back_to_back
      cuda::EventTimingOptions options;
      options.spin_ns = uint64_t(count) * kSpinPerLaunchNs;
      const double ms = cuda::time_with_events_ms(
          [&](cudaStream_t st) {
            for (uint32_t k = 0; k < count; ++k) empty.enqueue(args, st);
          },
          options);
      s.elapsed_ns = ms * 1e6;
    }
    read_counters(counters, s);
    return summarize_launch_sample(s);
  }

  LaunchMeasurement graph(GraphMeasure m, uint32_t nodes, uint32_t count) override {
    gpu_.select();
    if (nodes == 0 || count == 0) throw Error("launch/graph: needs a node and a graph at least");
    Stream stream;
    cuda::DeviceArray<uint32_t> counters(lk::kCounterWords);
    clear(counters);
    const cuda::PreparedLaunch stamp(kernel_ptr(&gpuprobe_launch_stamp), "gpuprobe_launch_stamp", one_warp());
    if (m == GraphMeasure::device_launch) return device_launch(count, stream, counters, stamp);
    cuda::DeviceArray<LaunchStamp> stamps(2 * uint64_t(nodes));
    zero(stamps.get(), stamps.bytes());
    // A chain of `nodes` stamping kernels; `offset` moves their stamps (for an update).
    const auto chain = [&](Graph& g, uint32_t offset) {
      capture(g, stream.get(), [&](cudaStream_t st) {
        for (uint32_t k = 0; k < nodes; ++k) {
          LaunchStamp* p = stamps.get();
          uint32_t index = offset + k;
          uint32_t* c = counters.get();
          void* args[] = {&p, &index, &c};
          stamp.enqueue(args, st);
        }
      });
    };
    Graph graph;
    chain(graph, 0);
    LaunchSample s;
    s.kernel = "a graph of " + std::to_string(nodes) + " gpuprobe_launch_stamp nodes";
    s.launch = stamp.record();
    s.units = count;
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
    GPUPROBE_CUDA_CHECK(cudaGraphUpload(exec.get(), stream.get()));
    GPUPROBE_CUDA_CHECK(cudaGraphLaunch(exec.get(), stream.get()));
    stream.sync();
    uint64_t launches = nodes;
    if (m == GraphMeasure::launch) {
      cuda::EventTimingOptions options;
      options.spin_ns = uint64_t(count) * kSpinPerLaunchNs;
      const double ms = cuda::time_with_events_ms(
          [&](cudaStream_t st) {
            for (uint32_t k = 0; k < count; ++k) GPUPROBE_CUDA_CHECK(cudaGraphLaunch(exec.get(), st));
          },
          options);
      s.elapsed_ns = ms * 1e6;
      launches += uint64_t(count) * nodes;
    }
    s.launches_expected = launches;
    read_counters(counters, s);
    // The stamps of the nodes the last launch ran (after an update, the other half) were written.
    auto all = to_host(stamps);
    const uint32_t last_offset = (m == GraphMeasure::update && count % 2 == 1) ? nodes : 0;
    s.stamps.assign(all.begin() + last_offset, all.begin() + last_offset + nodes);
    s.rule = SampleRule::per_unit;
    return summarize_launch_sample(s);
  }

  LaunchMeasurement small_kernel(SmallKernelMethod m, uint64_t bytes, uint32_t iterations) override {
    gpu_.select();
    if (iterations == 0) throw Error("launch/small_kernels: needs a pass at least");
    const uint64_t n = scale_elements(bytes);
    std::vector<double> input(n, kScaleInput);
    cuda::DeviceArray<double> a(n), b(n);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(a.get(), input.data(), a.bytes(), cudaMemcpyHostToDevice));
    zero(b.get(), b.bytes());
    cuda::DeviceArray<uint32_t> counters(lk::kCounterWords);
    cuda::DeviceArray<uint32_t> barrier(lk::kBarrierWords);
    zero(barrier.get(), barrier.bytes());
    ScaleArgs args{a.get(), b.get(), kScaleFactor, n, 1, counters.get(), barrier.get()};
    void* kernel_args[] = {&args};
    const int sms = gpu_.info().sm_count;
    LaunchConfig config;
    config.block = Dim3{kScaleBlockThreads, 1, 1};
    const void* kernel = kernel_ptr(&gpuprobe_launch_scale);
    const char* name = "gpuprobe_launch_scale";
    if (m == SmallKernelMethod::stream || m == SmallKernelMethod::graph) {
      const uint64_t blocks = (n + kScaleBlockThreads - 1) / kScaleBlockThreads;
      config.grid = Dim3{static_cast<uint32_t>(std::min<uint64_t>(blocks, uint64_t(sms) * 32)), 1, 1};
    } else {
      kernel = m == SmallKernelMethod::gsync ? kernel_ptr(&gpuprobe_launch_scale_gsync)
                                             : kernel_ptr(&gpuprobe_launch_scale_pt);
      name = m == SmallKernelMethod::gsync ? "gpuprobe_launch_scale_gsync" : "gpuprobe_launch_scale_pt";
      int per_sm = 0;
      GPUPROBE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kScaleBlockThreads, 0));
      config.grid = Dim3{static_cast<uint32_t>(sms * std::max(1, std::min(per_sm, kPersistentBlocksPerSm))), 1, 1};
      // Both wait for every block: the cooperative attribute makes the harness check that they
      // are all resident at once, which grid.sync needs (CUDA C++ Programming Guide, "Grid
      // Synchronization").
      config.cooperative = true;
    }
    const cuda::PreparedLaunch launch(kernel, name, config);
    Stream stream;
    // Warm-up pass (module load, first touch), then the counters start from zero.
    launch.enqueue(kernel_args, stream.get());
    stream.sync();
    clear(counters);
    LaunchSample s;
    s.kernel = name;
    s.launch = launch.record();
    s.units = iterations;
    s.iterations_expected = iterations;
    cuda::EventTimingOptions options;
    if (m == SmallKernelMethod::stream) {
      options.spin_ns = uint64_t(iterations) * kSpinPerLaunchNs;
      s.elapsed_ns = 1e6 * cuda::time_with_events_ms(
                               [&](cudaStream_t st) {
                                 for (uint32_t k = 0; k < iterations; ++k) launch.enqueue(kernel_args, st);
                               },
                               options);
      s.launches_expected = iterations;
    } else if (m == SmallKernelMethod::graph) {
      Graph graph;
      capture(graph, stream.get(), [&](cudaStream_t st) {
        for (uint32_t k = 0; k < iterations; ++k) launch.enqueue(kernel_args, st);
      });
      GraphExec exec;
      GPUPROBE_CUDA_CHECK(cudaGraphInstantiate(exec.out(), graph.get(), 0));
      GPUPROBE_CUDA_CHECK(cudaGraphUpload(exec.get(), stream.get()));
      stream.sync();
      s.elapsed_ns = 1e6 * cuda::time_with_events_ms(
                               [&](cudaStream_t st) { GPUPROBE_CUDA_CHECK(cudaGraphLaunch(exec.get(), st)); },
                               options);
      s.launches_expected = iterations;
    } else {
      args.iterations = iterations;
      s.elapsed_ns = 1e6 * cuda::time_with_events_ms(
                               [&](cudaStream_t st) { launch.enqueue(kernel_args, st); }, options);
      s.launches_expected = 1;
    }
    read_counters(counters, s);
    // SCALE's output: up to 1024 elements spread over the array.
    const uint64_t step = std::max<uint64_t>(1, n / 1024);
    std::vector<double> out(n);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(out.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
    for (uint64_t i = 0; i < n; i += step) s.scale_out.push_back(out[i]);
    s.scale_out.push_back(out[n - 1]);
    s.scale_expected = kScaleFactor * kScaleInput;
    return summarize_launch_sample(s);
  }

 private:
  static void clear(cuda::DeviceArray<uint32_t>& counters) { zero(counters.get(), counters.bytes()); }

  static void read_counters(const cuda::DeviceArray<uint32_t>& counters, LaunchSample& s) {
    uint32_t host[lk::kCounterWords] = {};
    GPUPROBE_CUDA_CHECK(cudaMemcpy(host, counters.get(), sizeof host, cudaMemcpyDeviceToHost));
    s.launches_counted = host[lk::kCounterLaunches];
    s.iterations_counted = host[lk::kCounterIterations];
  }

  static std::vector<LaunchStamp> to_host(const cuda::DeviceArray<LaunchStamp>& stamps) {
    std::vector<LaunchStamp> host(stamps.size());
    GPUPROBE_CUDA_CHECK(cudaMemcpy(host.data(), stamps.get(), stamps.bytes(), cudaMemcpyDeviceToHost));
    return host;
  }

  // One launch of a stamping kernel (module load), then the counters start from zero.
  static void warm_up(const cuda::PreparedLaunch& stamp, LaunchStamp* stamps, cuda::DeviceArray<uint32_t>& counters,
                      const Stream& stream) {
    uint32_t index = 0;
    uint32_t* c = counters.get();
    void* args[] = {&stamps, &index, &c};
    stamp.enqueue(args, stream.get());
    stream.sync();
    clear(counters);
  }

  LaunchMeasurement pdl(bool overlapped, uint32_t pairs, const Stream& stream, cuda::DeviceArray<uint32_t>& counters) {
    cuda::DeviceArray<LaunchStamp> stamps(2 * uint64_t(pairs));
    zero(stamps.get(), stamps.bytes());
    const cuda::PreparedLaunch primary(kernel_ptr(&gpuprobe_launch_pdl_primary), "gpuprobe_launch_pdl_primary",
                                       one_warp());
    LaunchConfig config = one_warp();
    config.programmatic_dependent_launch = overlapped;
    const cuda::PreparedLaunch secondary(kernel_ptr(&gpuprobe_launch_pdl_secondary),
                                         "gpuprobe_launch_pdl_secondary", config);
    uint32_t* c = counters.get();
    const auto enqueue_pair = [&](uint32_t k) {
      LaunchStamp* p = stamps.get();
      uint32_t first = 2 * k, second = 2 * k + 1;
      uint64_t spin = lk::kPdlSpinNs;
      void* pargs[] = {&p, &first, &spin, &c};
      void* sargs[] = {&p, &second, &c};
      primary.enqueue(pargs, stream.get());
      secondary.enqueue(sargs, stream.get());
    };
    enqueue_pair(0);  // warm-up
    stream.sync();
    clear(counters);
    cuda::enqueue_spin(stream.get(), uint64_t(pairs) * 2 * kSpinPerLaunchNs);
    for (uint32_t k = 0; k < pairs; ++k) enqueue_pair(k);
    stream.sync();
    LaunchSample s;
    s.kernel = overlapped ? "gpuprobe_launch_pdl_primary/secondary (PDL)" : "gpuprobe_launch_pdl_primary/secondary";
    s.rule = SampleRule::pair_gap;
    s.units = pairs;
    s.launches_expected = 2 * uint64_t(pairs);
    s.stamps = to_host(stamps);
    s.launch = secondary.record();
    read_counters(counters, s);
    return summarize_launch_sample(s);
  }

  // A parent graph whose one kernel launches a child graph (one stamping kernel) from the
  // device; per parent launch the child's start less the launcher's.
  LaunchMeasurement device_launch(uint32_t count, const Stream& stream, cuda::DeviceArray<uint32_t>& counters,
                                  const cuda::PreparedLaunch& stamp) {
    cuda::DeviceArray<LaunchStamp> stamps(2);
    uint32_t* c = counters.get();
    Graph child;
    capture(child, stream.get(), [&](cudaStream_t st) {
      LaunchStamp* p = stamps.get();
      uint32_t index = 1;
      void* args[] = {&p, &index, &c};
      stamp.enqueue(args, st);
    });
    GraphExec child_exec;
    GPUPROBE_CUDA_CHECK(
        cudaGraphInstantiateWithFlags(child_exec.out(), child.get(), cudaGraphInstantiateFlagDeviceLaunch));
    GPUPROBE_CUDA_CHECK(cudaGraphUpload(child_exec.get(), stream.get()));
    const cuda::PreparedLaunch launcher(kernel_ptr(&gpuprobe_launch_device_graph), "gpuprobe_launch_device_graph",
                                        one_warp());
    Graph parent;
    capture(parent, stream.get(), [&](cudaStream_t st) {
      uint64_t handle = reinterpret_cast<uint64_t>(child_exec.get());
      LaunchStamp* p = stamps.get();
      uint32_t index = 0;
      void* args[] = {&handle, &p, &index, &c};
      launcher.enqueue(args, st);
    });
    GraphExec parent_exec;
    GPUPROBE_CUDA_CHECK(cudaGraphInstantiate(parent_exec.out(), parent.get(), 0));
    GPUPROBE_CUDA_CHECK(cudaGraphUpload(parent_exec.get(), stream.get()));
    GPUPROBE_CUDA_CHECK(cudaGraphLaunch(parent_exec.get(), stream.get()));  // warm-up
    stream.sync();
    clear(counters);
    LaunchSample s;
    s.kernel = "gpuprobe_launch_device_graph";
    s.rule = SampleRule::pair_start;
    s.units = count;
    s.launches_expected = 2 * uint64_t(count);
    s.launch = launcher.record();
    for (uint32_t k = 0; k < count; ++k) {
      zero(stamps.get(), stamps.bytes());
      GPUPROBE_CUDA_CHECK(cudaGraphLaunch(parent_exec.get(), stream.get()));
      stream.sync();
      const auto pair = to_host(stamps);
      s.stamps.insert(s.stamps.end(), pair.begin(), pair.end());
    }
    read_counters(counters, s);
    return summarize_launch_sample(s);
  }

  cuda::CudaDevice& gpu_;
};

const auto kRegistration = register_ops<LaunchOps, CudaLaunchOps, cuda::CudaDevice>("cuda", __FILE__);

}  // namespace
}  // namespace gpuprobe::probes
