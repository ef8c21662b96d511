// How a kernel is launched, in terms every backend shares: the CUDA launch path
// (harness/cuda/launch.hpp) takes it, the simulator fills it in the same shape, and each measured
// point records the configuration actually used (docs/SCHEMA.md "launch").
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace gpuprobe {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
};

// Where a launch's work runs: any SM the scheduler picks, or one chosen SM (the kernel claims it:
// harness/cuda/pin.cuh).
inline constexpr int kAnySm = -1;

struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  uint64_t dynamic_smem_bytes = 0;
  // cudaFuncAttributePreferredSharedMemoryCarveout in percent of the unified L1/shared storage:
  // 0 asks for the largest L1 the launch's shared memory allows; -1 leaves the driver's choice.
  int l1_carveout_percent = -1;
  Dim3 cluster = {0, 0, 0};   // thread-block cluster (sm_90+); x = 0: no cluster attribute
  bool cooperative = false;   // cudaLaunchAttributeCooperative (grid-wide sync)
  bool programmatic_dependent_launch = false;   // cudaLaunchAttributeProgrammaticStreamSerialization
  int pinned_sm = kAnySm;     // the SM whose block does the work; others return at once
};

// What a launch used, as the result records it: the configuration (with the grid the pinning
// chose), the kernel's resources and the SM the work ran on.
struct LaunchRecord {
  std::string kernel;
  LaunchConfig config;
  int registers_per_thread = -1;   // -1: not known (simulator)
  uint64_t local_bytes_per_thread = 0;
  uint64_t static_smem_bytes = 0;
  int smid = -1;                   // the SM that ran the measured work (-1: not reported)
};

nlohmann::json to_json(const Dim3& d);
nlohmann::json to_json(const LaunchConfig& c);
nlohmann::json to_json(const LaunchRecord& r);

}  // namespace gpuprobe
