// GoodputOps on a CUDA GPU. Buffers are allocated and filled once per size and kept across the
// repeats of a point; every launch goes through the harness's launch path (cuda::launch, or a
// cuda::PreparedLaunch for the graph chain's captured nodes) and every sample is one event-timed
// launch (one graph launch for the chain) behind a spin (cuda::time_with_events_ms), after an
// untimed warm-up that loads the module. cuBLAS is loaded at run time (dlopen libcublas.so.13, .12, then .so, as harness/telemetry.cpp
// loads NVML): no link-time dependency; where none loads, the GEMM point is skipped with the
// reason. Plain C++ (g++); the kernels are goodput.cu.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "harness/cuda/cuda_device.hpp"
#include "harness/cuda/launch.hpp"
#include "harness/ops.hpp"
#include "probes/common/cuda_host.hpp"
#include "probes/common/units.hpp"
#include "probes/goodput/goodput_ops.hpp"
#include "probes/tensor/tile_reference.hpp"

using gpuprobe::probes::goodput::ReduceArgs;
using gpuprobe::probes::goodput::TileArgs;
using gpuprobe::probes::goodput::TriadArgs;
extern "C" {
void gpuprobe_goodput_fill(float* b, float* c, uint64_t n);
void gpuprobe_goodput_triad_verify(const float* a, uint64_t n, float scalar, unsigned long long* bad);
void gpuprobe_goodput_fill_words(uint32_t* words, uint64_t n);
void gpuprobe_goodput_triad(TriadArgs t);
void gpuprobe_goodput_reduce(ReduceArgs r);
void gpuprobe_goodput_tile(TileArgs t);
void gpuprobe_goodput_chain(uint32_t* counter);
}

namespace gpuprobe::probes {
namespace {

namespace gp = goodput;
using cuda::DeviceArray;

// The spin in front of the chain's graphs lasts graphs x this (ns): longer than their enqueueing.
constexpr uint64_t kSpinPerGraphNs = 20'000;
// The smallest SM number with mma.sync m16n8k16 f16 (PTX ISA 7.0).
constexpr int kTileMinSm = 80;

// A helper kernel (fill, verify) over n elements: 256 threads, at most 8192 blocks, grid-stride.
LaunchConfig helper_grid(uint64_t n) {
  return launch_config(static_cast<uint32_t>(std::clamp<uint64_t>((n + 255) / 256, 1, 8192)), 256);
}

// cuBLAS, loaded once per process (never unloaded, as NVML). Types and enum values are
// cublas_api.h's and library_types.h's (CUDA 12/13): CUBLAS_OP_N 0, CUDA_R_16F 2, CUDA_R_32F 0,
// CUBLAS_COMPUTE_32F 68, CUBLAS_GEMM_DEFAULT -1.
struct Cublas {
  using Handle = void*;
  static constexpr int kOpN = 0, kR16F = 2, kR32F = 0, kCompute32F = 68, kGemmDefault = -1;
  std::string library;   // the file that loaded, or empty
  std::string failure;   // why none did
  int (*create)(Handle*) = nullptr;
  int (*destroy)(Handle) = nullptr;
  int (*set_stream)(Handle, cudaStream_t) = nullptr;
  int (*gemm_ex)(Handle, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                 const void*, void*, int, int, int, int) = nullptr;

  static const Cublas& get() {
    static const Cublas instance = load();
    return instance;
  }

 private:
  static Cublas load() {
    Cublas c;
    std::string tried;
    for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) {
      dlerror();
      void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (lib == nullptr) {
        const char* why = dlerror();
        tried += std::string(tried.empty() ? "" : "; ") + (why ? why : name);
        continue;
      }
      const auto bind = [lib](auto& fn, const char* symbol) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, symbol));
        return fn != nullptr;
      };
      if (bind(c.create, "cublasCreate_v2") && bind(c.destroy, "cublasDestroy_v2") &&
          bind(c.set_stream, "cublasSetStream_v2") && bind(c.gemm_ex, "cublasGemmEx")) {
        c.library = name;
        return c;
      }
      tried += std::string(tried.empty() ? "" : "; ") + name + " lacks cublasCreate_v2/cublasGemmEx";
    }
    c.failure = "no cuBLAS: " + tried;
    return c;
  }
};

