// The goodput family's operations (probes/goodput/goodput.cuh: the kernels): one timed sample of
// a reference kernel whose time the machine model predicts (analysis/goodput_model.hpp), and a
// cuBLAS GEMM where the library is there. Each backend (goodput_cuda.cpp, goodput_sim.cpp)
// implements GoodputOps (ctx.ops<GoodputOps>()); what it timed and what the kernels left (a
// GoodputSample) go to summarize_goodput_sample, so the self-check (triad values, the reduction's
// sum against its closed form, the tile against the float64 reference, the chain's counter) and
// the arithmetic exist once.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harness/device.hpp"
#include "harness/error.hpp"
#include "harness/launch_config.hpp"
#include "probes/goodput/goodput.cuh"

namespace gpuprobe::probes {

enum class GoodputKernel { triad, l2_reduction, tensor_tile_loop, graph_chain };
inline constexpr GoodputKernel kGoodputKernels[] = {GoodputKernel::triad, GoodputKernel::l2_reduction,
                                                    GoodputKernel::tensor_tile_loop, GoodputKernel::graph_chain};
inline constexpr const char* kGoodputKernelNames[] = {"triad", "l2_reduction", "tensor_tile_loop",
                                                      "graph_chain"};
inline const char* to_string(GoodputKernel k) { return kGoodputKernelNames[static_cast<int>(k)]; }
// Its kernel's name.
inline const char* goodput_kernel_name(GoodputKernel k) {
  static constexpr const char* kNames[] = {"gpuprobe_goodput_triad", "gpuprobe_goodput_reduce",
                                           "gpuprobe_goodput_tile", "gpuprobe_goodput_chain"};
  return kNames[static_cast<int>(k)];
}

// What to run. The backend sizes the grid (GoodputGrid) from the device.
struct GoodputRequest {
  GoodputKernel kernel = GoodputKernel::triad;
  uint64_t bytes = 0;        // triad: bytes per array; l2_reduction: the buffer (rounded down)
  uint32_t repeats = 1;      // l2_reduction: passes over the buffer; tensor_tile_loop: repeats
  uint32_t nodes = 1;        // graph_chain: kernel nodes in the graph
  uint32_t graphs = 1;       // graph_chain: graphs launched per sample
};

// The grid of each kernel: blocks of `threads` threads, `blocks_per_sm` on every SM.
struct GoodputGrid {
  uint32_t threads = 0;
  uint32_t blocks = 0;
};
constexpr uint32_t kGoodputStreamThreads = 256;
constexpr uint32_t kGoodputTriadBlocksPerSm = 8;
constexpr uint32_t kGoodputReduceBlocksPerSm = 4;
// `resident_tile_blocks`: blocks of the tile loop one SM holds (occupancy; the simulator: 2). The
// reduction takes fewer blocks per SM (down to 1) where one sweep of 4 would exceed its buffer (a
// small L2: a V100's quarter is 1.5 MiB).
GoodputGrid goodput_grid(const GoodputRequest& r, int sm_count, uint32_t resident_tile_blocks);

// What one sample's kernel(s) do: global bytes, shared bytes loaded into registers, FLOP, launches.
struct GoodputWork {
  uint64_t elements = 0;     // triad: floats per array; l2_reduction: words of the buffer
  uint64_t bytes_read = 0;   // global memory, per launch
  uint64_t bytes_written = 0;
  uint64_t shared_bytes = 0;
  uint64_t flops = 0;
  uint64_t iterations = 0;   // l2_reduction: grid iterations per pass
};
// The work of a request on this grid. Throws a one-line Error when it cannot be laid out (a
// triad or reduction buffer smaller than one sweep of the grid, tile repeats outside 1 to
// kTileMaxRepeats; the parameters' minimums refuse zero passes, nodes and graphs).
GoodputWork goodput_work(const GoodputRequest& r, const GoodputGrid& grid);

// The tile loop's inputs: kTilePairs A tiles (kTileM x kTileK) and B tiles (kTileK x kTileN), as
// f16 codes (A row-major; B transposed, kTileN x kTileK row-major, as goodput.cu loads it) and as
// values: integers in [-2, 2] from a fixed seed.
struct TileInputs {
  std::vector<uint16_t> a_codes, bt_codes;
  std::vector<std::vector<double>> a, b;   // per pair: a m x k, b k x n, row-major
};
const TileInputs& goodput_tile_inputs();
// D of pair `pair` after `repeats` repeats: repeats x A B in float64 (kTileM x kTileN, row-major).
std::vector<double> goodput_tile_reference(uint32_t pair, uint32_t repeats);

// What one backend call timed and what its kernels left.
struct GoodputSample {
  std::string kernel;            // for messages
  double elapsed_ns = 0;         // one launch (graph_chain: one graph)
  GoodputWork work;
  uint64_t mismatches = 0;       // triad: elements of a that are not b + s c
  uint32_t sum = 0;              // l2_reduction: the low 32 bits of the launch's sum
  std::vector<std::vector<double>> tiles;   // tensor_tile_loop: D of the first blocks (pair = block)
  uint64_t counted = 0;          // graph_chain: the nodes' counter after the timed graphs
  uint64_t expected_count = 0;
  LaunchRecord launch;
};

struct GoodputMeasurement {
  double ns = 0;
  GoodputWork work;
  std::string check;             // what the self-check compared, for the record
  LaunchRecord launch;
};
// Throws gpuprobe::Error "self-check failed: ..." naming the kernel.
GoodputMeasurement summarize_goodput_sample(const GoodputRequest& r, const GoodputSample& s);

// cuBLAS GEMM C = A B (m = n = k = size; f16 A and B, f32 C, f32 compute).
struct CublasGemm {
  uint32_t m = 0, n = 0, k = 0;
  double ns = 0;
  double flops = 0;              // 2 m n k
  std::string library;           // the file dlopen found
  std::string precision;         // "f16 inputs, f32 compute and output"
};

class GoodputOps : public FamilyOps {
 public:
  static constexpr const char* kFamily = "goodput";
  virtual GoodputSample run(const GoodputRequest& r) = 0;
  // Throws Skip without cuBLAS (and on the simulator).
  virtual CublasGemm cublas_gemm(uint32_t size) = 0;
};

}  // namespace gpuprobe::probes
