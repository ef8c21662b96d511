// What the CUDA backends of the families that keep one (probes/<family>/*_cuda.cpp) share: device
// arrays filled and read back, a kernel's address, event-timed launches, a captured graph made
// executable. Plain C++ (g++) against the CUDA runtime; every call is checked.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "harness/cuda/check.hpp"
#include "harness/cuda/handles.hpp"
#include "harness/cuda/timing.hpp"

namespace gpuprobe::probes {

// Sets every byte of `a` to `byte` and waits: cudaMemset runs on the legacy default stream, which
// does not order with the non-blocking streams the launches use.
template <class T>
void fill(const cuda::DeviceArray<T>& a, int byte) {
  GPUPROBE_CUDA_CHECK(cudaMemset(a.get(), byte, a.bytes()));
  GPUPROBE_CUDA_CHECK(cudaDeviceSynchronize());
}

// The first `count` elements of `a` (all by default).
template <class T>
std::vector<T> to_host(const cuda::DeviceArray<T>& a, uint64_t count = UINT64_MAX) {
  std::vector<T> host(std::min(count, a.size()));
  GPUPROBE_CUDA_CHECK(cudaMemcpy(host.data(), a.get(), host.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

template <class F>
const void* kernel_ptr(F* f) {
  return reinterpret_cast<const void*>(f);
}

// GPU ns of `count` calls of enqueue(stream) queued behind a spin of spin_ns (events).
template <class F>
double events_ns(uint64_t spin_ns, uint32_t count, F&& enqueue) {
  return 1e6 * cuda::time_with_events_ms(
                   [&](cudaStream_t st) {
                     for (uint32_t k = 0; k < count; ++k) enqueue(st);
                   },
                   {.spin_ns = spin_ns});
}

// Enqueues one launch of `exec` on a stream.
inline auto graph_launch(const cuda::GraphExec& exec) {
  return [&exec](cudaStream_t st) { GPUPROBE_CUDA_CHECK(cudaGraphLaunch(exec.get(), st)); };
}

// `exec`: what enqueue(stream) queues, captured, instantiated and uploaded on `stream`.
template <class F>
void instantiate_captured(cuda::GraphExec& exec, cudaStream_t stream, F&& enqueue) {
  cuda::Graph graph;
  cuda::capture(graph, stream, enqueue);
  GPUPROBE_CUDA_CHECK(cudaGraphInstantiate(exec.out(), graph.get(), 0));
  GPUPROBE_CUDA_CHECK(cudaGraphUpload(exec.get(), stream));
}

}  // namespace gpuprobe::probes
