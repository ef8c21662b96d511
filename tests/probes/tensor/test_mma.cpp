// The tensor family's mma.sync probe (probes/tensor/mma.cpp) on the simulated device and its
// host-side contract: the element formats and the tile reference (tile_reference.cpp), the fragment
// layouts, the self-check (a corrupted fragment fails it), the refusals of forms a GPU lacks, the
// presets' tables, and tensor/mma recovering each preset's rates and latencies.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <sstream>
#include <string>

#include "analysis/datasheet.hpp"
#include "analysis/machine_model.hpp"
#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/preset.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/tensor/tensor_point.hpp"
#include "probes/tensor/mma.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using probes::MmaOp;
using probes::MmaOperand;
using probes::tensor::Operands;
using probes::tensor::TileElem;

namespace {

// The preset's tensor cost table (probes/tensor/tensor_costs.cpp).
const probes::tensor::TensorCosts& costs_of(const sim::Preset& p) {
  return *p.table<probes::tensor::TensorCosts>(probes::tensor::kCostTable);
}

nlohmann::json run(Device& device, std::map<std::string, std::string> params) {
  const ProbeSpec& probe = find_probe("tensor/mma");
  std::ostringstream log;
  return run_probe(device, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
}

}  // namespace

TEST_CASE("tile formats: decode, encode and negate round-trip, with the known codes", "[tensor]") {
  using namespace probes::tensor;
  CHECK(tile_decode(TileElem::f16, 0x3c00) == 1.0);
  CHECK(tile_decode(TileElem::f16, 0xc000) == -2.0);
  CHECK(tile_decode(TileElem::bf16, 0x3f80) == 1.0);
  CHECK(tile_decode(TileElem::tf32, 0x3f800000) == 1.0);
  CHECK(tile_decode(TileElem::e4m3, 0x38) == 1.0);   // exponent 7 (bias 7)
  CHECK(tile_decode(TileElem::e4m3, 0x7e) == 448.0);  // the largest e4m3
  CHECK(std::isnan(tile_decode(TileElem::e4m3, 0x7f)));
  CHECK(tile_decode(TileElem::e5m2, 0x3c) == 1.0);
  CHECK(std::isinf(tile_decode(TileElem::e5m2, 0x7c)));
  CHECK(tile_decode(TileElem::s4, 0xf) == -1.0);
  CHECK(tile_decode(TileElem::s8, 0x80) == -128.0);
  CHECK(tile_encode(TileElem::f16, 1.0) == 0x3c00);
  CHECK(tile_encode(TileElem::f16, 1.0 + 1.0 / 4096) == 0x3c00);  // rounds to nearest even
  CHECK(tile_encode(TileElem::f16, 1e6) == 0x7c00);               // overflows to infinity
  CHECK(tile_encode(TileElem::f16, 1e-7) == 0x0002);              // subnormal: 2 x 2^-24
  CHECK(tile_encode(TileElem::tf32, 1.0) == 0x3f800000);
  CHECK(tile_encode(TileElem::e4m3, 1000.0) == 0x7e);             // saturates: no infinity
  // OCP MX fp4/fp6: no infinity, no NaN; every code a number.
  CHECK(tile_decode(TileElem::e2m1, 0x1) == 0.5);   // subnormal
  CHECK(tile_decode(TileElem::e2m1, 0x2) == 1.0);
  CHECK(tile_decode(TileElem::e2m1, 0x7) == 6.0);   // the largest e2m1
  CHECK(tile_decode(TileElem::e2m1, 0xd) == -3.0);
  CHECK(tile_decode(TileElem::e3m2, 0x0c) == 1.0);  // exponent 3 (bias 3)
  CHECK(tile_decode(TileElem::e3m2, 0x1f) == 28.0);
  CHECK(tile_decode(TileElem::e3m2, 0x01) == 0.0625);
  CHECK(tile_decode(TileElem::e2m3, 0x08) == 1.0);  // exponent 1 (bias 1)
  CHECK(tile_decode(TileElem::e2m3, 0x1f) == 7.5);
  CHECK(tile_decode(TileElem::e2m3, 0x21) == -0.125);
  CHECK(tile_encode(TileElem::e2m1, 100.0) == 0x7);  // saturates to 6
  CHECK(tile_encode(TileElem::e2m1, 2.5) == 0x4);    // ties to even: 2
  {
    // e2m1 holds exactly +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
    std::set<double> values;
    for (uint64_t code = 0; code < 16; ++code) values.insert(tile_decode(TileElem::e2m1, code));
    CHECK(values == std::set<double>{-6, -4, -3, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 3, 4, 6});
  }
  std::mt19937_64 rng(7);
  for (TileElem e : {TileElem::f16, TileElem::bf16, TileElem::tf32, TileElem::f32, TileElem::f64,
                     TileElem::e4m3, TileElem::e5m2, TileElem::e2m1, TileElem::e3m2, TileElem::e2m3,
                     TileElem::s8, TileElem::s4, TileElem::s32}) {
    INFO(tile_elem_name(e));
    for (int i = 0; i < 200; ++i) {
      const uint64_t code = tile_random(e, rng);
      const double v = tile_decode(e, code);
      REQUIRE(std::isfinite(v));
      CHECK(std::fabs(v) <= (e == TileElem::s8 ? 127 : e == TileElem::s4 ? 7 : e == TileElem::s32 ? 1 << 20 : 4));
      CHECK(tile_encode(e, v) == code);                       // exactly representable
      CHECK(tile_decode(e, tile_negate(e, code)) == -v);
    }
  }
}

TEST_CASE("tile words: elements of 4 to 64 bits packed low first", "[tensor]") {
  uint32_t w[4] = {};
  probes::tensor::tile_set(w, 3, 4, 0xa);
  probes::tensor::tile_set(w, 9, 4, 0x5);
  CHECK(w[0] == 0xa000u);
  CHECK(w[1] == 0x50u);
  CHECK(probes::tensor::tile_get(w, 9, 4) == 0x5);
  probes::tensor::tile_set(w, 1, 64, 0x1122334455667788ull);
  CHECK(w[2] == 0x55667788u);
  CHECK(w[3] == 0x11223344u);
  CHECK(probes::tensor::tile_get(w, 1, 64) == 0x1122334455667788ull);
}

TEST_CASE("tile check: within the tolerance passes, off it fails naming the element", "[tensor]") {
  using namespace probes::tensor;
  const TileShape s{2, 2, 2};
  const std::vector<double> a{1, 2, 3, 4}, b{1, 0, 0, 1}, c{0.5, 0, 0, 0};
  std::vector<double> d = tile_reference(s, a, b, c);
  CHECK(d == std::vector<double>{1.5, 2, 3, 4});
  CHECK(check_tile(s, a, b, c, d, TileElem::f16, TileElem::f32).passed);
  d[3] += 1e-5;  // 4e-3 x (|3*0| + |4*1|) = 0.016 allowed for f16 accumulate, 4e-4 for f32
  CHECK(check_tile(s, a, b, c, d, TileElem::f16, TileElem::f16).passed);
  CHECK(check_tile(s, a, b, c, d, TileElem::f16, TileElem::f32).passed);
  d[3] += 1e-3;
  const TileCheck bad = check_tile(s, a, b, c, d, TileElem::f16, TileElem::f32);
  CHECK_FALSE(bad.passed);
  CHECK(bad.why.find("D[1][1]") != std::string::npos);
  CHECK(bad.max_abs_error == Approx(1.01e-3));
  // Integer kinds are exact: one unit off fails.
  std::vector<double> di = tile_reference(s, a, b, c);
  di[0] += 1;
  CHECK_FALSE(check_tile(s, a, b, c, di, TileElem::s8, TileElem::s32).passed);
  std::vector<double> nan = tile_reference(s, a, b, c);
  nan[2] = std::nan("");
  CHECK_FALSE(check_tile(s, a, b, c, nan, TileElem::f64, TileElem::f64).passed);
}

TEST_CASE("mma fragments: every element of A, B and C has exactly one lane and register", "[tensor]") {
  for (const auto& info : probes::tensor::kMmaOps) {
    INFO(info.name);
    // Forms of several products per warp (m8n8k4 f16: 4) stack them by rows.
    const uint32_t q = probes::mma_products_per_warp(info.op);
    const uint32_t dims[3][2] = {{q * info.m, info.k}, {q * info.k, info.n}, {q * info.m, info.n}};
    int which_i = 0;
    for (MmaOperand which : {MmaOperand::a, MmaOperand::b, MmaOperand::c}) {
      std::set<std::pair<uint32_t, uint32_t>> seen;
      const uint32_t per_lane = probes::mma_elements_per_lane(info.op, which);
      for (uint32_t lane = 0; lane < 32; ++lane)
        for (uint32_t i = 0; i < per_lane; ++i) {
          uint32_t r, c;
          probes::mma_fragment_coords(info.op, which, lane, i, r, c);
          CHECK(r < dims[which_i][0]);
          CHECK(c < dims[which_i][1]);
          seen.insert({r, c});
        }
      CHECK(seen.size() == size_t(dims[which_i][0]) * dims[which_i][1]);
      ++which_i;
    }
  }
  // Spot checks against the PTX ISA's figures: m16n8k16 f16 A a5 of lane 6 (group 1, thread 2) is
  // row 1, column 2 * 2 + 1 + 8 = 13; m16n8k8 tf32 A a1 of lane 5 is row 9, column 1.
  uint32_t r, c;
  probes::mma_fragment_coords(MmaOp::m16n8k16_f16_f32, MmaOperand::a, 6, 5, r, c);
  CHECK(r == 1);
  CHECK(c == 13);
  probes::mma_fragment_coords(MmaOp::m16n8k8_tf32_f32, MmaOperand::a, 5, 1, r, c);
  CHECK(r == 9);
  CHECK(c == 1);
  probes::mma_fragment_coords(MmaOp::m16n8k32_s8_s32, MmaOperand::b, 7, 6, r, c);
  CHECK(r == 3 * 4 + 2 + 16);
  CHECK(c == 1);
  // m8n8k4 f16 (PTX ISA 9.7.14.5.1, products stacked by rows): lane 18 (quad-pair 0, high group,
  // %laneid % 4 = 2) holds A row 6, a3 in column 3; lane 21 (quad-pair 1) A row 5 of product 1;
  // lane 9 (quad-pair 2) b2 of B row 2, column 1; f32 C c6 of lane 3: row (3 & 1) + (6 & 2) = 3,
  // column (6 & 4) + (3 & 2) + (6 & 1) = 6; f16 C c5 of lane 30 (quad-pair 3): row 6, column 5.
  // m8n8k16 s8 B b2 of lane 7 (threadID_in_group 3): row 3 * 4 + 2, column 1; m8n8k32 s4 A a7
  // of lane 5: row 1, column 8 + 7.
  const struct {
    MmaOp op;
    MmaOperand which;
    uint32_t lane, index, row, col;
  } spots[] = {{MmaOp::m8n8k4_f16_f16, MmaOperand::a, 18, 3, 6, 3},
               {MmaOp::m8n8k4_f16_f32, MmaOperand::a, 21, 0, 8 + 5, 0},
               {MmaOp::m8n8k4_f16_f16, MmaOperand::b, 9, 2, 2 * 4 + 2, 1},
               {MmaOp::m8n8k4_f16_f32, MmaOperand::c, 3, 6, 3, 6},
               {MmaOp::m8n8k4_f16_f16, MmaOperand::c, 30, 5, 3 * 8 + 6, 5},
               {MmaOp::m8n8k16_s8_s32, MmaOperand::b, 7, 2, 3 * 4 + 2, 1},
               {MmaOp::m8n8k32_s4_s32, MmaOperand::a, 5, 7, 1, 15}};
  for (const auto& s : spots) {
    INFO(probes::mma_info(s.op).name << " lane " << s.lane << " element " << s.index);
    probes::mma_fragment_coords(s.op, s.which, s.lane, s.index, r, c);
    CHECK(r == s.row);
    CHECK(c == s.col);
  }
}

TEST_CASE("mma self-check: the host's tile passes, a corrupted fragment or a swapped layout fails",
          "[tensor]") {
  for (const auto& info : probes::tensor::kMmaOps) {
    INFO(info.name);
    const probes::MmaTile tile = probes::mma_tile(info.op, Operands::random);
    std::vector<uint32_t> d = probes::mma_emulate_tile(info.op, tile.lanes);
    const auto check = probes::mma_check_tile(info.op, tile, d);
    CHECK(check.passed);
    CHECK(check.elements == info.m * info.n * probes::mma_products_per_warp(info.op));
    // One lane's first D register off: for f16 accumulate flip a high mantissa bit, else add
    // a unit to the integer or a large step to the float.
    std::vector<uint32_t> bad = d;
    bad[17 * probes::tensor::kMmaMaxCWords] ^= 0x00400000u | 0x0200u;
    CHECK_THROWS_WITH(probes::mma_check_tile(info.op, tile, bad), Catch::Contains("self-check failed") &&
                                                                      Catch::Contains(info.name));
    // The fragments of two lanes swapped (a layout error): the tile no longer matches.
    std::vector<uint32_t> swapped = d;
    for (uint32_t w = 0; w < probes::tensor::kMmaMaxCWords; ++w)
      std::swap(swapped[0 * probes::tensor::kMmaMaxCWords + w], swapped[5 * probes::tensor::kMmaMaxCWords + w]);
    CHECK_THROWS_WITH(probes::mma_check_tile(info.op, tile, swapped), Catch::Contains("self-check failed"));
  }
}

TEST_CASE("mma m8n8k4 f16: four quad-pair products of 512 FLOP each, every one checked against "
          "its own reference", "[tensor]") {
  CHECK(probes::mma_flops(MmaOp::m8n8k4_f16_f16) == 2048);
  CHECK(probes::mma_flops(MmaOp::m8n8k4_f16_f32) == 2048);
  CHECK(probes::mma_flops(MmaOp::m8n8k16_s8_s32) == 2048);
  CHECK(probes::mma_flops(MmaOp::m8n8k32_s4_s32) == 4096);
  CHECK(probes::mma_flops(MmaOp::m16n8k8_f16_f16) == 2048);
  for (MmaOp op : {MmaOp::m8n8k4_f16_f16, MmaOp::m8n8k4_f16_f32}) {
    INFO(probes::mma_info(op).name);
    const probes::MmaTile tile = probes::mma_tile(op, Operands::random);
    REQUIRE(tile.a.size() == 4 * 8 * 4);
    REQUIRE(tile.c.size() == 4 * 8 * 8);
    const std::vector<uint32_t> d = probes::mma_emulate_tile(op, tile.lanes);
    REQUIRE(probes::mma_check_tile(op, tile, d).elements == 256);
    // The reference is per quad-pair: product q's D row i is C row i plus A row i times B of
    // the same quad-pair (never another's).
    const std::vector<double> got = probes::mma_unpack_d(op, d);
    for (uint32_t q = 0; q < 4; ++q)
      for (uint32_t j = 0; j < 8; ++j) {
        double want = tile.c[(8 * q + 5) * 8 + j];
        for (uint32_t kk = 0; kk < 4; ++kk) want += tile.a[(8 * q + 5) * 4 + kk] * tile.b[(4 * q + kk) * 8 + j];
        CHECK(got[(8 * q + 5) * 8 + j] == Approx(want).margin(0.05));
      }
    // One D element corrupted in each quad-pair in turn: the self-check fails naming that one.
    const uint32_t words_per_lane = probes::tensor::kMmaMaxCWords;
    const uint32_t bits = op == MmaOp::m8n8k4_f16_f16 ? 16 : 32;
    for (uint32_t q = 0; q < 4; ++q) {
      INFO("quad-pair " << q);
      for (uint32_t lane : {4 * q + 1, 4 * q + 19}) {  // a low-group and a high-group lane
        std::vector<uint32_t> bad = d;
        uint32_t* w = bad.data() + lane * words_per_lane;
        const double v = probes::tensor::tile_decode(
            bits == 16 ? TileElem::f16 : TileElem::f32, probes::tensor::tile_get(w, 3, bits));
        probes::tensor::tile_set(w, 3, bits,
                                 probes::tensor::tile_encode(bits == 16 ? TileElem::f16 : TileElem::f32, v + 1.0));
        CHECK_THROWS_WITH(probes::mma_check_tile(op, tile, bad),
                          Catch::Contains("quad-pair " + std::to_string(q)));
      }
    }
    // B of quad-pair 1 swapped with quad-pair 2's in the lanes (a layout that mixed the
    // products up): the tile no longer matches.
    std::vector<probes::tensor::MmaLane> mixed = tile.lanes;
    for (uint32_t lane = 4; lane < 8; ++lane) std::swap(mixed[lane].b, mixed[lane + 4].b);
    CHECK_THROWS_WITH(probes::mma_check_tile(op, tile, probes::mma_emulate_tile(op, mixed)),
                      Catch::Contains("self-check failed"));
  }
}

TEST_CASE("mma sm_70/75 shapes: native where ptxas keeps them, emulated where the SASS is other "
          "instructions", "[tensor]") {
  for (MmaOp op : {MmaOp::m8n8k4_f16_f16, MmaOp::m8n8k4_f16_f32}) {
    CHECK(probes::mma_implementation(op, 70) == "native");
    CHECK(probes::mma_implementation(op, 75) == "native");
    for (int sm : {80, 86, 89, 90, 100, 120})
      CHECK(probes::mma_implementation(op, sm).find("CALL") != std::string::npos);
  }
  CHECK(probes::mma_sass_per_op(MmaOp::m8n8k4_f16_f32, 75) == "4 HMMA.884.F32.F32 (STEP0-3)");
  CHECK(probes::mma_implementation(MmaOp::m16n8k8_f16_f16, 120) == "native");
  CHECK(probes::mma_implementation(MmaOp::m8n8k16_s8_s32, 90) == "native");
  CHECK(probes::mma_implementation(MmaOp::m8n8k16_s8_s32, 100).find("IMMA.16816.S8") != std::string::npos);
  CHECK(probes::mma_implementation(MmaOp::m8n8k32_s4_s32, 89) == "native");
  CHECK(probes::mma_implementation(MmaOp::m8n8k32_s4_s32, 90).find("IMMA.8816.S8") != std::string::npos);
  CHECK(probes::mma_implementation(MmaOp::m8n8k32_s4_s32, 120).find("IMMA.16816.S8") != std::string::npos);
}

TEST_CASE("tensor/mma on sim:v100: the m8n8k4 f16 forms measured at the preset's rate, every later "
          "form skipped as needing sm_75+ or newer", "[tensor]") {
  const sim::Preset& preset = sim::find_preset("v100");
  auto dev = sim::make_sim_device(preset);
  const auto rec = run(*dev, {{"iterations", "64"}, {"operands", "random"}});
  REQUIRE(rec["status"] == "ok");
  std::set<std::string> measured;
  for (const auto& p : rec["series"]) {
    INFO(p.dump());
    const std::string op = p["op"];
    if (p.contains("skipped")) {
      CHECK(probes::mma_info(probes::parse_mma_op(op)).min_sm > 70);
      CHECK(p["skipped"].get<std::string>().find("sm_70") != std::string::npos);
      continue;
    }
    measured.insert(op);
    CHECK(p["implementation"] == "native");
    CHECK(p["flops_per_mma"] == 2048);
    CHECK(p["self_check"]["passed"] == true);
    CHECK(p["self_check"]["elements"] == 256);
    if (p["kind"] == "throughput")
      CHECK(p["flops_per_clk_per_sm"].get<double>() == Approx(1024).epsilon(0.02));
  }
  CHECK(measured == std::set<std::string>{"mma_m8n8k4_f16_f16", "mma_m8n8k4_f16_f32"});
}

TEST_CASE("mma implementation: fp8 emulated on sm_90-110, s4 from sm_90, the rest native", "[tensor]") {
  CHECK(probes::mma_implementation(MmaOp::m16n8k32_e4m3_f32, 89) == "native");
  CHECK(probes::mma_implementation(MmaOp::m16n8k32_e4m3_f32, 120) == "native");
  CHECK(probes::mma_implementation(MmaOp::m16n8k32_e5m2_f32, 90).rfind("emulated (", 0) == 0);
  CHECK(probes::mma_implementation(MmaOp::m16n8k32_e4m3_f32, 100).rfind("emulated (", 0) == 0);
  CHECK(probes::mma_implementation(MmaOp::m16n8k64_s4_s32, 89) == "native");
  CHECK(probes::mma_implementation(MmaOp::m16n8k64_s4_s32, 90).find("IMMA.16832.S8") != std::string::npos);
  CHECK(probes::mma_implementation(MmaOp::m16n8k16_f16_f32, 90) == "native");
  CHECK(probes::mma_sass_per_op(MmaOp::m16n8k16_f64_f64, 100) == "8 DMMA.8x8x4");
}

TEST_CASE("mma presets: every table form is a known op, its emulated flag matches the target, "
          "every entry cites a source", "[tensor]") {
  for (const auto& p : sim::presets()) {
    INFO(p.name);
    for (const auto& m : costs_of(p)) {
      if (m.op.rfind("mma_", 0) != 0) continue;  // wgmma and tcgen05 forms: their families' tests
      INFO(m.op);
      const MmaOp op = probes::parse_mma_op(m.op);
      CHECK(m.emulated == (probes::mma_implementation(op, p.info.cc.sm()) != "native"));
      CHECK(probes::mma_info(op).min_sm <= p.info.cc.sm());
      CHECK(m.flops_per_clk_per_sm > 0);
      CHECK(m.latency_cycles > 0);
      CHECK_FALSE(m.source.empty());
    }
  }
}

TEST_CASE("tensor/mma on sim:a100: every form the A100 has, random and zeros, self-checked, fp8 and "
          "sm_90 shapes skipped with the reason", "[tensor]") {
  auto dev = sim::make_sim_device(sim::find_preset("a100"));
  const auto rec = run(*dev, {{"iterations", "64"}});
  REQUIRE(rec["status"] == "ok");
  std::set<std::string> measured;
  for (const auto& p : rec["series"]) {
    INFO(p.dump());
    const std::string op = p["op"];
    if (p.contains("skipped")) {
      CHECK((op == "mma_m16n8k32_e4m3_f32" || op == "mma_m16n8k32_e5m2_f32" || op == "mma_m16n8k16_f64_f64" ||
             probes::mma_info(probes::parse_mma_op(op)).min_sm == 120));
      CHECK(p["skipped"].get<std::string>().find("sm_80") != std::string::npos);
      continue;
    }
    measured.insert(op);
    CHECK(p["path"] == "mma.sync");
    // m8n8k4 f16 runs on CUDA cores from sm_80 on (a subroutine per mma); the rest natively.
    CHECK(p["implementation"] == (op.rfind("mma_m8n8k4_f16", 0) == 0 ? p["implementation"].get<std::string>()
                                                                      : "native"));
    CHECK((op.rfind("mma_m8n8k4_f16", 0) != 0 || p["implementation"].get<std::string>().find("emulated") == 0));
    CHECK(p["self_check"]["passed"] == true);
    CHECK(p["self_check"]["max_abs_error"].get<double>() <=
          1e-3 * std::max(1.0, p["self_check"]["tolerance"].get<double>() * 1e6));
    CHECK((p["operands"] == "random" || p["operands"] == "zeros"));
    if (p["kind"] == "throughput") {
      CHECK(p["flops_per_s"].get<double>() ==
            Approx(p["flops_per_clk_per_sm"].get<double>() * 108 * p["region_sm_clock_mhz"].get<double>() * 1e6));
    } else {
      CHECK(p["latency_cycles"].get<double>() > 0);
    }
  }
  CHECK(measured.size() == 13);  // 8 sm_80 forms and the 5 sm_70/75 ones
  CHECK(rec["series"].size() == probes::tensor::kMmaOpCount * 2 * 2);
}

TEST_CASE("tensor/mma closed loop: each preset's mma.sync rates and latencies come back within 2%",
          "[tensor]") {
  for (const auto& p : sim::presets()) {
    bool any = false;
    for (const auto& m : costs_of(p)) any = any || m.op.rfind("mma_", 0) == 0;
    if (!any) continue;
    INFO(p.name);
    auto dev = sim::make_sim_device(p);
    const auto rec = run(*dev, {{"iterations", "64"}, {"operands", "random"}});
    REQUIRE(rec["status"] == "ok");
    int checked = 0;
    for (const auto& m : costs_of(p)) {
      if (m.op.rfind("mma_", 0) != 0) continue;
      INFO(m.op);
      for (const auto& pt : rec["series"]) {
        if (pt["op"] != m.op || pt.contains("skipped")) continue;
        // One warp's dependent chain cannot go faster than its scheduler's quarter of the rate
        // (m16n8k16 f64: 4096 FLOP at 64 per clock per sub-partition is 64 cycles).
        const double issue = probes::mma_flops(probes::parse_mma_op(m.op)) / (m.flops_per_clk_per_sm / 4);
        if (pt["kind"] == "latency")
          CHECK(pt["latency_cycles"].get<double>() == Approx(std::max(m.latency_cycles, issue)).epsilon(0.02));
        else
          CHECK(pt["flops_per_clk_per_sm"].get<double>() == Approx(m.flops_per_clk_per_sm).epsilon(0.02));
        CHECK(pt["implementation"] == (m.emulated ? pt["implementation"].get<std::string>() : "native"));
        ++checked;
      }
    }
    CHECK(checked > 0);
  }
}

TEST_CASE("tensor/mma refuses bad parameters in one line", "[tensor]") {
  auto dev = sim::make_sim_device(sim::find_preset("h100"));
  CHECK_THROWS_WITH(run(*dev, {{"block-threads", "48"}}), Catch::Contains("--block-threads"));
  CHECK_THROWS_WITH(run(*dev, {{"blocks-per-sm", "0"}}), Catch::Contains("--blocks-per-sm"));
  CHECK_THROWS_AS(probes::parse_mma_op("mma_m1n1k1_f16_f32"), Error);
}

TEST_CASE("tensor/mma in the machine model: compute.ops per form with its zero-operand run, % of the "
          "dense peak for native forms only, skipped forms named", "[tensor][model]") {
  for (const char* name : {"h100-sxm", "a100", "v100"}) {
    INFO(name);
    const sim::Preset& preset = sim::find_preset(name);
    auto dev = sim::make_sim_device(preset);
    const auto rec = run(*dev, {{"iterations", "64"}});
    REQUIRE(rec["status"] == "ok");
    const auto model = analysis::build_machine_model({rec}, {"tensor_mma.json"});
    REQUIRE(model.contains("compute"));
    const auto& compute = model["compute"];
    CHECK_FALSE(compute.contains("errors"));
    const auto sheet = analysis::datasheet_for(preset.info.name);
    REQUIRE(sheet);
    for (const auto& m : costs_of(preset)) {
      if (m.op.rfind("mma_", 0) != 0) continue;
      INFO(m.op);
      REQUIRE(compute["ops"].contains(m.op));
      const auto& o = compute["ops"][m.op];
      CHECK(o["path"] == "mma.sync");
      CHECK(o["flops_per_clk_per_sm"].get<double>() == Approx(m.flops_per_clk_per_sm).epsilon(0.02));
      CHECK(o["zeros"]["flops_per_clk_per_sm"].get<double>() == Approx(m.flops_per_clk_per_sm).epsilon(0.02));
      CHECK(o["zeros"]["clock_mhz"].get<double>() > 0);
      const double flops_per_s = m.flops_per_clk_per_sm * preset.info.sm_count * preset.info.rated_sm_clock_mhz * 1e6;
      CHECK(o["flops_per_s"].get<double>() == Approx(flops_per_s).epsilon(0.02));
      CHECK(o["self_check"]["passed"] == true);
      const double peak = analysis::tensor_peak_flops_per_s(*sheet, o["precision"].get<std::string>());
      if (m.emulated || peak == 0) {
        CHECK_FALSE(o.contains("percent_of_peak"));
        CHECK(o["implementation"].get<std::string>() != "native");
      } else {
        CHECK(o["implementation"] == "native");
        // Per SM per clock, against the figure at its tensor spec clock (analysis/datasheet.hpp).
        const double clock = analysis::tensor_clock(*sheet, o["precision"].get<std::string>()).mhz;
        REQUIRE(clock > 0);
        CHECK(o["percent_of_peak"].get<double>() ==
              Approx(100.0 * m.flops_per_clk_per_sm / (peak / (sheet->sm_count * clock * 1e6))).epsilon(0.02));
      }
    }
    // The A100 lacks fp8 and the sm_90 f64 shape: named with the reason.
    if (std::string(name) == "a100") {
      CHECK(compute["skipped"].contains("mma_m16n8k32_e4m3_f32"));
      CHECK(compute["skipped"].contains("mma_m16n8k16_f64_f64"));
    }
  }
}

TEST_CASE("mma kind::f8f6f4 fp6/fp4 (sm_120a): 8-bit containers with the element in bits 2 and up, "
          "a round trip through the fragments, a misplaced container caught by the self-check",
          "[tensor]") {
  for (MmaOp op : {MmaOp::m16n8k32_e2m1_f32, MmaOp::m16n8k32_e3m2_f32, MmaOp::m16n8k32_e2m3_f32}) {
    const auto& info = probes::mma_info(op);
    INFO(info.name);
    CHECK(std::string(info.arch_target) == "sm_120a");
    CHECK(probes::mma_container_shift(op) == 2);
    const TileElem in = probes::mma_input_elem(op);
    const uint32_t element_bits = in == TileElem::e2m1 ? 4 : 6;
    const probes::MmaTile tile = probes::mma_tile(op, Operands::random);
    // Every container: the element in bits 2..(2 + bits - 1), the rest zero; decoding the
    // containers gives back A and B (the packing round trip).
    uint32_t nonzero = 0;
    for (uint32_t lane = 0; lane < 32; ++lane)
      for (uint32_t i = 0; i < probes::mma_elements_per_lane(op, MmaOperand::a); ++i) {
        const uint64_t container = probes::tensor::tile_get(tile.lanes[lane].a, i, 8);
        CHECK((container & ~(((uint64_t{1} << element_bits) - 1) << 2)) == 0);
        uint32_t r, c;
        probes::mma_fragment_coords(op, MmaOperand::a, lane, i, r, c);
        CHECK(probes::tensor::tile_decode(in, container >> 2) == tile.a[size_t(r) * info.k + c]);
        nonzero += tile.a[size_t(r) * info.k + c] != 0;
      }
    CHECK(nonzero > 256);
    for (uint32_t lane = 0; lane < 32; ++lane)
      for (uint32_t i = 0; i < probes::mma_elements_per_lane(op, MmaOperand::b); ++i) {
        uint32_t r, c;
        probes::mma_fragment_coords(op, MmaOperand::b, lane, i, r, c);
        const double b = tile.b[size_t(r) * info.n + c];
        CHECK(probes::tensor::tile_decode(in, probes::tensor::tile_get(tile.lanes[lane].b, i, 8) >> 2) == b);
        CHECK(probes::tensor::tile_decode(in, probes::tensor::tile_get(tile.lanes[lane].b_neg, i, 8) >> 2) == -b);
      }
    // The reference: products of these formats are exact in f32; the f32-accumulate tolerance.
    CHECK(probes::tensor::tile_tolerance_rel(in, TileElem::f32) == 1e-3);
    const std::vector<uint32_t> good = probes::mma_emulate_tile(op, tile.lanes);
    CHECK(probes::mma_check_tile(op, tile, good).passed);
    // A GPU that reads the element from the container's low bits instead: it sees the containers
    // shifted down by 2, computes another product, and the first-run self-check names the form.
    std::vector<probes::tensor::MmaLane> misread = tile.lanes;
    for (auto& l : misread) {
      for (auto& w : l.a) w = (w >> 2) & 0x3f3f3f3fu;
      for (auto& w : l.b) w = (w >> 2) & 0x3f3f3f3fu;
    }
    CHECK_THROWS_WITH(probes::mma_check_tile(op, tile, probes::mma_emulate_tile(op, misread)),
                      Catch::Contains("self-check failed") && Catch::Contains(info.name));
  }
}

TEST_CASE("mma kind::f8f6f4 forms: native QMMA on sm_120, refused elsewhere (sm_120a code only)",
          "[tensor]") {
  CHECK(probes::mma_implementation(MmaOp::m16n8k32_e2m1_f32, 120) == "native");
  CHECK(probes::mma_sass_per_op(MmaOp::m16n8k32_e2m1_f32, 120) == "1 QMMA.16832.F32.E2M1.E2M1");
  CHECK(probes::mma_sass_per_op(MmaOp::m16n8k32_e3m2_f32, 120) == "1 QMMA.16832.F32.E3M2.E3M2");
  CHECK(probes::mma_sass_per_op(MmaOp::m16n8k32_e2m3_f32, 120) == "1 QMMA.16832.F32.E2M3.E2M3");
  CHECK(probes::mma_container_shift(MmaOp::m16n8k32_e4m3_f32) == 0);
  for (const char* name : {"rtx5090", "b200", "h100"}) {
    INFO(name);
    const sim::Preset& preset = sim::find_preset(name);
    probes::MmaSetup s;
    s.op = MmaOp::m16n8k32_e2m1_f32;
    if (preset.info.cc.sm() == 120)
      CHECK_NOTHROW(probes::check_mma_fits(s, preset.info));
    else
      CHECK_THROWS_AS(probes::check_mma_fits(s, preset.info), Skip);
  }
  DeviceInfo spark = sim::find_preset("rtx5090").info;
  spark.cc.minor = 1;  // sm_121: an sm_120a cubin does not run there
  probes::MmaSetup s;
  s.op = MmaOp::m16n8k32_e3m2_f32;
  CHECK_THROWS_WITH(probes::check_mma_fits(s, spark), Catch::Contains("sm_120a only"));
}

TEST_CASE("tensor/mma on sim:rtx5090: the kind::f8f6f4 forms self-checked and measured at the "
          "preset's rates", "[tensor]") {
  const sim::Preset& preset = sim::find_preset("rtx5090");
  auto dev = sim::make_sim_device(preset);
  const auto rec = run(*dev, {{"iterations", "64"}, {"op", "mma_m16n8k32_e2m1_f32"}});
  REQUIRE(rec["status"] == "ok");
  int throughput = 0;
  for (const auto& p : rec["series"]) {
    INFO(p.dump());
    REQUIRE_FALSE(p.contains("skipped"));
    CHECK(p["implementation"] == "native");
    CHECK(p["self_check"]["passed"] == true);
    if (p["kind"] == "throughput") {
      // FIGURES §5a: 375.9 TFLOPS on 156 SMs at 2.30 GHz.
      CHECK(p["flops_per_clk_per_sm"].get<double>() == Approx(375.9e12 / (156 * 2.30e9)).epsilon(0.02));
      ++throughput;
    }
  }
  CHECK(throughput > 0);
}

TEST_CASE("block-scale formats: ue8m0 and ue4m3 decode, ue4m3 encodes", "[tensor]") {
  using namespace probes::tensor;
  CHECK(ue8m0_decode(0x7f) == 1.0);
  CHECK(ue8m0_decode(0x80) == 2.0);
  CHECK(ue8m0_decode(0x7d) == 0.25);
  CHECK(std::isnan(ue8m0_decode(0xff)));
  CHECK(ue8m0_decode(0x80808080u) == 2.0);          // the word's low byte
  CHECK(ue4m3_decode(0x38) == 1.0);                 // exponent 7 (bias 7), mantissa 0
  CHECK(ue4m3_decode(0x3a) == 1.25);
  CHECK(ue4m3_decode(0xb8) == 1.0);                 // bit 7 is no sign
  CHECK(ue4m3_decode(0x7e) == 448.0);               // the largest
  CHECK(ue4m3_decode(0x01) == std::ldexp(1.0, -9));  // the smallest subnormal
  CHECK(std::isnan(ue4m3_decode(0x7f)));
  CHECK(ue4m3_encode(1.25) == 0x3a);
  CHECK(ue4m3_encode(0.625) == 0x32);              // 1.25 x 2^-1
  CHECK(ue4m3_encode(1000.0) == 0x7e);              // saturates
  CHECK_THROWS_AS(ue4m3_encode(-1.0), Error);
}

namespace {

// The block-scaled forms: op, K elements per scale block, scale format, records' precision, SASS.
struct ScaledForm {
  MmaOp op;
  uint32_t block;
  const char* scale;
  const char* precision;
  const char* sass;
};
const ScaledForm kScaled[] = {
    {MmaOp::m16n8k32_mxf8f6f4_e4m3_f32, 32, "ue8m0", "mxf8_e4m3", "1 QMMA.SF.16832.F32.E4M3.E4M3.E8"},
    {MmaOp::m16n8k32_mxf8f6f4_e5m2_f32, 32, "ue8m0", "mxf8_e5m2", "1 QMMA.SF.16832.F32.E5M2.E5M2.E8"},
    {MmaOp::m16n8k32_mxf8f6f4_e3m2_f32, 32, "ue8m0", "mxf6_e3m2", "1 QMMA.SF.16832.F32.E3M2.E3M2.E8"},
    {MmaOp::m16n8k64_mxf4_e2m1_f32, 32, "ue8m0", "mxf4", "1 OMMA.SF.16864.F32.E2M1.E2M1.E8"},
    {MmaOp::m16n8k64_mxf4nvf4_e2m1_f32, 32, "ue8m0", "mxf4", "1 OMMA.SF.16864.F32.E2M1.E2M1.E8"},
    {MmaOp::m16n8k64_mxf4nvf4_ue4m3_e2m1_f32, 16, "ue4m3", "nvf4", "1 OMMA.SF.16864.F32.E2M1.E2M1.UE4M3.4X"},
};

// The scale byte the PTX ISA's rule (9.7.14.3) puts in charge of row r of A / column c of B in K
// block kb, written out again here from the rule's words: A's thread pair is 2 thread-id-a and
// 2 thread-id-a + 1 of quad r % 8 (the pair's second thread for rows 8-15), B's thread is
// thread-id-b of quad c; the byte is byte-id + kb.
double by_rule(const probes::tensor::MmaBlockScale& s, const std::vector<probes::tensor::MmaLane>& lanes,
               bool a, uint32_t index, uint32_t kb) {
  const uint32_t lane = a ? (index % 8) * 4 + s.thread_a * 2 + (index >= 8 ? 1 : 0) : index * 4 + s.thread_b;
  const uint32_t word = a ? lanes[lane].scale_a : lanes[lane].scale_b;
  const uint32_t code = (word >> (8 * ((a ? s.byte_a : s.byte_b) + kb))) & 0xff;
  return s.ue4m3 ? probes::tensor::ue4m3_decode(code) : probes::tensor::ue8m0_decode(code);
}

}  // namespace

TEST_CASE("mma block-scaled kinds (sm_120a): a scale per row of A, column of B and K block from the "
          "lanes and bytes the selectors pick, and swapped rows' scales or a wrong selector fail the "
          "self-check",
          "[tensor]") {
  CHECK_FALSE(probes::mma_block_scaled(MmaOp::m16n8k32_e4m3_f32));
  CHECK(probes::mma_precision(MmaOp::m16n8k32_e2m1_f32) == "e2m1");  // plain fp4: not an FP4 peak's
  CHECK(probes::mma_precision(MmaOp::m16n8k32_e4m3_f32) == "e4m3");
  for (const ScaledForm& f : kScaled) {
    const MmaOp op = f.op;
    const auto& info = probes::mma_info(op);
    INFO(info.name);
    const probes::tensor::MmaBlockScale sel = probes::tensor::mma_block_scale_of(op);
    CHECK(probes::mma_block_scaled(op));
    CHECK(std::string(info.arch_target) == "sm_120a");
    CHECK(probes::mma_precision(op) == f.precision);
    CHECK(std::string(probes::mma_scale_format(op)) == f.scale);
    CHECK(probes::mma_sass_per_op(op, 120) == f.sass);
    CHECK(probes::mma_implementation(op, 120) == "native");
    CHECK(info.k / sel.vec == f.block);
    CHECK(sel.ue4m3 == (std::string(f.scale) == "ue4m3"));
    // Non-trivial selectors wherever PTX ISA Table 37 allows one: thread-id-a 1, thread-id-b not 0,
    // byte-id not 0 for 1X (any byte) and 2X (the upper pair); 4X must use byte 0.
    CHECK(sel.thread_a == 1);
    CHECK(sel.thread_b != 0);
    CHECK(sel.byte_a + sel.vec <= 4);
    CHECK(sel.byte_b + sel.vec <= 4);
    CHECK((sel.vec == 4 ? sel.byte_a == 0 && sel.byte_b == 0 : sel.byte_a != 0 && sel.byte_b != 0));
    if (sel.vec == 2) CHECK((sel.byte_a == 2 && sel.byte_b == 2));

    const probes::MmaTile tile = probes::mma_tile(op, Operands::random);
    const TileElem in = probes::mma_input_elem(op);
    const uint32_t bits = info.k == 64 ? 4 : 8, shift = probes::mma_container_shift(op);
    CHECK(shift == (in == TileElem::e3m2 ? 2u : 0u));
    // The reference's A and B: each element's code times the scale the rule gives its row/column
    // and K block, and those scales differ between neighbouring rows, columns and blocks.
    std::set<double> scales_a, scales_b;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      for (uint32_t i = 0; i < probes::mma_elements_per_lane(op, MmaOperand::a); ++i) {
        uint32_t r, c;
        probes::mma_fragment_coords(op, MmaOperand::a, lane, i, r, c);
        const uint64_t code = probes::tensor::tile_get(tile.lanes[lane].a, i, bits) >> shift;
        const double s = by_rule(sel, tile.lanes, true, r, c / f.block);
        scales_a.insert(s);
        CHECK(probes::tensor::tile_decode(in, code) * s == tile.a[size_t(r) * info.k + c]);
      }
      for (uint32_t i = 0; i < probes::mma_elements_per_lane(op, MmaOperand::b); ++i) {
        uint32_t r, c;
        probes::mma_fragment_coords(op, MmaOperand::b, lane, i, r, c);
        const uint64_t code = probes::tensor::tile_get(tile.lanes[lane].b, i, bits) >> shift;
        const double s = by_rule(sel, tile.lanes, false, c, r / f.block);
        scales_b.insert(s);
        CHECK(probes::tensor::tile_decode(in, code) * s == tile.b[size_t(r) * info.n + c]);
      }
    }
    CHECK(scales_a.size() >= 5);
    CHECK(scales_b.size() >= 5);
    CHECK(by_rule(sel, tile.lanes, true, 0, 0) != by_rule(sel, tile.lanes, true, 1, 0));
    CHECK(by_rule(sel, tile.lanes, true, 0, 0) != by_rule(sel, tile.lanes, true, 8, 0));
    // Every byte no selector reads is a decoy (2^6 or 256 for A, 2^-6 for B), e.g. all of lane 0's
    // A word (thread-id-a 1 reads lanes 2 and 3 of each quad).
    const double decoy_a = sel.ue4m3 ? 256.0 : 64.0;
    for (uint32_t byte = 0; byte < 4; ++byte)
      CHECK((sel.ue4m3 ? probes::tensor::ue4m3_decode(tile.lanes[0].scale_a >> 8 * byte)
                       : probes::tensor::ue8m0_decode(tile.lanes[0].scale_a >> 8 * byte)) == decoy_a);
    CHECK(scales_a.count(decoy_a) == 0);

    // The host's tile passes; D(0,0) by hand from the codes and the rule's scales.
    const std::vector<uint32_t> good = probes::mma_emulate_tile(op, tile.lanes);
    CHECK(probes::mma_check_tile(op, tile, good).passed);
    const std::vector<double> d = probes::mma_unpack_d(op, good);
    double dot = tile.c[0];
    for (uint32_t k = 0; k < info.k; ++k)
      dot += tile.a[k] * tile.b[size_t(k) * info.n];
    CHECK(d[0] == Approx(dot).epsilon(1e-6));

    auto fails = [&](const std::vector<probes::tensor::MmaLane>& lanes, const probes::tensor::MmaBlockScale& read) {
      CHECK_THROWS_WITH(probes::mma_check_tile(op, tile, probes::mma_emulate_tile(op, lanes, read)),
                        Catch::Contains("self-check failed") && Catch::Contains(info.name));
    };
    // Rows 0 and 1 of A trade their scales (block 0): lanes 2 and 6, the selected byte.
    std::vector<probes::tensor::MmaLane> swapped = tile.lanes;
    const uint32_t shift_a = 8 * sel.byte_a, mask_a = 0xffu << shift_a;
    const uint32_t row0 = swapped[2].scale_a & mask_a, row1 = swapped[6].scale_a & mask_a;
    REQUIRE(row0 != row1);
    swapped[2].scale_a = (swapped[2].scale_a & ~mask_a) | row1;
    swapped[6].scale_a = (swapped[6].scale_a & ~mask_a) | row0;
    fails(swapped, sel);
    // Columns 0 and 1 of B likewise (lanes thread-id-b and 4 + thread-id-b).
    swapped = tile.lanes;
    std::swap(swapped[sel.thread_b].scale_b, swapped[4 + sel.thread_b].scale_b);
    fails(swapped, sel);
    // A GPU reading another thread or byte than the selectors say, or ignoring the scales.
    probes::tensor::MmaBlockScale wrong = sel;
    wrong.thread_a = 0;
    fails(tile.lanes, wrong);
    wrong = sel;
    wrong.thread_b = 0;
    fails(tile.lanes, wrong);
    if (sel.vec < 4) {
      wrong = sel;
      wrong.byte_a = 0;
      fails(tile.lanes, wrong);
      wrong = sel;
      wrong.byte_b = 0;
      fails(tile.lanes, wrong);
    }
    wrong = sel;
    wrong.vec = 0;  // every scale 1
    fails(tile.lanes, wrong);
    if (sel.vec > 1) {  // one scale for the whole row: the first block's
      wrong = sel;
      wrong.vec = 1;
      fails(tile.lanes, wrong);
    }
  }
}

