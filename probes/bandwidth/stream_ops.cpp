#include "probes/bandwidth/stream_ops.hpp"

#include <string>
#include <vector>

#include "harness/self_check.hpp"
#include "harness/error.hpp"
#include "probes/common/op_probe.hpp"

namespace gpuprobe::probes {

namespace bw = bandwidth;

namespace {

// In StreamKind's order.
constexpr const char* kKindNames[] = {"read", "read_l2", "write", "copy", "shared"};

bool shape_in_table(uint32_t vec_bytes, uint32_t ilp) {
#define GPUPROBE_BW_IN_TABLE(b, x) \
  if (vec_bytes == (b) && ilp == (x)) return true;
  GPUPROBE_BW_SHAPES(GPUPROBE_BW_IN_TABLE)
#undef GPUPROBE_BW_IN_TABLE
  return false;
}

std::string mib(uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

}  // namespace

const char* stream_kind_name(StreamKind kind) { return kKindNames[static_cast<int>(kind)]; }

std::string stream_kernel_name(const StreamShape& s) {
  return std::string("gpuprobe_bw_") + stream_kind_name(s.kind) + "_v" +
         std::to_string(s.vec_bytes) + "_x" + std::to_string(s.ilp);
}

uint64_t stream_buffer_bytes(const StreamSetup& s) {
  if (s.shape.kind == StreamKind::shared) return 0;
  const uint64_t bytes =
      s.geometry.footprint_tiles * bw::tile_bytes(s.block_threads, s.shape.vec_bytes, s.shape.ilp);
  return s.shape.kind == StreamKind::copy ? 2 * bytes : bytes;
}

StreamResult expected_stream_result(const StreamSetup& s, const StreamRun& run) {
  if (run.repeats == 0) throw Error(stream_kernel_name(s.shape) + ": a run needs at least one pass");
  StreamResult t;
  const StreamShape& shape = s.shape;
  if (shape.kind == StreamKind::shared) {
    t.bytes_read = uint64_t(s.blocks) * s.block_threads * shape.ilp * shape.vec_bytes * run.repeats;
    t.expected_checksum = bw::expected_shared_checksum(s.blocks, s.block_threads, s.stride_elems,
                                                       shape.vec_bytes, shape.ilp, run.repeats);
    return t;
  }
  bw::StreamGeometry g = s.geometry;
  g.passes = run.repeats;
  const uint64_t tile = bw::tile_bytes(s.block_threads, shape.vec_bytes, shape.ilp);
  const uint64_t moved = uint64_t(s.blocks) * g.tiles_per_block * tile * run.repeats;
  if (shape.kind != StreamKind::write) {
    t.bytes_read = moved;
    t.expected_checksum = bw::expected_stream_checksum(g, s.blocks, tile / 4);
  }
  if (shape.kind == StreamKind::write || shape.kind == StreamKind::copy) t.bytes_written = moved;
  return t;
}

uint64_t stream_bytes_in_flight_per_sm(const StreamSetup& s, uint32_t resident_blocks_per_sm) {
  return uint64_t(resident_blocks_per_sm) * s.block_threads * s.shape.ilp * s.shape.vec_bytes;
}

uint64_t check_stream_fits(const StreamSetup& s, const DeviceInfo& info, uint64_t free_bytes) {
  const StreamShape& shape = s.shape;
  const std::string kernel = stream_kernel_name(shape);
  if (!shape_in_table(shape.vec_bytes, shape.ilp))
    throw Error("no bandwidth kernel for " + std::to_string(shape.vec_bytes) + "-byte accesses x" +
                std::to_string(shape.ilp) + " (vector bytes 4, 8, 16, 32; ilp 1, 2, 4, 8)");
  if (shape.kind == StreamKind::shared && shape.vec_bytes > 16)
    throw Error("shared memory has no " + std::to_string(shape.vec_bytes) +
                "-byte load (vector bytes 4, 8 or 16)");
  if (shape.vec_bytes == 32 && info.cc.sm() < bw::kMinSmVec32)
    throw Error("32-byte global accesses need sm_100 or newer; " + info.name + " is sm_" +
                std::to_string(info.cc.sm()));
  check_blocks(kernel, s.block_threads, s.blocks, 1024);

  if (shape.kind == StreamKind::shared) {
    if (s.stride_elems == 0 || s.stride_elems > bw::kSharedMaxStrideElems)
      throw Error("shared stride " + std::to_string(s.stride_elems) + " is not between 1 and " +
                  std::to_string(bw::kSharedMaxStrideElems) + " elements");
    const uint64_t smem = bw::shared_stream_bytes(s.stride_elems, shape.vec_bytes, shape.ilp);
    if (smem > info.shared_memory_per_block_optin_bytes)
      throw Error(kernel + " needs " + std::to_string(smem) + " bytes of shared memory; " +
                  info.name + " allows " + std::to_string(info.shared_memory_per_block_optin_bytes));
    return smem;
  }

  const bw::StreamGeometry& g = s.geometry;
  if (g.footprint_tiles == 0 || g.tiles_per_block == 0)
    throw Error(kernel + ": the footprint and each block's window need at least one tile");
  // The kernels index tiles with 32-bit arithmetic (stream.cu for_each_tile).
  if (g.footprint_tiles >= (1ull << 32) ||
      uint64_t(s.blocks) * g.block_step_tiles >= (1ull << 32))
    throw Error(kernel + ": the footprint or the block steps exceed 2^32 tiles; use larger "
                "blocks, vectors or ilp");
  if (s.shape.kind == StreamKind::write || s.shape.kind == StreamKind::copy) {
    // The destination check reads every word back: each must be written exactly once.
    if (g.block_step_tiles != g.tiles_per_block ||
        uint64_t(s.blocks) * g.tiles_per_block != g.footprint_tiles)
      throw Error(kernel + ": a write or copy needs disjoint windows that cover the buffer "
                  "(blocks x tiles per block = footprint tiles, step = window)");
  }
  const uint64_t bytes = stream_buffer_bytes(s);
  // Leave a tenth of the free memory to the runtime and the L2 flush buffer.
  if (bytes > free_bytes - free_bytes / 10)
    throw Error(kernel + " needs " + mib(bytes) + " of device memory; " + info.name + " has " +
                mib(free_bytes) + " free (lower the footprint)");
  return 0;
}

void check_stream_result(const StreamSetup& s, const StreamResult& r) {
  const std::string kernel = stream_kernel_name(s.shape);
  const bool reads = s.shape.kind != StreamKind::write;
  if (reads && r.checksum != r.expected_checksum)
    throw SelfCheckFailed(kernel + " read checksum " + std::to_string(r.checksum) + ", expected " +
                          std::to_string(r.expected_checksum) +
                          " (a load was lost, repeated or read the wrong data)");
  if (r.mismatched_words != 0)
    throw SelfCheckFailed(kernel + " left " + std::to_string(r.mismatched_words) +
                          " destination words without the pattern");
}

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
  check_blocks("loaded latency", s.block_threads, loaded_grid_blocks(s, info), 1024);
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
    throw SelfCheckFailed("the loaded-latency chase ended at offset " + std::to_string(r.final_offset_bytes) +
                          ", expected " + std::to_string(chain.offset_bytes[end]) +
                          " (a hop was lost or repeated)");
  if (r.timed_iterations != run.timed_hops / bw::kLoadedHopsPerIteration)
    throw SelfCheckFailed("the loaded-latency chase ran " + std::to_string(r.timed_iterations) +
                          " timed iterations, expected " +
                          std::to_string(run.timed_hops / bw::kLoadedHopsPerIteration));
  if (r.checksum != r.expected_checksum)
    throw SelfCheckFailed("the streamers' checksum " + std::to_string(r.checksum) + ", expected " +
                          std::to_string(r.expected_checksum) +
                          " from their group counts (a load was lost, repeated or read the wrong data)");
  if (r.overran_warps != 0)
    throw Error("loaded latency: " + std::to_string(r.overran_warps) +
                " streaming warps stopped at their time bound before the chase ended (fewer "
                "hops, or a stuck chaser)");
  if (run.stream && r.streaming_sms == 0)
    throw Error("loaded latency: no block streamed (every block ran on the chaser's SM)");
}

}  // namespace gpuprobe::probes
