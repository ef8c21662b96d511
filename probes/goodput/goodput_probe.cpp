// goodput/reference: the reference kernels (goodput.cuh) whose time the machine model predicts from
// the other probes' numbers (analysis/goodput_model.hpp, docs/ANALYSIS.md "Goodput"), then, where
// libcublas loads, a cuBLAS GEMM (f16 in, f32 compute) whose rate the model sets against the
// measured tensor peak. Each point repeats its sample until stable (harness/repeat.hpp), and every
// sample, from either backend, passes the self-check here (summarize_goodput_sample). A kernel the
// device cannot run is recorded as skipped with the reason.
// The family's registration (harness/family.hpp) is here too; its section, predictions and
// metrics are analysis/goodput_model.cpp's.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "analysis/goodput_model.hpp"
#include "harness/points.hpp"
#include "harness/probe.hpp"
#include "harness/repeat.hpp"
#include "harness/self_check.hpp"
#include "probes/common/family_spec.hpp"
#include "probes/common/plan.hpp"
#include "probes/goodput/goodput_ops.hpp"
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
    case GoodputKernel::graph_chain: return w;
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

namespace {

constexpr uint64_t kMaxPasses = 100'000;
constexpr uint64_t kMaxNodes = 4096;
constexpr uint64_t kMaxGraphs = 10'000;
constexpr uint64_t kMinGemm = 256, kMaxGemm = 16384;
constexpr uint64_t kMaxTriadBytes = 64ull << 30, kMaxReduceBytes = 4ull << 30;

// A point's time: the median over repeats, its 95% interval, the repeats, whether it settled.
template <class Result>
nlohmann::json repeated_ns(const PointRepeats<Result>& r) {
  const auto& sum = r.outcome.summary;
  return {{"ns", sum.median},
          {"ci95_ns", {sum.median_ci95.lo, sum.median_ci95.hi}},
          {"repeats", sum.n},
          {"converged", r.outcome.converged}};
}

nlohmann::json kernel_point(ProbeContext& ctx, const GoodputRequest& req) {
  const auto r = repeat_point(
      ctx.repeat(), [&] { return summarize_goodput_sample(req, ctx.ops<GoodputOps>().run(req)); },
      [](const GoodputMeasurement& m) { return m.ns; });
  if (r.skipped) return {{"skipped", *r.skipped}};
  const GoodputWork& w = r.first.work;
  nlohmann::json j = repeated_ns(r);
  j.update({{"bytes_read", w.bytes_read},
            {"bytes_written", w.bytes_written},
            {"shared_bytes", w.shared_bytes},
            {"flops", w.flops},
            {"launches", 1},
            {"kernel_name", r.first.launch.kernel},
            {"launch", to_json(r.first.launch)},
            {"self_check", "passed"},
            {"self_check_method", r.first.check}});
  switch (req.kernel) {
    case GoodputKernel::triad: j["elements"] = w.elements; break;
    case GoodputKernel::l2_reduction:
      j["footprint_bytes"] = w.elements * 4;
      j["passes"] = req.repeats;
      break;
    case GoodputKernel::tensor_tile_loop: j["repeats_per_launch"] = req.repeats; break;
    case GoodputKernel::graph_chain:
      j["nodes"] = req.nodes;
      j["launches"] = req.nodes;   // kernels per graph; ns is per graph
      j["graphs_per_sample"] = req.graphs;
      break;
  }
  return j;
}

nlohmann::json cublas_point(ProbeContext& ctx, uint32_t size) {
  const auto r = repeat_point(
      ctx.repeat(), [&] { return ctx.ops<GoodputOps>().cublas_gemm(size); }, [](const CublasGemm& g) { return g.ns; });
  if (r.skipped) return {{"skipped", *r.skipped}};
  nlohmann::json j = repeated_ns(r);
  j.update({{"m", r.first.m},
            {"n", r.first.n},
            {"k", r.first.k},
            {"flops", r.first.flops},
            {"flops_per_s", r.first.flops / (r.outcome.summary.median * 1e-9)},
            {"precision", r.first.precision},
            {"library", r.first.library}});
  return j;
}

ProbeSpec reference_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "goodput/reference";
  p.summary = "reference kernels the model predicts (triad, L2 reduction, tensor tile loop, graph chain) and cuBLAS GEMM";
  p.params = {
      {"kernel", K::choice, "all", "which: triad, l2_reduction, tensor_tile_loop, graph_chain, cublas_gemm or all",
       {"all", "triad", "l2_reduction", "tensor_tile_loop", "graph_chain", "cublas_gemm"}},
      {"triad-bytes", K::bytes, "0", "bytes per triad array (0: four times the L2, at least 64 MiB)", {}, kMaxTriadBytes},
      {"reduce-bytes", K::bytes, "0", "the L2-resident buffer (0: a quarter of the L2), whole sweeps of the grid", {},
       kMaxReduceBytes},
      {"reduce-passes", K::integer, "100", "passes over the buffer per launch", {}, kMaxPasses, 1},
      {"tile-repeats", K::integer, "2048", "tile-loop repeats per launch (D stays exact in f32)", {},
       goodput::kTileMaxRepeats, 1},
      {"chain-nodes", K::integer, "32", "kernels in the graph chain", {}, kMaxNodes, 1},
      {"chain-graphs", K::integer, "20", "graphs launched per sample", {}, kMaxGraphs, 1},
      {"gemm-size", K::integer, "8192", "cuBLAS GEMM m = n = k, from 256, a multiple of 8", {}, kMaxGemm,
       kMinGemm, 8},
  };
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const DeviceInfo& info = ctx.device().info();
    const std::string which = prm.get_text("kernel");
    uint64_t triad = prm.get_u64("triad-bytes");
    if (triad == 0) triad = std::max<uint64_t>(4 * info.l2_bytes, 64ull << 20);
    uint64_t reduce = prm.get_u64("reduce-bytes");
    if (reduce == 0) reduce = info.l2_bytes / 4;
    // Counts their specs bound (min and max, within uint32_t).
    const auto count = [&](const char* name) { return static_cast<uint32_t>(prm.get_u64(name)); };
    const uint32_t gemm = count("gemm-size");
    std::vector<PlannedPoint> points;
    for (GoodputKernel k : kGoodputKernels) {
      if (which != "all" && which != to_string(k)) continue;
      GoodputRequest req;
      req.kernel = k;
      req.bytes = k == GoodputKernel::triad ? triad : reduce;
      req.repeats = count(k == GoodputKernel::l2_reduction ? "reduce-passes" : "tile-repeats");
      req.nodes = count("chain-nodes");
      req.graphs = count("chain-graphs");
      // The layout is checked here, before anything runs (a buffer below one sweep of the grid).
      goodput_work(req, goodput_grid(req, info.sm_count, 1));
      points.push_back({{{"kernel", to_string(k)}}, [&ctx, req] { return kernel_point(ctx, req); }});
    }
    if (which == "all" || which == "cublas_gemm")
      points.push_back({{{"kernel", "cublas_gemm"}}, [&ctx, gemm] { return cublas_point(ctx, gemm); }});
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(reference_probe);

using namespace plan;

constexpr double kKernels = 5;

double estimate(const std::string&, const Params& p) {
  // Each reference kernel is a point of short launches, except the cuBLAS GEMM: 2 m^3 FLOP per run
  // at about 600 TFLOP/s (assumption: near the H100's dense f16 tensor rate).
  const std::string& kernel = p.get_text("kernel");
  const double m = static_cast<double>(p.get_u64("gemm-size"));
  const double gemm_run_s = std::max(2 * m * m * m / 600e12, kMinRegionSeconds);
  const bool gemm = kernel == "all" || kernel == "cublas_gemm";
  return op_points_seconds(kernel == "all" ? kKernels - 1 : gemm ? 0 : 1) +
         (gemm ? kRunsPerPoint * gemm_run_s + kPointOverheadSeconds : 0);
}

FamilySpec goodput_family() {
  return {.name = "goodput",
          .title = "Goodput",
          .order = 90,
          .plan = one_run_plan("goodput/reference", "goodput_reference.json"),
          .estimate_h100_seconds = estimate,
          .add_run = add_run_by(analysis::add_goodput_from_run),
          .after_roofline = analysis::add_goodput_predictions,
          .metrics = analysis::goodput_metrics,
          .provenance = {
              generic_probe("goodput/reference", "goodput.cu",
                            closed_loop_check("tests/analysis/test_goodput_model.cpp", "goodput closed loop"),
                            self_check_evidence("probes/goodput/goodput_probe.cpp"))}};
}

const FamilyRegistration kFamily(goodput_family);

}  // namespace
}  // namespace gpuprobe::probes