TEST_CASE("tensor/mma on sim:rtx5090: the block-scaled forms self-checked and measured at the "
          "preset's rates under their own precision, refused off sm_120",
          "[tensor]") {
  const sim::Preset& preset = sim::find_preset("rtx5090");
  auto dev = sim::make_sim_device(preset);
  for (const ScaledForm& f : kScaled) {
    const std::string op = probes::mma_info(f.op).name;
    INFO(op);
    const auto rec = run(*dev, {{"iterations", "64"}, {"op", op}});
    REQUIRE(rec["status"] == "ok");
    // FIGURES §5a: FP8 287.5 / FP16 143.2 x 399; CUTLASS nvfp4 651.6 TF on 156 SMs at 2.30 GHz.
    const double expected = probes::mma_info(f.op).k == 64 ? 651.6e12 / (156 * 2.30e9) : 399 * 287.5 / 143.2;
    int throughput = 0;
    for (const auto& p : rec["series"]) {
      INFO(p.dump());
      REQUIRE_FALSE(p.contains("skipped"));
      CHECK(p["self_check"]["passed"] == true);
      CHECK(p["precision"] == f.precision);
      CHECK(p["block_scale"]["scale_format"] == f.scale);
      CHECK(p["block_scale"]["block_elements"] == f.block);
      CHECK(p["block_scale"]["input"] == probes::mma_info(f.op).input);
      if (p["kind"] == "throughput") {
        CHECK(p["flops_per_clk_per_sm"].get<double>() == Approx(expected).epsilon(0.02));
        ++throughput;
      }
    }
    CHECK(throughput > 0);
    probes::MmaSetup s;
    s.op = f.op;
    CHECK_THROWS_AS(probes::check_mma_fits(s, sim::find_preset("h100").info), Skip);
  }
}

