// The CUDA device backend: discovery, provenance (DeviceInfo), the SM clock, warm-up and driver
// telemetry. Plain C++ (g++): the harness's kernels are in harness/cuda/kernels.cu and launched
// through harness/cuda/launch.hpp. Family operations live with their family
// (probes/<family>/*_cuda.cpp) and find this device through harness/cuda/cuda_device.hpp.
#include "harness/cuda/cuda_device.hpp"

#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "harness/arch.hpp"
#include "harness/cuda/check.hpp"
#include "harness/cuda/kernels.cuh"
#include "harness/cuda/launch.hpp"
#include "harness/cuda/wait_timeout.hpp"
#include "harness/cuda_device.hpp"
#include "harness/error.hpp"
#include "harness/kernel_runner.hpp"
#include "harness/telemetry.hpp"
#include "harness/timing.hpp"
#include "harness/wait_timeout.hpp"

extern "C" void gpuprobe_sm_clock(uint64_t spin_ns, gpuprobe::cuda::ClockOut* out);
extern "C" void gpuprobe_spin(uint64_t spin_ns, uint32_t never, uint32_t* sink);

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

// The errors that corrupt the context: every later call of the process fails with them.
bool sticky(cudaError_t status) {
  switch (status) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

}  // namespace

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaErrorNoKernelImageForDevice) {
    static_cast<void>(cudaGetLastError());  // clear it: the context stays usable
    if (const auto cc = current_cc()) throw DeviceUnavailable(no_code_message(*cc));
  }
  const std::string message = short_path(file) + ":" + std::to_string(line) + ": " + call +
                              " failed: " + cudaGetErrorName(status) + " (" +
                              cudaGetErrorString(status) + ")";
  if (sticky(status)) {
    // A kernel that gave up a wait left its record in host memory before it trapped.
    if (const auto timeout = written_wait_timeout()) {
      const std::string reason = describe_wait_timeout(*timeout);
      std::string kernel = call;
      const auto after = kernel.find(" after ");
      kernel = after == std::string::npos ? "" : kernel.substr(after + 7);
      throw WaitTimedOut(message + "; " + reason + "; the CUDA context is lost", reason,
                         wait_timeout_evidence(*timeout, kernel));
    }
    throw DeviceLost(message + "; the CUDA context is lost (a sticky error)");
  }
  throw Error(message);
}

namespace {

constexpr const char* kUseSim = "use --device sim:h100";

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
                              cuda_version_text(runtime_version) +
                              " runtime: update the driver, or rebuild with a CUDA " +
                              cuda_version_text(driver_version) +
                              " toolkit (scripts/setup.sh with CUDACXX=/path/to/that/nvcc), or " +
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

}  // namespace

