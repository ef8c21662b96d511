// GoodputOps on the simulated device: each reference kernel's time from the preset's own
// parameters, with the preset's relative noise, so that the model fitted from a simulated run
// predicts it (the closed loop, tests/analysis/test_goodput_model.cpp):
//   triad             kappa (R / read + W / write) + one launch; read, write and copy are the
//                     DRAM level's peak and its write and copy fractions (Preset::bandwidth), and
//                     kappa = (1 / copy) / (1/2 read + 1/2 write) the read/write turnaround the
//                     copy fraction implies (assumption: the triad keeps enough bytes in flight to
//                     reach the peaks, as its 8 blocks of 256 threads per SM do on the GPUs)
//   l2_reduction      bytes / the L2 level's peak + one launch
//   tensor_tile_loop  max(FLOP / the mma_m16n8k16_f16_f32 rate, shared bytes / the shared peak)
//                     + one launch
//   graph_chain       the launch table's graph launch: per graph + nodes x per node
// One launch is the launch table's back-to-back time. The kernels' results are the host's
// closed forms (triad values, the reduction's sum, the float64 tiles), as the other simulated
// families do. No cuBLAS on a simulated device.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "harness/ops.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/common/units.hpp"
#include "probes/goodput/goodput_ops.hpp"
#include "probes/tensor/tensor_point.hpp"

namespace gpuprobe::probes {
namespace {

// Tile-loop blocks one simulated SM holds (200 registers x 128 threads: 2 per 64K registers).
constexpr uint32_t kSimTileBlocksPerSm = 2;

class SimGoodputOps final : public GoodputOps {
 public:
  explicit SimGoodputOps(sim::SimDevice& device) : device_(device) {}

  GoodputSample run(const GoodputRequest& r) override {
    const sim::Preset& p = device_.preset();
    const GoodputGrid grid = goodput_grid(r, p.info.sm_count, kSimTileBlocksPerSm);
    GoodputSample s;
    s.kernel = goodput_kernel_name(r.kernel);
    s.work = goodput_work(r, grid);
    s.launch.kernel = s.kernel;
    s.launch.config = launch_config(grid.blocks, grid.threads);
    if (!(p.launch.back_to_back_ns > 0))
      throw Skip("the simulated " + p.name + " has no launch cost model");
    const double launch_s = p.launch.back_to_back_ns * 1e-9;
    double seconds = 0;
    switch (r.kernel) {
      case GoodputKernel::triad: {
        const sim::LevelBandwidthModel& m = level(p, "DRAM");
        const double read = peak_bytes_per_s(p, m), write = read * m.write_fraction, copy = read * m.copy_fraction;
        const double kappa = (1 / copy) / (0.5 / read + 0.5 / write);
        seconds = kappa * (s.work.bytes_read / read + s.work.bytes_written / write) + launch_s;
        break;
      }
      case GoodputKernel::l2_reduction:
        seconds = s.work.bytes_read / peak_bytes_per_s(p, level(p, "L2")) + launch_s;
        s.sum = goodput::reduce_expected_sum(s.work.elements, r.repeats);
        break;
      case GoodputKernel::tensor_tile_loop: {
        // The tensor family's cost (probes/tensor/tensor_costs.cpp: sm_80+, never emulated; none skips).
        const tensor::TensorCost& mma = tensor::tensor_cost(p, "mma_m16n8k16_f16_f32");
        const double tensor = mma.flops_per_clk_per_sm * p.info.sm_count * clock_hz(p);
        const double shared = peak_bytes_per_s(p, level(p, "shared"));
        seconds = std::max(s.work.flops / tensor, s.work.shared_bytes / shared) + launch_s;
        for (uint32_t b = 0; b < std::min<uint32_t>(grid.blocks, goodput::kTilePairs); ++b)
          s.tiles.push_back(goodput_tile_reference(b % goodput::kTilePairs, r.repeats));
        break;
      }
      case GoodputKernel::graph_chain:
        if (!(p.launch.graph_launch_per_node_ns > 0))
          throw Skip("the simulated " + p.name + " has no graph launch model");
        seconds = (p.launch.graph_launch_ns + r.nodes * p.launch.graph_launch_per_node_ns) * 1e-9;
        s.counted = s.expected_count = uint64_t(r.nodes) * r.graphs;
        break;
    }
    std::normal_distribution<double> noise(0.0, p.noise_rel);
    s.elapsed_ns = seconds * 1e9 * std::max(0.5, 1.0 + noise(rng_));
    return s;
  }

  CublasGemm cublas_gemm(uint32_t) override { throw Skip("no cuBLAS on a simulated device"); }

 private:
  static double clock_hz(const sim::Preset& p) { return p.info.rated_sm_clock_mhz * 1e6; }

  static const sim::LevelBandwidthModel& level(const sim::Preset& p, const std::string& name) {
    for (const auto& m : p.bandwidth)
      if (m.level == name) return m;
    throw Skip("the simulated " + p.name + " has no bandwidth model for " + name);
  }

  // The level's peak as probes/bandwidth/stream_sim.cpp sees it with every SM streaming: the
  // smaller of the per-SM ports and the level's own limit.
  static double peak_bytes_per_s(const sim::Preset& p, const sim::LevelBandwidthModel& m) {
    double peak = m.peak_bytes_per_clk_per_sm > 0 ? m.peak_bytes_per_clk_per_sm * p.info.sm_count * clock_hz(p)
                                                   : INFINITY;
    if (m.peak_bytes_per_s > 0) peak = std::min(peak, m.peak_bytes_per_s);
    if (!std::isfinite(peak)) throw Skip("the simulated " + p.name + " has no peak for " + m.level);
    return peak;
  }

  sim::SimDevice& device_;
  std::mt19937_64 rng_{0x600d};
};

const auto kRegistration = register_ops<GoodputOps, SimGoodputOps, sim::SimDevice>("sim", __FILE__);

}  // namespace
}  // namespace gpuprobe::probes
