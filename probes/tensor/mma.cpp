// tensor/mma: warp-level tensor-core (mma.sync) latency and throughput per form and precision
// (ptx/mma_forms.def). Before any timing, each form computes one tile with random operands on
// the device and compares it with the host's float64 reference (a mismatch fails the probe).
// Then, per form, a latency point (one dependent accumulator chain in one warp: cycles per mma)
// and a throughput point (8 independent accumulators per warp, block-threads x blocks-per-sm
// threads on every SM: FLOP per clock per SM, and FLOP/s at the SM clock measured right after),
// each with random operands and with zeros (their power and clock differ). A form the device
// lacks is recorded as skipped with the reason; a form ptxas emulates on this target says so in
// `implementation` (never a tensor-core peak). The kernels are mma.cu (and mma.sm120a.cu for the
// sm_120a forms); the simulator's costs are the tensor family's table (tensor_costs.cpp).
#include "probes/tensor/mma.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "harness/self_check.hpp"
#include "harness/error.hpp"
#include "harness/kernel_runner.hpp"
#include "harness/points.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/common/op_probe.hpp"
#include "probes/common/units.hpp"
#include "probes/tensor/tile_diagnosis.hpp"

// Per form the tile, latency and throughput kernels (mma.cu; the sm_120a forms' in mma.sm120a.cu),
// weak: null where the build lacks them.
#define GPUPROBE_MMA_FORM(id, ...)                                                                  \
  GPUPROBE_KERNEL_PAIR_DECLARE_(gpuprobe_mma_, (gpuprobe::probes::tensor::MmaArgs,                    \
                                                gpuprobe::probes::tensor::MmaWarpOut*), id)           \
  extern "C" __attribute__((weak)) void gpuprobe_mma_##id##_tile(gpuprobe::probes::tensor::MmaArgs,  \
                                                                 uint32_t*);
#include "ptx/mma_forms.def"
#undef GPUPROBE_MMA_FORM

