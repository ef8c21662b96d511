// The one CUDA launch path of every probe family: grid, block, dynamic shared memory, L1
// carve-out, cluster dimensions, cooperative launch, programmatic dependent launch and SM pinning,
// through cudaLaunchKernelExC. Every runtime call is checked, and the LaunchRecord says what the
// launch actually used (harness/launch_config.hpp). Kernels are extern "C": the family's *_cuda.cpp
// declares each one's host-side symbol, `extern "C" void gpuprobe_x(args...);`, and passes its
// address here.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "harness/cuda/check.hpp"
#include "harness/cuda/pin.cuh"
#include "harness/launch_config.hpp"

namespace gpuprobe::cuda {

// The claim word of a pinned launch, in device memory. Pass arg() to the kernel.
class SmPinning {
 public:
  explicit SmPinning(int sm);
  int sm() const { return sm_; }
  // The kernel argument of the pinned launch: {sm, claim word}.
  SmPin arg() const { return SmPin{sm_, word_.get()}; }
  void reset();          // zero the claim word (launch() does it before a pinned launch)
  bool claimed() const;  // after the launch: did a block run on the SM?

 private:
  int sm_;
  DeviceArray<uint32_t> word_;
};

// A launch checked once and enqueued many times: everything launch() does before
// cudaLaunchKernelExC (the kernel's attributes, the shared-memory opt-in and carve-out, the
// occupancy check of a cooperative grid, the launch attributes) happens in the constructor, so a
// loop that times the enqueue itself (probes/launch, bench/bench_launch.cpp) measures the
// runtime's cost, not the checks. A pinned launch goes through launch() (its claim word is
// reset per launch).
class PreparedLaunch {
 public:
  PreparedLaunch(const void* kernel, const char* name, LaunchConfig config);
  // One checked cudaLaunchKernelExC on `stream` (also inside a stream capture); no wait.
  void enqueue(void** args, cudaStream_t stream) const;
  const LaunchRecord& record() const { return record_; }

 private:
  const void* kernel_;
  std::vector<cudaLaunchAttribute> attrs_;
  LaunchRecord record_;
};

// Launches kernel(args) on `stream` and, when `synchronize`, waits and checks its completion.
// A pinned launch (config.pinned_sm >= 0) needs `pinning` for that SM: its grid becomes several
// blocks per SM and, after a synchronized launch, no claim is an Error naming the SM.
LaunchRecord launch(const void* kernel, const char* name, LaunchConfig config, void** args,
                    SmPinning* pinning = nullptr, cudaStream_t stream = nullptr,
                    bool synchronize = true);

// The device's SM count (cached per device ordinal).
int sm_count_of_current_device();

}  // namespace gpuprobe::cuda
