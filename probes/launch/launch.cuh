// The contract between the launch-overhead kernels (launch.cu) and their host side
// (launch_probe.cpp, launch_cuda.cpp, launch_sim.cpp): the kernels' arguments and what they record.
// Plain C++ that nvcc, NVRTC and g++ all compile.
//
// Kernels, every one counting that it ran:
//   gpuprobe_launch_empty            one add to counter[0] by thread 0 of block 0; nothing else
//   gpuprobe_launch_stamp            as empty, and thread 0 of block 0 writes a LaunchStamp:
//                                    %globaltimer at its start and at its end (the kernel-to-kernel
//                                    gap, the nodes of a graph, a device-launched graph's child)
//   gpuprobe_launch_pdl_primary      stamp, griddepcontrol.launch_dependents, spin spin_ns, stamp
//   gpuprobe_launch_pdl_secondary    stamp, griddepcontrol.wait, stamp (sm_90+; traps before)
//   gpuprobe_launch_device_graph     launches a graph from the device (cudaGraphLaunch with
//                                    cudaStreamGraphFireAndForget) and stamps around the call;
//                                    must itself run inside a graph (CUDA C++ Programming
//                                    Guide, "Device Graph Launch")
//   gpuprobe_launch_scale            one SCALE pass b[i] = s * a[i] over n doubles (grid-stride)
//   gpuprobe_launch_scale_gsync      `iterations` SCALE passes in one cooperative launch, a
//                                    grid.sync() after each
//   gpuprobe_launch_scale_pt         the same with persistent threads and an atomic-flag barrier
// The SCALE kernels are gpu-benches gpu-small-kernels' (its results:
// tests/data/real/gpu-benches/gpu-small-kernels/): 16 bytes moved per element and pass.
#pragma once
#include "ptx/types.cuh"

namespace gpuprobe::probes::launch {

// What thread 0 of block 0 of a stamping kernel writes. ran: 1 once written (the device graph
// launcher: 1 + the cudaError_t of its cudaGraphLaunch).
struct LaunchStamp {
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t smid;
  uint32_t ran;
};

// Counter words (uint32_t) a launch adds to: kCounterLaunches once per kernel that ran,
// kCounterIterations once per SCALE pass (by block 0, after the pass).
constexpr uint32_t kCounterLaunches = 0;
constexpr uint32_t kCounterIterations = 1;
constexpr uint32_t kCounterWords = 2;

// The persistent-threads barrier: an arrival count and a generation, 32 words apart (own lines).
constexpr uint32_t kBarrierArrivals = 0;
constexpr uint32_t kBarrierGeneration = 32;
constexpr uint32_t kBarrierWords = 64;

struct ScaleArgs {
  const double* a;
  double* b;
  double scale;
  uint64_t n;             // doubles per pass
  uint32_t iterations;    // passes (gsync and pt; one for gpuprobe_launch_scale)
  uint32_t* counters;     // kCounterWords words
  uint32_t* barrier;      // kBarrierWords words, zeroed before a pt launch
};

// A PDL primary keeps running this long after letting its secondary start (ns): a secondary that
// starts before the primary's end shows the overlap. Far above a launch's few microseconds, so a
// slow first launch (after a context event, under MPS) still lands inside it.
constexpr uint64_t kPdlSpinNs = 30'000;

// Bytes one SCALE pass moves: one double read and one written per element.
constexpr uint64_t kScaleBytesPerElement = 16;

}  // namespace gpuprobe::probes::launch
