// The host half of the bounded waits (harness/cuda/bounded_wait.cuh): the host-mapped record every
// kernel module points to, and reading it after a kernel trapped. Plain C++ against the CUDA
// runtime headers.
#pragma once
#include <cuda_runtime.h>

#include <optional>

#include "harness/cuda/bounded_wait.cuh"

namespace gpuprobe::cuda {

// Sets one kernel module's record pointer (cudaMemcpyToSymbol in that module's translation unit).
using WaitTimeoutSetter = auto (*)(WaitTimeout*) -> cudaError_t;

// Called before main by every .cu that includes bounded_wait.cuh; returns true.
bool register_wait_timeout_setter(WaitTimeoutSetter setter);

// Before the first launch on the current device (PreparedLaunch does it): the mapped record,
// allocated once per process, zeroed, and every registered module's pointer set to it. A module
// with no code for this device (an sm_100a unit on an sm_90 GPU) is passed over.
void arm_wait_timeouts();

// The record a trapped kernel wrote, or nullopt (none written, or never armed).
std::optional<WaitTimeout> written_wait_timeout();

}  // namespace gpuprobe::cuda
