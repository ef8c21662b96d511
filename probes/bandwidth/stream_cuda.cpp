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

// The kernel of each shape (check_stream_fits refuses the shapes without one).
struct StreamKernel {
  StreamKind kind;
  uint32_t vec_bytes, ilp;
  const void* fn;
};
#define GPUPROBE_BW_KERNEL(KIND, VB, IL) \
  {StreamKind::KIND, VB, IL, reinterpret_cast<const void*>(&gpuprobe_bw_##KIND##_v##VB##_x##IL)},
#define GPUPROBE_BW_GLOBAL_KERNELS(VB, IL)                                       \
  GPUPROBE_BW_KERNEL(read, VB, IL) GPUPROBE_BW_KERNEL(read_l2, VB, IL)            \
  GPUPROBE_BW_KERNEL(write, VB, IL) GPUPROBE_BW_KERNEL(copy, VB, IL)
#define GPUPROBE_BW_SHARED_KERNEL(VB, IL) GPUPROBE_BW_KERNEL(shared, VB, IL)
const StreamKernel kStreamKernels[] = {GPUPROBE_BW_SHAPES(GPUPROBE_BW_GLOBAL_KERNELS)
                                           GPUPROBE_BW_SHARED_SHAPES(GPUPROBE_BW_SHARED_KERNEL)};
#undef GPUPROBE_BW_SHARED_KERNEL
#undef GPUPROBE_BW_GLOBAL_KERNELS
#undef GPUPROBE_BW_KERNEL

const void* kernel_of(const StreamShape& s) {
  for (const StreamKernel& k : kStreamKernels)
    if (k.kind == s.kind && k.vec_bytes == s.vec_bytes && k.ilp == s.ilp) return k.fn;
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
    StreamResult result = expected_stream_result(setup_, run);
    const StreamKind kind = setup_.shape.kind;
    const bool writes = kind == StreamKind::write || kind == StreamKind::copy;
    DeviceArray<uint32_t>& dst = kind == StreamKind::copy ? dst_ : src_;
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
    void* read_args[] = {&src, &g, &checksum};
    void* write_args[] = {&src, &g};
    void* copy_args[] = {&dst_addr, &src, &g, &checksum};
    void* shared_args[] = {&smem, &stride, &iterations, &checksum};
    void** args = kind == StreamKind::write    ? write_args
                  : kind == StreamKind::copy   ? copy_args
                  : kind == StreamKind::shared ? shared_args
                                               : read_args;
    cuda::EventTimingOptions timing;
    timing.flush_l2 = run.flush_l2;
    const double ms = cuda::time_with_events_ms(
        [&](cudaStream_t stream) {
          result.launch = cuda::launch(kernel_, name_.c_str(), config_, args, nullptr, stream, false);
        },
        timing);
    result.elapsed_ns = ms * 1e6;
    unsigned long long sum = 0;
    GPUPROBE_CUDA_CHECK(cudaMemcpy(&sum, checksum_.get(), sizeof sum, cudaMemcpyDeviceToHost));
    result.checksum = static_cast<uint32_t>(sum);
    if (writes) result.mismatched_words = verify(dst);
    result.resident_blocks_per_sm = resident_;
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

const auto kRegistration =
    register_prepare_ops<StreamOps, cuda::CudaDevice, CudaPreparedStream>("cuda", __FILE__);

}  // namespace
}  // namespace gpuprobe::probes
