// Owning handles of CUDA runtime objects for host code (probes/<family>/*_cuda.cpp, harness/cuda):
// a stream, a graph, an executable graph, and capture of what a function enqueues into a graph.
// Destruction never throws; creation and capture are checked (harness/cuda/check.hpp).
#pragma once
#include <cuda_runtime.h>

#include "harness/cuda/check.hpp"

namespace gpuprobe::cuda {

class Stream {
 public:
  Stream() { GPUPROBE_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { static_cast<void>(cudaStreamDestroy(s_)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  void sync() const { GPUPROBE_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

class Graph {
 public:
  Graph() = default;
  ~Graph() {
    if (g_ != nullptr) static_cast<void>(cudaGraphDestroy(g_));
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  cudaGraph_t* out() { return &g_; }
  cudaGraph_t get() const { return g_; }

 private:
  cudaGraph_t g_ = nullptr;
};

class GraphExec {
 public:
  GraphExec() = default;
  ~GraphExec() { reset(); }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  void reset() {
    if (e_ != nullptr) static_cast<void>(cudaGraphExecDestroy(e_));
    e_ = nullptr;
  }
  cudaGraphExec_t* out() { return &e_; }
  cudaGraphExec_t get() const { return e_; }

 private:
  cudaGraphExec_t e_ = nullptr;
};

// Captures what `enqueue(stream)` queues into a graph (global capture mode).
template <class F>
void capture(Graph& graph, cudaStream_t stream, F&& enqueue) {
  GPUPROBE_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  enqueue(stream);
  GPUPROBE_CUDA_CHECK(cudaStreamEndCapture(stream, graph.out()));
}

}  // namespace gpuprobe::cuda
