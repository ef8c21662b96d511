// tensor/tcgen05's host side (tcgen05.cpp; the kernels' contract: tcgen05.cuh) as its tests see it:
// the operands and layouts of a launch, the stored tile and its check against the host's float64
// reference, and one measurement through a launcher (tensor_point.hpp's baselined flow).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "probes/tensor/tcgen05.cuh"
#include "probes/tensor/tensor_point.hpp"

namespace gpuprobe::probes {

using tensor::Tcgen05Op;
using tensor::Tcgen05OpInfo;

const Tcgen05OpInfo& tcgen05_info(Tcgen05Op op);
// Throws a one-line gpuprobe::Error listing the ops when `name` is unknown.
Tcgen05Op parse_tcgen05_op(const std::string& name);
// gpuprobe_tcgen05_bf16_f32_n256_ss_cg1_lat / _thr, and the baselines
// gpuprobe_tcgen05_baseline_cg1_lat and _cg2_lat (tcgen05.cuh).
std::string tcgen05_kernel_name(Tcgen05Op op, Kind kind);
std::string tcgen05_baseline_kernel(uint32_t cta_group);
std::string tcgen05_shape(const Tcgen05OpInfo& info);      // "m128n256k16"
tensor::TileElem tcgen05_tile_elem(tensor::Tcgen05Type t);

// Bit offset of element (row, k) in one CTA's shared-memory image of A or B (N x K): the byte of
// tcgen05_smem_offset for 8- to 32-bit inputs; for fp6/fp4 bit (k % 16) x 6 or x 4 of the 16
// bytes that hold K elements k / 16 x 16 .. +15 (the PTX ISA's padded shared-memory form); for
// the packed fp4 of mxf4/nvf4 bit 4 (k % 2) of byte k / 2.
size_t tcgen05_smem_bit(const Tcgen05OpInfo& info, uint32_t row, uint32_t k);

// The operands of one launch: the logical matrices as float64 (A: M x K, B: K x N, row-major, the
// tile_reference convention) and what the kernel reads: per CTA of the group, A and B (N x K,
// K-major) in the shared-memory layout (tcgen05_smem_offset), and A as TMEM words (row-major,
// kTcgen05AWords per row, elements packed low first).
// Block-scaled kinds: the scale exponents (ue8m0 code - 127) of rows r (A) and columns c (B) with
// r, c mod 32 (0 elsewhere), already applied to `a` and `b`, and the shared-memory image the
// kernel copies into TMEM (kTcgen05SfImageBytes: 16 bytes per row of 32, A's then B's, each byte
// of a row the same code: tcgen05_scale_code, ue8m0 or ue4m3).
struct Tcgen05OperandData {
  std::vector<double> a, b;
  std::vector<uint32_t> a_image, b_image, a_tmem;
  std::vector<int> sf_exponent_a, sf_exponent_b;
  std::vector<uint32_t> sf_image;
};
// Random (seeded) values come from tile_random: exact in the input format; zeros are zeros.
Tcgen05OperandData make_tcgen05_operands(const Tcgen05OpInfo& info, tensor::Operands kind,
                                         uint64_t seed);
// The stored tile (M rows of tcgen05_tile_row_words words, row-major: f32 or s32 bits, or f16 two
// per word, column 2j in the low half) holding `values`: what a correct GPU
// returns for the reference (the simulator's answer; tests corrupt it).
std::vector<uint32_t> tcgen05_tile_words(const Tcgen05OpInfo& info, const std::vector<double>& values);
// D = A * B in float64 (M x N).
std::vector<double> tcgen05_reference(const Tcgen05OpInfo& info, const Tcgen05OperandData& data);
// The stored tile against the reference (tile_reference's check_tile: per-precision tolerance
// relative to the sum of the element's |terms|).
tensor::TileCheck check_tcgen05_tile(const Tcgen05OpInfo& info, const Tcgen05OperandData& data,
                                     const std::vector<uint32_t>& words);

// The baselined flow's types (units: CTAs of 128 threads in clusters of cta_group; latency one
// group, throughput one per SM in whole groups; tile: M x N words).
using Tcgen05Setup = tensor::BaselinedSetup<Tcgen05Op>;
using Tcgen05Run = tensor::BaselinedRun;
using Tcgen05Launch = tensor::BaselinedLaunch<Tcgen05Op, Tcgen05OperandData>;
using Tcgen05LaunchOut = tensor::BaselinedLaunchOut<tensor::Tcgen05CtaOut>;
using Tcgen05Launcher = std::function<Tcgen05LaunchOut(const Tcgen05Launch&)>;

// The whole measurement (run_baselined: a cta_group::2 MMA's FLOP half on each SM of the pair; sms:
// the SMs any CTA ran on).
tensor::TensorResult run_tcgen05(const Tcgen05Setup& setup, const Tcgen05Run& run,
                                 const Tcgen05Launcher& launch);

}  // namespace gpuprobe::probes
