// The CUDA device backend: discovery, provenance (DeviceInfo) and the Device operations, built on
// the launchers of probes/memory/chase.cu. Every runtime call is checked (check.cuh).
#include <cuda_runtime.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "harness/arch.hpp"
#include "harness/chain.hpp"
#include "harness/cuda/check.cuh"
#include "harness/cuda/sm_clock.hpp"
#include "harness/cuda_device.hpp"
#include "harness/error.hpp"
#include "probes/memory/chase_kernels.hpp"

namespace gpuprobe {
namespace cuda {

namespace {

std::string short_path(const char* file) {
  const std::string path(file);
  for (const char* root : {"/harness/", "/probes/", "/ptx/"}) {
    const size_t at = path.rfind(root);
    if (at != std::string::npos) return path.substr(at + 1);
  }
  return path;
}

std::optional<ComputeCapability> current_cc() {
  int device = 0;
  ComputeCapability cc;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&cc.major, cudaDevAttrComputeCapabilityMajor, device) !=
          cudaSuccess ||
      cudaDeviceGetAttribute(&cc.minor, cudaDevAttrComputeCapabilityMinor, device) !=
          cudaSuccess) {
    return std::nullopt;
  }
  return cc;
}

}  // namespace

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaErrorNoKernelImageForDevice) {
    static_cast<void>(cudaGetLastError());  // clear it: the context stays usable
    if (const auto cc = current_cc()) throw DeviceUnavailable(no_code_message(*cc));
  }
  throw Error(short_path(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
              cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

}  // namespace cuda

namespace {

using cuda::DeviceArray;

constexpr const char* kUseSim = "use --device sim:h100";

std::string mib(uint64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string uuid_text(const cudaUUID_t& uuid) {
  static const int groups[] = {4, 2, 2, 2, 6};
  std::string text = "GPU";
  int byte = 0;
  for (int group : groups) {
    text += '-';
    for (int i = 0; i < group; ++i, ++byte) {
      char hex[3];
      std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[byte]));
      text += hex;
    }
  }
  return text;
}

// Turns a failed cudaGetDeviceCount into one line naming the cause.
[[noreturn]] void throw_discovery_error(cudaError_t status) {
  int driver_version = 0;
  int runtime_version = 0;
  static_cast<void>(cudaDriverGetVersion(&driver_version));  // 0 when no driver is loadable
  static_cast<void>(cudaRuntimeGetVersion(&runtime_version));
  static_cast<void>(cudaGetLastError());
  switch (status) {
    case cudaErrorInsufficientDriver:
      if (driver_version == 0) {
        throw DeviceUnavailable(
            std::string("no CUDA driver found (libcuda.so could not be loaded): run on a machine "
                        "with an NVIDIA driver, or ") + kUseSim);
      }
      throw DeviceUnavailable("the NVIDIA driver supports CUDA " +
                              cuda_version_text(driver_version) + ", older than this build's CUDA " +
                              cuda_version_text(runtime_version) + " runtime: update the driver, or " +
                              kUseSim);
    case cudaErrorNoDevice:
      throw DeviceUnavailable(
          std::string("no CUDA-capable GPU found (check nvidia-smi and CUDA_VISIBLE_DEVICES), or ") +
          kUseSim);
    case cudaErrorSystemDriverMismatch:
      throw DeviceUnavailable(
          std::string("the NVIDIA kernel module and libcuda.so have different versions (reboot or "
                      "reinstall the driver), or ") + kUseSim);
    case cudaErrorCompatNotSupportedOnDevice:
      throw DeviceUnavailable(
          std::string("the CUDA forward-compatibility driver does not support this GPU: use the "
                      "system driver, or ") + kUseSim);
    default:
      throw DeviceUnavailable(std::string("CUDA initialisation failed: cudaGetDeviceCount: ") +
                              cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
                              "), or " + kUseSim);
  }
}

int attribute(cudaDeviceAttr attr, int ordinal) {
  int value = 0;
  GPUPROBE_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, ordinal));
  return value;
}

