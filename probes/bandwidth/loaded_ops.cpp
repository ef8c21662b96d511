#include "probes/bandwidth/loaded_ops.hpp"

#include <string>

#include "harness/error.hpp"

namespace gpuprobe::probes {

namespace bw = bandwidth;

namespace {
std::string mib(uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }
}  // namespace

uint32_t loaded_grid_blocks(const LoadedSetup& s, const DeviceInfo& info) {
  return s.blocks_per_sm * static_cast<uint32_t>(info.sm_count);
}

uint64_t loaded_stream_buffer_bytes(const LoadedSetup& s, const DeviceInfo& info) {
  return uint64_t(loaded_grid_blocks(s, info)) * s.region_tiles *
         bw::loaded_tile_bytes(s.block_threads);
}

uint32_t loaded_checksum(const LoadedSetup& s, const std::vector<uint32_t>& warp_groups) {
  const uint32_t warps = s.block_threads / 32;
  uint32_t total = 0;
  for (uint64_t w = 0; w < warp_groups.size(); ++w)
    if (warp_groups[w] != 0)
      total += bw::loaded_warp_checksum(w / warps, static_cast<uint32_t>(w % warps),
                                        s.block_threads, s.region_tiles, warp_groups[w]);
  return total;
}

void check_loaded_fits(const LoadedSetup& s, const DeviceInfo& info, uint64_t free_bytes,
                       uint32_t resident_blocks_per_sm) {
  if (s.chain == nullptr) throw Error("loaded latency: a setup without a chain");
  check_chain(*s.chain);
  if (s.chaser_sm < 0 || s.chaser_sm >= info.sm_count)
    throw Error("loaded latency: the chaser's SM " + std::to_string(s.chaser_sm) +
                " does not exist (" + info.name + " has " + std::to_string(info.sm_count) +
                " SMs)");
  if (info.sm_count < 2)
    throw Error("loaded latency: " + info.name + " has one SM: no other SM can stream");
  if (s.block_threads == 0 || s.block_threads % 32 != 0 || s.block_threads > 1024)
    throw Error("block size " + std::to_string(s.block_threads) +
                " is not a multiple of 32 between 32 and 1024");
  if (s.blocks_per_sm == 0 || s.blocks_per_sm > resident_blocks_per_sm)
    throw Error("loaded latency: " + std::to_string(s.blocks_per_sm) + " blocks of " +
                std::to_string(s.block_threads) + " threads per SM do not all fit at once (" +
                std::to_string(resident_blocks_per_sm) + " do); the streamers wait for the "
                "chaser, so every block must be resident");
  if (s.region_tiles == 0 || s.region_tiles >= (1ull << 32))
    throw Error("loaded latency: each block's stream region needs 1 to 2^32 - 1 tiles");
  const uint64_t bytes = s.chain->span_bytes + loaded_stream_buffer_bytes(s, info);
  // Leave a tenth of the free memory to the runtime.
  if (bytes > free_bytes - free_bytes / 10)
    throw Error("loaded latency needs " + mib(bytes) + " of device memory (chain and streams); " +
                info.name + " has " + mib(free_bytes) + " free (lower the footprints)");
}

void check_loaded_run(const LoadedSetup& s, const LoadedRun& run) {
  if (run.start_slot >= s.chain->slots())
    throw Error("loaded latency: start slot " + std::to_string(run.start_slot) +
                " is not a slot of the chain (" + std::to_string(s.chain->slots()) + " slots)");
  if (run.warmup_hops < bw::kLoadedHopsPerIteration || run.timed_hops == 0 ||
      run.timed_hops % bw::kLoadedHopsPerIteration != 0)
    throw Error("loaded latency: a run needs at least " +
                std::to_string(bw::kLoadedHopsPerIteration) +
                " warm-up hops and a positive multiple of " +
                std::to_string(bw::kLoadedHopsPerIteration) + " timed hops");
}

void check_loaded_result(const LoadedSetup& s, const LoadedRun& run, const LoadedResult& r) {
  const Chain& chain = *s.chain;
  const uint32_t end = walk(chain, run.start_slot, run.warmup_hops + run.timed_hops);
  if (r.final_offset_bytes != chain.offset_bytes[end])
    throw Error("self-check failed: the loaded-latency chase ended at offset " +
                std::to_string(r.final_offset_bytes) + ", expected " +
                std::to_string(chain.offset_bytes[end]) + " (a hop was lost or repeated)");
  if (r.timed_iterations != run.timed_hops / bw::kLoadedHopsPerIteration)
    throw Error("self-check failed: the loaded-latency chase ran " +
                std::to_string(r.timed_iterations) + " timed iterations, expected " +
                std::to_string(run.timed_hops / bw::kLoadedHopsPerIteration));
  if (r.checksum != r.expected_checksum)
    throw Error("self-check failed: the streamers' checksum " + std::to_string(r.checksum) +
                ", expected " + std::to_string(r.expected_checksum) +
                " from their group counts (a load was lost, repeated or read the wrong data)");
  if (r.overran_warps != 0)
    throw Error("loaded latency: " + std::to_string(r.overran_warps) +
                " streaming warps stopped at their time bound before the chase ended (fewer "
                "hops, or a stuck chaser)");
  if (run.stream && r.streaming_sms == 0)
    throw Error("loaded latency: no block streamed (every block ran on the chaser's SM)");
}

}  // namespace gpuprobe::probes
