// The goodput family (probes/goodput/goodput_*.cpp): the work each reference kernel declares, the
// shared self-check of a sample (a wrong triad element, a wrong sum, a wrong tile element, a
// missing graph node each caught), the tile inputs and reference, and goodput/reference on the
// simulator (its record, cuBLAS skipped with the reason, parameter errors).
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/goodput/goodput_ops.hpp"
#include "probes/tensor/tile_reference.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using namespace gpuprobe::probes;

namespace {

nlohmann::json run(Device& device, std::map<std::string, std::string> params = {}) {
  const ProbeSpec& probe = find_probe("goodput/reference");
  std::ostringstream log;
  RepeatPolicy policy;
  policy.max_repeats = 5;
  return run_probe(device, probe, Params::parse(probe.params, params), policy, "", log);
}

const nlohmann::json& point(const nlohmann::json& record, const std::string& kernel) {
  for (const auto& p : record["series"])
    if (p["kernel"] == kernel) return p;
  FAIL("no point for " << kernel);
  static const nlohmann::json none;
  return none;
}

}  // namespace

TEST_CASE("goodput work: bytes, FLOP and shared bytes per kernel", "[goodput]") {
  GoodputRequest r;
  r.bytes = 64ull << 20;
  const GoodputGrid triad_grid = goodput_grid(r, 2, 0);
  CHECK(triad_grid.blocks == 2 * kGoodputTriadBlocksPerSm);
  GoodputWork w = goodput_work(r, triad_grid);
  CHECK(w.elements == (16ull << 20));
  CHECK(w.bytes_read == (128ull << 20));
  CHECK(w.bytes_written == (64ull << 20));
  CHECK(w.flops == (32ull << 20));
  r.bytes = 1024;  // below one sweep of 16 x 256 threads x 16 bytes
  CHECK_THROWS_WITH(goodput_work(r, triad_grid), Catch::Contains("less than one sweep"));

  r = {};
  r.kernel = GoodputKernel::l2_reduction;
  r.repeats = 3;
  r.bytes = 64ull << 20;
  const GoodputGrid reduce_grid = goodput_grid(r, 2, 0);
  CHECK(reduce_grid.blocks == 2 * kGoodputReduceBlocksPerSm);
  const uint64_t sweep = uint64_t(reduce_grid.blocks) * reduce_grid.threads * goodput::kReduceIlp * 16;
  r.bytes = 5 * sweep + 100;  // rounded down to whole sweeps
  w = goodput_work(r, reduce_grid);
  CHECK(w.iterations == 5);
  CHECK(w.elements == 5 * sweep / 4);
  CHECK(w.bytes_read == 15 * sweep);
  // A buffer smaller than 4 blocks' sweep on every SM: fewer blocks per SM (a V100's 1.5 MiB).
  r.bytes = 3 * 2 * 16384 + 5;
  CHECK(goodput_grid(r, 2, 0).blocks == 2 * 3);
  r.bytes = 100;
  CHECK(goodput_grid(r, 2, 0).blocks == 2);

  r = {};
  r.kernel = GoodputKernel::tensor_tile_loop;
  r.repeats = 10;
  const GoodputGrid tile_grid = goodput_grid(r, 3, 2);
  CHECK(tile_grid.blocks == 6);
  w = goodput_work(r, tile_grid);
  CHECK(w.flops == 6ull * 10 * 2 * 128 * 128 * 32);
  // Per warp and k-step 16 A and 16 B words from 32 lanes; 4 warps, 2 k-steps.
  CHECK(w.shared_bytes == 6ull * 10 * 4 * 2 * 32 * 32 * 4);
  CHECK(double(w.flops) / double(w.shared_bytes) == Approx(32.0));
  r.repeats = goodput::kTileMaxRepeats + 1;
  CHECK_THROWS_WITH(goodput_work(r, tile_grid), Catch::Contains("exact in f32"));
}