// The chain must be what the backend assumes: aligned slots inside the span, a valid permutation
// index, a start slot. Checked once on the host so that a bad chain is an Error, not a GPU fault.
void validate_chain(const Chain& chain) {
  if (chain.next.size() != chain.offset_bytes.size()) {
    throw Error("chain has " + std::to_string(chain.next.size()) + " next entries but " +
                std::to_string(chain.offset_bytes.size()) + " offsets");
  }
  if (chain.slots() == 0) throw Error("chain has no slots");
  if (chain.start >= chain.slots()) {
    throw Error("chain start slot " + std::to_string(chain.start) + " is not below its " +
                std::to_string(chain.slots()) + " slots");
  }
  for (uint64_t i = 0; i < chain.slots(); ++i) {
    const uint64_t offset = chain.offset_bytes[i];
    if (offset % 8 != 0 || offset + 8 > chain.span_bytes) {
      throw Error("chain slot " + std::to_string(i) + " at byte offset " + std::to_string(offset) +
                  " is not an aligned 8-byte slot inside the " + std::to_string(chain.span_bytes) +
                  "-byte span");
    }
    if (chain.next[i] >= chain.slots()) {
      throw Error("chain slot " + std::to_string(i) + " points to slot " +
                  std::to_string(chain.next[i]) + ", beyond its " + std::to_string(chain.slots()) +
                  " slots");
    }
  }
}

struct UploadedSlots {
  DeviceArray<uint64_t> offset_bytes;
  DeviceArray<uint32_t> next;
};

