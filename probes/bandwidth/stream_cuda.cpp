// StreamOps on a CUDA GPU: the buffers are allocated and filled with the pattern once per setup
// (prepare); each run is one event-timed launch behind a spin (and an L2 flush when asked), then
// the self-check: the launch's checksum, and for writes and copies a count of the destination
// words without the pattern. Plain C++ (g++); the kernels are stream.cu and stream_shared.cu.
#include <cuda_runtime.h>

#include <string>

#include "harness/cuda/check.hpp"
#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"
#include "harness/cuda/timing.hpp"
#include "harness/ops.hpp"
#include "probes/bandwidth/stream_ops.hpp"

using gpuprobe::probes::bandwidth::StreamGeometry;
extern "C" {
void gpuprobe_bw_fill(uint32_t* buffer, uint64_t words);
void gpuprobe_bw_verify(const uint32_t* buffer, uint64_t words, unsigned long long* mismatches);
#define GPUPROBE_BW_DECLARE(bytes, ilp)                                                          \
  void gpuprobe_bw_read_v##bytes##_x##ilp(uint64_t base, StreamGeometry g,                       \
                                          unsigned long long* checksum);                         \
  void gpuprobe_bw_read_l2_v##bytes##_x##ilp(uint64_t base, StreamGeometry g,                    \
                                             unsigned long long* checksum);                      \
  void gpuprobe_bw_write_v##bytes##_x##ilp(uint64_t base, StreamGeometry g);                     \
  void gpuprobe_bw_copy_v##bytes##_x##ilp(uint64_t dst, uint64_t src, StreamGeometry g,          \
                                          unsigned long long* checksum);
GPUPROBE_BW_SHAPES(GPUPROBE_BW_DECLARE)
#undef GPUPROBE_BW_DECLARE
#define GPUPROBE_BW_DECLARE_SHARED(bytes, ilp)                                                   \
  void gpuprobe_bw_shared_v##bytes##_x##ilp(uint32_t smem_bytes, uint32_t stride_elems,          \
                                            uint32_t iterations, unsigned long long* checksum);
GPUPROBE_BW_SHARED_SHAPES(GPUPROBE_BW_DECLARE_SHARED)
#undef GPUPROBE_BW_DECLARE_SHARED
}

