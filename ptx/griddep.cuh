// Programmatic dependent launch (CUDA C++ Programming Guide, "Programmatic Dependent Launch and
// Synchronization"): griddepcontrol, PTX ISA 7.8, sm_90+ (rejected on sm_80). The wrappers exist
// only on passes that have it (GPUPROBE_PTX_HAS_GRIDDEPCONTROL); a kernel that needs them traps on
// the others, and the host refuses a device below kGriddepcontrolMinSm before launching it.
#pragma once
#include "ptx/types.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GPUPROBE_PTX_HAS_GRIDDEPCONTROL 1
#else
#define GPUPROBE_PTX_HAS_GRIDDEPCONTROL 0
#endif

namespace gpuprobe::ptx {

// The first SM number with griddepcontrol (host and device).
constexpr int kGriddepcontrolMinSm = 90;

#if GPUPROBE_PTX_HAS_GRIDDEPCONTROL
// PTX: griddepcontrol.launch_dependents; PTX ISA 7.8; sm_90+. SASS: PREEXIT (tests/probes/launch/test_sass.py)
// Lets the dependent grid of a programmatic launch start before this grid ends.
__device__ __forceinline__ void griddepcontrol_launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
// PTX: griddepcontrol.wait; PTX ISA 7.8; sm_90+. SASS: ACQBULK (tests/probes/launch/test_sass.py)
// Waits until the grids this one depends on have completed and their memory is visible.
__device__ __forceinline__ void griddepcontrol_wait() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}
#endif

}  // namespace gpuprobe::ptx
