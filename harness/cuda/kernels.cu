// The harness's own kernels (extern "C", launched from harness/cuda/*.cpp through launch.hpp):
// the SM clock reading, the all-SM warm-up and the spin that event-timed work queues behind.
// Device code only, NVRTC-safe.
#include "harness/cuda/kernels.cuh"
#include "ptx/sreg.cuh"
#include "ptx/types.cuh"

using gpuprobe::cuda::ClockOut;
namespace ptx = gpuprobe::ptx;

// One thread: starts on a %globaltimer tick edge and stops on the first tick at least spin_ns
// later, so the timer's quantum (32 ns or 1 us) does not bias the ratio.
extern "C" __global__ void __launch_bounds__(1)
    gpuprobe_sm_clock(uint64_t spin_ns, ClockOut* out) {
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

// Every thread of every block spins on %globaltimer for spin_ns: with a grid of several blocks
// per SM it keeps the whole GPU busy (the warm-up), and one block of it delays a stream (the spin
// in front of event-timed work). `sink` receives nothing unless `never` is set: it keeps the loop.
extern "C" __global__ void gpuprobe_spin(uint64_t spin_ns, uint32_t never, uint32_t* sink) {
  const uint64_t g0 = ptx::get_sreg_globaltimer();
  uint32_t n = 0;
  while (ptx::get_sreg_globaltimer() - g0 < spin_ns) ++n;
  if (never != 0) sink[0] = n;
}
