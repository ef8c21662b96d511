// Host-side cost of the CUDA launch API (the launch family's host probes), timed
// by Google Benchmark: one empty-kernel enqueue through the harness's launch path (a
// cuda::PreparedLaunch: the checks once, then cudaLaunchKernelExC), launch + synchronize, and
// cudaGraphLaunch / cudaGraphInstantiate of a chain of n empty kernels. The kernels are the launch
// family's (probes/launch/launch.cu). Without CUDA in the build or without a GPU each benchmark
// skips with the reason. Run: build/bench/gpuprobe_bench --benchmark_filter=Launch
#include <benchmark/benchmark.h>

#include <string>

#if GPUPROBE_WITH_CUDA
#include <cuda_runtime.h>

#include "harness/cuda/check.hpp"
#include "harness/cuda/launch.hpp"

extern "C" void gpuprobe_launch_empty(uint32_t* counters);
#endif

namespace {

#if GPUPROBE_WITH_CUDA
// Why the GPU cannot be used here, or "" when it can.
std::string no_gpu_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) return std::string("no CUDA GPU: ") + cudaGetErrorString(status);
  if (count == 0) return "no CUDA GPU: cudaGetDeviceCount found none";
  return "";
}

// An empty kernel, prepared once; its stream and counters.
struct EmptyLaunch {
  EmptyLaunch() : counters(2), launch(reinterpret_cast<const void*>(&gpuprobe_launch_empty), "gpuprobe_launch_empty", config()) {
    GPUPROBE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    GPUPROBE_CUDA_CHECK(cudaMemset(counters.get(), 0, counters.bytes()));
    GPUPROBE_CUDA_CHECK(cudaDeviceSynchronize());
    ptr = counters.get();
    enqueue();  // module load
    sync();
  }
  ~EmptyLaunch() { static_cast<void>(cudaStreamDestroy(stream)); }
  static gpuprobe::LaunchConfig config() {
    gpuprobe::LaunchConfig c;
    c.grid = gpuprobe::Dim3{1, 1, 1};
    c.block = gpuprobe::Dim3{32, 1, 1};
    return c;
  }
  void enqueue() {
    void* args[] = {&ptr};
    launch.enqueue(args, stream);
  }
  void sync() { GPUPROBE_CUDA_CHECK(cudaStreamSynchronize(stream)); }

  gpuprobe::cuda::DeviceArray<uint32_t> counters;
  gpuprobe::cuda::PreparedLaunch launch;
  cudaStream_t stream = nullptr;
  uint32_t* ptr = nullptr;
};

// A graph of n empty kernels in a chain, captured from the prepared launch.
cudaGraph_t capture_chain(EmptyLaunch& e, int64_t n) {
  cudaGraph_t graph = nullptr;
  GPUPROBE_CUDA_CHECK(cudaStreamBeginCapture(e.stream, cudaStreamCaptureModeGlobal));
  for (int64_t k = 0; k < n; ++k) e.enqueue();
  GPUPROBE_CUDA_CHECK(cudaStreamEndCapture(e.stream, &graph));
  return graph;
}
#endif

// Skips with the reason when the build or the machine has no GPU; true when it can run.
bool have_gpu(benchmark::State& state) {
#if GPUPROBE_WITH_CUDA
  const std::string why = no_gpu_reason();
  if (why.empty()) return true;
  state.SkipWithError(why.c_str());
#else
  state.SkipWithError("gpuprobe was built without CUDA (-DGPUPROBE_WITH_CUDA=OFF): no launch to time");
#endif
  return false;
}

void BM_LaunchEnqueue(benchmark::State& state) {
  if (!have_gpu(state)) return;
#if GPUPROBE_WITH_CUDA
  EmptyLaunch e;
  int64_t queued = 0;
  for (auto _ : state) {
    e.enqueue();
    // Keep the queue short of its depth: a full queue makes the enqueue wait for the GPU.
    if (++queued % 512 == 0) {
      state.PauseTiming();
      e.sync();
      state.ResumeTiming();
    }
  }
  e.sync();
#endif
}

void BM_LaunchRoundTrip(benchmark::State& state) {
  if (!have_gpu(state)) return;
#if GPUPROBE_WITH_CUDA
  EmptyLaunch e;
  for (auto _ : state) {
    e.enqueue();
    e.sync();
  }
#endif
}

void BM_LaunchGraph(benchmark::State& state) {
  if (!have_gpu(state)) return;
#if GPUPROBE_WITH_CUDA
  EmptyLaunch e;
  cudaGraph_t graph = capture_chain(e, state.range(0));
  cudaGraphExec_t exec = nullptr;
  GPUPROBE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  GPUPROBE_CUDA_CHECK(cudaGraphUpload(exec, e.stream));
  int64_t queued = 0;
  for (auto _ : state) {
    GPUPROBE_CUDA_CHECK(cudaGraphLaunch(exec, e.stream));
    if (++queued % 128 == 0) {
      state.PauseTiming();
      e.sync();
      state.ResumeTiming();
    }
  }
  e.sync();
  static_cast<void>(cudaGraphExecDestroy(exec));
  static_cast<void>(cudaGraphDestroy(graph));
  state.counters["nodes"] = static_cast<double>(state.range(0));
#endif
}

void BM_LaunchGraphInstantiate(benchmark::State& state) {
  if (!have_gpu(state)) return;
#if GPUPROBE_WITH_CUDA
  EmptyLaunch e;
  cudaGraph_t graph = capture_chain(e, state.range(0));
  for (auto _ : state) {
    cudaGraphExec_t exec = nullptr;
    GPUPROBE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    state.PauseTiming();
    static_cast<void>(cudaGraphExecDestroy(exec));
    state.ResumeTiming();
  }
  static_cast<void>(cudaGraphDestroy(graph));
  state.counters["nodes"] = static_cast<double>(state.range(0));
#endif
}

}  // namespace

BENCHMARK(BM_LaunchEnqueue)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LaunchRoundTrip)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LaunchGraph)->RangeMultiplier(4)->Range(1, 256)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LaunchGraphInstantiate)->RangeMultiplier(4)->Range(1, 256)->Unit(benchmark::kMicrosecond);