void check_cublas(int status, const char* call) {
  if (status != 0) throw Error(std::string(call) + " failed: cublasStatus_t " + std::to_string(status));
}

// One launch untimed (the module loads), then `out` set to `byte` (its result must be the timed
// launch's), then the ns of one event-timed launch behind the timing layer's spin.
template <class T>
void launch_timed(GoodputSample& s, const void* kernel, const GoodputGrid& grid, void** args,
                  const DeviceArray<T>& out, int byte) {
  const LaunchConfig config = launch_config(grid.blocks, grid.threads);
  s.launch = cuda::launch(kernel, s.kernel.c_str(), config, args);
  fill(out, byte);
  const auto enqueue = [&](cudaStream_t st) {
    cuda::launch(kernel, s.kernel.c_str(), config, args, nullptr, st, false);
  };
  s.elapsed_ns = 1e6 * cuda::time_with_events_ms(enqueue, {});
}

class CudaGoodputOps final : public GoodputOps {
 public:
  explicit CudaGoodputOps(cuda::CudaDevice& gpu) : gpu_(gpu) {}
  ~CudaGoodputOps() override {
    if (cublas_handle_ != nullptr) static_cast<void>(Cublas::get().destroy(cublas_handle_));
  }
  CudaGoodputOps(const CudaGoodputOps&) = delete;
  CudaGoodputOps& operator=(const CudaGoodputOps&) = delete;

  GoodputSample run(const GoodputRequest& r) override {
    gpu_.select();
    const bool tile = r.kernel == GoodputKernel::tensor_tile_loop;
    const GoodputGrid grid = goodput_grid(r, gpu_.info().sm_count, tile ? tile_blocks_per_sm() : 0);
    GoodputSample s;
    s.kernel = goodput_kernel_name(r.kernel);
    s.work = goodput_work(r, grid);
    switch (r.kernel) {
      case GoodputKernel::triad: triad(grid, s); break;
      case GoodputKernel::l2_reduction: reduce(r, grid, s); break;
      case GoodputKernel::tensor_tile_loop: tile_loop(r, grid, s); break;
      case GoodputKernel::graph_chain: chain(r, grid, s); break;
    }
    return s;
  }

  CublasGemm cublas_gemm(uint32_t size) override {
    gpu_.select();
    const Cublas& lib = Cublas::get();
    if (lib.library.empty()) throw Skip(lib.failure);
    const uint64_t elements = uint64_t(size) * size;
    if (gemm_size_ != size) {
      reallocate("the cuBLAS GEMM's matrices", elements * (2 + 2 + 4), elements, gemm_a_, gemm_b_, gemm_c_);
      // Operands of modest size, never all zeros (tensor-core power depends on the data): a
      // pattern of 64 Ki f16 values in [-1, 1] repeated.
      std::vector<uint16_t> pattern(1u << 16);
      for (uint32_t i = 0; i < pattern.size(); ++i)
        pattern[i] = static_cast<uint16_t>(
            tensor::tile_encode(tensor::TileElem::f16, (double((i * 2654435761u) >> 24) - 128.0) / 128.0));
      for (uint64_t at = 0; at < elements; at += pattern.size()) {
        const uint64_t n = std::min<uint64_t>(pattern.size(), elements - at);
        GPUPROBE_CUDA_CHECK(cudaMemcpy(gemm_a_.get() + at, pattern.data(), n * 2, cudaMemcpyHostToDevice));
        GPUPROBE_CUDA_CHECK(cudaMemcpy(gemm_b_.get() + at, pattern.data(), n * 2, cudaMemcpyHostToDevice));
      }
      if (cublas_handle_ == nullptr) check_cublas(lib.create(&cublas_handle_), "cublasCreate_v2");
      gemm_size_ = size;
      gemm(lib, size, nullptr);  // warm-up: the library picks and loads its kernel
      GPUPROBE_CUDA_CHECK(cudaDeviceSynchronize());
    }
    CublasGemm g;
    g.m = g.n = g.k = size;
    g.flops = 2.0 * size * size * double(size);
    g.library = lib.library;
    g.precision = "f16 inputs, f32 compute and output (cublasGemmEx, CUBLAS_COMPUTE_32F)";
    g.ns = 1e6 * cuda::time_with_events_ms([&](cudaStream_t st) { gemm(lib, size, st); }, {});
    return g;
  }

