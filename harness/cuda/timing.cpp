#include "harness/cuda/timing.hpp"

#include <map>

#include "harness/cuda/check.hpp"
#include "harness/cuda/handles.hpp"
#include "harness/cuda/launch.hpp"

extern "C" void gpuprobe_spin(uint64_t spin_ns, uint32_t never, uint32_t* sink);

namespace gpuprobe::cuda {

namespace {
class Event {
 public:
  Event() { GPUPROBE_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~Event() { static_cast<void>(cudaEventDestroy(e_)); }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};
}  // namespace

void enqueue_spin(cudaStream_t stream, uint64_t spin_ns) {
  uint32_t never = 0;
  uint32_t* sink = nullptr;
  void* args[] = {&spin_ns, &never, &sink};
  LaunchConfig config;
  launch(reinterpret_cast<const void*>(&gpuprobe_spin), "gpuprobe_spin", config, args, nullptr,
         stream, /*synchronize=*/false);
}

void flush_l2(cudaStream_t stream) {
  static std::map<int, DeviceArray<unsigned char>> buffers;  // one per device, kept
  int device = 0;
  GPUPROBE_CUDA_CHECK(cudaGetDevice(&device));
  auto it = buffers.find(device);
  if (it == buffers.end()) {
    int l2_bytes = 0;
    GPUPROBE_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    it = buffers.emplace(device, DeviceArray<unsigned char>(2 * uint64_t(l2_bytes))).first;
  }
  GPUPROBE_CUDA_CHECK(cudaMemsetAsync(it->second.get(), 0x5a, it->second.bytes(), stream));
}

double time_with_events_ms(const std::function<void(cudaStream_t)>& work,
                           const EventTimingOptions& options) {
  Stream stream;
  Event start;
  Event stop;
  if (options.flush_l2) flush_l2(stream.get());
  if (options.spin_ns > 0) enqueue_spin(stream.get(), options.spin_ns);
  GPUPROBE_CUDA_CHECK(cudaEventRecord(start.get(), stream.get()));
  work(stream.get());
  GPUPROBE_CUDA_CHECK(cudaEventRecord(stop.get(), stream.get()));
  GPUPROBE_CUDA_CHECK(cudaEventSynchronize(stop.get()));
  float ms = 0;
  GPUPROBE_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

}  // namespace gpuprobe::cuda