TEST_CASE("tensor/mma block-scaled precisions in the model and roofline (sim:rtx5090): the FP4 "
          "datasheet peak goes to mxf4/nvf4, not plain e2m1, and none merges with a plain form",
          "[tensor][model][roofline]") {
  const sim::Preset& preset = sim::find_preset("rtx5090");
  auto dev = sim::make_sim_device(preset);
  std::vector<nlohmann::json> records;
  std::vector<std::string> files;
  for (const char* op : {"mma_m16n8k32_e2m1_f32", "mma_m16n8k32_e4m3_f32", "mma_m16n8k32_mxf8f6f4_e4m3_f32",
                         "mma_m16n8k64_mxf4nvf4_e2m1_f32", "mma_m16n8k64_mxf4nvf4_ue4m3_e2m1_f32"}) {
    records.push_back(run(*dev, {{"iterations", "64"}, {"op", op}, {"operands", "random"}}));
    REQUIRE(records.back()["status"] == "ok");
    files.push_back(std::string(op) + ".json");
  }
  const auto model = analysis::build_machine_model(records, files);
  const auto& ops = model["compute"]["ops"];
  INFO(ops.dump(1).substr(0, 3000));
  const auto sheet = analysis::datasheet_for(preset.info.name);
  REQUIRE(sheet);
  CHECK(ops["mma_m16n8k32_e2m1_f32"]["precision"] == "e2m1");
  CHECK_FALSE(ops["mma_m16n8k32_e2m1_f32"].contains("percent_of_peak"));  // QMMA fp4 is no FP4 peak
  CHECK(ops["mma_m16n8k64_mxf4nvf4_ue4m3_e2m1_f32"]["precision"] == "nvf4");
  CHECK(ops["mma_m16n8k64_mxf4nvf4_ue4m3_e2m1_f32"]["peak"]["flops_per_s"] == 1676e12);
  CHECK(ops["mma_m16n8k64_mxf4nvf4_e2m1_f32"]["peak"]["flops_per_s"] == 1676e12);
  CHECK(ops["mma_m16n8k64_mxf4nvf4_ue4m3_e2m1_f32"]["block_scale"]["scale_format"] == "ue4m3");
  CHECK(ops["mma_m16n8k32_mxf8f6f4_e4m3_f32"]["precision"] == "mxf8_e4m3");
  const auto& compute = model["roofline"]["compute"];
  CHECK(compute["e2m1"]["op"] == "mma_m16n8k32_e2m1_f32");
  CHECK(compute["nvf4"]["op"] == "mma_m16n8k64_mxf4nvf4_ue4m3_e2m1_f32");
  CHECK(compute["mxf4"]["op"] == "mma_m16n8k64_mxf4nvf4_e2m1_f32");
  CHECK(compute["e4m3"]["op"] == "mma_m16n8k32_e4m3_f32");
  CHECK(compute["mxf8_e4m3"]["op"] == "mma_m16n8k32_mxf8f6f4_e4m3_f32");
  CHECK(compute["nvf4"]["flops_per_s"].get<double>() > 1.5 * compute["e2m1"]["flops_per_s"].get<double>());
}

}  // namespace GPUPROBE_TEST_FILE
