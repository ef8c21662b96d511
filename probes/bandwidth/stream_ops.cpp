#include "probes/bandwidth/stream_ops.hpp"

#include <string>

#include "harness/error.hpp"

namespace gpuprobe::probes {

namespace bw = bandwidth;

namespace {

struct KindName {
  StreamKind kind;
  const char* name;
};
constexpr KindName kKinds[] = {{StreamKind::read, "read"},
                               {StreamKind::read_l2, "read_l2"},
                               {StreamKind::write, "write"},
                               {StreamKind::copy, "copy"},
                               {StreamKind::shared, "shared"}};

bool shape_in_table(uint32_t vec_bytes, uint32_t ilp) {
#define GPUPROBE_BW_IN_TABLE(b, x) \
  if (vec_bytes == (b) && ilp == (x)) return true;
  GPUPROBE_BW_SHAPES(GPUPROBE_BW_IN_TABLE)
#undef GPUPROBE_BW_IN_TABLE
  return false;
}

std::string mib(uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

}  // namespace

const char* stream_kind_name(StreamKind kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k.name;
  return "?";
}

StreamKind parse_stream_kind(const std::string& name) {
  std::string known;
  for (const auto& k : kKinds) {
    if (name == k.name) return k.kind;
    known += known.empty() ? k.name : std::string(", ") + k.name;
  }
  throw Error("unknown stream kind '" + name + "' (known: " + known + ")");
}

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

StreamTraffic stream_traffic(const StreamSetup& s, const StreamRun& run) {
  StreamTraffic t;
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
  const int sm = info.cc.major * 10 + info.cc.minor;
  if (shape.vec_bytes == 32 && sm < bw::kMinSmVec32)
    throw Error("32-byte global accesses need sm_100 or newer; " + info.name + " is sm_" +
                std::to_string(sm));
  if (s.block_threads == 0 || s.block_threads % 32 != 0 || s.block_threads > 1024)
    throw Error("block size " + std::to_string(s.block_threads) +
                " is not a multiple of 32 between 32 and 1024");
  if (s.blocks == 0) throw Error(kernel + ": a launch needs at least one block");

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
    throw Error("self-check failed: " + kernel + " read checksum " + std::to_string(r.checksum) +
                ", expected " + std::to_string(r.expected_checksum) +
                " (a load was lost, repeated or read the wrong data)");
  if (r.mismatched_words != 0)
    throw Error("self-check failed: " + kernel + " left " + std::to_string(r.mismatched_words) +
                " destination words without the pattern");
}

}  // namespace gpuprobe::probes