CudaDevice::CudaDevice(int ordinal) : ordinal_(ordinal) {
  select();
  info_.cc.major = attribute(cudaDevAttrComputeCapabilityMajor, ordinal);
  info_.cc.minor = attribute(cudaDevAttrComputeCapabilityMinor, ordinal);
  // Before anything runs on the device: does this build have code for it?
  if (auto missing = missing_code_message(built_cuda_targets(), info_.cc)) {
    throw DeviceUnavailable(*missing);
  }
  cudaFuncAttributes loadable{};  // a missing image becomes DeviceUnavailable (check.hpp)
  GPUPROBE_CUDA_CHECK(
      cudaFuncGetAttributes(&loadable, reinterpret_cast<const void*>(&gpuprobe_sm_clock)));

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
  info_.persisting_l2_max_bytes =
      static_cast<uint64_t>(attribute(cudaDevAttrMaxPersistingL2CacheSize, ordinal));
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

void CudaDevice::select() const { GPUPROBE_CUDA_CHECK(cudaSetDevice(ordinal_)); }

void CudaDevice::release_context() {
  kernels_.reset();
  select();
  GPUPROBE_CUDA_CHECK(cudaDeviceReset());
}

KernelRunner* CudaDevice::kernels() {
  if (!kernels_) kernels_ = make_kernel_runner(*this);
  return kernels_.get();
}

uint64_t CudaDevice::free_memory_bytes() {
  select();
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  GPUPROBE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

namespace {
cuda::ClockOut read_clock(uint64_t spin_ns) {
  DeviceArray<cuda::ClockOut> out(1);
  cuda::ClockOut* out_ptr = out.get();
  void* args[] = {&spin_ns, &out_ptr};
  LaunchConfig config;
  cuda::launch(reinterpret_cast<const void*>(&gpuprobe_sm_clock), "gpuprobe_sm_clock", config,
               args);
  cuda::ClockOut host{};
  GPUPROBE_CUDA_CHECK(cudaMemcpy(&host, out.get(), sizeof host, cudaMemcpyDeviceToHost));
  return host;
}
}  // namespace

double CudaDevice::measure_sm_clock_mhz(uint64_t spin_ns) {
  select();
  // The N / 2N difference: the kernel's fixed cost between its clock and timer reads cancels.
  const cuda::ClockOut one = read_clock(spin_ns);
  const cuda::ClockOut two = read_clock(2 * spin_ns);
  const double cycles = timing::per_unit_from_difference(double(one.cycles), double(two.cycles), 1);
  const double ns = timing::per_unit_from_difference(double(one.ns), double(two.ns), 1);
  if (!(ns > 0)) throw Error("%globaltimer did not advance while measuring the SM clock");
  return cycles / ns * 1000.0;
}

nlohmann::json CudaDevice::warm_up(double max_seconds) {
  select();
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const double before = measure_sm_clock_mhz(kClockSpinNs);
  // Several blocks per SM, each spinning 50 ms, until two readings agree within 1%.
  LaunchConfig config;
  config.grid = Dim3{static_cast<uint32_t>(4 * info_.sm_count), 1, 1};
  config.block = Dim3{256, 1, 1};
  uint64_t spin_ns = 50'000'000;
  uint32_t never = 0;
  uint32_t* sink = nullptr;
  void* args[] = {&spin_ns, &never, &sink};
  double last = before;
  double now = before;
  bool steady = false;
  int rounds = 0;
  while (std::chrono::duration<double>(Clock::now() - start).count() < max_seconds) {
    cuda::launch(reinterpret_cast<const void*>(&gpuprobe_spin), "gpuprobe_spin", config, args);
    now = measure_sm_clock_mhz(kClockSpinNs);
    ++rounds;
    if (rounds >= 2 && std::abs(now - last) <= 0.01 * last) {
      steady = true;
      break;
    }
    last = now;
  }
  return {{"seconds", std::chrono::duration<double>(Clock::now() - start).count()},
          {"busy_rounds", rounds},
          {"sm_clock_mhz_before", before},
          {"sm_clock_mhz_after", now},
          {"steady", steady}};
}

nlohmann::json CudaDevice::telemetry() {
  select();
  nlohmann::json t = to_json(read_telemetry(info_.pci_bus_id));
  size_t persisting = 0;
  GPUPROBE_CUDA_CHECK(cudaDeviceGetLimit(&persisting, cudaLimitPersistingL2CacheSize));
  // L2 set aside for persisting accesses; it holds nothing unless a launch sets an access-policy
  // window, which no probe does (9.8 MB by default on the H100s measured).
  t["persisting_l2_limit_bytes"] = persisting;
  return t;
}

}  // namespace cuda

std::unique_ptr<Device> make_cuda_device(int ordinal) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) cuda::throw_discovery_error(status);
  if (count == 0) cuda::throw_discovery_error(cudaErrorNoDevice);
  if (ordinal < 0 || ordinal >= count) {
    throw DeviceUnavailable("CUDA device " + std::to_string(ordinal) + " does not exist: this " +
                            "machine has " + std::to_string(count) + " (cuda:0 to cuda:" +
                            std::to_string(count - 1) + ")");
  }
  return std::make_unique<cuda::CudaDevice>(ordinal);
}

}  // namespace gpuprobe