 private:
  // Frees `arrays`, then gives each n elements where the GPU has room for `bytes` (else Skip).
  template <class... T>
  void reallocate(const std::string& what, uint64_t bytes, uint64_t n, DeviceArray<T>&... arrays) {
    ((arrays = {}), ...);
    const uint64_t free = gpu_.free_memory_bytes();
    if (bytes > free / 10 * 9)
      throw Skip(what + " need " + std::to_string(bytes >> 20) + " MiB, the GPU has " +
                               std::to_string(free >> 20) + " MiB free");
    ((arrays = DeviceArray<T>(n)), ...);
  }

  void gemm(const Cublas& lib, uint32_t size, cudaStream_t stream) {
    const float alpha = 1, beta = 0;
    const int n = static_cast<int>(size);
    check_cublas(lib.set_stream(cublas_handle_, stream), "cublasSetStream_v2");
    check_cublas(lib.gemm_ex(cublas_handle_, Cublas::kOpN, Cublas::kOpN, n, n, n, &alpha, gemm_a_.get(), Cublas::kR16F,
                             n, gemm_b_.get(), Cublas::kR16F, n, &beta, gemm_c_.get(), Cublas::kR32F, n,
                             Cublas::kCompute32F, Cublas::kGemmDefault),
                 "cublasGemmEx");
  }

  // One 64-bit word: the triad check's mismatch count, the reduction's sum.
  DeviceArray<unsigned long long>& word() {
    if (word_.size() == 0) word_ = DeviceArray<unsigned long long>(1);
    return word_;
  }

