// CUDA side of the timing layer: event timing of work queued behind a spin kernel (so that the
// launch latency of the work is hidden and the events bracket only the work) and an L2 flush
// between cold samples. Host arithmetic (calibration, N/2N difference): harness/timing.hpp.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>

namespace gpuprobe::cuda {

struct EventTimingOptions {
  uint64_t spin_ns = 20'000;   // the spin kernel in front of the work (0: none)
  bool flush_l2 = false;       // write a buffer of twice the L2 size before the work
};

// Enqueues [flush], spin, event, work(stream), event on a stream of its own; waits; returns the
// milliseconds between the two events. Every call is checked.
double time_with_events_ms(const std::function<void(cudaStream_t)>& work,
                           const EventTimingOptions& options);

// Evicts the L2 by writing a buffer of twice its size (allocated once per device).
void flush_l2(cudaStream_t stream);

// Launches the spin kernel (one block) on `stream` without waiting.
void enqueue_spin(cudaStream_t stream, uint64_t spin_ns);

}  // namespace gpuprobe::cuda