TEST_CASE("goodput self-check: a good sample passes, each fault is caught", "[goodput]") {
  GoodputRequest r;
  GoodputSample s;
  s.kernel = "k";
  s.elapsed_ns = 1000;
  s.work.elements = 4096;
  CHECK(summarize_goodput_sample(r, s).ns == 1000);
  s.mismatches = 3;
  CHECK_THROWS_WITH(summarize_goodput_sample(r, s), Catch::Contains("3 of 4096 elements"));
  s.mismatches = 0;
  s.elapsed_ns = 0;
  CHECK_THROWS_WITH(summarize_goodput_sample(r, s), Catch::Contains("timer"));

  r.kernel = GoodputKernel::l2_reduction;
  r.repeats = 2;
  s.elapsed_ns = 1000;
  s.sum = goodput::reduce_expected_sum(4096, 2);
  CHECK(s.sum == 4096u * 4095u);  // 2 x n(n-1)/2
  CHECK_NOTHROW(summarize_goodput_sample(r, s));
  s.sum += 1;
  CHECK_THROWS_WITH(summarize_goodput_sample(r, s), Catch::Contains("closed form"));

  r.kernel = GoodputKernel::tensor_tile_loop;
  r.repeats = 7;
  s.tiles = {goodput_tile_reference(0, 7), goodput_tile_reference(1, 7)};
  CHECK_NOTHROW(summarize_goodput_sample(r, s));
  s.tiles[1][200] += 1;
  CHECK_THROWS_WITH(summarize_goodput_sample(r, s), Catch::Contains("block 1"));
  s.tiles.clear();
  CHECK_THROWS_WITH(summarize_goodput_sample(r, s), Catch::Contains("no tile"));

  r.kernel = GoodputKernel::graph_chain;
  s.counted = 63;
  s.expected_count = 64;
  CHECK_THROWS_WITH(summarize_goodput_sample(r, s), Catch::Contains("did not run"));
}

TEST_CASE("goodput tile inputs: small integers, exact f16 codes, reference scales with repeats", "[goodput]") {
  const TileInputs& in = goodput_tile_inputs();
  REQUIRE(in.a.size() == goodput::kTilePairs);
  REQUIRE(in.a_codes.size() == goodput::kTilePairs * goodput::kTileM * goodput::kTileK);
  REQUIRE(in.bt_codes.size() == goodput::kTilePairs * goodput::kTileN * goodput::kTileK);
  // bt is B transposed: element (n, k) of pair 0 is b[k][n].
  CHECK(tensor::tile_decode(tensor::TileElem::f16, in.bt_codes[5 * goodput::kTileK + 3]) ==
        in.b[0][3 * goodput::kTileN + 5]);
  CHECK(tensor::tile_decode(tensor::TileElem::f16, in.a_codes[2 * goodput::kTileK + 9]) == in.a[0][2 * goodput::kTileK + 9]);
  bool nonzero = false;
  for (double v : in.a[1]) {
    CHECK((v >= -2 && v <= 2 && v == std::floor(v)));
    nonzero = nonzero || v != 0;
  }
  CHECK(nonzero);
  const auto once = goodput_tile_reference(2, 1), many = goodput_tile_reference(2, 1000);
  double sum = 0;
  for (uint32_t k = 0; k < goodput::kTileK; ++k) sum += in.a[2][k] * in.b[2][k * goodput::kTileN];
  CHECK(once[0] == sum);
  CHECK(many[17] == 1000 * once[17]);
}

TEST_CASE("goodput/reference on the simulator: four kernels measured and checked, cuBLAS skipped", "[goodput][sim]") {
  auto device = sim::make_sim_device(sim::find_preset("h100"));
  const auto record = run(*device, {{"triad-bytes", "64M"}, {"tile-repeats", "64"}});
  REQUIRE(record["status"] == "ok");
  REQUIRE(record["series"].size() == 5);
  for (const char* k : {"triad", "l2_reduction", "tensor_tile_loop", "graph_chain"}) {
    const auto& p = point(record, k);
    CHECK(p["self_check"] == "passed");
    CHECK(p["ns"].get<double>() > 0);
  }
  CHECK(point(record, "triad")["bytes_read"] == (128ull << 20));
  CHECK(point(record, "tensor_tile_loop")["flops"].get<double>() > 0);
  CHECK(point(record, "graph_chain")["nodes"] == 32);
  CHECK(point(record, "cublas_gemm")["skipped"] == "no cuBLAS on a simulated device");
  // The chain's time grows with its nodes.
  const auto longer = run(*device, {{"kernel", "graph_chain"}, {"chain-nodes", "64"}});
  REQUIRE(longer["series"].size() == 1);
  CHECK(longer["series"][0]["ns"].get<double>() > 1.5 * point(record, "graph_chain")["ns"].get<double>());
}

TEST_CASE("goodput/reference: bad parameters are one-line errors", "[goodput]") {
  auto device = sim::make_sim_device(sim::find_preset("h100"));
  CHECK_THROWS_WITH(run(*device, {{"tile-repeats", "200000"}}), Catch::Contains("at most 131071"));
  CHECK_THROWS_WITH(run(*device, {{"gemm-size", "1001"}}), Catch::Contains("multiple of 8"));
  CHECK_THROWS_WITH(run(*device, {{"chain-nodes", "0"}}), Catch::Contains("--chain-nodes: must be at least 1"));
  CHECK_THROWS_WITH(run(*device, {{"reduce-bytes", "4K"}}), Catch::Contains("less than one sweep"));
}

}  // namespace GPUPROBE_TEST_FILE
