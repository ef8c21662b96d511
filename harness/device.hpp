// The device interface: every backend (CUDA, simulator) implements it, so the harness, the
// probes' host drivers, the analysis and the CLI never know which one they talk to.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/chain.hpp"

namespace gpuprobe {

// PTX ld.global cache operators (PTX ISA "Cache Operators"); nc = ld.global.nc (read-only path).
enum class CacheOp { ca, cg, cs, lu, cv, nc };
std::string_view to_string(CacheOp op);
std::optional<CacheOp> parse_cache_op(std::string_view text);

enum class MemorySpace { global, shared };

struct ComputeCapability {
  int major = 0;
  int minor = 0;
  int sm() const { return major * 10 + minor; }
};

// Provenance of the device a result came from. Everything a reader needs to judge a number.
struct DeviceInfo {
  std::string name;
  ComputeCapability cc;
  int sm_count = 0;
  double rated_sm_clock_mhz = 0;   // cudaDevAttrClockRate (max boost) or the preset's clock
  double rated_mem_clock_mhz = 0;
  int memory_bus_bits = 0;
  uint64_t l2_bytes = 0;
  uint64_t global_memory_bytes = 0;
  uint64_t shared_memory_per_sm_bytes = 0;
  uint64_t shared_memory_per_block_optin_bytes = 0;
  bool ecc_enabled = false;
  int driver_version = 0;   // CUDA encoding: 1000*major + 10*minor; 0 for the simulator
  int runtime_version = 0;
  std::string pci_bus_id;
  std::string uuid;
  bool simulated = false;
  std::string sim_preset;   // empty unless simulated
};

// One pointer chase: the harness built `chain`; the backend lays it out as 64-bit self-pointers
// (slot i holds the address of slot next[i]) and walks it with one thread.
//   warmup_hops untimed, then timed_hops bracketed by %clock64 and %globaltimer (mean latency),
//   then sampled_hops each timed on its own (distribution). Hops continue from where the last
//   phase stopped, so the final slot is walk(chain, start, warmup + timed + sampled).
struct ChaseRequest {
  MemorySpace space = MemorySpace::global;
  CacheOp op = CacheOp::ca;      // ignored for shared memory
  const Chain* chain = nullptr;
  uint64_t warmup_hops = 0;
  uint64_t timed_hops = 0;       // a multiple of kChaseHopsPerIteration
  uint32_t sampled_hops = 0;
};

struct ChaseResult {
  uint64_t timed_cycles = 0;          // %clock64 delta over the timed hops
  uint64_t timed_ns = 0;              // %globaltimer delta over the same region
  std::vector<uint32_t> sample_cycles;  // one per sampled hop (includes a small constant
                                        // instrumentation overhead, see docs/SCHEMA.md)
  uint64_t final_offset_bytes = 0;    // where the chase ended, relative to the chain's base
  uint32_t smid = 0;
};

// Hops per iteration of the timed loop in every chase kernel (the loop is unrolled by this
// much; SASS tests check exactly this many loads per loop iteration). ptxas puts two register
// moves at the head of each iteration on the dependent chain, so the unroll sets that bias per
// hop: 32 keeps it near a tenth of a cycle.
inline constexpr uint64_t kChaseHopsPerIteration = 32;

// The 8-byte shared-memory slot each sampled hop stores its loaded value to (the store makes the
// closing clock read wait for the load).
inline constexpr uint64_t kChaseScratchBytes = 8;

// Shared memory one block of a shared-memory chase needs: the chain (rounded up to 8 bytes), the
// scratch slot and 4 bytes per sample. Every backend refuses a chase whose need exceeds
// DeviceInfo::shared_memory_per_block_optin_bytes, and memory/chase_shared sizes its sweep by it.
inline constexpr uint64_t shared_chase_bytes(uint64_t span_bytes, uint32_t sampled_hops) {
  return (span_bytes + 7) / 8 * 8 + kChaseScratchBytes + uint64_t{sampled_hops} * 4;
}

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;
  virtual uint64_t free_memory_bytes() = 0;
  // SM clock measured on the device: %clock64 against %globaltimer over at least spin_ns.
  virtual double measure_sm_clock_mhz(uint64_t spin_ns) = 0;
  virtual ChaseResult chase(const ChaseRequest& request) = 0;
};

// "cuda", "cuda:N", "sim:<preset>". Throws gpuprobe::Error with a one-line, actionable message.
std::unique_ptr<Device> open_device(std::string_view spec);

}  // namespace gpuprobe
