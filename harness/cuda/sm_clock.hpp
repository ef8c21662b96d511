// The SM clock measured on the device: %clock64 against %globaltimer (harness/cuda/sm_clock.cu).
#pragma once
#include <cstdint>

namespace gpuprobe::cuda {

struct ClockSample {
  uint64_t cycles = 0;
  uint64_t ns = 0;
  uint32_t smid = 0;
};

// One thread spins on %clock64 until %globaltimer has advanced by at least spin_ns, on the
// current device; every call is checked.
ClockSample launch_sm_clock(uint64_t spin_ns);

}  // namespace gpuprobe::cuda
