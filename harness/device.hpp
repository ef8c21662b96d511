// The device interface: what every probe family needs from a backend (CUDA, simulator): identity
// and provenance, memory, the SM clock, warm-up and driver telemetry. A family's own operations
// are not here: the family defines them (probes/<family>/*_ops.hpp) and looks them up with
// device.ops<TheirOps>() (harness/ops.hpp); a backend that lacks them makes the probe skip.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <typeindex>

#include <nlohmann/json.hpp>

namespace gpuprobe {

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
  uint64_t persisting_l2_max_bytes = 0;   // cudaDevAttrMaxPersistingL2CacheSize
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

// Family operations: a family derives its interface from FamilyOps and each backend implements
// it; harness/ops.hpp registers and finds the implementation for a device.
class FamilyOps {
 public:
  virtual ~FamilyOps() = default;
};

class KernelRunner;  // harness/kernel_runner.hpp

class Device {
 public:
  virtual ~Device() = default;
  // "cuda" or "sim": the key under which family operations are registered (harness/ops.hpp).
  virtual std::string_view backend() const = 0;
  virtual const DeviceInfo& info() const = 0;
  virtual uint64_t free_memory_bytes() = 0;
  // SM clock measured on the device: %clock64 against %globaltimer over at least spin_ns, as the
  // difference of a spin_ns and a 2*spin_ns region (cancels the reads' fixed cost).
  virtual double measure_sm_clock_mhz(uint64_t spin_ns) = 0;
  // Busy every SM until the SM clock is steady (a GPU idles at a few hundred MHz and ramps up
  // under load) or max_seconds pass. Returns what it did, for the run record.
  virtual nlohmann::json warm_up(double max_seconds) = 0;
  // The driver's view now: clocks, clock locks, throttle reasons, MIG, other processes
  // (harness/telemetry.hpp). {"available": false, "reason": ...} where there is none.
  virtual nlohmann::json telemetry() = 0;
  // The shortest timed region whose %globaltimer reading is precise to 0.1% (1 ms: before Hopper
  // the timer ticks in microseconds).
  virtual uint64_t min_timed_region_ns() const = 0;
  // Gives back what this process holds on the device (a GPU's primary context and its memory),
  // so that other processes can open it, in an exclusive compute mode too. Nothing of this device
  // may be used afterwards. The simulator holds nothing.
  virtual void release_context() {}
  // The device's memory and launch path for a family's kernels (harness/kernel_runner.hpp), or
  // nullptr where kernels do not run (the simulator).
  virtual KernelRunner* kernels() { return nullptr; }

  // The operations of family Ops on this device; throws OpsUnavailable naming the family and the
  // backend when no implementation is registered. Created once per device.
  template <class Ops>
  Ops& ops() {
    auto& slot = ops_[std::type_index(typeid(Ops))];
    if (!slot) slot = make_ops(std::type_index(typeid(Ops)), Ops::kFamily);
    return static_cast<Ops&>(*slot);
  }

 private:
  std::unique_ptr<FamilyOps> make_ops(std::type_index type, std::string_view family);
  std::map<std::type_index, std::unique_ptr<FamilyOps>> ops_;
};

// "cuda", "cuda:N", "sim:<preset>[,slowdown=F]". Throws gpuprobe::Error with a one-line, actionable message.
std::unique_ptr<Device> open_device(std::string_view spec);

}  // namespace gpuprobe