namespace gpuprobe::probes {

namespace {

using tensor::kMmaMaxCWords;
using tensor::MmaLane;
using tensor::MmaWarpOut;
using tensor::TileElem;

// kind::mxf4 / kind::mxf4nvf4: e2m1 packed 4 bits each, not in 8-bit containers.
bool is_packed_fp4(MmaOp op) {
  return op == MmaOp::m16n8k64_mxf4_e2m1_f32 || op == MmaOp::m16n8k64_mxf4nvf4_e2m1_f32 ||
         op == MmaOp::m16n8k64_mxf4nvf4_ue4m3_e2m1_f32;
}

// Volta's m8n8k4 f16 shape: one 8x8x4 product per quad-pair (PTX ISA 9.7.14.5.1).
bool is_quad_pair(MmaOp op) { return op == MmaOp::m8n8k4_f16_f16 || op == MmaOp::m8n8k4_f16_f32; }

// The SASS one mma of a form becomes on SMs from_sm to to_sm (ptxas 13.0; what
// tests/probes/tensor/test_sass_mma.py asserts per target), the first row that holds; `emulated`:
// ptxas turns the form into other instructions there, never a tensor-core peak. sm_70 is not
// disassembled here (CUDA 13 has no sm_70): as sm_75, the Volta instruction.
struct FormSass {
  MmaOp op;
  int from_sm, to_sm;
  bool emulated;
  const char* sass;
};
constexpr int kAll = 1000;
constexpr const char* kOnCudaCores =
    "1 CALL to a subroutine of SHFL, FFMA and HADD2.F32 (no tensor instruction)";
constexpr FormSass kFormSass[] = {
    // The sm_70/75 shapes on later targets: m8n8k4 f16 from sm_80 on (no tensor instruction),
    // m8n8k32 s4 from sm_90 on (a subroutine of two s8 IMMA), m8n8k16 s8 from sm_100 on (one
    // IMMA.16816.S8, an instruction of twice the form's work).
    {MmaOp::m8n8k4_f16_f16, 0, 79, false, "2 HMMA.884.F16.F16 (STEP0, STEP1)"},
    {MmaOp::m8n8k4_f16_f16, 80, kAll, true, kOnCudaCores},
    {MmaOp::m8n8k4_f16_f32, 0, 79, false, "4 HMMA.884.F32.F32 (STEP0-3)"},
    {MmaOp::m8n8k4_f16_f32, 80, kAll, true, kOnCudaCores},
    {MmaOp::m16n8k8_f16_f16, 0, kAll, false, "1 HMMA.1688.F16"},
    {MmaOp::m8n8k16_s8_s32, 0, 99, false, "1 IMMA.8816.S8.S8"},
    {MmaOp::m8n8k16_s8_s32, 100, kAll, true, "1 IMMA.16816.S8.S8 (twice the form's work)"},
    {MmaOp::m8n8k32_s4_s32, 0, 89, false, "1 IMMA.8832.S4.S4"},
    {MmaOp::m8n8k32_s4_s32, 90, 99, true, "1 CALL to a subroutine of 2 IMMA.8816.S8.S8 and unpacking"},
    {MmaOp::m8n8k32_s4_s32, 100, kAll, true, "1 CALL to a subroutine of 2 IMMA.16816.S8.S8 and unpacking"},
    {MmaOp::m16n8k8_f16_f32, 0, kAll, false, "1 HMMA.1688.F32"},
    {MmaOp::m16n8k16_f16_f16, 0, kAll, false, "1 HMMA.16816.F16"},
    {MmaOp::m16n8k16_f16_f32, 0, kAll, false, "1 HMMA.16816.F32"},
    {MmaOp::m16n8k16_bf16_f32, 0, kAll, false, "1 HMMA.16816.F32.BF16"},
    {MmaOp::m16n8k8_tf32_f32, 0, kAll, false, "1 HMMA.1688.F32.TF32"},
    {MmaOp::m8n8k4_f64_f64, 0, 89, false, "1 DMMA.884"},
    {MmaOp::m8n8k4_f64_f64, 90, kAll, false, "1 DMMA.8x8x4"},
    {MmaOp::m16n8k16_f64_f64, 90, 90, false, "1 DMMA.16x8x16"},
    {MmaOp::m16n8k16_f64_f64, 0, kAll, false, "8 DMMA.8x8x4"},
    {MmaOp::m16n8k32_s8_s32, 0, kAll, false, "1 IMMA.16832.S8.S8"},
    {MmaOp::m16n8k64_s4_s32, 0, 89, false, "1 IMMA.16864.S4.S4"},
    {MmaOp::m16n8k64_s4_s32, 90, kAll, true, "1 CALL to a subroutine of 2 IMMA.16832.S8.S8 and unpacking"},
    // fp8 mma.sync is native (QMMA) on sm_89 and sm_120/121 only.
    {MmaOp::m16n8k32_e4m3_f32, 90, 119, true, "2 HMMA.16816.F32 and conversions"},
    {MmaOp::m16n8k32_e4m3_f32, 0, kAll, false, "1 QMMA.16832.F32.E4M3.E4M3"},
    {MmaOp::m16n8k32_e5m2_f32, 90, 119, true, "2 HMMA.16816.F32 and conversions"},
    {MmaOp::m16n8k32_e5m2_f32, 0, kAll, false, "1 QMMA.16832.F32.E5M2.E5M2"},
    // kind::f8f6f4 (sm_120a only): QMMA with the format in the opcode (ptxas 13.0, cuobjdump).
    {MmaOp::m16n8k32_e2m1_f32, 0, kAll, false, "1 QMMA.16832.F32.E2M1.E2M1"},
    {MmaOp::m16n8k32_e3m2_f32, 0, kAll, false, "1 QMMA.16832.F32.E3M2.E3M2"},
    {MmaOp::m16n8k32_e2m3_f32, 0, kAll, false, "1 QMMA.16832.F32.E2M3.E2M3"},
    // Block-scaled (sm_120a only, ptxas 13.0): .SF with ue8m0 (E8) or ue4m3 (UE4M3.4X) scales;
    // kind::mxf4 and kind::mxf4nvf4 scale_vec::2X are the same OMMA.
    {MmaOp::m16n8k32_mxf8f6f4_e4m3_f32, 0, kAll, false, "1 QMMA.SF.16832.F32.E4M3.E4M3.E8"},
    {MmaOp::m16n8k32_mxf8f6f4_e5m2_f32, 0, kAll, false, "1 QMMA.SF.16832.F32.E5M2.E5M2.E8"},
    {MmaOp::m16n8k32_mxf8f6f4_e3m2_f32, 0, kAll, false, "1 QMMA.SF.16832.F32.E3M2.E3M2.E8"},
    {MmaOp::m16n8k64_mxf4_e2m1_f32, 0, kAll, false, "1 OMMA.SF.16864.F32.E2M1.E2M1.E8"},
    {MmaOp::m16n8k64_mxf4nvf4_e2m1_f32, 0, kAll, false, "1 OMMA.SF.16864.F32.E2M1.E2M1.E8"},
    {MmaOp::m16n8k64_mxf4nvf4_ue4m3_e2m1_f32, 0, kAll, false, "1 OMMA.SF.16864.F32.E2M1.E2M1.UE4M3.4X"},
};

const FormSass& form_sass(MmaOp op, int sm) {
  static constexpr FormSass kUnknown{MmaOp{}, 0, kAll, false, "unknown"};
  for (const FormSass& f : kFormSass)
    if (f.op == op && f.from_sm <= sm && sm <= f.to_sm) return f;
  return kUnknown;
}

// Where an fp6/fp4 element sits in its 8-bit container under kind::f8f6f4 (the sm_120a forms):
// the container's bit of the element's bit 0. PTX ISA 9.7.14.5 "Matrix Fragments for
// mma.m16n8k32" gives the register layout (four 8-bit containers per .b32, the e4m3 layout) but,
// in the text read for this (the fragments section), not the bit placement inside a container.
// Implemented reading: the element's bits end at container bit 2 (e2m1 in bits 5..2, e3m2 and e2m3
// in bits 7..2, the other bits zero), the padding the PTX ISA's ldmatrix .b4x16_p64/.b6x16_p32
// unpacking formats produce. A wrong reading changes almost every product, so the first-run
// self-check (one tile against the float64 reference) fails loudly on the GPU if it is wrong
// (tests/probes/tensor/test_mma.cpp shows a misplaced container failing it).
uint32_t container_shift(MmaOp op, TileElem e) {
  const bool small = e == TileElem::e2m1 || e == TileElem::e3m2 || e == TileElem::e2m3;
  return small && *mma_info(op).arch_target != '\0' && !is_packed_fp4(op) ? 2 : 0;
}

// Bits one element of the form's operand takes in its register: kind::mxf4nvf4 packs e2m1 eight
// to a .b32 (the s4 m16n8k64 layout), every other form uses its format's width (an 8-bit
// container for the kind::f8f6f4 fp4/fp6).
uint32_t operand_bits(MmaOp op, TileElem e, MmaOperand which) {
  return which != MmaOperand::c && is_packed_fp4(op) ? 4 : tensor::tile_elem_bits(e);
}

double scale_decode(const tensor::MmaBlockScale& s, uint32_t code) {
  return s.ue4m3 ? tensor::ue4m3_decode(code) : tensor::ue8m0_decode(code);
}

// Who holds the scale factor of row `index` of A / column `index` of B for K block `kb` under
// selectors `s` (PTX ISA 9.7.14.3; mma.cuh MmaBlockScale): the lane and the byte of its word.
void scale_slot(const tensor::MmaBlockScale& s, MmaOperand which, uint32_t index, uint32_t kb, uint32_t& lane,
                uint32_t& byte) {
  if (which == MmaOperand::a) {
    lane = 4 * (index % 8) + 2 * s.thread_a + index / 8;
    byte = s.byte_a + kb;
  } else {
    lane = 4 * index + s.thread_b;
    byte = s.byte_b + kb;
  }
}

// The scale mma_tile gives row r of A / column c of B in K block kb: powers of two 2^-2..2^2
// (ue8m0), or 0.5 to 3 with mantissa bits (ue4m3), so neighbouring rows, columns and blocks
// differ; and the decoy every byte no selector reads holds, far from all of them.
uint32_t scale_code(const tensor::MmaBlockScale& s, MmaOperand which, uint32_t index, uint32_t kb) {
  static const double kUe4m3[] = {0.5, 0.75, 1.25, 1.5, 1.75, 2.5, 3.0, 0.625};
  if (s.ue4m3)
    return tensor::ue4m3_encode(
        kUe4m3[(which == MmaOperand::a ? 3 * index + index / 8 + 5 * kb : 5 * index + 3 * kb + 1) % 8]);
  return 127 + (which == MmaOperand::a ? 3 * index + 2 * kb : 2 * index + 3 * kb + 1) % 5 - 2;
}
uint32_t decoy_word(const tensor::MmaBlockScale& s, MmaOperand which) {
  const bool a = which == MmaOperand::a;
  const uint32_t byte = s.ue4m3 ? tensor::ue4m3_encode(a ? 256.0 : 0x1p-6) : (a ? 127 + 6 : 127 - 6);
  return byte * 0x01010101u;
}

// The scale factor element (row, col) of A (which a: row of A, col = k) or B (which b: row = k,
// col of B) gets from the lanes' scale words under selectors `sel` (PTX ISA 9.7.14.3; the rule
// is spelled out at tensor::MmaBlockScale). 1 for C and unscaled forms.
double mma_scale_factor(MmaOp op, MmaOperand which, const std::vector<MmaLane>& lanes, uint32_t row,
                        uint32_t col, const tensor::MmaBlockScale& sel) {
  if (which == MmaOperand::c || !mma_block_scaled(op) || sel.vec == 0) return 1.0;
  if (lanes.size() != 32) throw Error("tensor/mma: a tile needs 32 lanes");
  const uint32_t k = which == MmaOperand::a ? col : row;
  uint32_t lane, byte;
  scale_slot(sel, which, which == MmaOperand::a ? row : col, k / (mma_info(op).k / sel.vec), lane, byte);
  if (lane >= 32 || byte >= 4)
    throw Error(std::string("tensor/mma: ") + mma_info(op).name + ": selectors outside the scale words");
  const uint32_t word = which == MmaOperand::a ? lanes[lane].scale_a : lanes[lane].scale_b;
  return scale_decode(sel, (word >> 8 * byte) & 0xff);
}

// gpuprobe_mma_<form>_lat / _thr (latency: one dependent chain in one warp; throughput:
// kMmaThroughputChains accumulators per warp, many warps on every SM).
std::string mma_kernel_name(MmaOp op, Kind kind) {
  return std::string("gpuprobe_") + mma_info(op).name + kind_suffix(kind);
}

TileElem mma_accumulator_elem(MmaOp op) { return tensor::tile_elem_named(mma_info(op).accumulator); }

TileElem operand_elem(MmaOp op, MmaOperand which) {
  return which == MmaOperand::c ? mma_accumulator_elem(op) : mma_input_elem(op);
}

// The words of one lane's operand (const or not, as the lane).
template <class Lane>
auto* words_of(Lane& l, MmaOperand which) {
  return which == MmaOperand::a ? l.a : which == MmaOperand::b ? l.b : l.c;
}

// Rows and columns of an operand's matrix: the products' matrices stacked by rows (the second
// quad-pair's A in rows 8-15, its B in rows 4-7, ...).
uint32_t operand_rows(MmaOp op, MmaOperand which) {
  const auto& i = mma_info(op);
  return mma_products_per_warp(op) * (which == MmaOperand::b ? i.k : i.m);
}
uint32_t operand_cols(MmaOp op, MmaOperand which) {
  const auto& i = mma_info(op);
  return which == MmaOperand::a ? i.k : i.n;
}

// Each element of an operand matrix `m` times its scale factor under `sel` (mma_scale_factor).
void apply_scales(MmaOp op, MmaOperand which, const std::vector<MmaLane>& lanes, const tensor::MmaBlockScale& sel,
                  std::vector<double>& m) {
  const uint32_t cols = operand_cols(op, which);
  for (size_t at = 0; at < m.size(); ++at)
    m[at] *= mma_scale_factor(op, which, lanes, uint32_t(at / cols), uint32_t(at % cols), sel);
}

// Rows [first, first + count) of a row-major matrix of `cols` columns.
std::vector<double> rows_of(const std::vector<double>& m, uint32_t cols, uint32_t first, uint32_t count) {
  return std::vector<double>(m.begin() + ptrdiff_t(first) * cols,
                             m.begin() + ptrdiff_t(first + count) * cols);
}

// Gathers an operand matrix (operand_rows x operand_cols) from the fragments words(lane) of the lanes.
template <class Words>
std::vector<double> gather(MmaOp op, MmaOperand which, Words&& words) {
  const uint32_t cols = operand_cols(op, which);
  const TileElem e = operand_elem(op, which);
  const uint32_t bits = operand_bits(op, e, which), shift = container_shift(op, e);
  std::vector<double> m(size_t(operand_rows(op, which)) * cols, 0.0);
  for (uint32_t lane = 0; lane < 32; ++lane)
    for (uint32_t i = 0; i < mma_elements_per_lane(op, which); ++i) {
      uint32_t r = 0, c = 0;
      mma_fragment_coords(op, which, lane, i, r, c);
      m[size_t(r) * cols + c] = tensor::tile_decode(e, tensor::tile_get(words(lane), i, bits) >> shift);
    }
  return m;
}

// The inverse: sets the lanes' fragments words(lane) to the operand's element codes code(row, col).
template <class Words, class Code>
void scatter(MmaOp op, MmaOperand which, Words&& words, Code&& code) {
  const TileElem e = operand_elem(op, which);
  const uint32_t bits = operand_bits(op, e, which), shift = container_shift(op, e);
  for (uint32_t lane = 0; lane < 32; ++lane)
    for (uint32_t i = 0; i < mma_elements_per_lane(op, which); ++i) {
      uint32_t r = 0, c = 0;
      mma_fragment_coords(op, which, lane, i, r, c);
      tensor::tile_set(words(lane), i, bits, code(r, c) << shift);
    }
}

}  // namespace

const tensor::MmaOpInfo& mma_info(MmaOp op) { return tensor::mma_op_info(op); }

MmaOp parse_mma_op(const std::string& name) { return find_op(tensor::kMmaOps, name, "tensor op").op; }

uint32_t mma_products_per_warp(MmaOp op) { return is_quad_pair(op) ? 4 : 1; }

double mma_flops(MmaOp op) {
  const auto& i = mma_info(op);
  return 2.0 * i.m * i.n * i.k * mma_products_per_warp(op);
}

TileElem mma_input_elem(MmaOp op) { return tensor::tile_elem_named(mma_info(op).input); }

uint32_t mma_container_shift(MmaOp op) { return container_shift(op, mma_input_elem(op)); }

std::string mma_implementation(MmaOp op, int sm) {
  const FormSass& f = form_sass(op, sm);
  return f.emulated ? "emulated (" + std::string(f.sass) + ")" : "native";
}

std::string mma_sass_per_op(MmaOp op, int sm) { return form_sass(op, sm).sass; }

uint32_t mma_elements_per_lane(MmaOp op, MmaOperand which) {
  return operand_rows(op, which) * operand_cols(op, which) / 32;
}

void mma_fragment_coords(MmaOp op, MmaOperand which, uint32_t lane, uint32_t index, uint32_t& row,
                         uint32_t& col) {
  const auto& info = mma_info(op);
  const uint32_t g = lane >> 2;  // groupID
  const uint32_t t = lane & 3;   // threadID_in_group
  if (is_quad_pair(op)) {
    // PTX ISA 9.7.14.5.1: quad-pair q (lanes 4q..4q+3 and 4q+16..4q+19) computes product q; its
    // low lanes hold rows 0-3 (A, C) or columns 0-3 (B), its high lanes 4-7. Rows stack products.
    const uint32_t q = (lane >> 2) & 3, half = lane >= 16 ? 4 : 0;
    switch (which) {
      case MmaOperand::a: row = 8 * q + t + half, col = index; return;  // .row: a0..a3
      case MmaOperand::b: row = 4 * q + index, col = t + half; return;  // .col: b0..b3
      case MmaOperand::c:
        if (mma_accumulator_elem(op) == TileElem::f16) {
          row = 8 * q + t + half, col = index;  // c0..c7
        } else {  // f32: row (lane & 1) + (i & 2), column (i & 4) + (lane & 2) + (i & 1)
          row = 8 * q + (lane & 1) + (index & 2) + half;
          col = (index & 4) + (lane & 2) + (index & 1);
        }
        return;
    }
  }
  // The input's elements per 32-bit register (1 for tf32; an f64 register holds one element too);
  // r the register, j the element within it.
  const uint32_t bits = operand_bits(op, mma_input_elem(op), MmaOperand::a);
  const uint32_t per_reg = bits >= 32 ? 1 : 32 / bits;
  const uint32_t r = index / per_reg, j = index % per_reg;
  if (info.m == 8) {  // m8n8k4 f64, m8n8k16 s8, m8n8k32 s4: one A and one B register per lane
    switch (which) {
      case MmaOperand::a: row = g, col = t * per_reg + j; return;
      case MmaOperand::b: row = t * per_reg + j, col = g; return;
      case MmaOperand::c: row = g, col = 2 * t + index; return;
    }
  }
  // m16n8kK, row.col.
  switch (which) {
    case MmaOperand::a: row = g + 8 * (r & 1), col = t * per_reg + j + (r >> 1) * 4 * per_reg; return;
    case MmaOperand::b: row = t * per_reg + j + r * 4 * per_reg, col = g; return;
    case MmaOperand::c: row = g + 8 * (index >> 1), col = 2 * t + (index & 1); return;
  }
}

MmaTile mma_tile(MmaOp op, tensor::Operands operands) {
  const auto& info = mma_info(op);
  MmaTile tile;
  tile.shape = {info.m, info.n, info.k};
  const bool zeros = operands == tensor::Operands::zeros;
  std::mt19937_64 rng(0x6d6d612e73796e63ull + static_cast<unsigned>(op));
  tile.lanes.assign(32, MmaLane{});
  // Block-scaled forms: every lane's scale words all decoys, then each row of A's and column of
  // B's scale per K block written where the form's selectors read it.
  const tensor::MmaBlockScale sel = tensor::mma_block_scale_of(op);
  if (sel.vec != 0) {
    for (MmaLane& l : tile.lanes) {
      l.scale_a = decoy_word(sel, MmaOperand::a);
      l.scale_b = decoy_word(sel, MmaOperand::b);
    }
    for (MmaOperand which : {MmaOperand::a, MmaOperand::b})
      for (uint32_t index = 0; index < (which == MmaOperand::a ? info.m : info.n); ++index)
        for (uint32_t kb = 0; kb < sel.vec; ++kb) {
          uint32_t lane, byte;
          scale_slot(sel, which, index, kb, lane, byte);
          uint32_t& w = which == MmaOperand::a ? tile.lanes[lane].scale_a : tile.lanes[lane].scale_b;
          w = (w & ~(0xffu << 8 * byte)) | scale_code(sel, which, index, kb) << 8 * byte;
        }
  }
  // A, B and C in turn: random codes (or zeros; several products per warp, m8n8k4 f16: their
  // matrices stacked by rows, operand_rows), the reference values (carrying the block-scaled forms'
  // scales, exact: few significant bits) and the lanes' fragments (fp6/fp4 in 8-bit containers).
  for (MmaOperand which : {MmaOperand::a, MmaOperand::b, MmaOperand::c}) {
    const TileElem e = operand_elem(op, which);
    const uint32_t cols = operand_cols(op, which);
    std::vector<uint64_t> codes(size_t(operand_rows(op, which)) * cols);
    for (auto& x : codes) x = zeros ? uint64_t{0} : tensor::tile_random(e, rng);
    std::vector<double>& values = which == MmaOperand::a ? tile.a : which == MmaOperand::b ? tile.b : tile.c;
    for (uint64_t x : codes) values.push_back(tensor::tile_decode(e, x));
    apply_scales(op, which, tile.lanes, sel, values);
    const auto code = [&](uint32_t r, uint32_t c) { return codes[size_t(r) * cols + c]; };
    scatter(op, which, [&](uint32_t lane) { return words_of(tile.lanes[lane], which); }, code);
    // Zeros stay all-zero bits (no -0.0): the zero-operand runs feed the tensor cores zeros only.
    if (which == MmaOperand::b)
      scatter(op, which, [&](uint32_t lane) { return tile.lanes[lane].b_neg; },
              [&](uint32_t r, uint32_t c) { return zeros ? uint64_t{0} : tensor::tile_negate(e, code(r, c)); });
  }
  return tile;
}

std::vector<double> mma_unpack_d(MmaOp op, const std::vector<uint32_t>& d_words) {
  if (d_words.size() != 32 * kMmaMaxCWords)
    throw Error("tensor/mma: a tile's D holds " + std::to_string(d_words.size()) + " words, expected " +
                std::to_string(32 * kMmaMaxCWords));
  return gather(op, MmaOperand::c, [&](uint32_t lane) { return d_words.data() + lane * kMmaMaxCWords; });
}

bool mma_block_scaled(MmaOp op) { return tensor::mma_block_scale_of(op).vec != 0; }

std::string mma_precision(MmaOp op) {
  switch (op) {
    case MmaOp::m16n8k32_mxf8f6f4_e4m3_f32: return "mxf8_e4m3";
    case MmaOp::m16n8k32_mxf8f6f4_e5m2_f32: return "mxf8_e5m2";
    case MmaOp::m16n8k32_mxf8f6f4_e3m2_f32: return "mxf6_e3m2";
    case MmaOp::m16n8k64_mxf4_e2m1_f32:
    case MmaOp::m16n8k64_mxf4nvf4_e2m1_f32: return "mxf4";
    case MmaOp::m16n8k64_mxf4nvf4_ue4m3_e2m1_f32: return "nvf4";
    default: return mma_info(op).input;
  }
}

const char* mma_scale_format(MmaOp op) {
  const tensor::MmaBlockScale s = tensor::mma_block_scale_of(op);
  return s.vec == 0 ? "" : s.ue4m3 ? "ue4m3" : "ue8m0";
}

// The D words of the warp's lanes holding `d` (its products' tiles stacked by rows), in the
// accumulator format.
static std::vector<uint32_t> pack_d(MmaOp op, const std::vector<double>& d) {
  const TileElem acc = mma_accumulator_elem(op);
  std::vector<uint32_t> words(32 * kMmaMaxCWords, 0);
  scatter(op, MmaOperand::c, [&](uint32_t lane) { return words.data() + lane * kMmaMaxCWords; },
          [&](uint32_t r, uint32_t c) { return tensor::tile_encode(acc, d[size_t(r) * mma_info(op).n + c]); });
  return words;
}

// The D words a warp whose mma has the layout error `error` (tile_diagnosis.hpp) stores for
// `tile`: what the simulator returns for a planted wrong result.
static std::vector<uint32_t> mma_wrong_tile(MmaOp op, const MmaTile& tile, const std::string& error) {
  const uint32_t m = tile.shape.m, n = tile.shape.n, k = tile.shape.k;
  std::vector<double> d;
  for (uint32_t q = 0; q < mma_products_per_warp(op); ++q) {
    const std::vector<double> dq = tensor::tile_with_error(
        error, tile.shape, rows_of(tile.a, k, q * m, m), rows_of(tile.b, n, q * k, k),
        rows_of(tile.c, n, q * m, m), mma_input_elem(op), mma_accumulator_elem(op), {});
    d.insert(d.end(), dq.begin(), dq.end());
  }
  return pack_d(op, d);
}

std::vector<uint32_t> mma_emulate_tile(MmaOp op, const std::vector<MmaLane>& lanes,
                                       const std::optional<tensor::MmaBlockScale>& read) {
  if (lanes.size() != 32) throw Error("tensor/mma: a tile needs 32 lanes");
  const auto& info = mma_info(op);
  auto operand = [&](MmaOperand which) {
    std::vector<double> m = gather(op, which, [&](uint32_t lane) { return words_of(lanes[lane], which); });
    apply_scales(op, which, lanes, read.value_or(tensor::mma_block_scale_of(op)), m);
    return m;
  };
  const std::vector<double> a = operand(MmaOperand::a), b = operand(MmaOperand::b),
                            c = operand(MmaOperand::c);
  std::vector<double> d;  // each product's reference, stacked by rows
  for (uint32_t q = 0; q < mma_products_per_warp(op); ++q) {
    const std::vector<double> dq = tensor::tile_reference(
        {info.m, info.n, info.k}, rows_of(a, info.k, q * info.m, info.m),
        rows_of(b, info.n, q * info.k, info.k), rows_of(c, info.n, q * info.m, info.m));
    d.insert(d.end(), dq.begin(), dq.end());
  }
  return pack_d(op, d);
}

tensor::TileCheck mma_check_tile(MmaOp op, const MmaTile& tile, const std::vector<uint32_t>& d_words) {
  const std::vector<double> got = mma_unpack_d(op, d_words);
  const uint32_t m = tile.shape.m, n = tile.shape.n, k = tile.shape.k, products = mma_products_per_warp(op);
  // Every product against its own float64 reference (m8n8k4 f16: all four quad-pairs).
  tensor::TileCheck all;
  for (uint32_t q = 0; q < products; ++q) {
    const tensor::TileCheck check = tensor::check_tile(
        tile.shape, rows_of(tile.a, k, q * m, m), rows_of(tile.b, n, q * k, k), rows_of(tile.c, n, q * m, m),
        rows_of(got, n, q * m, m), mma_input_elem(op), mma_accumulator_elem(op));
    if (!check.passed)
      tensor::throw_tile_mismatch(
          std::string(mma_info(op).name) + " tile" +
              (products > 1 ? " (quad-pair " + std::to_string(q) + ")" : std::string()) + ": " + check.why,
          check, d_words);
    all.elements += check.elements;
    all.tolerance_rel = check.tolerance_rel;
    all.max_abs_error = std::max(all.max_abs_error, check.max_abs_error);
  }
  return all;
}

void check_mma_fits(const MmaSetup& s, const DeviceInfo& info) {
  const tensor::MmaOpInfo& op = mma_info(s.op);
  const int sm = info.cc.sm();
  if (sm < op.min_sm)
    throw Skip(std::string(op.ptx) + " needs sm_" + std::to_string(op.min_sm) + "+; " + info.name +
               " is sm_" + std::to_string(sm));
  // An sm_120a cubin runs on compute capability 12.0 only (an sm_121 GPU would need sm_121a code).
  if (std::string(op.arch_target) == "sm_120a" && sm != 120)
    throw Skip(std::string(op.ptx) + " is built for sm_120a only; " + info.name + " is sm_" +
               std::to_string(sm));
  if (s.kind == Kind::latency && (s.block_threads != 32 || s.blocks != 1))
    throw Error("a latency launch is one warp (one block of 32 threads)");
  check_blocks(mma_kernel_name(s.op, s.kind), s.block_threads, s.blocks, tensor::kMmaMaxBlockThreads);
}

namespace {

using tensor::MmaArgs;
using tensor::Operands;
using tensor::TensorResult;
using tensor::TileCheck;

// The simulator's launch counter of this probe (SimDevice::next_launch), part of the noise seed.
constexpr const char* kLaunches = "tensor.mma";

struct MmaKernels {
  KernelPair timed;
  const void* tile;
};
const MmaKernels kKernels[] = {
#define GPUPROBE_MMA_FORM(id, ...) \
  {GPUPROBE_KERNEL_PAIR_ENTRY_(gpuprobe_mma_, id) reinterpret_cast<const void*>(&gpuprobe_mma_##id##_tile)},
#include "ptx/mma_forms.def"
#undef GPUPROBE_MMA_FORM
};

uint32_t chains(Kind kind) { return kind == Kind::latency ? 1 : tensor::kMmaThroughputChains; }

// A kernel of the form; null where the build has no code for its target (the sm_120a forms'
// mma.sm120a.cu): the form is skipped, naming the form's `named` kernel.
const void* kernel_or_skip(MmaOp op, const void* kernel, Kind named) {
  if (kernel == nullptr)
    skip(mma_kernel_name(op, named) + ": this build has no " + mma_info(op).arch_target +
         " code (CMAKE_CUDA_ARCHITECTURES lacks 120)");
  return kernel;
}

// The numbers of a launch from its warps' records: every warp ran, on an SM, with end after start
// (else "self-check failed ..."); latency: the first warp's cycles per mma; throughput: per SM, the
// mmas of its warps over its span, in FLOP.
TensorResult summarize(const MmaSetup& s, uint64_t iterations, const std::vector<MmaWarpOut>& warps) {
  const uint32_t chain_count = chains(s.kind);
  TensorResult r;
  r.ops_per_chain = iterations * tensor::kMmaPerIteration / chain_count;
  const auto per_sm = check_units(warps, uint64_t(s.blocks) * s.block_threads / 32,
                                  mma_kernel_name(s.op, s.kind), "warp");
  r.sms = static_cast<uint32_t>(per_sm.size());
  r.units_per_sm = units_per_sm(per_sm);
  const double flops = mma_flops(s.op);
  if (s.kind == Kind::latency) {
    r.latency_cycles = double(warps[0].end_cycles - warps[0].start_cycles) / double(r.ops_per_chain);
  } else {
    const SmRates mmas = sm_rates(per_sm, [&](const SmSpan& span) {
      return double(span.units) * chain_count * double(r.ops_per_chain) / span.cycles();
    });
    r.flops_per_clk_per_sm = mmas.median * flops;
    r.flops_per_clk_per_sm_min = mmas.min * flops;
    r.flops_per_clk_per_sm_max = mmas.max * flops;
  }
  return r;
}

// ---- on a GPU: one tile, or a timed launch, timed in the kernel by %clock64 ----------------------

std::vector<uint32_t> run_tile(KernelRunner& gpu, MmaOp op, const std::vector<MmaLane>& lanes) {
  if (lanes.size() != 32) throw Error("tensor/mma: a tile needs 32 lanes");
  const void* kernel = kernel_or_skip(op, kKernels[static_cast<unsigned>(op)].tile, Kind::throughput);
  const DeviceBuffer in = gpu.upload(lanes);
  const MmaArgs args{static_cast<const MmaLane*>(in.get()), 1, 0, 1};
  LaunchRecord record;
  return run_units<uint32_t>(gpu, kernel, std::string("gpuprobe_") + mma_info(op).name + "_tile",
                             launch_config(1, 32), args, 32 * kMmaMaxCWords, record);
}

TensorResult run_on_gpu(KernelRunner& gpu, const MmaSetup& s, uint64_t iterations, Operands operands) {
  check_mma_fits(s, gpu.info());
  const void* kernel = kernel_or_skip(s.op, kKernels[static_cast<unsigned>(s.op)].timed.of(s.kind), s.kind);
  const MmaTile tile = mma_tile(s.op, operands);
  const DeviceBuffer in = gpu.upload(tile.lanes);
  const MmaArgs args{static_cast<const MmaLane*>(in.get()), iterations, 0, 1};
  LaunchRecord record;
  const auto warps = run_units<MmaWarpOut>(gpu, kernel, mma_kernel_name(s.op, s.kind), launch_config(s.blocks, s.block_threads), args,
                                           uint64_t(s.blocks) * s.block_threads / 32, record);
  TensorResult r = summarize(s, iterations, warps);
  r.launch = record;
  return r;
}

// ---- on the simulator ----------------------------------------------------------------------------

// Schedulers (SM sub-partitions, one tensor core each) per SM, Volta and later: assumption (not
// in FIGURES; FIGURES §1 "x 4 TC/SM" for H100 and A100).
constexpr double kSubPartitions = 4;

// The form's cost; a form the simulated GPU's SM lacks is skipped for that reason, as on a real one.
const tensor::TensorCost& cost_of(sim::SimDevice& device, const MmaSetup& s) {
  check_mma_fits(s, device.info());
  return tensor::tensor_cost(device.preset(), mma_info(s.op).name);
}

// A latency launch takes the longer of mmas x latency and its issue time; on every SM a throughput
// launch takes the longer of one chain's mmas x latency and the busiest scheduler's FLOP over a
// quarter of the rate (blocks to SMs round robin, the preset's noise).
TensorResult simulate(sim::SimDevice& device, const MmaSetup& s, uint64_t iterations) {
  const tensor::TensorCost& cost = cost_of(device, s);
  const std::string name = mma_kernel_name(s.op, s.kind);
  const uint32_t chain_count = chains(s.kind);
  const uint64_t mmas = iterations * tensor::kMmaPerIteration / chain_count;
  const double flops = mma_flops(s.op);
  const uint64_t seed = std::hash<std::string>{}(name) ^ s.blocks ^ (iterations << 16) ^
                        device.next_launch(kLaunches);
  const auto warps = simulate_units<MmaWarpOut>(
      device.preset(), s.blocks, s.block_threads / 32, seed, [&](uint32_t, uint32_t n) {
        const double chain_cycles = double(mmas) * cost.latency_cycles;
        const double busiest = std::ceil(double(n) / kSubPartitions);
        const double issue_cycles = busiest * chain_count * double(mmas) * flops /
                                    (cost.flops_per_clk_per_sm / kSubPartitions);
        return std::max(chain_cycles, issue_cycles);
      });
  TensorResult r = summarize(s, iterations, warps);
  r.launch.kernel = name;
  r.launch.config = launch_config(s.blocks, s.block_threads);
  return r;
}

// ---- the probe ----------------------------------------------------------------------------------

// The form's tile, one mma by one warp from random operands, against the float64 reference (the
// simulator's D is the host's emulation: the same check runs on it). Skip where the device lacks
// the form; "self-check failed: ..." on a mismatch.
TileCheck self_check(Device& device, MmaOp op) {
  const MmaSetup s{op};
  check_mma_fits(s, device.info());
  const MmaTile tile = mma_tile(op, Operands::random);
  auto* sim = dynamic_cast<sim::SimDevice*>(&device);
  if (sim) cost_of(*sim, s);
  if (sim == nullptr) return mma_check_tile(op, tile, run_tile(kernel_runner(device), op, tile.lanes));
  // A planted wrong result (SimDevice::plant_wrong_result): the tile with that layout error.
  const sim::SimDevice::WrongResult* wrong = sim->wrong_result(mma_info(op).name);
  return mma_check_tile(op, tile,
                        wrong ? mma_wrong_tile(op, tile, wrong->how.empty() ? "one_element" : wrong->how)
                              : mma_emulate_tile(op, tile.lanes));
}

nlohmann::json self_check_json(const TileCheck& c) {
  return tensor::tile_check_json(c, "relative to the element's sum of |a*b| terms and |c|");
}

nlohmann::json measure(ProbeContext& ctx, const MmaSetup& s, uint64_t iterations, Operands operands,
                       std::map<MmaOp, TileCheck>& checks) {
  const tensor::MmaOpInfo& info = mma_info(s.op);
  Device& device = ctx.device();
  const int sm = device.info().cc.sm();
  const bool latency = s.kind == Kind::latency;
  try {
    // The tile self-check, once per form, before its first timed launch.
    if (!checks.count(s.op)) checks[s.op] = self_check(device, s.op);
  } catch (const Skip& e) {
    return {{"ptx", info.ptx}, {"path", "mma.sync"}, {"skipped", e.what()}};
  }
  const auto r = tensor::repeat_point(ctx, latency, [&] {
    if (auto* sim = dynamic_cast<sim::SimDevice*>(&device)) return simulate(*sim, s, iterations);
    return run_on_gpu(kernel_runner(device), s, iterations, operands);
  });
  if (r.skipped) return {{"ptx", info.ptx}, {"path", "mma.sync"}, {"skipped", *r.skipped}};
  const TensorResult& first = r.first;
  nlohmann::json p = {{"ptx", info.ptx},
                      {"path", "mma.sync"},
                      {"shape", info.shape},
                      {"precision", mma_precision(s.op)},
                      {"accumulate", info.accumulator},
                      {"implementation", mma_implementation(s.op, sm)},
                      {"sass_per_op", mma_sass_per_op(s.op, sm)},
                      {"flops_per_mma", mma_flops(s.op)},
                      {"mmas_per_chain", first.ops_per_chain},
                      {"chains_per_warp", chains(s.kind)},
                      {"warps_per_sm", first.units_per_sm},
                      {"kernel", mma_kernel_name(s.op, s.kind)},
                      {"launch", to_json(first.launch)},
                      {"self_check", self_check_json(checks.at(s.op))}};
  if (mma_block_scaled(s.op)) {
    // The element format and the scales behind a block-scaled precision ("mxf4": e2m1, ue8m0 per 32).
    const tensor::MmaBlockScale b = tensor::mma_block_scale_of(s.op);
    p["block_scale"] = {{"input", info.input},
                        {"scale_format", mma_scale_format(s.op)},
                        {"scales_per_row", b.vec},
                        {"block_elements", info.k / b.vec}};
  }
  tensor::write_timing(p, ctx, r.outcome, latency, iterations, first);
  if (!latency) p["mmas_per_clk_per_sm"] = r.outcome.summary.median / mma_flops(s.op);
  return p;
}

ProbeSpec mma_probe() {
  ProbeSpec p;
  p.id = "tensor/mma";
  p.summary = "tensor-core mma.sync latency (cycles/mma) and rate (FLOP/clk/SM, TFLOP/s) per form";
  p.params = {
      {"op", ParamSpec::Kind::choice, "all", "the form to measure (all: every form of ptx/mma_forms.def)",
       op_choices(tensor::kMmaOps)},
      kind_param(),
      tensor::operands_param("random, zeros or both (each a point of its own)"),
      iterations_param("256", "loop iterations per launch (32 mmas per warp each)", tensor::kMaxIterations),
      {"block-threads",
       ParamSpec::Kind::integer,
       "128",
       "threads per block of a throughput launch (a multiple of 32, at most 256)",
       {},
       tensor::kMmaMaxBlockThreads,
       32,
       32},
      blocks_per_sm_param("blocks per SM of a throughput launch (1 to 32)"),
  };
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const uint32_t threads = read_block_threads(prm, tensor::kMmaMaxBlockThreads);
    const uint32_t per_sm = read_blocks_per_sm(prm);
    const uint64_t iterations = read_iterations(prm, tensor::kMaxIterations);
    const uint32_t sms = static_cast<uint32_t>(ctx.device().info().sm_count);
    // Each form's self-check result, made before its first timed launch (a point measured again
    // keeps it).
    std::map<MmaOp, TileCheck> checks;
    measure_axes(ctx, tensor::point_axes(op_names(tensor::kMmaOps)), [&](const nlohmann::json& axes) {
      MmaSetup s{parse_mma_op(axes["op"]), parse_kind(axes["kind"])};
      if (s.kind == Kind::throughput) s.block_threads = threads, s.blocks = sms * per_sm;
      return measure(ctx, s, iterations, tensor::parse_operands(axes["operands"]), checks);
    });
  };
  return p;
}

const ProbeRegistration kRegistration(mma_probe);

}  // namespace
}  // namespace gpuprobe::probes
