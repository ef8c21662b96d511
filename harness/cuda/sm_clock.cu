// The SM clock measurement behind Device::measure_sm_clock_mhz (declared in sm_clock.hpp).
#include <cuda_runtime.h>

#include <cstdint>

#include "harness/cuda/check.cuh"
#include "harness/cuda/sm_clock.hpp"
#include "ptx/sreg.cuh"

namespace gpuprobe::cuda {
namespace clock_kernels {

struct ClockOut {
  uint64_t cycles;
  uint64_t ns;
  uint32_t smid;
};

// Starts on a %globaltimer tick edge and stops on the first tick at least spin_ns later, so the
// timer's quantum (32 ns or 1 us) does not bias the ratio.
__global__ void __launch_bounds__(1) sm_clock_kernel(uint64_t spin_ns, ClockOut* out) {
  const uint64_t before = ptx::get_sreg_globaltimer();
  uint64_t g0 = before;
  while (g0 == before) g0 = ptx::get_sreg_globaltimer();
  const uint64_t c0 = ptx::get_sreg_clock64();
  uint64_t c1 = c0;
  uint64_t g1 = g0;
  while (g1 - g0 < spin_ns) {
    c1 = ptx::get_sreg_clock64();
    g1 = ptx::get_sreg_globaltimer();
  }
  out->cycles = c1 - c0;
  out->ns = g1 - g0;
  out->smid = ptx::get_sreg_smid();
}

}  // namespace clock_kernels

using namespace clock_kernels;

ClockSample launch_sm_clock(uint64_t spin_ns) {
  DeviceArray<ClockOut> out(1);
  sm_clock_kernel<<<1, 1>>>(spin_ns, out.get());
  GPUPROBE_CUDA_CHECK_LAUNCH("sm_clock_kernel");
  ClockOut host{};
  GPUPROBE_CUDA_CHECK(cudaMemcpy(&host, out.get(), sizeof(ClockOut), cudaMemcpyDeviceToHost));
  return ClockSample{host.cycles, host.ns, host.smid};
}

}  // namespace gpuprobe::cuda
