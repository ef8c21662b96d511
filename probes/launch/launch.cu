// launch/*: the launch-overhead kernels (probes/launch/launch.cuh: the contract). Each counts
// that it ran; the stamping ones read %globaltimer (ns, the same on every SM: PTX ISA "Special
// Registers"; CS2R SR_GLOBALTIMERLO: tests/probes/launch/test_sass.py) at their start and end.
// Device code only (NVRTC-safe); the host side is launch_cuda.cpp.
#include "harness/cuda/bounded_wait.cuh"
#include "probes/launch/launch.cuh"
#include "ptx/griddep.cuh"
#include "ptx/sreg.cuh"

#if !defined(__CUDACC_RTC__)
#include <cuda_runtime.h>  // the device runtime's cudaGraphLaunch (a driver builtin: no -rdc)
#endif
// cg::this_grid().sync(), as gpu-benches' gsync kernel uses it (CUDA C++ Programming Guide, "Grid
// Synchronization"). NVRTC without the toolkit's include directory has no cooperative_groups.h:
// there the gsync kernel traps (the NVRTC build is a compile check; the suite's kernels come from
// nvcc).
#if defined(__has_include)
#if __has_include(<cooperative_groups.h>)
#include <cooperative_groups.h>
#define GPUPROBE_LAUNCH_HAS_CG 1
#endif
#endif
#ifndef GPUPROBE_LAUNCH_HAS_CG
#define GPUPROBE_LAUNCH_HAS_CG 0
#endif

namespace gpuprobe::probes::launch::device {

__device__ __forceinline__ bool first_thread() {
  return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0 && blockIdx.x == 0 &&
         blockIdx.y == 0 && blockIdx.z == 0;
}

__device__ __forceinline__ void count(uint32_t* counters, uint32_t word) {
  atomicAdd(counters + word, 1u);
}

__device__ __forceinline__ void write_stamp(LaunchStamp* stamps, uint32_t index, uint64_t start,
                                            uint32_t ran) {
  LaunchStamp& s = stamps[index];
  s.start_ns = start;
  s.smid = ptx::get_sreg_smid();
  s.ran = ran;
  s.end_ns = ptx::get_sreg_globaltimer();
}

// One SCALE pass over the grid (grid-stride); the callers count it.
__device__ __forceinline__ void scale_pass(const ScaleArgs& a) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n; i += stride)
    a.b[i] = a.scale * a.a[i];
}

// Persistent threads' barrier (an atomic arrival count and a generation flag), with the
// release/acquire pattern grid.sync uses (see grid_sync in ptx/barrier.cuh) instead of a full
// fence: thread 0 of each block arrives with atom.add.release.gpu; the last one resets the count
// and bumps the generation (red.release.gpu); the others poll it with ld.acquire.gpu.
__device__ __forceinline__ void pt_barrier(uint32_t* barrier) {
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t* arrivals = barrier + kBarrierArrivals;
    uint32_t* generation = barrier + kBarrierGeneration;
    uint32_t seen, arrived;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(generation) : "memory");
    asm volatile("atom.add.release.gpu.global.u32 %0, [%1], 1;" : "=r"(arrived) : "l"(arrivals) : "memory");
    if (arrived == gridDim.x - 1) {
      asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" :: "l"(arrivals) : "memory");
      asm volatile("red.release.gpu.global.add.u32 [%0], 1;" :: "l"(generation) : "memory");
    } else {
      // Under the deadline of harness/cuda/bounded_wait.cuh (a grid that is not co-resident never
      // completes it).
      gpuprobe::cuda::wait_word_changed<true>(reinterpret_cast<uint64_t>(generation), seen, 0xffffffffu,
                                              gpuprobe::cuda::WaitKind::generation_flag, 0);
    }
  }
  __syncthreads();
}

extern "C" __global__ void gpuprobe_launch_empty(uint32_t* counters) {
  if (first_thread()) count(counters, kCounterLaunches);
}

extern "C" __global__ void gpuprobe_launch_stamp(LaunchStamp* stamps, uint32_t index,
                                                 uint32_t* counters) {
  if (!first_thread()) return;
  const uint64_t start = gpuprobe::ptx::get_sreg_globaltimer();
  count(counters, kCounterLaunches);
  write_stamp(stamps, index, start, 1);
}

extern "C" __global__ void gpuprobe_launch_pdl_primary(LaunchStamp* stamps, uint32_t index,
                                                       uint64_t spin_ns, uint32_t* counters) {
#if GPUPROBE_PTX_HAS_GRIDDEPCONTROL
  const uint64_t start = gpuprobe::ptx::get_sreg_globaltimer();
  gpuprobe::ptx::griddepcontrol_launch_dependents();
  if (!first_thread()) return;
  while (gpuprobe::ptx::get_sreg_globaltimer() - start < spin_ns) {
  }
  count(counters, kCounterLaunches);
  write_stamp(stamps, index, start, 1);
#else
  __trap();
#endif
}

extern "C" __global__ void gpuprobe_launch_pdl_secondary(LaunchStamp* stamps, uint32_t index,
                                                         uint32_t* counters) {
#if GPUPROBE_PTX_HAS_GRIDDEPCONTROL
  const uint64_t start = gpuprobe::ptx::get_sreg_globaltimer();
  gpuprobe::ptx::griddepcontrol_wait();
  if (!first_thread()) return;
  count(counters, kCounterLaunches);
  write_stamp(stamps, index, start, 1);
#else
  __trap();
#endif
}

// graph_exec: instantiated with cudaGraphInstantiateFlagDeviceLaunch and uploaded.
extern "C" __global__ void gpuprobe_launch_device_graph(uint64_t graph_exec, LaunchStamp* stamps,
                                                        uint32_t index, uint32_t* counters) {
#if !defined(__CUDACC_RTC__)
  if (!first_thread()) return;
  const uint64_t start = gpuprobe::ptx::get_sreg_globaltimer();
  const cudaError_t status = cudaGraphLaunch(reinterpret_cast<cudaGraphExec_t>(graph_exec),
                                             cudaStreamGraphFireAndForget);
  count(counters, kCounterLaunches);
  write_stamp(stamps, index, start, 1 + static_cast<uint32_t>(status));
#else
  __trap();
#endif
}

extern "C" __global__ void gpuprobe_launch_scale(ScaleArgs a) {
  scale_pass(a);
  if (first_thread()) {
    count(a.counters, kCounterLaunches);
    count(a.counters, kCounterIterations);
  }
}

extern "C" __global__ void gpuprobe_launch_scale_gsync(ScaleArgs a) {
#if GPUPROBE_LAUNCH_HAS_CG
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (uint32_t it = 0; it < a.iterations; ++it) {
    scale_pass(a);
    if (first_thread()) count(a.counters, kCounterIterations);
    grid.sync();
  }
  if (first_thread()) count(a.counters, kCounterLaunches);
#else
  __trap();
#endif
}

extern "C" __global__ void gpuprobe_launch_scale_pt(ScaleArgs a) {
  for (uint32_t it = 0; it < a.iterations; ++it) {
    scale_pass(a);
    if (first_thread()) count(a.counters, kCounterIterations);
    pt_barrier(a.barrier);
  }
  if (first_thread()) count(a.counters, kCounterLaunches);
}

}  // namespace gpuprobe::probes::launch::device