namespace gpuprobe::probes {
namespace {

using cuda::DeviceArray;

// The kernel of a shape (check_stream_fits has already refused shapes without one).
const void* kernel_of(const StreamShape& s) {
#define GPUPROBE_BW_CASE(VB, IL)                                                         \
  if (s.vec_bytes == (VB) && s.ilp == (IL)) {                                            \
    switch (s.kind) {                                                                        \
      case StreamKind::read: return reinterpret_cast<const void*>(&gpuprobe_bw_read_v##VB##_x##IL); \
      case StreamKind::read_l2:                                                              \
        return reinterpret_cast<const void*>(&gpuprobe_bw_read_l2_v##VB##_x##IL);        \
      case StreamKind::write: return reinterpret_cast<const void*>(&gpuprobe_bw_write_v##VB##_x##IL); \
      case StreamKind::copy: return reinterpret_cast<const void*>(&gpuprobe_bw_copy_v##VB##_x##IL); \
      case StreamKind::shared: break;                                                        \
    }                                                                                        \
  }
  GPUPROBE_BW_SHAPES(GPUPROBE_BW_CASE)
#undef GPUPROBE_BW_CASE
#define GPUPROBE_BW_SHARED_CASE(VB, IL)                                                  \
  if (s.kind == StreamKind::shared && s.vec_bytes == (VB) && s.ilp == (IL))              \
    return reinterpret_cast<const void*>(&gpuprobe_bw_shared_v##VB##_x##IL);
  GPUPROBE_BW_SHARED_SHAPES(GPUPROBE_BW_SHARED_CASE)
#undef GPUPROBE_BW_SHARED_CASE
  throw Error("no bandwidth kernel for " + stream_kernel_name(s));
}

class CudaPreparedStream final : public PreparedStream {
 public:
  CudaPreparedStream(cuda::CudaDevice& gpu, const StreamSetup& setup)
      : gpu_(gpu), setup_(setup), kernel_(kernel_of(setup.shape)),
        name_(stream_kernel_name(setup.shape)) {
    gpu_.select();
    smem_bytes_ = check_stream_fits(setup, gpu_.info(), gpu_.free_memory_bytes());
    checksum_ = DeviceArray<unsigned long long>(1);
    const uint64_t bytes = stream_buffer_bytes(setup);
    if (setup.shape.kind == StreamKind::copy) {
      src_ = DeviceArray<uint32_t>(bytes / 2 / 4);
      dst_ = DeviceArray<uint32_t>(bytes / 2 / 4);
      fill(src_);
    } else if (setup.shape.kind != StreamKind::shared) {
      src_ = DeviceArray<uint32_t>(bytes / 4);
      if (setup.shape.kind != StreamKind::write) fill(src_);
    }
    config_.grid = Dim3{setup.blocks, 1, 1};
    config_.block = Dim3{setup.block_threads, 1, 1};
    config_.dynamic_smem_bytes = smem_bytes_;
    int resident = 0;
    GPUPROBE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &resident, kernel_, static_cast<int>(setup.block_threads), smem_bytes_));
    const uint32_t per_sm_grid =
        (setup.blocks + gpu_.info().sm_count - 1) / static_cast<uint32_t>(gpu_.info().sm_count);
    resident_ = std::min<uint32_t>(static_cast<uint32_t>(resident), per_sm_grid);
  }

  StreamResult run(const StreamRun& run) override {
    gpu_.select();
    if (run.repeats == 0) throw Error(name_ + ": a run needs at least one pass");
    const StreamTraffic traffic = stream_traffic(setup_, run);
    const bool writes = setup_.shape.kind == StreamKind::write ||
                        setup_.shape.kind == StreamKind::copy;
    DeviceArray<uint32_t>& dst = setup_.shape.kind == StreamKind::copy ? dst_ : src_;
    // A destination that already held the pattern would prove nothing: clear it first.
    if (writes) GPUPROBE_CUDA_CHECK(cudaMemset(dst.get(), 0xff, dst.bytes()));
    GPUPROBE_CUDA_CHECK(cudaMemset(checksum_.get(), 0, sizeof(unsigned long long)));
    GPUPROBE_CUDA_CHECK(cudaDeviceSynchronize());

    StreamGeometry g = setup_.geometry;
    g.passes = run.repeats;
    uint64_t src = reinterpret_cast<uint64_t>(src_.get());
    uint64_t dst_addr = reinterpret_cast<uint64_t>(dst.get());
    unsigned long long* checksum = checksum_.get();
    uint32_t smem = static_cast<uint32_t>(smem_bytes_);
    uint32_t stride = setup_.stride_elems;
    uint32_t iterations = run.repeats;
    LaunchRecord record;
    cuda::EventTimingOptions timing;
    timing.flush_l2 = run.flush_l2;
    const double ms = cuda::time_with_events_ms(
        [&](cudaStream_t stream) {
          void* read_args[] = {&src, &g, &checksum};
          void* write_args[] = {&src, &g};
          void* copy_args[] = {&dst_addr, &src, &g, &checksum};
          void* shared_args[] = {&smem, &stride, &iterations, &checksum};
          void** args = read_args;
          switch (setup_.shape.kind) {
            case StreamKind::write: args = write_args; break;
            case StreamKind::copy: args = copy_args; break;
            case StreamKind::shared: args = shared_args; break;
            default: break;
          }
          record = cuda::launch(kernel_, name_.c_str(), config_, args, nullptr, stream, false);
        },
        timing);

    StreamResult result;
    result.elapsed_ns = ms * 1e6;
    result.bytes_read = traffic.bytes_read;
    result.bytes_written = traffic.bytes_written;
    result.expected_checksum = traffic.expected_checksum;
    unsigned long long sum = 0;
    GPUPROBE_CUDA_CHECK(cudaMemcpy(&sum, checksum_.get(), sizeof sum, cudaMemcpyDeviceToHost));
    result.checksum = static_cast<uint32_t>(sum);
    if (writes) result.mismatched_words = verify(dst);
    result.resident_blocks_per_sm = resident_;
    result.launch = record;
    check_stream_result(setup_, result);
    return result;
  }

 private:
  static LaunchConfig grid_for(uint64_t words) {
    LaunchConfig c;
    c.block = Dim3{256, 1, 1};
    const uint64_t blocks = (words + 255) / 256;
    c.grid = Dim3{static_cast<uint32_t>(blocks < 8192 ? blocks : 8192), 1, 1};
    return c;
  }

  void fill(DeviceArray<uint32_t>& buffer) {
    uint32_t* p = buffer.get();
    uint64_t words = buffer.size();
    void* args[] = {&p, &words};
    cuda::launch(reinterpret_cast<const void*>(&gpuprobe_bw_fill), "gpuprobe_bw_fill",
                 grid_for(words), args);
  }

  uint64_t verify(DeviceArray<uint32_t>& buffer) {
    GPUPROBE_CUDA_CHECK(cudaMemset(checksum_.get(), 0, sizeof(unsigned long long)));
    const uint32_t* p = buffer.get();
    uint64_t words = buffer.size();
    unsigned long long* bad = checksum_.get();
    void* args[] = {&p, &words, &bad};
    cuda::launch(reinterpret_cast<const void*>(&gpuprobe_bw_verify), "gpuprobe_bw_verify",
                 grid_for(words), args);
    unsigned long long mismatches = 0;
    GPUPROBE_CUDA_CHECK(
        cudaMemcpy(&mismatches, checksum_.get(), sizeof mismatches, cudaMemcpyDeviceToHost));
    return mismatches;
  }

  cuda::CudaDevice& gpu_;
  StreamSetup setup_;
  const void* kernel_;
  std::string name_;
  uint64_t smem_bytes_ = 0;
  LaunchConfig config_;
  uint32_t resident_ = 0;
  DeviceArray<uint32_t> src_;
  DeviceArray<uint32_t> dst_;
  DeviceArray<unsigned long long> checksum_;
};

const auto kRegistration = register_prepare_ops<StreamOps, cuda::CudaDevice, CudaPreparedStream>("cuda", __FILE__);

}  // namespace
}  // namespace gpuprobe::probes
