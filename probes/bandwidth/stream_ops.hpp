// The bandwidth family's operations: streaming launches over buffers the backend allocates and
// fills with the pattern (probes/bandwidth/stream.cuh). Each backend implements StreamOps
// (stream_cuda.cpp, stream_sim.cpp); a probe gets it with ctx.ops<StreamOps>(). Prepare once,
// measure many: prepare() allocates and fills; each run() of the PreparedStream is one timed
// launch followed by its self-check.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "harness/device.hpp"
#include "harness/launch_config.hpp"
#include "probes/bandwidth/stream.cuh"

namespace gpuprobe::probes {

// What a launch does, and through which level it is meant to go:
//   read     ld.global: each block its own window (L1 when it fits and passes > 1, else the
//            level that holds the footprint)
//   read_l2  ld.global.cg: windows shared across CTAs (the L2, near and far partitions)
//   write    st.global of the pattern; copy: ld.global src, st.global dst
//   shared   ld.shared with a stride (per-SM shared-memory bandwidth and bank conflicts)
enum class StreamKind { read, read_l2, write, copy, shared };

const char* stream_kind_name(StreamKind kind);
// Throws a one-line gpuprobe::Error listing the kinds when `name` is unknown.
StreamKind parse_stream_kind(const std::string& name);

struct StreamShape {
  StreamKind kind = StreamKind::read;
  uint32_t vec_bytes = 16;   // 4, 8, 16 or 32 (32: global kinds, sm_100+)
  uint32_t ilp = 4;          // 1, 2, 4 or 8 independent accesses per thread per iteration
};

// The kernel of a shape: gpuprobe_bw_<kind>_v<bytes>_x<ilp>.
std::string stream_kernel_name(const StreamShape& shape);

struct StreamSetup {
  StreamShape shape;
  uint32_t block_threads = 256;          // a multiple of 32, at most 1024
  uint32_t blocks = 0;                   // the grid
  bandwidth::StreamGeometry geometry{};  // global kinds (passes: the default for run())
  uint32_t stride_elems = 1;             // shared: 1 .. kSharedMaxStrideElems
};

struct StreamRun {
  uint32_t repeats = 1;    // passes over the windows (global) or iterations (shared)
  bool flush_l2 = false;   // evict the L2 before the launch (a cold sample)
};

struct StreamResult {
  double elapsed_ns = 0;            // the launch, event-timed behind a spin (simulated: modelled)
  uint64_t bytes_read = 0;          // by the launch
  uint64_t bytes_written = 0;
  uint32_t checksum = 0;            // low 32 bits of the launch's checksum (reads only)
  uint32_t expected_checksum = 0;   // the host's closed form
  uint64_t mismatched_words = 0;    // write/copy: destination words that do not hold the pattern
  uint32_t resident_blocks_per_sm = 0;  // the occupancy the launch ran at
  LaunchRecord launch;              // the configuration used
};

// Bytes of the buffer(s) a setup allocates (copy: source and destination).
uint64_t stream_buffer_bytes(const StreamSetup& setup);

// What a run reads and writes, and the checksum its reads must give (both from the geometry;
// reads of a shared run are shared-memory bytes).
struct StreamTraffic {
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  uint32_t expected_checksum = 0;
};
StreamTraffic stream_traffic(const StreamSetup& setup, const StreamRun& run);

// Bytes one SM keeps in flight: resident blocks x threads x ilp x vec_bytes (copy: the loads).
uint64_t stream_bytes_in_flight_per_sm(const StreamSetup& setup, uint32_t resident_blocks_per_sm);

// The checks every backend makes before preparing, in one place: the shape has a kernel (32-byte
// accesses need sm_100), the block size, the geometry (tiles below 2^32, a write or copy covers
// its buffer exactly once), the shared stride and memory, and the buffers against free device
// memory. Returns the dynamic shared memory of the launch. Throws one-line Errors.
uint64_t check_stream_fits(const StreamSetup& setup, const DeviceInfo& info, uint64_t free_bytes);

// The self-check of a run: throws gpuprobe::Error "self-check failed ..." when the checksum or
// the destination is wrong.
void check_stream_result(const StreamSetup& setup, const StreamResult& result);

class PreparedStream {
 public:
  virtual ~PreparedStream() = default;
  virtual StreamResult run(const StreamRun& run) = 0;
};

class StreamOps : public FamilyOps {
 public:
  static constexpr const char* kFamily = "bandwidth.stream";
  virtual std::unique_ptr<PreparedStream> prepare(const StreamSetup& setup) = 0;
};

}  // namespace gpuprobe::probes
