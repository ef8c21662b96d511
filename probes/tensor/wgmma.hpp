// tensor/wgmma's host side (wgmma.cpp; the kernels' contract: wgmma.cuh) as its tests see it: the
// operands and fragment layouts of a launch, the stored tile and its check against the host's
// float64 reference, and one measurement through a launcher (tensor_point.hpp's baselined flow).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "probes/tensor/tensor_point.hpp"
#include "probes/tensor/wgmma.cuh"

namespace gpuprobe::probes {

using tensor::WgmmaOp;
using tensor::WgmmaOpInfo;

const WgmmaOpInfo& wgmma_info(WgmmaOp op);
// Throws a one-line gpuprobe::Error listing the ops when `name` (wgmma_m64n128k16_f16_f32_ss) is
// unknown.
WgmmaOp parse_wgmma_op(const std::string& name);

// The operands of one launch: the logical matrices (A: 64 x K, B: K x N, row-major, the
// tile_reference convention) as float64 values, and what the kernel reads: A and B (N x K, K
// fastest: D = A * B) in the shared-memory layout (wgmma_smem_offset) and, for RS forms, A as
// register fragments (thread-major, 4 words each).
struct WgmmaOperandData {
  std::vector<double> a, b;
  std::vector<uint32_t> a_image, b_image, a_frag;
};
// Random values (seeded; tile_random: exact in the input format, |x| <= 4, s8 within +-127);
// zeros are zeros.
WgmmaOperandData make_wgmma_operands(const WgmmaOpInfo& info, tensor::Operands kind, uint64_t seed);

// Where a thread's accumulator element `v` (0 .. N/2-1) sits in D (PTX ISA "wgmma register
// fragment" for the accumulator; f16 accumulators pack elements 2q and 2q+1 in register q).
struct TileIndex {
  uint32_t row, col;
};
TileIndex wgmma_d_index(uint32_t thread, uint32_t element);
// Where element `e` of a thread's RS A fragment sits in A (16-bit: 8 elements, 2 per register;
// tf32: 4, one per register; 8-bit: 16, 4 per register, low byte first).
TileIndex wgmma_a_index(const WgmmaOpInfo& info, uint32_t thread, uint32_t element);

// D = A * B in float64 (64 x N, row-major): tile_reference (probes/tensor/tile_reference.hpp).
std::vector<double> wgmma_reference(const WgmmaOpInfo& info, const WgmmaOperandData& data);
// The tile the kernel stores (thread-major accumulator registers) holding `values` (64 x N):
// what a correct GPU returns for the reference (the simulator's answer; tests corrupt it).
std::vector<uint32_t> wgmma_tile_words(const WgmmaOpInfo& info, const std::vector<double>& values);
// The stored tile against the float64 reference with the family's per-precision tolerances
// (tile_tolerance_rel: f16/bf16/tf32 into f32 1e-4, f16 into f16 4e-3, fp8 1e-3, s8 exact, of
// the sum of the terms' magnitudes). Inputs are exact in their format, so these bound only the
// accumulation; a wrong layout or operand gives errors of order 1.
tensor::TileCheck check_wgmma_tile(const WgmmaOpInfo& info, const WgmmaOperandData& data,
                                   const std::vector<uint32_t>& words);

// The baselined flow's types (units: warpgroups, one per block; latency 1, throughput SMs x blocks
// per SM; tile: thread-major accumulator registers).
using WgmmaSetup = tensor::BaselinedSetup<WgmmaOp>;
using WgmmaRun = tensor::BaselinedRun;
using WgmmaLaunch = tensor::BaselinedLaunch<WgmmaOp, WgmmaOperandData>;
using WgmmaLaunchOut = tensor::BaselinedLaunchOut<tensor::WgmmaGroupOut>;
using WgmmaLauncher = std::function<WgmmaLaunchOut(const WgmmaLaunch&)>;

// The whole measurement (run_baselined).
tensor::TensorResult run_wgmma(const WgmmaSetup& setup, const WgmmaRun& run, const WgmmaLauncher& launch);

}  // namespace gpuprobe::probes