  // Tile-loop blocks one SM holds (occupancy); Skip below sm_80.
  uint32_t tile_blocks_per_sm() {
    const DeviceInfo& info = gpu_.info();
    if (info.cc.sm() < kTileMinSm)
      throw Skip("the tile loop's mma.sync m16n8k16 f16 needs sm_80+; " + info.name + " is sm_" +
                               std::to_string(info.cc.sm()));
    int per_sm = 0;
    const void* kernel = kernel_ptr(&gpuprobe_goodput_tile);
    GPUPROBE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, gp::kTileThreads, 0));
    return static_cast<uint32_t>(std::max(per_sm, 1));
  }

  void triad(const GoodputGrid& grid, GoodputSample& s) {
    const uint64_t n = s.work.elements;
    if (triad_a_.size() != n) {
      reallocate("the triad's three arrays", 3 * n * 4, n, triad_a_, triad_b_, triad_c_);
      float* b = triad_b_.get();
      float* c = triad_c_.get();
      uint64_t count = n;
      void* args[] = {&b, &c, &count};
      cuda::launch(kernel_ptr(&gpuprobe_goodput_fill), "gpuprobe_goodput_fill", helper_grid(n), args);
    }
    TriadArgs t{triad_a_.get(), triad_b_.get(), triad_c_.get(), gp::kTriadScalar, n / gp::kTriadVecFloats};
    void* args[] = {&t};
    // A destination that already held the result would prove nothing.
    launch_timed(s, kernel_ptr(&gpuprobe_goodput_triad), grid, args, triad_a_, 0xff);
    fill(word(), 0);
    const float* a = triad_a_.get();
    float scalar = gp::kTriadScalar;
    unsigned long long* bad = word_.get();
    uint64_t count = n;
    void* vargs[] = {&a, &count, &scalar, &bad};
    cuda::launch(kernel_ptr(&gpuprobe_goodput_triad_verify), "gpuprobe_goodput_triad_verify", helper_grid(n), vargs);
    s.mismatches = to_host(word_, 1)[0];
  }

  void reduce(const GoodputRequest& r, const GoodputGrid& grid, GoodputSample& s) {
    const uint64_t n = s.work.elements;
    if (words_.size() != n) {
      reallocate("the reduction's buffer", n * 4, n, words_);
      uint32_t* w = words_.get();
      uint64_t count = n;
      void* args[] = {&w, &count};
      cuda::launch(kernel_ptr(&gpuprobe_goodput_fill_words), "gpuprobe_goodput_fill_words", helper_grid(n), args);
    }
    ReduceArgs a{words_.get(), s.work.iterations, r.repeats, word().get()};
    void* args[] = {&a};
    // The untimed launch also brings the buffer into the L2; the sum counts the timed one.
    launch_timed(s, kernel_ptr(&gpuprobe_goodput_reduce), grid, args, word_, 0);
    s.sum = static_cast<uint32_t>(to_host(word_, 1)[0]);
  }

  void tile_loop(const GoodputRequest& r, const GoodputGrid& grid, GoodputSample& s) {
    if (tile_a_.size() == 0) {
      const TileInputs& in = goodput_tile_inputs();
      tile_a_ = DeviceArray<uint16_t>(in.a_codes.size());
      tile_bt_ = DeviceArray<uint16_t>(in.bt_codes.size());
      tile_d_ = DeviceArray<float>(uint64_t(gp::kTilePairs) * gp::kTileM * gp::kTileN);
      GPUPROBE_CUDA_CHECK(cudaMemcpy(tile_a_.get(), in.a_codes.data(), tile_a_.bytes(), cudaMemcpyHostToDevice));
      GPUPROBE_CUDA_CHECK(cudaMemcpy(tile_bt_.get(), in.bt_codes.data(), tile_bt_.bytes(), cudaMemcpyHostToDevice));
    }
    const uint32_t stored = std::min<uint32_t>(grid.blocks, gp::kTilePairs);
    TileArgs t{tile_a_.get(), tile_bt_.get(), tile_d_.get(), r.repeats, stored};
    void* args[] = {&t};
    launch_timed(s, kernel_ptr(&gpuprobe_goodput_tile), grid, args, tile_d_, 0xff);
    const std::vector<float> d = to_host(tile_d_, uint64_t(stored) * gp::kTileM * gp::kTileN);
    for (uint32_t b = 0; b < stored; ++b)
      s.tiles.emplace_back(d.begin() + uint64_t(b) * gp::kTileM * gp::kTileN,
                           d.begin() + uint64_t(b + 1) * gp::kTileM * gp::kTileN);
  }

  void chain(const GoodputRequest& r, const GoodputGrid& grid, GoodputSample& s) {
    s.kernel = "a graph of " + std::to_string(r.nodes) + " gpuprobe_goodput_chain nodes";
    DeviceArray<uint32_t> counter(1);
    fill(counter, 0);
    const cuda::PreparedLaunch node(kernel_ptr(&gpuprobe_goodput_chain), "gpuprobe_goodput_chain",
                                    launch_config(grid.blocks, grid.threads));
    s.launch = node.record();
    const cuda::Stream stream;
    uint32_t* c = counter.get();
    void* args[] = {&c};
    cuda::GraphExec exec;
    instantiate_captured(exec, stream.get(), [&](cudaStream_t st) {
      for (uint32_t k = 0; k < r.nodes; ++k) node.enqueue(args, st);
    });
    graph_launch(exec)(stream.get());  // warm-up
    stream.sync();
    fill(counter, 0);
    s.elapsed_ns = events_ns(uint64_t(r.graphs) * kSpinPerGraphNs, r.graphs, graph_launch(exec)) / r.graphs;
    s.counted = to_host(counter, 1)[0];
    s.expected_count = uint64_t(r.nodes) * r.graphs;
  }

  cuda::CudaDevice& gpu_;
  DeviceArray<float> triad_a_, triad_b_, triad_c_;
  DeviceArray<uint32_t> words_;
  DeviceArray<unsigned long long> word_;  // word()
  DeviceArray<uint16_t> tile_a_, tile_bt_;
  DeviceArray<float> tile_d_;
  DeviceArray<uint16_t> gemm_a_, gemm_b_;
  DeviceArray<float> gemm_c_;
  uint32_t gemm_size_ = 0;
  Cublas::Handle cublas_handle_ = nullptr;
};

const auto kRegistration = register_ops<GoodputOps, CudaGoodputOps, cuda::CudaDevice>("cuda", __FILE__);

}  // namespace
}  // namespace gpuprobe::probes
