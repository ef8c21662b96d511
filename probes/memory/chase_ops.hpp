// The memory family's operations: pointer chases over a chain the harness built. Each backend
// implements ChaseOps (chase_cuda.cpp, chase_sim.cpp); a probe gets it with ctx.ops<ChaseOps>().
// Prepare once, measure many: prepare() allocates, uploads and lays the chain out; each run() of
// the PreparedChase is one launch.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/chain.hpp"
#include "harness/device.hpp"
#include "harness/error.hpp"
#include "harness/launch_config.hpp"
#include "probes/memory/chase.cuh"
#include "ptx/load_variants.hpp"

namespace gpuprobe::probes {

enum class MemorySpace { global, shared };

struct ChaseSetup {
  MemorySpace space = MemorySpace::global;
  ptx::LoadVariant load = ptx::LoadVariant::plain;   // global only
  const Chain* chain = nullptr;                      // must outlive the PreparedChase
  uint32_t sampled_hops = 0;
  int pinned_sm = kAnySm;
};

// One launch: warmup_hops (at least kChaseHopsPerIteration) untimed, timed_hops (a multiple of
// kChaseHopsPerIteration) timed, then the setup's sampled hops and kEmptySamples empty samples.
// The walk continues across phases: it ends at walk(chain, start, warmup + timed + sampled).
struct ChaseRun {
  uint64_t warmup_hops = 0;
  uint64_t timed_hops = 0;
};

struct ChaseResult {
  uint64_t timed_cycles = 0;
  uint64_t timed_ns = 0;
  uint64_t timed_iterations = 0;        // as executed by the kernel
  std::vector<uint32_t> sample_cycles;  // one per sampled hop, instrumentation included
  std::vector<uint32_t> empty_sample_cycles;   // kEmptySamples instrumentation-only samples
  uint64_t final_offset_bytes = 0;
  LaunchRecord launch;                  // the configuration used and the SM that walked
};

class PreparedChase {
 public:
  virtual ~PreparedChase() = default;
  virtual ChaseResult run(const ChaseRun& run) = 0;
};

// The checks every backend makes before preparing a chase, in one place (chase_point.cpp): the
// shared memory the launch needs (returned) against the block's opt-in limit, the pinned SM
// against the SM count (check_sm), and a global chain (with its slot arrays) against free device
// memory. Throws one-line Errors.
uint64_t check_chase_fits(const ChaseSetup& setup, const DeviceInfo& info, uint64_t free_bytes);
// "--sm <sm> does not exist: <device> has SMs 0 to <N-1>" unless the device has SM `sm`.
void check_sm(int sm, const DeviceInfo& info);
// The run's shape (ChaseRun), checked by every backend's run(); throws a one-line Error.
void check_chase_run(const ChaseRun& run);

class ChaseOps : public FamilyOps {
 public:
  static constexpr const char* kFamily = "memory.chase";
  // Throws gpuprobe::Error (one line) for a chain that does not fit: device memory, the block's
  // shared memory, an SM that does not exist.
  virtual std::unique_ptr<PreparedChase> prepare(const ChaseSetup& setup) = 0;
};

}  // namespace gpuprobe::probes