UploadedSlots upload_slots(const Chain& chain) {
  UploadedSlots slots{DeviceArray<uint64_t>(chain.slots()), DeviceArray<uint32_t>(chain.slots())};
  GPUPROBE_CUDA_CHECK(cudaMemcpy(slots.offset_bytes.get(), chain.offset_bytes.data(),
                                 slots.offset_bytes.bytes(), cudaMemcpyHostToDevice));
  GPUPROBE_CUDA_CHECK(cudaMemcpy(slots.next.get(), chain.next.data(), slots.next.bytes(),
                                 cudaMemcpyHostToDevice));
  return slots;
}

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int ordinal) : ordinal_(ordinal) {
    select();
    info_.cc.major = attribute(cudaDevAttrComputeCapabilityMajor, ordinal);
    info_.cc.minor = attribute(cudaDevAttrComputeCapabilityMinor, ordinal);
    // Before anything runs on the device: does this build have code for it?
    if (auto missing = missing_code_message(built_cuda_targets(), info_.cc)) {
      throw DeviceUnavailable(*missing);
    }
    cuda::check_chase_kernels_loadable();

    cudaDeviceProp prop{};
    GPUPROBE_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
    info_.name = prop.name;
    info_.uuid = uuid_text(prop.uuid);
    info_.global_memory_bytes = prop.totalGlobalMem;
    info_.sm_count = attribute(cudaDevAttrMultiProcessorCount, ordinal);
    info_.rated_sm_clock_mhz = attribute(cudaDevAttrClockRate, ordinal) / 1000.0;
    info_.rated_mem_clock_mhz = attribute(cudaDevAttrMemoryClockRate, ordinal) / 1000.0;
    info_.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
    info_.l2_bytes = static_cast<uint64_t>(attribute(cudaDevAttrL2CacheSize, ordinal));
    info_.shared_memory_per_sm_bytes =
        static_cast<uint64_t>(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, ordinal));
    info_.shared_memory_per_block_optin_bytes =
        static_cast<uint64_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal));
    info_.ecc_enabled = attribute(cudaDevAttrEccEnabled, ordinal) != 0;
    GPUPROBE_CUDA_CHECK(cudaDriverGetVersion(&info_.driver_version));
    GPUPROBE_CUDA_CHECK(cudaRuntimeGetVersion(&info_.runtime_version));
    char bus_id[64] = {};
    GPUPROBE_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal));
    info_.pci_bus_id = bus_id;
    info_.simulated = false;
  }

  const DeviceInfo& info() const override { return info_; }

  uint64_t free_memory_bytes() override {
    select();
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    GPUPROBE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
  }

  double measure_sm_clock_mhz(uint64_t spin_ns) override {
    select();
    const cuda::ClockSample sample = cuda::launch_sm_clock(spin_ns);
    if (sample.ns == 0) throw Error("%globaltimer did not advance while measuring the SM clock");
    return static_cast<double>(sample.cycles) / static_cast<double>(sample.ns) * 1000.0;
  }

  ChaseResult chase(const ChaseRequest& request) override {
    if (request.chain == nullptr) throw Error("chase request without a chain");
    validate_chain(*request.chain);
    select();
    return request.space == MemorySpace::shared ? chase_shared(request) : chase_global(request);
  }

 private:
  void select() const { GPUPROBE_CUDA_CHECK(cudaSetDevice(ordinal_)); }

  ChaseResult chase_global(const ChaseRequest& request) {
    const Chain& chain = *request.chain;
    const uint64_t footprint_bytes =
        chain.span_bytes + chain.slots() * (sizeof(uint64_t) + sizeof(uint32_t));
    const uint64_t free_bytes = free_memory_bytes();
    if (footprint_bytes > free_bytes) {
      throw Error("footprint " + mib(footprint_bytes) + " exceeds free device memory " +
                  mib(free_bytes) + " on " + info_.name);
    }
    DeviceArray<unsigned char> span(chain.span_bytes);
    const UploadedSlots slots = upload_slots(chain);
    cuda::DeviceChain device_chain;
    device_chain.base_addr = reinterpret_cast<uint64_t>(span.get());
    device_chain.span_bytes = chain.span_bytes;
    device_chain.offset_bytes = slots.offset_bytes.get();
    device_chain.next = slots.next.get();
    device_chain.slots = chain.slots();
    cuda::launch_chain_scatter(device_chain);

    const cuda::ChaseLaunchResult bulk =
        cuda::launch_global_chase(request.op, device_chain, chain.offset_bytes[chain.start],
                                  request.warmup_hops, request.timed_hops);
    ChaseResult result;
    result.timed_cycles = bulk.timed_cycles;
    result.timed_ns = bulk.timed_ns;
    result.final_offset_bytes = bulk.final_offset_bytes;
    result.smid = bulk.smid;
    if (request.sampled_hops == 0) return result;

    // The sampled launch re-warms the caches over the last warmup_hops hops of the timed walk,
    // so its samples continue exactly where the timed hops stopped.
    const uint32_t resume_slot = walk(chain, chain.start, request.timed_hops);
    const cuda::ChaseLaunchResult sampled = cuda::launch_global_chase_sampled(
        request.op, device_chain, chain.offset_bytes[resume_slot], request.warmup_hops,
        request.sampled_hops, result.sample_cycles);
    if (sampled.checkpoint_offset_bytes != bulk.final_offset_bytes) {
      throw Error("sampled chase resumed at byte offset " +
                  std::to_string(sampled.checkpoint_offset_bytes) +
                  " but the timed chase ended at " + std::to_string(bulk.final_offset_bytes) +
                  ": the chain on the device differs from the host's");
    }
    result.final_offset_bytes = sampled.final_offset_bytes;
    return result;
  }

  ChaseResult chase_shared(const ChaseRequest& request) {
    const Chain& chain = *request.chain;
    const uint64_t smem_bytes = shared_chase_bytes(chain.span_bytes,
                                                              request.sampled_hops);
    if (smem_bytes > info_.shared_memory_per_block_optin_bytes) {
      throw Error("shared-memory chase of " + std::to_string(chain.span_bytes) + " bytes with " +
                  std::to_string(request.sampled_hops) + " samples needs " +
                  std::to_string(smem_bytes) + " bytes of shared memory, " + info_.name +
                  " allows " + std::to_string(info_.shared_memory_per_block_optin_bytes) +
                  " per block");
    }
    const UploadedSlots slots = upload_slots(chain);
    cuda::DeviceChain device_chain;
    device_chain.span_bytes = chain.span_bytes;
    device_chain.offset_bytes = slots.offset_bytes.get();
    device_chain.next = slots.next.get();
    device_chain.slots = chain.slots();
    ChaseResult result;
    const cuda::ChaseLaunchResult launched = cuda::launch_shared_chase(
        device_chain, chain.start, request.warmup_hops, request.timed_hops, request.sampled_hops,
        result.sample_cycles);
    result.timed_cycles = launched.timed_cycles;
    result.timed_ns = launched.timed_ns;
    result.final_offset_bytes = launched.final_offset_bytes;
    result.smid = launched.smid;
    return result;
  }

  int ordinal_;
  DeviceInfo info_;
};

}  // namespace

std::unique_ptr<Device> make_cuda_device(int ordinal) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) throw_discovery_error(status);
  if (count == 0) throw_discovery_error(cudaErrorNoDevice);
  if (ordinal < 0 || ordinal >= count) {
    throw DeviceUnavailable("CUDA device " + std::to_string(ordinal) + " does not exist: this " +
                            "machine has " + std::to_string(count) + " (cuda:0 to cuda:" +
                            std::to_string(count - 1) + ")");
  }
  return std::make_unique<CudaDevice>(ordinal);
}

}  // namespace gpuprobe
