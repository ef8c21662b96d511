#include "probes/goodput/goodput_ops.hpp"
#include "harness/self_check.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "probes/tensor/tile_reference.hpp"

namespace gpuprobe::probes {

namespace gp = goodput;

GoodputGrid goodput_grid(const GoodputRequest& r, int sm_count, uint32_t resident_tile_blocks) {
  const auto sms = static_cast<uint32_t>(sm_count > 0 ? sm_count : 1);
  switch (r.kernel) {
    case GoodputKernel::triad: return {kGoodputStreamThreads, sms * kGoodputTriadBlocksPerSm};
    case GoodputKernel::l2_reduction: {
      const uint64_t block_sweep_bytes = uint64_t(kGoodputStreamThreads) * gp::kReduceIlp * gp::kReduceVecWords * 4;
      const uint64_t fit = r.bytes / (block_sweep_bytes * sms);
      return {kGoodputStreamThreads, sms * static_cast<uint32_t>(std::clamp<uint64_t>(fit, 1, kGoodputReduceBlocksPerSm))};
    }
    case GoodputKernel::tensor_tile_loop:
      return {gp::kTileThreads, sms * (resident_tile_blocks > 0 ? resident_tile_blocks : 1)};
    case GoodputKernel::graph_chain: return {gp::kChainThreads, 1};
  }
  return {};
}

GoodputWork goodput_work(const GoodputRequest& r, const GoodputGrid& grid) {
  GoodputWork w;
  const uint64_t threads = uint64_t(grid.threads) * grid.blocks;
  const std::string name = to_string(r.kernel);
  if (threads == 0) throw Error(name + ": an empty grid");
  switch (r.kernel) {
    case GoodputKernel::triad: {
      w.elements = r.bytes / 4 / gp::kTriadVecFloats * gp::kTriadVecFloats;
      if (w.elements < threads * gp::kTriadVecFloats)
        throw Error(name + ": " + std::to_string(r.bytes) + " bytes per array is less than one sweep of the grid (" +
                    std::to_string(threads * gp::kTriadVecFloats * 4) + " bytes)");
      w.bytes_read = w.elements * gp::kTriadReadBytesPerElement;
      w.bytes_written = w.elements * gp::kTriadWriteBytesPerElement;
      w.flops = w.elements * gp::kTriadFlopsPerElement;
      return w;
    }
    case GoodputKernel::l2_reduction: {
      const uint64_t sweep_bytes = threads * gp::kReduceIlp * gp::kReduceVecWords * 4;
      w.iterations = r.bytes / sweep_bytes;
      if (w.iterations == 0)
        throw Error(name + ": a buffer of " + std::to_string(r.bytes) + " bytes is less than one sweep of the grid (" +
                    std::to_string(sweep_bytes) + " bytes)");
      if (r.repeats == 0) throw Error(name + ": needs one pass at least");
      w.elements = w.iterations * sweep_bytes / 4;
      w.bytes_read = w.iterations * sweep_bytes * r.repeats;
      w.flops = w.elements * r.repeats;   // one add per word
      return w;
    }
    case GoodputKernel::tensor_tile_loop: {
      if (r.repeats == 0 || r.repeats > gp::kTileMaxRepeats)
        throw Error(name + ": repeats must be 1 to " + std::to_string(gp::kTileMaxRepeats) +
                    " (D = repeats x A B stays exact in f32)");
      w.bytes_read = uint64_t(grid.blocks) * (gp::kTileM + gp::kTileN) * gp::kTileK * 2;
      w.shared_bytes = uint64_t(grid.blocks) * r.repeats * gp::kTileSharedBytesPerRepeat;
      w.flops = uint64_t(grid.blocks) * r.repeats * gp::kTileFlopsPerRepeat;
      w.bytes_written = uint64_t(std::min<uint32_t>(grid.blocks, gp::kTilePairs)) * gp::kTileM * gp::kTileN * 4;
      return w;
    }
    case GoodputKernel::graph_chain:
      if (r.nodes == 0 || r.graphs == 0) throw Error(name + ": needs a node and a graph at least");
      return w;
  }
  return w;
}

const TileInputs& goodput_tile_inputs() {
  static const TileInputs inputs = [] {
    TileInputs t;
    std::mt19937_64 rng(0x6009d);
    std::uniform_int_distribution<int> value(-2, 2);
    t.a.assign(gp::kTilePairs, std::vector<double>(gp::kTileM * gp::kTileK));
    t.b.assign(gp::kTilePairs, std::vector<double>(gp::kTileK * gp::kTileN));
    for (uint32_t p = 0; p < gp::kTilePairs; ++p) {
      auto& a = t.a[p];
      auto& b = t.b[p];
      for (auto& x : a) x = value(rng);
      for (auto& x : b) x = value(rng);
      for (double x : a)
        t.a_codes.push_back(static_cast<uint16_t>(tensor::tile_encode(tensor::TileElem::f16, x)));
      for (uint32_t n = 0; n < gp::kTileN; ++n)
        for (uint32_t k = 0; k < gp::kTileK; ++k)
          t.bt_codes.push_back(static_cast<uint16_t>(tensor::tile_encode(tensor::TileElem::f16, b[k * gp::kTileN + n])));
    }
    return t;
  }();
  return inputs;
}

std::vector<double> goodput_tile_reference(uint32_t pair, uint32_t repeats) {
  const TileInputs& in = goodput_tile_inputs();
  const tensor::TileShape shape{gp::kTileM, gp::kTileN, gp::kTileK};
  std::vector<double> d = tensor::tile_reference(shape, in.a.at(pair), in.b.at(pair),
                                                 std::vector<double>(gp::kTileM * gp::kTileN, 0.0));
  for (double& x : d) x *= repeats;
  return d;
}

GoodputMeasurement summarize_goodput_sample(const GoodputRequest& r, const GoodputSample& s) {
  const std::string failed = s.kernel + ": ";
  GoodputMeasurement m;
  m.work = s.work;
  m.launch = s.launch;
  switch (r.kernel) {
    case GoodputKernel::triad:
      if (s.mismatches != 0)
        throw SelfCheckFailed(failed + std::to_string(s.mismatches) + " of " +
                              std::to_string(s.work.elements) + " elements are not b + " +
                              std::to_string(gp::kTriadScalar) + " c");
      m.check = "every a[i] == b[i] + s c[i] (" + std::to_string(s.work.elements) + " elements, exact)";
      break;
    case GoodputKernel::l2_reduction: {
      const uint32_t want = gp::reduce_expected_sum(s.work.elements, r.repeats);
      if (s.sum != want)
        throw SelfCheckFailed(failed + "the sum is " + std::to_string(s.sum) + ", the closed form " +
                              std::to_string(want) + " (mod 2^32)");
      m.check = "sum of " + std::to_string(r.repeats) + " passes == closed form n(n-1)/2 x passes mod 2^32";
      break;
    }
    case GoodputKernel::tensor_tile_loop: {
      if (s.tiles.empty()) throw SelfCheckFailed(failed + "no tile came back");
      const TileInputs& in = goodput_tile_inputs();
      const tensor::TileShape shape{gp::kTileM, gp::kTileN, gp::kTileK};
      double max_error = 0;
      for (std::size_t p = 0; p < s.tiles.size(); ++p) {
        // D = repeats x A B: the reference of A and repeats x B (exact in float64).
        std::vector<double> b = in.b.at(p % gp::kTilePairs);
        for (double& x : b) x *= r.repeats;
        const tensor::TileCheck c =
            tensor::check_tile(shape, in.a.at(p % gp::kTilePairs), b, std::vector<double>(gp::kTileM * gp::kTileN, 0.0),
                               s.tiles[p], tensor::TileElem::f16, tensor::TileElem::f32);
        if (!c.passed) throw SelfCheckFailed(failed + "block " + std::to_string(p) + ": " + c.why);
        max_error = std::max(max_error, c.max_abs_error);
      }
      m.check = std::to_string(s.tiles.size()) + " tiles of D == repeats x A B (float64 reference, max |error| " +
                std::to_string(max_error) + ")";
      break;
    }
    case GoodputKernel::graph_chain:
      if (s.counted != s.expected_count)
        throw SelfCheckFailed(failed + "the nodes counted " + std::to_string(s.counted) + " runs, expected " +
                              std::to_string(s.expected_count) +
                              (s.counted < s.expected_count ? " (a graph node did not run)" : ""));
      m.check = "chain counter == nodes x graphs run (" + std::to_string(s.expected_count) + ")";
      break;
  }
  if (!(s.elapsed_ns > 0) || !std::isfinite(s.elapsed_ns))
    throw SelfCheckFailed(failed + "the timer measured " + std::to_string(s.elapsed_ns) + " ns");
  m.ns = s.elapsed_ns;
  return m;
}

}  // namespace gpuprobe::probes
