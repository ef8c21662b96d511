// The bandwidth family's operations on a CUDA GPU. Plain C++ (g++).
//
// StreamOps: the buffers are allocated and filled with the pattern once per setup (prepare); each
// run is one event-timed launch behind a spin (and an L2 flush when asked), then the self-check:
// the launch's checksum, and for writes and copies a count of the destination words without the
// pattern. The kernels are stream.cu and stream_shared.cu.
//
// LoadedLatencyOps: prepare uploads and lays out the chain (memory/chase's scatter kernel) and
// fills the stream buffer with the pattern (stream.cu's fill kernel); each run is one launch of
// gpuprobe_bw_loaded (loaded.cu), every block resident at once, the chaser pinned by its own claim
// word (the launch path's pinning would resize the grid), then the self-checks.
#include <cuda_runtime.h>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/cuda/check.hpp"
#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"
#include "harness/cuda/timing.hpp"
#include "harness/ops.hpp"
#include "probes/bandwidth/stream_ops.hpp"
#include "probes/common/units.hpp"

using gpuprobe::cuda::SmPin;
using gpuprobe::probes::bandwidth::LoadedOut;
using gpuprobe::probes::bandwidth::LoadedParams;
using gpuprobe::probes::bandwidth::StreamGeometry;
extern "C" {
void gpuprobe_bw_fill(uint32_t* buffer, uint64_t words);
void gpuprobe_chain_scatter(uint64_t base, const uint64_t* offset_bytes, const uint32_t* next,
                            uint64_t slots);
void gpuprobe_bw_loaded(LoadedParams p, SmPin pin, uint32_t* flag, LoadedOut* out,
                        uint32_t* block_smid, uint32_t* warp_groups);
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

namespace bw = bandwidth;
using cuda::DeviceArray;

// A grid-stride launch over `items`: blocks of 256 threads, 1 to 8192 of them.
LaunchConfig grid_for(uint64_t items) {
  return launch_config(static_cast<uint32_t>(std::clamp<uint64_t>((items + 255) / 256, 1, 8192)), 256);
}

// Writes the pattern into `buffer` (word i holds i).
void fill(DeviceArray<uint32_t>& buffer) {
  uint32_t* p = buffer.get();
  uint64_t words = buffer.size();
  void* args[] = {&p, &words};
  cuda::launch(reinterpret_cast<const void*>(&gpuprobe_bw_fill), "gpuprobe_bw_fill", grid_for(words), args);
}

// The kernel of each shape, by its name (check_stream_fits refuses the shapes without one).
#define GPUPROBE_BW_KERNEL(KIND, VB, IL)   \
  {"gpuprobe_bw_" #KIND "_v" #VB "_x" #IL, \
   reinterpret_cast<const void*>(&gpuprobe_bw_##KIND##_v##VB##_x##IL)},
#define GPUPROBE_BW_GLOBAL_KERNELS(VB, IL)                                       \
  GPUPROBE_BW_KERNEL(read, VB, IL) GPUPROBE_BW_KERNEL(read_l2, VB, IL)            \
  GPUPROBE_BW_KERNEL(write, VB, IL) GPUPROBE_BW_KERNEL(copy, VB, IL)
#define GPUPROBE_BW_SHARED_KERNEL(VB, IL) GPUPROBE_BW_KERNEL(shared, VB, IL)
const std::pair<std::string_view, const void*> kStreamKernels[] = {
    GPUPROBE_BW_SHAPES(GPUPROBE_BW_GLOBAL_KERNELS) GPUPROBE_BW_SHARED_SHAPES(GPUPROBE_BW_SHARED_KERNEL)};
#undef GPUPROBE_BW_SHARED_KERNEL
#undef GPUPROBE_BW_GLOBAL_KERNELS
#undef GPUPROBE_BW_KERNEL

const void* kernel_of(const StreamShape& s) {
  for (const auto& [name, fn] : kStreamKernels)
    if (name == stream_kernel_name(s)) return fn;
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
    // The source (a write's destination; shared: none) and a copy's destination, in words.
    const StreamKind kind = setup.shape.kind;
    const uint64_t words = stream_buffer_bytes(setup) / (kind == StreamKind::copy ? 8 : 4);
    src_ = DeviceArray<uint32_t>(words);
    if (kind == StreamKind::copy) dst_ = DeviceArray<uint32_t>(words);
    if (kind != StreamKind::write && kind != StreamKind::shared) fill(src_);
    config_ = launch_config(setup.blocks, setup.block_threads, smem_bytes_);
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

// A streamer gives up after this long plus kOverrunNsPerHop per chase hop (a stuck chaser, or no
// block on its SM, must not hang the GPU): far beyond any loaded latency measured.
constexpr double kOverrunBaseNs = 1e9;
constexpr double kOverrunNsPerHop = 20'000;

class CudaPreparedLoaded final : public PreparedLoaded {
 public:
  CudaPreparedLoaded(cuda::CudaDevice& gpu, const LoadedSetup& setup)
      : gpu_(gpu), setup_(setup), pinning_(setup.chaser_sm) {
    gpu_.select();
    int resident = 0;
    GPUPROBE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &resident, reinterpret_cast<const void*>(&gpuprobe_bw_loaded),
        static_cast<int>(setup.block_threads), 0));
    check_loaded_fits(setup, gpu_.info(), gpu_.free_memory_bytes(),
                      static_cast<uint32_t>(std::max(resident, 0)));
    blocks_ = loaded_grid_blocks(setup, gpu_.info());

    // The chain (checked above): offsets and links uploaded, then self-pointers scattered over
    // its span.
    const Chain& chain = *setup.chain;
    span_ = DeviceArray<unsigned char>(chain.span_bytes);
    DeviceArray<uint64_t> offsets(chain.slots());
    DeviceArray<uint32_t> next(chain.slots());
    GPUPROBE_CUDA_CHECK(cudaMemcpy(offsets.get(), chain.offset_bytes.data(), offsets.bytes(),
                                   cudaMemcpyHostToDevice));
    GPUPROBE_CUDA_CHECK(cudaMemcpy(next.get(), chain.next.data(), next.bytes(),
                                   cudaMemcpyHostToDevice));
    {
      uint64_t base = reinterpret_cast<uint64_t>(span_.get());
      const uint64_t* o = offsets.get();
      const uint32_t* n = next.get();
      uint64_t slots = chain.slots();
      void* args[] = {&base, &o, &n, &slots};
      cuda::launch(reinterpret_cast<const void*>(&gpuprobe_chain_scatter),
                   "gpuprobe_chain_scatter", grid_for(slots), args);
    }
    stream_ = DeviceArray<uint32_t>(loaded_stream_buffer_bytes(setup, gpu_.info()) / 4);
    fill(stream_);
    flag_ = DeviceArray<uint32_t>(bw::kLoadedFlagBytes / 4);
    out_ = DeviceArray<LoadedOut>(1);
    block_smid_ = DeviceArray<uint32_t>(blocks_);
    warp_groups_ = DeviceArray<uint32_t>(uint64_t(blocks_) * (setup.block_threads / 32));
  }

  LoadedResult run(const LoadedRun& run) override {
    gpu_.select();
    check_loaded_run(setup_, run);
    GPUPROBE_CUDA_CHECK(cudaMemset(flag_.get(), 0, flag_.bytes()));
    GPUPROBE_CUDA_CHECK(cudaMemset(out_.get(), 0, out_.bytes()));
    GPUPROBE_CUDA_CHECK(cudaMemset(block_smid_.get(), 0xff, block_smid_.bytes()));
    GPUPROBE_CUDA_CHECK(cudaMemset(warp_groups_.get(), 0, warp_groups_.bytes()));
    pinning_.reset();

    LoadedParams p{};
    p.chain_base = reinterpret_cast<uint64_t>(span_.get());
    p.start_offset_bytes = setup_.chain->offset_bytes[run.start_slot];
    p.warmup_hops = run.warmup_hops;
    p.timed_iterations = run.timed_hops / bw::kLoadedHopsPerIteration;
    p.zero = 0;
    p.stream_base = reinterpret_cast<uint64_t>(stream_.get());
    p.region_tiles = run.stream ? setup_.region_tiles : 0;
    p.throttle_cycles = run.throttle_cycles;
    const double bound_ns =
        kOverrunBaseNs + kOverrunNsPerHop * static_cast<double>(run.warmup_hops + run.timed_hops);
    p.max_stream_cycles = static_cast<uint64_t>(bound_ns * gpu_.info().rated_sm_clock_mhz * 1e-3);
    SmPin pin = pinning_.arg();
    uint32_t* flag = flag_.get();
    LoadedOut* out = out_.get();
    uint32_t* smid = block_smid_.get();
    uint32_t* groups = warp_groups_.get();
    void* args[] = {&p, &pin, &flag, &out, &smid, &groups};
    LaunchRecord record =
        cuda::launch(reinterpret_cast<const void*>(&gpuprobe_bw_loaded), "gpuprobe_bw_loaded",
                     launch_config(blocks_, setup_.block_threads), args);
    if (!pinning_.claimed())
      throw Error("gpuprobe_bw_loaded: no block of the " + std::to_string(blocks_) +
                  "-block launch ran on SM " + std::to_string(setup_.chaser_sm));

    LoadedOut host{};
    GPUPROBE_CUDA_CHECK(cudaMemcpy(&host, out_.get(), sizeof host, cudaMemcpyDeviceToHost));
    if (host.ran == 0) throw Error("gpuprobe_bw_loaded: the chaser never finished");
    std::vector<uint32_t> block_smid(blocks_);
    GPUPROBE_CUDA_CHECK(cudaMemcpy(block_smid.data(), block_smid_.get(), block_smid_.bytes(),
                                   cudaMemcpyDeviceToHost));
    std::vector<uint32_t> warp_groups(warp_groups_.size());
    GPUPROBE_CUDA_CHECK(cudaMemcpy(warp_groups.data(), warp_groups_.get(), warp_groups_.bytes(),
                                   cudaMemcpyDeviceToHost));

    LoadedResult r;
    r.timed_cycles = host.timed_cycles;
    r.timed_ns = host.timed_ns;
    r.timed_iterations = host.timed_iterations;
    r.final_offset_bytes = host.final_offset_bytes;
    r.timed_stream_bytes = host.timed_stream_bytes;
    for (uint32_t g : warp_groups) r.stream_bytes += uint64_t(g) * bw::kLoadedWarpGroupBytes;
    r.checksum = static_cast<uint32_t>(host.checksum);
    r.expected_checksum = loaded_checksum(setup_, warp_groups);
    std::set<uint32_t> sms;
    for (uint32_t s : block_smid)
      if (s != bw::kLoadedNotStreaming) {
        sms.insert(s);
        ++r.streaming_blocks;
      }
    r.streaming_sms = static_cast<uint32_t>(sms.size());
    r.overran_warps = host.overran;
    record.config.pinned_sm = setup_.chaser_sm;
    record.smid = static_cast<int>(host.smid);
    r.launch = record;
    check_loaded_result(setup_, run, r);
    return r;
  }

 private:
  cuda::CudaDevice& gpu_;
  LoadedSetup setup_;
  cuda::SmPinning pinning_;
  uint32_t blocks_ = 0;
  DeviceArray<unsigned char> span_;
  DeviceArray<uint32_t> stream_;
  DeviceArray<uint32_t> flag_;
  DeviceArray<LoadedOut> out_;
  DeviceArray<uint32_t> block_smid_;
  DeviceArray<uint32_t> warp_groups_;
};

const auto kStreamOps =
    register_prepare_ops<StreamOps, cuda::CudaDevice, CudaPreparedStream>("cuda", __FILE__);
const auto kLoadedOps =
    register_prepare_ops<LoadedLatencyOps, cuda::CudaDevice, CudaPreparedLoaded>("cuda", __FILE__);

}  // namespace
}  // namespace gpuprobe::probes
