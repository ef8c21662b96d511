// LoadedLatencyOps on a CUDA GPU: prepare uploads and lays out the chain (memory/chase's scatter
// kernel) and fills the stream buffer with the pattern (stream.cu's fill kernel); each run is one
// launch of gpuprobe_bw_loaded (loaded.cu), every block resident at once, the chaser pinned by
// its own claim word (the launch path's pinning would resize the grid), then the self-checks.
// Plain C++ (g++).
#include <cuda_runtime.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "harness/cuda/check.hpp"
#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"
#include "harness/ops.hpp"
#include "probes/bandwidth/stream_ops.hpp"

using gpuprobe::cuda::SmPin;
using gpuprobe::probes::bandwidth::LoadedOut;
using gpuprobe::probes::bandwidth::LoadedParams;
extern "C" {
void gpuprobe_bw_fill(uint32_t* buffer, uint64_t words);
void gpuprobe_chain_scatter(uint64_t base, const uint64_t* offset_bytes, const uint32_t* next,
                            uint64_t slots);
void gpuprobe_bw_loaded(LoadedParams p, SmPin pin, uint32_t* flag, LoadedOut* out,
                        uint32_t* block_smid, uint32_t* warp_groups);
}

namespace gpuprobe::probes {
namespace {

namespace bw = bandwidth;
using cuda::DeviceArray;

// A streamer gives up after this long plus kOverrunNsPerHop per chase hop (a stuck chaser, or no
// block on its SM, must not hang the GPU): far beyond any loaded latency measured.
constexpr double kOverrunBaseNs = 1e9;
constexpr double kOverrunNsPerHop = 20'000;

LaunchConfig grid_for(uint64_t items) {
  LaunchConfig c;
  c.block = Dim3{256, 1, 1};
  const uint64_t blocks = (items + 255) / 256;
  c.grid = Dim3{static_cast<uint32_t>(std::clamp<uint64_t>(blocks, 1, 8192)), 1, 1};
  return c;
}

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
    // The stream buffer: word i holds i.
    stream_ = DeviceArray<uint32_t>(loaded_stream_buffer_bytes(setup, gpu_.info()) / 4);
    {
      uint32_t* p = stream_.get();
      uint64_t words = stream_.size();
      void* args[] = {&p, &words};
      cuda::launch(reinterpret_cast<const void*>(&gpuprobe_bw_fill), "gpuprobe_bw_fill",
                   grid_for(words), args);
    }
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
    LaunchConfig config;
    config.grid = Dim3{blocks_, 1, 1};
    config.block = Dim3{setup_.block_threads, 1, 1};
    LaunchRecord record = cuda::launch(reinterpret_cast<const void*>(&gpuprobe_bw_loaded),
                                       "gpuprobe_bw_loaded", config, args);
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

const auto kRegistration =
    register_prepare_ops<LoadedLatencyOps, cuda::CudaDevice, CudaPreparedLoaded>("cuda", __FILE__);

}  // namespace
}  // namespace gpuprobe::probes
