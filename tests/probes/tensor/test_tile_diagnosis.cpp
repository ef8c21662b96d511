// probes/tensor/tile_diagnosis.cpp: a tile with a planted layout error fails the check, and the
// search names that error; a tile without one is not diagnosed.
#include <catch2/catch.hpp>

#include <random>

#include "harness/self_check.hpp"
#include "probes/tensor/tile_diagnosis.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe::probes::tensor;

namespace {

struct Operands {
  std::vector<double> a, b, c;
};

// Random operands of the input format (and C of the accumulator's), exactly representable.
Operands random_operands(const TileShape& s, TileElem input, TileElem accumulator, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Operands o;
  for (size_t i = 0; i < size_t(s.m) * s.k; ++i) o.a.push_back(tile_decode(input, tile_random(input, rng)));
  for (size_t i = 0; i < size_t(s.k) * s.n; ++i) o.b.push_back(tile_decode(input, tile_random(input, rng)));
  for (size_t i = 0; i < size_t(s.m) * s.n; ++i)
    o.c.push_back(tile_decode(accumulator, tile_random(accumulator, rng)));
  return o;
}

// The tile as the accumulator format holds it.
std::vector<double> stored(const std::vector<double>& d, TileElem accumulator) {
  std::vector<double> out;
  for (double v : d) out.push_back(tile_decode(accumulator, tile_encode(accumulator, v)));
  return out;
}

// wgmma's and tcgen05's no-swizzle K-major layout: both operands through descriptors.
const TileLayout kDescriptors{true, true, 128, 256};

}  // namespace

TEST_CASE("tile diagnosis: each planted layout error is named by the search", "[tensor][diagnosis]") {
  const TileShape s{16, 16, 16};
  struct Case {
    TileElem input, accumulator;
  };
  for (const Case& pair : {Case{TileElem::f16, TileElem::f32}, Case{TileElem::bf16, TileElem::f16}}) {
    const Operands o = random_operands(s, pair.input, pair.accumulator, 7);
    for (const std::string& error : tile_errors()) {
      if (error == "one_element") continue;
      if (!tile_error_not_applicable(error, s, pair.input, pair.accumulator, kDescriptors).empty()) continue;
      INFO(error << " " << tile_elem_name(pair.input) << "->" << tile_elem_name(pair.accumulator));
      const std::vector<double> got = stored(
          tile_with_error(error, s, o.a, o.b, o.c, pair.input, pair.accumulator, kDescriptors),
          pair.accumulator);
      const TileCheck check = check_tile(s, o.a, o.b, o.c, got, pair.input, pair.accumulator, kDescriptors);
      REQUIRE_FALSE(check.passed);
      CHECK(check.diagnosis["matches"] == error);
      CHECK(check.diagnosis["mismatches"].get<size_t>() > 0);
      CHECK(check.diagnosis["mismatch_map"].size() == s.m);
      CHECK(check.diagnosis["got"].size() == s.m);
      CHECK(check.diagnosis["want"][0].size() == s.n);
    }
  }
}

TEST_CASE("tile diagnosis: every error the search names applies to some tile the tests plant",
          "[tensor][diagnosis]") {
  // half16_d needs a 16-bit accumulator, the others apply to f16 -> f32 with descriptors.
  const TileShape s{16, 16, 16};
  for (const std::string& error : tile_errors()) {
    INFO(error);
    const bool f32 = tile_error_not_applicable(error, s, TileElem::f16, TileElem::f32, kDescriptors).empty();
    const bool f16 = tile_error_not_applicable(error, s, TileElem::bf16, TileElem::f16, kDescriptors).empty();
    CHECK((f32 || f16));
  }
  CHECK_THROWS_WITH(tile_error_not_applicable("sideways", s, TileElem::f16, TileElem::f32, {}),
                    Catch::Contains("unknown tile error 'sideways'"));
}

TEST_CASE("tile diagnosis: registers have no LBO or SBO, and an unexplained error matches nothing",
          "[tensor][diagnosis]") {
  const TileShape s{16, 8, 16};
  const Operands o = random_operands(s, TileElem::f16, TileElem::f32, 3);
  const std::vector<double> got = stored(
      tile_with_error("one_element", s, o.a, o.b, o.c, TileElem::f16, TileElem::f32, {}), TileElem::f32);
  const TileCheck check = check_tile(s, o.a, o.b, o.c, got, TileElem::f16, TileElem::f32);
  REQUIRE_FALSE(check.passed);
  const auto& d = check.diagnosis;
  CHECK(d["matches"].is_null());
  CHECK(d["mismatches"] == 1);
  CHECK(d["mismatch_map"][15] == ".......X");
  for (const auto& tried : d["searched"])
    if (tried["error"] == "lbo_sbo_a") CHECK(tried["applies"] == false);
  // A correct tile: passed, and no diagnosis.
  const TileCheck good = check_tile(s, o.a, o.b, o.c, stored(tile_reference(s, o.a, o.b, o.c), TileElem::f32),
                                    TileElem::f16, TileElem::f32);
  CHECK(good.passed);
  CHECK(good.diagnosis.is_null());
}

TEST_CASE("tile diagnosis: the point's evidence is small, the sidecar holds the tiles and raw words",
          "[tensor][diagnosis]") {
  const TileShape s{16, 8, 16};
  const Operands o = random_operands(s, TileElem::f16, TileElem::f32, 5);
  const std::vector<double> got = stored(
      tile_with_error("rows_r_r8", s, o.a, o.b, o.c, TileElem::f16, TileElem::f32, {}), TileElem::f32);
  const TileCheck check = check_tile(s, o.a, o.b, o.c, got, TileElem::f16, TileElem::f32);
  try {
    throw_tile_mismatch("mma_m16n8k16_f16_f32 tile: " + check.why, check, {0x3f800000u, 1u});
    FAIL("no throw");
  } catch (const gpuprobe::SelfCheckFailed& e) {
    CHECK(std::string(e.what()).rfind("self-check failed: mma_m16n8k16_f16_f32 tile: D[", 0) == 0);
    CHECK(e.evidence()["matches"] == "rows_r_r8");
    CHECK(e.evidence()["elements"] == 128);
    CHECK_FALSE(e.evidence().contains("got"));
    CHECK(e.detail()["raw_words"] == nlohmann::json{"0x3f800000", "0x00000001"});
    CHECK(e.detail()["got"].size() == 16);
  }
}

}  // namespace GPUPROBE_TEST_FILE
