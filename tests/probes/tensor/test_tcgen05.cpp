// The tensor family's tcgen05 probe (probes/tensor/tcgen05.cpp) on the simulated device and its
// host-side contract: the instruction and shared-memory descriptors (bit layout of the PTX ISA),
// the operand images (no-swizzle K-major, the cta_group::2 split of A and B between the CTAs, A's
// TMEM words, fp6/fp4 packed 16 to each 16 bytes), the 16-bit D packed two per word, the
// self-check (a correct tile passes, a corrupted or misplaced one, or one wrong fp6/fp4 operand
// element, fails the measurement loudly, before any timing), the cta_group::2 accounting per SM,
// the skip on devices other than sm_100, and tensor/tcgen05 recovering a preset's tcgen05 table
// within 2%.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "analysis/compute_model.hpp"
#include "analysis/datasheet.hpp"
#include "analysis/machine_model.hpp"
#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/tensor/tensor_point.hpp"
#include "probes/tensor/tcgen05.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using probes::Kind;
using probes::Tcgen05Op;
using probes::tensor::Operands;
using probes::tensor::kTcgen05Ops;

namespace {

// The preset's tensor cost table (probes/tensor/tensor_costs.cpp).
const probes::tensor::TensorCosts& costs_of(const sim::Preset& p) {
  return *p.table<probes::tensor::TensorCosts>(probes::tensor::kCostTable);
}

nlohmann::json run(Device& device, std::map<std::string, std::string> params) {
  const ProbeSpec& probe = find_probe("tensor/tcgen05");
  std::ostringstream log;
  return run_probe(device, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
}

// A launcher standing in for a GPU: every CTA ran, the issuing ones (even CTAs of a pair) for
// iterations x 100 cycles (20 for the baseline) on SM (cta mod 4); a stored tile is the reference,
// passed through `corrupt` first.
probes::Tcgen05Launcher fake_gpu(std::function<void(std::vector<uint32_t>&)> corrupt) {
  return [corrupt](const probes::Tcgen05Launch& l) {
    const auto& info = probes::tcgen05_info(l.op);
    probes::Tcgen05LaunchOut o;
    o.units.resize(l.units);
    for (uint32_t c = 0; c < l.units; ++c) {
      auto& w = o.units[c];
      w.leader = c % info.cta_group == 0;
      w.start_cycles = w.leader ? 1000 : 0;
      w.end_cycles = w.leader ? 1000 + l.iterations * (l.baseline ? 20 : 100) : 0;
      w.smid = c % 4;
      w.ran = 1;
    }
    if (l.store) {
      o.tile = probes::tcgen05_tile_words(info, probes::tcgen05_reference(info, *l.operands));
      corrupt(o.tile);
    }
    return o;
  };
}

// A B200-like preset (compute capability 10.0) with a model of every tcgen05 op: rates and
// latencies made up for the closed loop (not figures).
sim::Preset test_preset() {
  sim::Preset p = sim::find_preset("h100");
  p.name = "tcgen05-test";
  p.info.cc = {10, 0};
  p.info.sm_count = 148;
  probes::tensor::TensorCosts costs;
  for (const auto& info : kTcgen05Ops)
    costs.push_back({info.name, 4096.0 * (info.k / 8) * (info.n == 64 ? 0.75 : 1.0),
                     150.0 + info.n / 4 - (info.ts ? 20 : 0), false, "test"});
  p.tables.put(probes::tensor::kCostTable, costs);
  return p;
}

}  // namespace

TEST_CASE("tcgen05 op table: names, shapes and FLOP per MMA", "[tensor][tcgen05]") {
  const auto& bf16 = probes::tcgen05_info(Tcgen05Op::bf16_f32_n256_ss_cg1);
  CHECK(std::string(bf16.name) == "tcgen05_m128n256k16_bf16_f32_ss_cg1");
  CHECK(probes::tcgen05_shape(bf16) == "m128n256k16");
  CHECK(probes::tensor::tcgen05_flops(bf16) == 2ull * 128 * 256 * 16);
  const auto& e4m3 = probes::tcgen05_info(Tcgen05Op::e4m3_f32_n64_ts_cg2);
  CHECK(std::string(e4m3.name) == "tcgen05_m256n64k32_e4m3_f32_ts_cg2");
  CHECK(std::string(e4m3.kind_name) == "f8f6f4");
  CHECK(probes::tensor::tcgen05_b_rows(e4m3) == 32);
  CHECK(probes::tcgen05_kernel_name(e4m3.op, Kind::throughput) ==
        "gpuprobe_tcgen05_e4m3_f32_n64_ts_cg2_thr");
  CHECK(probes::tcgen05_baseline_kernel(2) == "gpuprobe_tcgen05_baseline_cg2_lat");
  std::set<std::string> names;
  for (const auto& info : kTcgen05Ops) {
    names.insert(info.name);
    CHECK(probes::parse_tcgen05_op(info.name) == info.op);
    // Every input row is 32 bytes: K x element size (the packed fp4 of mxf4/nvf4: K 64 x 4 bits).
    const uint32_t elem_bits =
        probes::tensor::tcgen05_packed_fp4(info)
            ? probes::tensor::tcgen05_smem_element_bits(info)
            : probes::tensor::tile_elem_bits(probes::tcgen05_tile_elem(info.input));
    CHECK(info.k * elem_bits / 8 == 32);
    // TMEM: a power of two from 32 to 512 columns, holding the accumulators and TS's A.
    for (bool thr : {false, true}) {
      const uint32_t cols = probes::tensor::tcgen05_tmem_columns(info, thr);
      CHECK((cols & (cols - 1)) == 0);
      CHECK(cols >= 32);
      CHECK(cols <= 512);
      CHECK(cols >= probes::tensor::tcgen05_a_column(info, thr) + (info.ts ? 8 : 0) +
                        (probes::tensor::tcgen05_block_scaled(info) ? 12 : 0));
    }
  }
  CHECK(names.size() == probes::tensor::kTcgen05OpCount);
  CHECK(probes::tensor::kTcgen05OpCount == 74);
  // Block-scaled: kind::mxf8f6f4 e4m3, SS, cta_group::1, N 64 and 256.
  const auto& mx = probes::tcgen05_info(Tcgen05Op::mxf8_e4m3_f32_n256_ss_cg1);
  CHECK(std::string(mx.name) == "tcgen05_m128n256k32_mxf8_e4m3_f32_ss_cg1");
  CHECK(std::string(mx.kind_name) == "mxf8f6f4");
  CHECK(probes::tensor::tcgen05_block_scaled(mx));
  CHECK(probes::tcgen05_tile_elem(mx.input) == probes::tensor::TileElem::e4m3);
  CHECK(probes::tensor::tcgen05_tmem_columns(mx, true) == 512);
  CHECK(probes::tensor::tcgen05_tmem_columns(
            probes::tcgen05_info(Tcgen05Op::mxf8_e4m3_f32_n64_ss_cg1), true) == 256);
  CHECK(probes::tensor::tcgen05_scale_vec(mx) == 1);
  CHECK_FALSE(probes::tensor::tcgen05_packed_fp4(mx));
  // The block-scaled fp4 kinds: kind::mxf4 (scale_vec::2X, ue8m0) and kind::mxf4nvf4
  // (scale_vec::4X, ue4m3), e2m1 packed, K 64, SS, cta_group::1.
  const auto& mxf4 = probes::tcgen05_info(Tcgen05Op::mxf4_f32_n256_ss_cg1);
  const auto& nvf4 = probes::tcgen05_info(Tcgen05Op::nvf4_f32_n64_ss_cg1);
  CHECK(std::string(mxf4.name) == "tcgen05_m128n256k64_mxf4_f32_ss_cg1");
  CHECK(std::string(nvf4.name) == "tcgen05_m128n64k64_nvf4_f32_ss_cg1");
  CHECK(std::string(mxf4.kind_name) == "mxf4");
  CHECK(std::string(nvf4.kind_name) == "mxf4nvf4");
  CHECK(std::string(mxf4.input_name) == "mxf4");
  CHECK(std::string(nvf4.input_name) == "nvf4");
  CHECK(probes::tensor::tcgen05_flops(mxf4) == 2ull * 128 * 256 * 64);
  for (const auto* fp4 : {&mxf4, &nvf4}) {
    CHECK(probes::tensor::tcgen05_block_scaled(*fp4));
    CHECK(probes::tensor::tcgen05_packed_fp4(*fp4));
    CHECK(probes::tcgen05_tile_elem(fp4->input) == probes::tensor::TileElem::e2m1);
    CHECK(probes::tensor::tcgen05_smem_element_bits(*fp4) == 4);
    CHECK_FALSE(fp4->ts);
    CHECK(fp4->cta_group == 1);
  }
  CHECK(probes::tensor::tcgen05_scale_vec(mxf4) == 2);
  CHECK(probes::tensor::tcgen05_scale_vec(nvf4) == 4);
  CHECK_FALSE(probes::tensor::tcgen05_ue4m3_scales(mxf4));
  CHECK(probes::tensor::tcgen05_ue4m3_scales(nvf4));
  // fp6/fp4 (kind::f8f6f4, K 32) are SS only; f16 accumulate exists SS and TS.
  for (const auto& info : kTcgen05Ops) {
    const std::string in = info.input_name;
    if (in == "e2m1" || in == "e3m2" || in == "e2m3") {
      CHECK_FALSE(info.ts);
      CHECK(std::string(info.kind_name) == "f8f6f4");
      CHECK(info.k == 32);
    }
  }
  const auto& e2m1 = probes::tcgen05_info(Tcgen05Op::e2m1_f32_n256_ss_cg2);
  CHECK(std::string(e2m1.name) == "tcgen05_m256n256k32_e2m1_f32_ss_cg2");
  CHECK(probes::tensor::tcgen05_smem_element_bits(e2m1) == 4);
  using probes::tensor::tcgen05_smem_element_bits;
  CHECK(tcgen05_smem_element_bits(probes::tcgen05_info(Tcgen05Op::e3m2_f32_n64_ss_cg1)) == 6);
  CHECK(tcgen05_smem_element_bits(probes::tcgen05_info(Tcgen05Op::tf32_f32_n64_ss_cg1)) == 32);
  const auto& h = probes::tcgen05_info(Tcgen05Op::f16_f16_n64_ts_cg1);
  CHECK(std::string(h.name) == "tcgen05_m128n64k16_f16_f16_ts_cg1");
  CHECK(probes::tensor::tcgen05_tile_row_words(h) == 32);
  const auto& f = probes::tcgen05_info(Tcgen05Op::f16_f32_n64_ts_cg1);
  CHECK(probes::tensor::tcgen05_tile_row_words(f) == 64);
}

TEST_CASE("tcgen05 descriptors: the PTX ISA's instruction and shared-memory descriptor bits",
          "[tensor][tcgen05]") {
  using probes::tensor::tcgen05_idesc;
  // bf16 x bf16 -> f32, M 128, N 256: D format 1 at bit 4, A/B format 1 at bits 7 and 10,
  // N >> 3 = 32 at bit 17, M >> 4 = 8 at bit 24.
  CHECK(tcgen05_idesc(probes::tcgen05_info(Tcgen05Op::bf16_f32_n256_ss_cg1)) ==
        ((1u << 4) | (1u << 7) | (1u << 10) | (32u << 17) | (8u << 24)));
  // f16, N 64, M 256 (cta_group::2): formats 0, M >> 4 = 16.
  CHECK(tcgen05_idesc(probes::tcgen05_info(Tcgen05Op::f16_f32_n64_ts_cg2)) ==
        ((1u << 4) | (8u << 17) | (16u << 24)));
  // tf32: format 2; s8 into s32: D format 2, A/B format 1 (signed); e4m3: format 0.
  CHECK(tcgen05_idesc(probes::tcgen05_info(Tcgen05Op::tf32_f32_n64_ss_cg1)) ==
        ((1u << 4) | (2u << 7) | (2u << 10) | (8u << 17) | (8u << 24)));
  CHECK(tcgen05_idesc(probes::tcgen05_info(Tcgen05Op::s8_s32_n256_ss_cg1)) ==
        ((2u << 4) | (1u << 7) | (1u << 10) | (32u << 17) | (8u << 24)));
  CHECK(tcgen05_idesc(probes::tcgen05_info(Tcgen05Op::e4m3_f32_n256_ss_cg1)) ==
        ((1u << 4) | (32u << 17) | (8u << 24)));
  // e5m2: format 1 for A and B.
  CHECK(tcgen05_idesc(probes::tcgen05_info(Tcgen05Op::e5m2_f32_n64_ts_cg1)) ==
        ((1u << 4) | (1u << 7) | (1u << 10) | (8u << 17) | (8u << 24)));
  // fp6/fp4 (kind::f8f6f4): E2M3 3, E3M2 4, E2M1 5.
  CHECK(tcgen05_idesc(probes::tcgen05_info(Tcgen05Op::e2m3_f32_n64_ss_cg1)) ==
        ((1u << 4) | (3u << 7) | (3u << 10) | (8u << 17) | (8u << 24)));
  CHECK(tcgen05_idesc(probes::tcgen05_info(Tcgen05Op::e3m2_f32_n256_ss_cg1)) ==
        ((1u << 4) | (4u << 7) | (4u << 10) | (32u << 17) | (8u << 24)));
  CHECK(tcgen05_idesc(probes::tcgen05_info(Tcgen05Op::e2m1_f32_n256_ss_cg2)) ==
        ((1u << 4) | (5u << 7) | (5u << 10) | (32u << 17) | (16u << 24)));
  // Block-scaled (the second descriptor table): B scale id 0 at bit 4, E4M3 0, N >> 3 at 17,
  // UE8M0 (1) at bit 23, M >> 4 at 24, A scale id 0 at bit 29, K 32 (0) at bit 31.
  CHECK(tcgen05_idesc(probes::tcgen05_info(Tcgen05Op::mxf8_e4m3_f32_n64_ss_cg1)) ==
        ((8u << 17) | (1u << 23) | (8u << 24)));
  // mxf4 / mxf4nvf4: E2M1 1 at bits 7 and 10; scale format UE8M0 (1) for mxf4, UE4M3 (0) for
  // mxf4nvf4; K 64 dense (0) at bit 31.
  CHECK(tcgen05_idesc(probes::tcgen05_info(Tcgen05Op::mxf4_f32_n256_ss_cg1)) ==
        ((1u << 7) | (1u << 10) | (32u << 17) | (1u << 23) | (8u << 24)));
  CHECK(tcgen05_idesc(probes::tcgen05_info(Tcgen05Op::nvf4_f32_n64_ss_cg1)) ==
        ((1u << 7) | (1u << 10) | (8u << 17) | (8u << 24)));
  CHECK(probes::tensor::tcgen05_sf_desc(0x2400) ==
        (0x240ull | (1ull << 16) | (8ull << 32) | (1ull << 46)));
  // f16 accumulate: D format 0 (F16), A/B F16 0.
  CHECK(tcgen05_idesc(probes::tcgen05_info(Tcgen05Op::f16_f16_n256_ss_cg1)) ==
        ((32u << 17) | (8u << 24)));
  // Shared-memory descriptor: address >> 4, LBO 128 >> 4 at bit 16, SBO 256 >> 4 at bit 32, the
  // sm_100 version 1 at bit 46, no swizzle.
  const uint64_t d = probes::tensor::tcgen05_smem_desc(0x1200);
  CHECK((d & 0x3fff) == 0x120);
  CHECK(((d >> 16) & 0x3fff) == 8);
  CHECK(((d >> 32) & 0x3fff) == 16);
  CHECK(((d >> 46) & 3) == 1);
  CHECK((d >> 61) == 0);
}

TEST_CASE("tcgen05 operand images: K-major core matrices, the cta_group::2 split, A's TMEM words",
          "[tensor][tcgen05]") {
  using probes::tensor::tcgen05_smem_offset;
  CHECK(tcgen05_smem_offset(1, 0) == 16);
  CHECK(tcgen05_smem_offset(0, 16) == 128);
  CHECK(tcgen05_smem_offset(8, 0) == 256);
  CHECK(tcgen05_smem_offset(127, 31) == 4095);
  auto byte_at = [](const std::vector<uint32_t>& w, size_t b) { return (w[b / 4] >> (8 * (b % 4))) & 0xff; };
  // s8 (1 byte per element) makes every element one byte of the images.
  const auto& info = probes::tcgen05_info(Tcgen05Op::s8_s32_n64_ts_cg2);
  const auto d = probes::make_tcgen05_operands(info, Operands::random, 5);
  REQUIRE(d.a.size() == 256 * 32);
  REQUIRE(d.b.size() == 32 * 64);
  REQUIRE(d.a_image.size() == 2 * 4096 / 4);
  REQUIRE(d.b_image.size() == 2 * 32 * 32 / 4);
  REQUIRE(d.a_tmem.size() == 256 * 8);
  auto s8 = [](uint32_t byte) { return double(static_cast<int8_t>(byte)); };
  // A[200][17]: CTA 1, row 72, byte 17.
  CHECK(s8(byte_at(d.a_image, 4096 + tcgen05_smem_offset(72, 17))) == d.a[200 * 32 + 17]);
  // B (K x N) element k = 5, n = 40: CTA 1 holds columns 32-63 as its rows 0-31.
  CHECK(s8(byte_at(d.b_image, 32 * 32 + tcgen05_smem_offset(8, 5))) == d.b[5 * 64 + 40]);
  CHECK(s8(byte_at(d.b_image, tcgen05_smem_offset(3, 30))) == d.b[30 * 64 + 3]);
  // TMEM words: row-major, 32 bytes per row, low byte first.
  CHECK(s8(byte_at(d.a_tmem, 200 * 32 + 17)) == d.a[200 * 32 + 17]);
  const auto z = probes::make_tcgen05_operands(info, Operands::zeros, 5);
  for (uint32_t w : z.a_image) CHECK(w == 0);
  for (double v : z.b) CHECK(v == 0);
}

namespace {
// The element (row, k) of one CTA's shared-memory image, read back the way the layout says.
uint64_t image_element(const probes::tensor::Tcgen05OpInfo& info,
                       const std::vector<uint32_t>& image, size_t cta_bits, uint32_t row,
                       uint32_t k) {
  const uint32_t bits = probes::tensor::tcgen05_smem_element_bits(info);
  const size_t at = cta_bits + probes::tcgen05_smem_bit(info, row, k);
  uint64_t code = 0;
  for (uint32_t i = 0; i < bits; ++i)
    code |= uint64_t((image[(at + i) / 32] >> ((at + i) % 32)) & 1) << i;
  return code;
}
}  // namespace

TEST_CASE("tcgen05 fp6/fp4 operands: 16 elements packed low first in each 16 bytes, the rest zero",
          "[tensor][tcgen05]") {
  using probes::tensor::tcgen05_smem_offset;
  const auto& e2m1 = probes::tcgen05_info(Tcgen05Op::e2m1_f32_n64_ss_cg1);
  const auto& e3m2 = probes::tcgen05_info(Tcgen05Op::e3m2_f32_n64_ss_cg2);
  // e2m1: K element 17 of row 9 is bits 4-7 of the 16 bytes holding K 16-31 of that row.
  CHECK(probes::tcgen05_smem_bit(e2m1, 9, 17) == size_t(tcgen05_smem_offset(9, 16)) * 8 + 4);
  // e3m2: K element 5 is bits 30-35 (it straddles two 32-bit words); element 15 ends at bit 95.
  CHECK(probes::tcgen05_smem_bit(e3m2, 0, 5) == 30);
  CHECK(probes::tcgen05_smem_bit(e3m2, 0, 15) == 90);
  CHECK(probes::tcgen05_smem_bit(e3m2, 2, 31) == size_t(tcgen05_smem_offset(2, 16)) * 8 + 90);
  for (const auto* info : {&e2m1, &e3m2, &probes::tcgen05_info(Tcgen05Op::e2m3_f32_n256_ss_cg1)}) {
    INFO(info->name);
    const auto d = probes::make_tcgen05_operands(*info, Operands::random, 11);
    const auto elem = probes::tcgen05_tile_elem(info->input);
    const uint32_t m = probes::tensor::tcgen05_m(*info),
                   b_rows = probes::tensor::tcgen05_b_rows(*info);
    const size_t b_cta_bits = size_t(b_rows) * 32 * 8;
    // Every element reads back as the logical matrices hold it (A: M x K, B: K x N).
    for (uint32_t r = 0; r < m; ++r)
      for (uint32_t k = 0; k < 32; ++k)
        REQUIRE(probes::tensor::tile_decode(
                    elem, image_element(*info, d.a_image, r / 128 * 4096 * 8, r % 128, k)) ==
                d.a[r * 32 + k]);
    for (uint32_t n = 0; n < info->n; ++n)
      for (uint32_t k = 0; k < 32; ++k)
        REQUIRE(probes::tensor::tile_decode(
                    elem, image_element(*info, d.b_image, n / b_rows * b_cta_bits, n % b_rows,
                                        k)) == d.b[k * info->n + n]);
    // The padding (bytes 8-15 for fp4, 12-15 for fp6 of every 16) is zero.
    const uint32_t used = 16 * probes::tensor::tcgen05_smem_element_bits(*info) / 8;
    uint32_t nonzero_padding = 0;
    for (size_t byte = 0; byte < d.a_image.size() * 4; ++byte)
      if (byte % 16 >= used && ((d.a_image[byte / 4] >> (8 * (byte % 4))) & 0xff) != 0)
        ++nonzero_padding;
    CHECK(nonzero_padding == 0);
  }
}

TEST_CASE("tcgen05 fp6/fp4 self-check: one corrupted or misread operand element fails it",
          "[tensor][tcgen05]") {
  for (Tcgen05Op op : {Tcgen05Op::e2m1_f32_n64_ss_cg1, Tcgen05Op::e3m2_f32_n256_ss_cg1,
                       Tcgen05Op::e2m3_f32_n64_ss_cg2}) {
    const auto& info = probes::tcgen05_info(op);
    INFO(info.name);
    const auto elem = probes::tcgen05_tile_elem(info.input);
    const auto d = probes::make_tcgen05_operands(info, Operands::random, 7);
    CHECK(probes::check_tcgen05_tile(
              info, d, probes::tcgen05_tile_words(info, probes::tcgen05_reference(info, d)))
              .passed);
    // What a tensor core reading A from the image computes: A decoded from the image. One element
    // with its sign bit flipped in the image (row 70, K 21: a non-zero one is found) fails the
    // check.
    auto read_a = [&](const std::vector<uint32_t>& image, bool one_per_byte) {
      auto from = d;
      for (uint32_t r = 0; r < probes::tensor::tcgen05_m(info); ++r)
        for (uint32_t k = 0; k < 32; ++k) {
          const size_t cta = size_t(r / 128) * 4096;
          const uint64_t code =
              one_per_byte ? (image[(cta + probes::tensor::tcgen05_smem_offset(r % 128, k)) / 4] >>
                              (8 * ((cta + probes::tensor::tcgen05_smem_offset(r % 128, k)) % 4))) &
                                 0xff
                           : image_element(info, image, cta * 8, r % 128, k);
          from.a[r * 32 + k] = probes::tensor::tile_decode(elem, code);
        }
      return from;
    };
    REQUIRE(probes::check_tcgen05_tile(
                info, d,
                probes::tcgen05_tile_words(
                    info, probes::tcgen05_reference(info, read_a(d.a_image, false))))
                .passed);
    uint32_t k = 21;
    while (d.a[70 * 32 + k] == 0) k = (k + 1) % 32;
    auto corrupted = d.a_image;
    const size_t sign =
        probes::tcgen05_smem_bit(info, 70, k) + probes::tensor::tcgen05_smem_element_bits(info) - 1;
    corrupted[sign / 32] ^= 1u << (sign % 32);
    const auto bad = probes::check_tcgen05_tile(
        info, d,
        probes::tcgen05_tile_words(info,
                                   probes::tcgen05_reference(info, read_a(corrupted, false))));
    CHECK_FALSE(bad.passed);
    CHECK(bad.why.find("D[70][") != std::string::npos);
    // A tensor core taking one element per byte (the 8-bit container reading) fails it too.
    CHECK_FALSE(probes::check_tcgen05_tile(
                    info, d,
                    probes::tcgen05_tile_words(
                        info, probes::tcgen05_reference(info, read_a(d.a_image, true))))
                    .passed);
  }
}

TEST_CASE(
    "tcgen05 block-scaled operands: ue8m0 or ue4m3 scales per row and column applied, a lost one "
    "fails",
    "[tensor][tcgen05]") {
  for (Tcgen05Op op : {Tcgen05Op::mxf8_e4m3_f32_n64_ss_cg1, Tcgen05Op::mxf8_e4m3_f32_n256_ss_cg1,
                       Tcgen05Op::mxf4_f32_n64_ss_cg1, Tcgen05Op::mxf4_f32_n256_ss_cg1,
                       Tcgen05Op::nvf4_f32_n64_ss_cg1, Tcgen05Op::nvf4_f32_n256_ss_cg1}) {
    const auto& info = probes::tcgen05_info(op);
    INFO(info.name);
    const uint32_t k_all = info.k;
    const bool ue4m3 = probes::tensor::tcgen05_ue4m3_scales(info);
    // The scale code of 2^e: ue8m0 127 + e; ue4m3 exponent field 7 + e, mantissa 0.
    auto code_of = [&](int e) { return ue4m3 ? uint32_t(7 + e) << 3 : uint32_t(127 + e); };
    const auto d = probes::make_tcgen05_operands(info, Operands::random, 9);
    REQUIRE(d.sf_image.size() == 1024 / 4);
    REQUIRE(d.sf_exponent_a.size() == 32);
    auto byte_at = [&](size_t b) { return (d.sf_image[b / 4] >> (8 * (b % 4))) & 0xff; };
    std::set<int> exponents;
    for (uint32_t r = 0; r < 32; ++r) {
      exponents.insert(d.sf_exponent_a[r]);
      CHECK(d.sf_exponent_a[r] >= -2);
      CHECK(d.sf_exponent_a[r] <= 2);
      // Every byte of row r's 16 is the code of 2^exponent: A's rows first, then B's.
      for (uint32_t b = 0; b < 16; ++b) {
        CHECK(byte_at(r * 16 + b) == code_of(d.sf_exponent_a[r]));
        CHECK(byte_at(512 + r * 16 + b) == code_of(d.sf_exponent_b[r]));
      }
    }
    CHECK(exponents.size() > 1);
    // The logical A holds the image's element value times 2^exponent of row r % 32, for every K
    // block alike.
    const auto elem = probes::tcgen05_tile_elem(info.input);
    for (uint32_t k : {5u, k_all - 1})
      CHECK(d.a[77 * k_all + k] ==
            std::ldexp(probes::tensor::tile_decode(elem, image_element(info, d.a_image, 0, 77, k)),
                       d.sf_exponent_a[77 % 32]));
    const auto words = probes::tcgen05_tile_words(info, probes::tcgen05_reference(info, d));
    CHECK(probes::check_tcgen05_tile(info, d, words).passed);
    // An MMA that ignored the scale factors, or read one row's scale wrong, fails the self-check;
    // so does one that read a wrong scale for one K block of one row (NVFP4: the last 16 of 64).
    auto unscaled = d;
    for (uint32_t r = 0; r < 128; ++r)
      for (uint32_t k = 0; k < k_all; ++k)
        unscaled.a[r * k_all + k] = std::ldexp(d.a[r * k_all + k], -d.sf_exponent_a[r % 32]);
    for (uint32_t k = 0; k < k_all; ++k)
      for (uint32_t n = 0; n < info.n; ++n)
        unscaled.b[k * info.n + n] = std::ldexp(d.b[k * info.n + n], -d.sf_exponent_b[n % 32]);
    CHECK_FALSE(
        probes::check_tcgen05_tile(
            info, d, probes::tcgen05_tile_words(info, probes::tcgen05_reference(info, unscaled)))
            .passed);
    auto one_wrong = d;
    for (uint32_t k = 0; k < k_all; ++k) one_wrong.a[45 * k_all + k] *= 2;
    const auto bad = probes::check_tcgen05_tile(
        info, d, probes::tcgen05_tile_words(info, probes::tcgen05_reference(info, one_wrong)));
    CHECK_FALSE(bad.passed);
    CHECK(bad.why.find("D[45][") != std::string::npos);
    auto one_block = d;
    const uint32_t block = k_all / std::max(1u, probes::tensor::tcgen05_scale_vec(info));
    for (uint32_t k = k_all - block; k < k_all; ++k) one_block.a[45 * k_all + k] *= 4;
    CHECK_FALSE(probes::check_tcgen05_tile(
                    info, d,
                    probes::tcgen05_tile_words(info, probes::tcgen05_reference(info, one_block)))
                    .passed);
    // NVFP4: a tensor core taking the ue4m3 codes as ue8m0 (2^(code - 127)) fails it.
    if (ue4m3) {
      auto as_ue8m0 = d;
      for (uint32_t r = 0; r < 128; ++r)
        for (uint32_t k = 0; k < k_all; ++k) {
          const int e = d.sf_exponent_a[r % 32];
          as_ue8m0.a[r * k_all + k] =
              std::ldexp(d.a[r * k_all + k], int(code_of(e)) - 127 - e);
        }
      CHECK_FALSE(
          probes::check_tcgen05_tile(
              info, d, probes::tcgen05_tile_words(info, probes::tcgen05_reference(info, as_ue8m0)))
              .passed);
    }
    // Zeros: zero elements, scale 1 (ue8m0 127, ue4m3 0x38).
    const auto z = probes::make_tcgen05_operands(info, Operands::zeros, 9);
    for (uint32_t w : z.sf_image) CHECK(w == (ue4m3 ? 0x38383838u : 0x7f7f7f7fu));
  }
}

TEST_CASE("tcgen05 packed fp4 (mxf4, nvf4): two e2m1 per byte, a padded or swapped reading fails",
          "[tensor][tcgen05]") {
  using probes::tensor::tcgen05_smem_offset;
  const auto& mxf4 = probes::tcgen05_info(Tcgen05Op::mxf4_f32_n64_ss_cg1);
  // K element 37 of row 9: the high nibble of byte 18 (in the core matrix of K bytes 16-31).
  CHECK(probes::tcgen05_smem_bit(mxf4, 9, 37) == size_t(tcgen05_smem_offset(9, 18)) * 8 + 4);
  CHECK(probes::tcgen05_smem_bit(mxf4, 0, 0) == 0);
  CHECK(probes::tcgen05_smem_bit(mxf4, 127, 63) == 4095 * 8 + 4);
  for (Tcgen05Op op : {Tcgen05Op::mxf4_f32_n256_ss_cg1, Tcgen05Op::nvf4_f32_n64_ss_cg1}) {
    const auto& info = probes::tcgen05_info(op);
    INFO(info.name);
    const auto d = probes::make_tcgen05_operands(info, Operands::random, 13);
    REQUIRE(d.a.size() == 128 * 64);
    REQUIRE(d.b.size() == 64 * info.n);
    REQUIRE(d.a_image.size() == 4096 / 4);
    REQUIRE(d.b_image.size() == info.n * 32 / 4);
    const auto elem = probes::tensor::TileElem::e2m1;
    // Every element reads back from its nibble as the logical matrices hold it (unscaled), and
    // every byte of the images is used (no padding: some high nibble is non-zero in each 16).
    for (uint32_t r = 0; r < 128; ++r)
      for (uint32_t k = 0; k < 64; ++k)
        REQUIRE(std::ldexp(probes::tensor::tile_decode(elem, image_element(info, d.a_image, 0, r, k)),
                           d.sf_exponent_a[r % 32]) == d.a[r * 64 + k]);
    for (uint32_t n = 0; n < info.n; ++n)
      for (uint32_t k = 0; k < 64; ++k)
        REQUIRE(std::ldexp(probes::tensor::tile_decode(elem, image_element(info, d.b_image, 0, n, k)),
                           d.sf_exponent_b[n % 32]) == d.b[k * info.n + n]);
    uint32_t upper_half_used = 0;
    for (size_t byte = 0; byte < d.a_image.size() * 4; ++byte)
      if (byte % 16 >= 8 && ((d.a_image[byte / 4] >> (8 * (byte % 4))) & 0xff) != 0)
        ++upper_half_used;
    CHECK(upper_half_used > 0);
    // A tensor core reading A from the image another way gets another product: the padded form
    // of kind::f8f6f4 (16 elements in the low 8 of each 16 bytes, K 32) or the nibbles swapped.
    auto read_a = [&](bool padded, bool swapped) {
      auto from = d;
      for (uint32_t r = 0; r < 128; ++r)
        for (uint32_t k = 0; k < 64; ++k) {
          // Padded: K 0-15 in the low 8 bytes of the first 16, K 16-31 of the second, no more.
          if (padded && k >= 32) {
            from.a[r * 64 + k] = 0;
            continue;
          }
          const size_t byte = padded ? tcgen05_smem_offset(r, k / 16 * 16 + (k % 16) / 2)
                                     : tcgen05_smem_offset(r, k / 2);
          const uint32_t shift = ((k % 2) ^ (swapped ? 1u : 0u)) * 4;
          const uint64_t code = (d.a_image[byte / 4] >> (8 * (byte % 4) + shift)) & 0xf;
          from.a[r * 64 + k] =
              std::ldexp(probes::tensor::tile_decode(elem, code), d.sf_exponent_a[r % 32]);
        }
      return probes::check_tcgen05_tile(
          info, d, probes::tcgen05_tile_words(info, probes::tcgen05_reference(info, from)));
    };
    CHECK(read_a(false, false).passed);
    CHECK_FALSE(read_a(true, false).passed);
    CHECK_FALSE(read_a(false, true).passed);
  }
}

TEST_CASE("tcgen05 f16 accumulate: D packed two per word, column 2j low, checked at f16 tolerance",
          "[tensor][tcgen05]") {
  const auto& info = probes::tcgen05_info(Tcgen05Op::f16_f16_n64_ss_cg1);
  const auto d = probes::make_tcgen05_operands(info, Operands::random, 4);
  const auto ref = probes::tcgen05_reference(info, d);
  const auto words = probes::tcgen05_tile_words(info, ref);
  REQUIRE(words.size() == 128 * 32);
  // Row 3, columns 10 and 11: word 3 x 32 + 5, low and high halves.
  CHECK(probes::tensor::tile_decode(probes::tensor::TileElem::f16, words[3 * 32 + 5] & 0xffff) ==
        Approx(ref[3 * 64 + 10]).epsilon(2e-3));
  CHECK(probes::tensor::tile_decode(probes::tensor::TileElem::f16, words[3 * 32 + 5] >> 16) ==
        Approx(ref[3 * 64 + 11]).epsilon(2e-3));
  const auto good = probes::check_tcgen05_tile(info, d, words);
  CHECK(good.passed);
  CHECK(good.tolerance_rel == Approx(4e-3));
  // The halves of every word swapped (the other packing) fail; so does a 32-bit-per-column tile.
  auto swapped = words;
  for (auto& w : swapped) w = (w >> 16) | (w << 16);
  CHECK_FALSE(probes::check_tcgen05_tile(info, d, swapped).passed);
  std::vector<uint32_t> wide(128 * 64);
  CHECK_THROWS_WITH(probes::check_tcgen05_tile(info, d, wide), Catch::Contains("expected 4096"));
}

TEST_CASE("tcgen05 self-check: the reference tile passes for every op, a corrupted one fails",
          "[tensor][tcgen05]") {
  for (const auto& info : kTcgen05Ops) {
    INFO(info.name);
    const auto d = probes::make_tcgen05_operands(info, Operands::random, 3);
    const auto ref = probes::tcgen05_reference(info, d);
    const auto words = probes::tcgen05_tile_words(info, ref);
    const auto good = probes::check_tcgen05_tile(info, d, words);
    CHECK(good.passed);
    CHECK(good.elements == probes::tensor::tcgen05_m(info) * info.n);
    auto values = ref;
    values[37 * info.n + info.n - 3] += 1000;
    const auto caught = probes::check_tcgen05_tile(info, d, probes::tcgen05_tile_words(info, values));
    CHECK_FALSE(caught.passed);
    CHECK(caught.why.find("D[37][") != std::string::npos);
    // Two rows swapped (a wrong TMEM lane mapping) fail too.
    auto swapped = words;
    const uint32_t row_words = probes::tensor::tcgen05_tile_row_words(info);
    for (uint32_t c = 0; c < row_words; ++c) std::swap(swapped[c], swapped[row_words + c]);
    CHECK_FALSE(probes::check_tcgen05_tile(info, d, swapped).passed);
  }
}

TEST_CASE("tcgen05 measurement: a corrupted tile fails it before any timing, the baseline is subtracted",
          "[tensor][tcgen05]") {
  probes::Tcgen05Setup s;
  s.op = Tcgen05Op::f16_f32_n256_ts_cg2;
  s.units = 2;
  probes::Tcgen05Run r;
  r.iterations = 16;
  const auto ok = probes::run_tcgen05(s, r, fake_gpu([](std::vector<uint32_t>&) {}));
  CHECK(ok.self_check.passed);
  CHECK(ok.cycles_per_iteration == Approx(100));
  CHECK(ok.baseline_cycles == Approx(20));
  CHECK(ok.latency_cycles == Approx(80));
  int timed = 0;
  auto corrupting = fake_gpu([](std::vector<uint32_t>& t) { t[130 * 256 + 7] ^= 0x40000000; });
  auto counting = [&](const probes::Tcgen05Launch& l) {
    if (!l.store) ++timed;
    return corrupting(l);
  };
  CHECK_THROWS_WITH(probes::run_tcgen05(s, r, counting),
                    Catch::Contains("self-check failed") &&
                        Catch::Contains("tcgen05_m256n256k16_f16_f32_ts_cg2") &&
                        Catch::Contains("D[130][7]"));
  CHECK(timed == 0);
  // cta_group::2 throughput: 8 CTAs = 4 pairs, leaders on SMs 0 and 2 (two each); each SM is
  // credited half of every MMA: 2 CTAs x 16 x 8 x (2 x 256 x 256 x 16) / 2 over 1600 cycles.
  s.kind = Kind::throughput;
  s.units = 8;
  const auto thr = probes::run_tcgen05(s, r, fake_gpu([](std::vector<uint32_t>&) {}));
  CHECK(thr.flops_per_clk_per_sm == Approx(2.0 * 16 * 8 * (2.0 * 256 * 256 * 16) / 2 / 1600));
  CHECK(thr.sms == 4);
  // A CTA that never ran fails; so does a peer CTA claiming to have issued.
  auto lost = [&](const probes::Tcgen05Launch& l) {
    auto o = fake_gpu([](std::vector<uint32_t>&) {})(l);
    if (!l.store) o.units[3].ran = 0;
    return o;
  };
  CHECK_THROWS_WITH(probes::run_tcgen05(s, r, lost), Catch::Contains("did not run"));
  auto confused = [&](const probes::Tcgen05Launch& l) {
    auto o = fake_gpu([](std::vector<uint32_t>&) {})(l);
    o.units[1].leader = 1;
    return o;
  };
  CHECK_THROWS_WITH(probes::run_tcgen05(s, r, confused), Catch::Contains("issuing role"));
}

TEST_CASE("tensor/tcgen05 recovers a preset's tcgen05 table within 2%, with both operand kinds",
          "[tensor][tcgen05]") {
  std::vector<sim::Preset> presets{test_preset()};
  for (const auto& preset : sim::presets())
    if (std::any_of(costs_of(preset).begin(), costs_of(preset).end(),
                    [](const auto& m) { return m.op.rfind("tcgen05_", 0) == 0; }))
      presets.push_back(preset);
  std::set<std::string> covered;
  for (const auto& preset : presets) {
    covered.insert(preset.name);
    INFO(preset.name);
    auto device = sim::make_sim_device(preset);
    const auto record = run(*device, {{"iterations", "64"}});
    REQUIRE(record["status"] == "ok");
    REQUIRE(record["series"].size() == 4 * probes::tensor::kTcgen05OpCount);
    uint32_t measured = 0, zeros = 0;
    for (const auto& p : record["series"]) {
      INFO(p.dump());
      const auto m = std::find_if(costs_of(preset).begin(), costs_of(preset).end(),
                                  [&](const probes::tensor::TensorCost& x) { return x.op == p["op"]; });
      if (m == costs_of(preset).end()) {
        CHECK(p["skipped"].get<std::string>().find("no model") != std::string::npos);
        continue;
      }
      ++measured;
      zeros += p["operands"] == "zeros";
      const auto& info = probes::tcgen05_info(probes::parse_tcgen05_op(p["op"]));
      CHECK(p["path"] == "tcgen05");
      CHECK(p["implementation"] == "native");
      CHECK(p["shape"] == probes::tcgen05_shape(info));
      CHECK(p["form"] == (info.ts ? "TS" : "SS"));
      CHECK(p["cta_group"] == info.cta_group);
      CHECK(p["self_check"]["passed"] == true);
      CHECK(p["self_check"]["elements"] == probes::tensor::tcgen05_m(info) * info.n);
      CHECK(p["region_sm_clock_mhz"].get<double>() > 0);
      if (p["kind"] == "throughput") {
        CHECK(p["flops_per_clk_per_sm"].get<double>() == Approx(m->flops_per_clk_per_sm).epsilon(0.02));
        CHECK(p["flops_per_s"].get<double>() ==
              Approx(p["flops_per_clk_per_sm"].get<double>() * preset.info.sm_count *
                     p["region_sm_clock_mhz"].get<double>() * 1e6).epsilon(1e-9));
        CHECK(p["ctas"] == preset.info.sm_count / info.cta_group * info.cta_group);
      } else {
        CHECK(p["latency_cycles"].get<double>() == Approx(m->latency_cycles).epsilon(0.02));
        CHECK(p["baseline_cycles"].get<double>() > 0);
        CHECK(p["ctas"] == info.cta_group);
      }
    }
    CHECK(measured > 0);
    CHECK(zeros == measured / 2);
    if (preset.name == "tcgen05-test") CHECK(measured == 4 * probes::tensor::kTcgen05OpCount);
  }
  CHECK(covered.count("b200") == 1);
}

TEST_CASE("shared-memory bound of SS forms: the bytes each instruction reads per clock at its peak",
          "[tensor][tcgen05][wgmma]") {
  using probes::tensor::ss_shared_bound;
  // wgmma m64nNk16 f16 at 4096 FLOP/clk: A 64 rows + B N rows of 32 B over 2 x 64 x N x 16 / 4096.
  const auto wgmma = [](double shared, double n, bool ss) {
    return ss_shared_bound(shared, ss ? 64 : 0, n, 2.0 * 64 * n * 16, 4096);
  };
  CHECK(wgmma(128, 64, true).needed_bytes_per_clk == Approx(128));  // 4096/N + 64: at the bound
  CHECK(wgmma(128, 64, true).fraction == 1);
  CHECK(wgmma(128, 128, true).needed_bytes_per_clk == Approx(96));
  CHECK(wgmma(128, 256, true).needed_bytes_per_clk == Approx(80));
  CHECK(wgmma(128, 64, false).needed_bytes_per_clk == Approx(64));  // RS: B alone
  CHECK(wgmma(96, 64, true).fraction == Approx(0.75));              // a narrower SM would bind
  CHECK(wgmma(96, 128, true).fraction == 1);
  CHECK(wgmma(0, 64, true).fraction == 1);  // no shared level: no bound
  // tcgen05 bf16 K 16 at 8192 FLOP/clk/SM, per SM: A 128 rows + B N / cta_group.
  const auto tc = [](double n, int cg, bool ts) {
    return ss_shared_bound(128, ts ? 0 : 128, n / cg, 2.0 * 128 * n * 16, 8192);
  };
  CHECK(tc(64, 1, false).needed_bytes_per_clk == Approx(192));  // 8192/N + 64
  CHECK(tc(64, 1, false).fraction == Approx(2.0 / 3));
  CHECK(tc(64, 2, false).needed_bytes_per_clk == Approx(160));  // 8192/N + 32
  CHECK(tc(64, 2, false).fraction == Approx(0.8));
  CHECK(tc(256, 1, false).fraction == 1);  // 96 B/clk
  CHECK(tc(64, 1, true).fraction == 1);    // TS: 64 B/clk
  CHECK(tc(64, 2, true).fraction == 1);    // 32 B/clk
  // The same 32 B per row for 8-bit (K 32 at 16384) and packed fp4 (K 64 at 32768).
  CHECK(ss_shared_bound(128, 128, 64, 2.0 * 128 * 64 * 32, 16384).fraction == Approx(2.0 / 3));
  CHECK(ss_shared_bound(128, 128, 64, 2.0 * 128 * 64 * 64, 32768).fraction == Approx(2.0 / 3));
}

TEST_CASE(
    "tensor/tcgen05 on sim:b200: SS at N 64 runs at the shared-memory bound, 2/3 of TS and of N 256 "
    "with cta_group::1, 0.8 with ::2",
    "[tensor][tcgen05]") {
  const sim::Preset& preset = sim::find_preset("b200");
  auto device = sim::make_sim_device(preset);
  std::map<std::string, double> rate;
  for (const char* n : {"64", "256"}) {
    const auto record = run(*device, {{"n", n}, {"iterations", "32"}});
    REQUIRE(record["status"] == "ok");
    for (const auto& p : record["series"])
      if (p["kind"] == "throughput" && p["operands"] == "random")
        rate[p["op"].get<std::string>()] = p["flops_per_clk_per_sm"].get<double>();
  }
  INFO(nlohmann::json(rate).dump(1));
  const auto r = [&](const std::string& op) {
    REQUIRE(rate.count(op) == 1);
    return rate.at(op);
  };
  for (const char* in : {"k16_bf16_f32", "k16_f16_f32", "k8_tf32_f32", "k32_e4m3_f32", "k32_s8_s32"}) {
    INFO(in);
    const std::string i = in;
    // cta_group::1: SS N 64 at 2/3 of TS N 64 and of SS N 256 (which run at the preset's peak).
    CHECK(r("tcgen05_m128n64" + i + "_ss_cg1") / r("tcgen05_m128n64" + i + "_ts_cg1") ==
          Approx(2.0 / 3).epsilon(0.02));
    CHECK(r("tcgen05_m128n64" + i + "_ss_cg1") / r("tcgen05_m128n256" + i + "_ss_cg1") ==
          Approx(2.0 / 3).epsilon(0.02));
    CHECK(r("tcgen05_m128n256" + i + "_ts_cg1") / r("tcgen05_m128n256" + i + "_ss_cg1") ==
          Approx(1).epsilon(0.02));
    // cta_group::2: 0.8.
    CHECK(r("tcgen05_m256n64" + i + "_ss_cg2") / r("tcgen05_m256n64" + i + "_ts_cg2") ==
          Approx(0.8).epsilon(0.02));
    CHECK(r("tcgen05_m256n64" + i + "_ss_cg2") / r("tcgen05_m256n256" + i + "_ss_cg2") ==
          Approx(0.8).epsilon(0.02));
  }
  // BF16 at N 256 is still the M [SA] 8192 FLOP/clk/SM; SS N 64 at 2/3 of it.
  CHECK(r("tcgen05_m128n256k16_bf16_f32_ss_cg1") == Approx(8192).epsilon(0.02));
  CHECK(r("tcgen05_m128n64k16_bf16_f32_ss_cg1") == Approx(8192.0 * 2 / 3).epsilon(0.02));
  // SS-only fp4 and block-scaled forms alike against their N 256.
  for (const char* in : {"k32_e2m1_f32", "k32_mxf8_e4m3_f32", "k64_mxf4_f32", "k64_nvf4_f32"}) {
    INFO(in);
    CHECK(r(std::string("tcgen05_m128n64") + in + "_ss_cg1") /
              r(std::string("tcgen05_m128n256") + in + "_ss_cg1") ==
          Approx(2.0 / 3).epsilon(0.02));
  }
}

TEST_CASE("tensor/tcgen05 is skipped with the reason on devices other than sm_100", "[tensor][tcgen05]") {
  for (const auto& preset : sim::presets()) {
    if (preset.info.cc.sm() == 100) continue;
    INFO(preset.name);
    auto device = sim::make_sim_device(preset);
    const auto record = run(*device, {{"n", "64"}, {"kind", "latency"}});
    CHECK(record["status"] == "skipped");
    CHECK(record["skip_reason"].get<std::string>().find("sm_100a") != std::string::npos);
  }
  // A compute capability with tcgen05 that the sm_100a kernels cannot run on: each op is skipped.
  sim::Preset p = test_preset();
  p.info.cc = {10, 3};
  auto device = sim::make_sim_device(p);
  const auto record = run(*device, {{"op", "tcgen05_m128n64k16_f16_f32_ss_cg1"}, {"kind", "latency"}});
  REQUIRE(record["series"].size() == 2);
  for (const auto& pt : record["series"])
    CHECK(pt["skipped"].get<std::string>().find("compute capability 10.0 only") != std::string::npos);
}

TEST_CASE("tensor/tcgen05 refuses bad parameters in one line", "[tensor][tcgen05]") {
  auto device = sim::make_sim_device(test_preset());
  const ProbeSpec& probe = find_probe("tensor/tcgen05");
  CHECK_THROWS_WITH(Params::parse(probe.params, {{"op", "tcgen05"}}),
                    Catch::Contains("tcgen05_m128n64k16_f16_f32_ss_cg1"));
  CHECK_THROWS(Params::parse(probe.params, {{"cta-group", "3"}}));
  CHECK_THROWS_WITH(run(*device, {{"iterations", "0"}}), Catch::Contains("--iterations"));
  CHECK_THROWS_WITH(run(*device, {{"op", "tcgen05_m128n64k16_f16_f32_ss_cg1"}, {"cta-group", "2"}}),
                    Catch::Contains("no tcgen05 op matches"));
  CHECK_THROWS_WITH(probes::parse_tcgen05_op("tcgen05_m64n64k16_f16_f32_ss_cg1"),
                    Catch::Contains("unknown tcgen05 op"));
}

TEST_CASE("tensor/tcgen05 records land in the machine model's compute section", "[tensor][tcgen05]") {
  auto device = sim::make_sim_device(test_preset());
  const std::string op = "tcgen05_m256n256k32_e4m3_f32_ss_cg2";
  const auto record = run(*device, {{"op", op}, {"iterations", "32"}});
  REQUIRE(record["status"] == "ok");
  nlohmann::json compute;
  analysis::add_compute_from_run(record, compute);
  INFO(compute.dump());
  const auto& o = compute["ops"][op];
  CHECK(o["path"] == "tcgen05");
  CHECK(o["precision"] == "e4m3");
  CHECK(o["shape"] == "m256n256k32");
  CHECK(o["self_check"]["passed"] == true);
  CHECK(o["latency_cycles"].get<double>() > 0);
  CHECK(o["flops_per_clk_per_sm"].get<double>() == Approx(4096.0 * 4).epsilon(0.02));
  CHECK(o["zeros"]["flops_per_clk_per_sm"].get<double>() > 0);
  CHECK(o["ptx"].get<std::string>().find("tcgen05.mma.cta_group::2.kind::f8f6f4") == 0);
  // The fp4 and f16-accumulate forms carry their precision and accumulator names.
  for (const auto& [name, precision, accumulate] :
       {std::tuple<std::string, std::string, std::string>{"tcgen05_m128n64k32_e2m1_f32_ss_cg1",
                                                          "e2m1", "f32"},
        {"tcgen05_m128n64k16_f16_f16_ts_cg1", "f16", "f16"},
        {"tcgen05_m128n256k32_mxf8_e4m3_f32_ss_cg1", "mxf8_e4m3", "f32"},
        {"tcgen05_m128n256k64_mxf4_f32_ss_cg1", "mxf4", "f32"},
        {"tcgen05_m128n64k64_nvf4_f32_ss_cg1", "nvf4", "f32"}}) {
    const auto r = run(*device, {{"op", name}, {"iterations", "32"}});
    REQUIRE(r["status"] == "ok");
    analysis::add_compute_from_run(r, compute);
    CHECK(compute["ops"][name]["precision"] == precision);
    CHECK(compute["ops"][name]["accumulate"] == accumulate);
  }
  CHECK(
      compute["ops"]["tcgen05_m128n256k32_mxf8_e4m3_f32_ss_cg1"]["ptx"] ==
      "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [d_tmem], a_desc, b_desc, "
      "idesc, [sfa_tmem], [sfb_tmem], p");
  CHECK(compute["ops"]["tcgen05_m128n256k64_mxf4_f32_ss_cg1"]["ptx"].get<std::string>().find(
            "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X [d_tmem], a_desc") == 0);
  CHECK(compute["ops"]["tcgen05_m128n64k64_nvf4_f32_ss_cg1"]["ptx"].get<std::string>().find(
            "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X [d_tmem], a_desc") ==
        0);
}

TEST_CASE("tensor/tcgen05 block-scaled ops on sim:b200: mxf8_e4m3 at the FP8 peak, mxf4 and nvf4 "
          "at the FP4 9000e12, in the model and the roofline",
          "[tensor][tcgen05][model][roofline]") {
  const sim::Preset& preset = sim::find_preset("b200");
  auto device = sim::make_sim_device(preset);
  std::vector<nlohmann::json> records;
  std::vector<std::string> files;
  for (const char* op : {"tcgen05_m128n256k32_mxf8_e4m3_f32_ss_cg1",
                         "tcgen05_m128n256k64_mxf4_f32_ss_cg1",
                         "tcgen05_m128n256k64_nvf4_f32_ss_cg1",
                         "tcgen05_m128n256k32_e2m1_f32_ss_cg1"}) {
    records.push_back(run(*device, {{"op", op}, {"iterations", "32"}}));
    REQUIRE(records.back()["status"] == "ok");
    files.push_back(std::string(op) + ".json");
  }
  const auto model = analysis::build_machine_model(records, files);
  const auto& ops = model["compute"]["ops"];
  INFO(ops.dump(1).substr(0, 3000));
  const auto sheet = analysis::datasheet_for(preset.info.name);
  REQUIRE(sheet);
  // Per SM per clock: the preset's rate against the datasheet's peak over 148 SMs at the 1.85 GHz
  // tensor clock FIGURES.md derives it with (not the preset's 1965 MHz run clock).
  auto expected_percent = [&](double flops_per_clk_per_sm, double peak) {
    return 100.0 * flops_per_clk_per_sm / (peak / (148 * 1850e6));
  };
  const auto& mx = ops["tcgen05_m128n256k32_mxf8_e4m3_f32_ss_cg1"];
  REQUIRE(mx.contains("percent_of_peak"));
  CHECK(mx["peak"]["flops_per_s"] == 4500e12);
  CHECK(mx["percent_of_peak"].get<double>() == Approx(expected_percent(16384, 4500e12)).epsilon(0.02));
  for (const char* op : {"tcgen05_m128n256k64_mxf4_f32_ss_cg1", "tcgen05_m128n256k64_nvf4_f32_ss_cg1"}) {
    INFO(op);
    const auto& o = ops[op];
    REQUIRE(o.contains("percent_of_peak"));
    CHECK(o["peak"]["flops_per_s"] == 9000e12);
    CHECK(o["flops_per_clk_per_sm"].get<double>() == Approx(32768).epsilon(0.02));
    CHECK(o["percent_of_peak"].get<double>() == Approx(expected_percent(32768, 9000e12)).epsilon(0.02));
    CHECK(o["block_scale"]["input"] == "e2m1");
  }
  CHECK(ops["tcgen05_m128n256k64_nvf4_f32_ss_cg1"]["block_scale"]["scale_format"] == "ue4m3");
  CHECK(ops["tcgen05_m128n256k64_nvf4_f32_ss_cg1"]["block_scale"]["block_elements"] == 16);
  CHECK(ops["tcgen05_m128n256k64_mxf4_f32_ss_cg1"]["block_scale"]["scale_format"] == "ue8m0");
  CHECK(ops["tcgen05_m128n256k64_mxf4_f32_ss_cg1"]["block_scale"]["block_elements"] == 32);
  // Plain e2m1 through kind::f8f6f4 gets no FP4 peak.
  CHECK_FALSE(ops["tcgen05_m128n256k32_e2m1_f32_ss_cg1"].contains("percent_of_peak"));
  const auto& roof = model["roofline"]["compute"];
  CHECK(roof["mxf4"]["op"] == "tcgen05_m128n256k64_mxf4_f32_ss_cg1");
  CHECK(roof["nvf4"]["op"] == "tcgen05_m128n256k64_nvf4_f32_ss_cg1");
  CHECK(roof["mxf8_e4m3"]["op"] == "tcgen05_m128n256k32_mxf8_e4m3_f32_ss_cg1");
}

}  // namespace GPUPROBE_TEST_FILE
