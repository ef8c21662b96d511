// tensor/mma's host side (mma.cpp) as its tests see it: the forms (ptx/mma_forms.def through
// probes/tensor/mma.cuh), the fragment layouts, the tile's operands, the host emulation of a tile
// (the simulator's answer) and the self-check against the float64 reference, and the checks every
// launch makes first.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/device.hpp"
#include "probes/common/op_table.hpp"
#include "probes/tensor/mma.cuh"
#include "probes/tensor/tensor_point.hpp"
#include "probes/tensor/tile_reference.hpp"

namespace gpuprobe::probes {

using tensor::MmaOp;

const tensor::MmaOpInfo& mma_info(MmaOp op);
// Throws a one-line gpuprobe::Error listing the forms when `name` is unknown.
MmaOp parse_mma_op(const std::string& name);
// Independent m x n x k products one mma computes per warp: 4 for m8n8k4 f16 (one per quad-pair,
// PTX ISA 9.7.14.5.1), 1 for every other form.
uint32_t mma_products_per_warp(MmaOp op);
// 2 m n k x products per warp: one multiply-add counts 2 (integer kinds too); m8n8k4 f16: 2048.
double mma_flops(MmaOp op);
tensor::TileElem mma_input_elem(MmaOp op);

// How SM number `sm` runs the form: "native", or "emulated (<the SASS it becomes>)" where ptxas
// turns it into other instructions (fp8 on sm_90/100/103/110, s4 on sm_90+; m8n8k4 f16 on sm_80+,
// m8n8k32 s4 on sm_90+, m8n8k16 s8 on sm_100+); mma_sass_per_op: the SASS one mma becomes there
// (what tests/probes/tensor/test_sass_mma.py asserts per target).
std::string mma_implementation(MmaOp op, int sm);
// The bit of an input element's 8-bit container that holds the element's bit 0: 2 for the fp6/fp4
// kind::f8f6f4 forms (e2m1 in bits 5..2, e3m2/e2m3 in bits 7..2: see mma.cpp for the PTX ISA
// reading), 0 for every other form.
uint32_t mma_container_shift(MmaOp op);
std::string mma_sass_per_op(MmaOp op, int sm);

// Which lane and register element hold an element of A (m x k), B (k x n) or C/D (m x n): the
// PTX ISA's fragment layouts for the row.col forms. `index` runs over the lane's elements of that
// operand (elements of a register low bits first, registers in order). Forms of several products
// per warp stack them by rows: product q's A and C in rows q m.., its B in rows q k...
enum class MmaOperand { a, b, c };
uint32_t mma_elements_per_lane(MmaOp op, MmaOperand which);
void mma_fragment_coords(MmaOp op, MmaOperand which, uint32_t lane, uint32_t index, uint32_t& row,
                         uint32_t& col);

// Block-scaled forms: a and b hold the scaled elements (A SF_A, B SF_B); the lanes' scale words
// give every row of A and column of B its own scale per K block, and every byte no selector picks
// a decoy scale far from all of them (2^6 / 2^-6 for ue8m0, 256 / 2^-6 for ue4m3).
// One self-check tile: A, B and C (values of the formats, row-major; the products of an m8n8k4 f16
// mma stacked by rows) and every lane's fragments.
struct MmaTile {
  tensor::TileShape shape;
  std::vector<double> a, b, c;
  std::vector<tensor::MmaLane> lanes;  // 32
};
// Random operands from a fixed seed per form (or zeros), quantized to the formats, packed.
MmaTile mma_tile(MmaOp op, tensor::Operands operands);
// The m x n matrix the lanes' D fragments hold (32 x kMmaMaxCWords words); products stacked by rows.
std::vector<double> mma_unpack_d(MmaOp op, const std::vector<uint32_t>& d_words);
// What a correct mma leaves in the D fragments: the float64 product rounded to the accumulator
// format (the simulator's tile). Block-scaled forms: each element of A and B times the scale
// factor the form's selectors pick from the lanes' scale words (mma_scale_factor).
// With `read`, the scale words are read with those selectors instead of the form's: what a GPU that
// took SF_A / SF_B from the wrong thread or byte would compute. Unscaled forms ignore it.
std::vector<uint32_t> mma_emulate_tile(MmaOp op, const std::vector<tensor::MmaLane>& lanes,
                                       const std::optional<tensor::MmaBlockScale>& read = std::nullopt);
// Block-scaled kinds (kind::mxf8f6f4, kind::mxf4, kind::mxf4nvf4): D = (A SF_A)(B SF_B) + C.
bool mma_block_scaled(MmaOp op);
// The records' precision: the input format ("e4m3"), or for the block-scaled forms their kind:
// "mxf8_e4m3" / "mxf8_e5m2" / "mxf6_e3m2" (kind::mxf8f6f4), "mxf4" (e2m1 with ue8m0 scales per 32,
// kind::mxf4 and kind::mxf4nvf4 scale_vec::2X), "nvf4" (e2m1 with ue4m3 scales per 16,
// kind::mxf4nvf4 scale_vec::4X). Distinct names keep them apart from the plain forms in the
// compute model and the roofline (a block-scaled FP4 OMMA is not a kind::f8f6f4 e2m1 QMMA).
std::string mma_precision(MmaOp op);
// "ue8m0" or "ue4m3" for the block-scaled forms, "" otherwise.
const char* mma_scale_format(MmaOp op);
// Compares the D fragments with the host's float64 tile (tile_reference.hpp tolerances), every
// product of the warp with its own reference. Throws gpuprobe::Error "self-check failed: ..." naming
// the form, the quad-pair (m8n8k4 f16) and the element on a mismatch.
tensor::TileCheck mma_check_tile(MmaOp op, const MmaTile& tile, const std::vector<uint32_t>& d_words);

struct MmaSetup {
  MmaOp op = MmaOp::m16n8k16_f16_f32;
  Kind kind = Kind::latency;
  uint32_t block_threads = 32;  // latency: 32 (one warp, one block); throughput: 32 to 256
  uint32_t blocks = 1;          // latency: 1; throughput: SMs x blocks per SM
};

// The checks before any launch, on a GPU or the simulator: the device has the form (else Skip),
// the launch shape. Throws one-line Errors.
void check_mma_fits(const MmaSetup& setup, const DeviceInfo& info);

}  // namespace gpuprobe::probes
