#include "harness/cuda/launch.hpp"

#include <string>
#include <vector>

#include "harness/cuda/wait_timeout.hpp"

namespace gpuprobe::cuda {

namespace {
// A pinned launch starts this many blocks per SM: each SM gets several chances to take one even
// when the block scheduler does not go round-robin.
constexpr uint32_t kPinBlocksPerSm = 4;

int current_device() {
  int device = 0;
  GPUPROBE_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}
}  // namespace

SmPinning::SmPinning(int sm) : sm_(sm), word_(1) {
  if (sm < 0) throw Error("SM pinning needs an SM number >= 0, got " + std::to_string(sm));
  const int count = sm_count_of_current_device();
  if (sm >= count)
    throw Error("--sm " + std::to_string(sm) + " does not exist: this GPU has SMs 0 to " +
                std::to_string(count - 1));
  reset();
}

void SmPinning::reset() { GPUPROBE_CUDA_CHECK(cudaMemset(word_.get(), 0, sizeof(uint32_t))); }

bool SmPinning::claimed() const {
  uint32_t host = 0;
  GPUPROBE_CUDA_CHECK(cudaMemcpy(&host, word_.get(), sizeof host, cudaMemcpyDeviceToHost));
  return host != 0;
}

int sm_count_of_current_device() {
  int count = 0;
  GPUPROBE_CUDA_CHECK(
      cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, current_device()));
  return count;
}

PreparedLaunch::PreparedLaunch(const void* kernel, const char* name, LaunchConfig config)
    : kernel_(kernel) {
  arm_wait_timeouts();  // every module's waits can report before any kernel runs
  const int device = current_device();

  cudaFuncAttributes attributes{};
  GPUPROBE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  // Shared memory beyond the default 48 KiB needs an opt-in per kernel; static and dynamic
  // shared memory together must stay within the device's per-block limit.
  int optin = 0;
  GPUPROBE_CUDA_CHECK(
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (config.dynamic_smem_bytes + attributes.sharedSizeBytes > static_cast<uint64_t>(optin))
    throw Error(std::string(name) + " needs " + std::to_string(config.dynamic_smem_bytes) +
                " bytes of dynamic shared memory beside " +
                std::to_string(attributes.sharedSizeBytes) + " static; the device allows " +
                std::to_string(optin) + " per block");
  GPUPROBE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(config.dynamic_smem_bytes)));
  if (config.l1_carveout_percent >= 0) {
    if (config.l1_carveout_percent > 100)
      throw Error(std::string(name) + ": L1 carve-out must be 0-100 percent");
    GPUPROBE_CUDA_CHECK(cudaFuncSetAttribute(kernel,
                                             cudaFuncAttributePreferredSharedMemoryCarveout,
                                             config.l1_carveout_percent));
  }

  if (config.cooperative) {
    // grid.sync() traps unless every block is resident at once: check before launching.
    int per_sm = 0;
    GPUPROBE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, kernel, static_cast<int>(config.block.count()),
        static_cast<size_t>(config.dynamic_smem_bytes)));
    const uint64_t resident = uint64_t(per_sm) * sm_count_of_current_device();
    if (config.grid.count() > resident)
      throw Error(std::string(name) + ": a cooperative grid of " +
                  std::to_string(config.grid.count()) + " blocks exceeds the " +
                  std::to_string(resident) + " that can be resident at once");
  }

  if (config.cluster.x != 0) {
    cudaLaunchAttribute a{};
    a.id = cudaLaunchAttributeClusterDimension;
    a.val.clusterDim.x = config.cluster.x;
    a.val.clusterDim.y = config.cluster.y;
    a.val.clusterDim.z = config.cluster.z;
    attrs_.push_back(a);
  }
  if (config.cooperative) {
    cudaLaunchAttribute a{};
    a.id = cudaLaunchAttributeCooperative;
    a.val.cooperative = 1;
    attrs_.push_back(a);
  }
  if (config.programmatic_dependent_launch) {
    cudaLaunchAttribute a{};
    a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    a.val.programmaticStreamSerializationAllowed = 1;
    attrs_.push_back(a);
  }

  record_.kernel = name;
  record_.config = config;
  record_.registers_per_thread = attributes.numRegs;
  record_.local_bytes_per_thread = attributes.localSizeBytes;
  record_.static_smem_bytes = attributes.sharedSizeBytes;
}

void PreparedLaunch::enqueue(void** args, cudaStream_t stream) const {
  const LaunchConfig& config = record_.config;
  cudaLaunchConfig_t launch_config{};
  launch_config.gridDim = dim3(config.grid.x, config.grid.y, config.grid.z);
  launch_config.blockDim = dim3(config.block.x, config.block.y, config.block.z);
  launch_config.dynamicSmemBytes = static_cast<size_t>(config.dynamic_smem_bytes);
  launch_config.stream = stream;
  // The runtime takes the attributes by pointer to non-const.
  launch_config.attrs = attrs_.empty() ? nullptr : const_cast<cudaLaunchAttribute*>(attrs_.data());
  launch_config.numAttrs = static_cast<unsigned>(attrs_.size());
  GPUPROBE_CUDA_CHECK(cudaLaunchKernelExC(&launch_config, kernel_, args));
}

LaunchRecord launch(const void* kernel, const char* name, LaunchConfig config, void** args,
                    SmPinning* pinning, cudaStream_t stream, bool synchronize) {
  if (config.pinned_sm != kAnySm) {
    if (pinning == nullptr || pinning->sm() != config.pinned_sm)
      throw Error(std::string("internal: pinned launch of ") + name + " without its SmPinning");
    if (config.cooperative)
      throw Error(std::string(name) + ": a cooperative launch cannot be pinned to one SM");
    config.grid = Dim3{kPinBlocksPerSm * static_cast<uint32_t>(sm_count_of_current_device()), 1, 1};
    pinning->reset();
  }
  const PreparedLaunch prepared(kernel, name, config);
  prepared.enqueue(args, stream);
  if (synchronize) {
    const cudaError_t status = cudaStreamSynchronize(stream);
    if (status != cudaSuccess)
      throw_cuda_error(status, (std::string("cudaStreamSynchronize after ") + name).c_str(),
                       __FILE__, __LINE__);
    if (pinning != nullptr && config.pinned_sm != kAnySm && !pinning->claimed())
      throw Error(std::string(name) + ": no block of a " + std::to_string(config.grid.x) +
                  "-block pinned launch ran on SM " + std::to_string(config.pinned_sm) +
                  " (is it disabled, or outside this MIG instance?)");
  }
  return prepared.record();
}

}  // namespace gpuprobe::cuda
