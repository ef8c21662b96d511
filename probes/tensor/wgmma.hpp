// tensor/wgmma's host side (wgmma.cpp, sm_90a) as its tests see it: one measurement of an op's
// latency or throughput (probes/tensor/wgmma.cuh), with the self-check made first. A GPU and the
// simulator each hand their launcher to run_wgmma, which makes the operands, checks one tile
// against the host's float64 reference, times the op (and, for latency, the commit/wait
// baseline) and turns the warpgroups' records into the numbers, so the flow, the arithmetic and
// the check exist once.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/device.hpp"
#include "harness/launch_config.hpp"
#include "probes/common/op_table.hpp"
#include "probes/tensor/tensor_point.hpp"
#include "probes/tensor/tile_reference.hpp"
#include "probes/tensor/wgmma.cuh"

namespace gpuprobe::probes {

using tensor::WgmmaOp;
using tensor::WgmmaOpInfo;

const WgmmaOpInfo& wgmma_info(WgmmaOp op);
// Throws a one-line gpuprobe::Error listing the ops when `name` (wgmma_m64n128k16_f16_f32_ss) is
// unknown.
WgmmaOp parse_wgmma_op(const std::string& name);
// gpuprobe_wgmma_f16_f32_n128_ss_lat / _thr (latency: one warpgroup, one wgmma per commit group;
// throughput: many warpgroups per SM, kWgmmaThroughputPerIteration wgmmas per group); the baseline
// is gpuprobe_wgmma_baseline_lat.
std::string wgmma_kernel_name(WgmmaOp op, Kind kind);
inline constexpr const char* kWgmmaBaselineKernel = "gpuprobe_wgmma_baseline_lat";
std::string wgmma_shape(const WgmmaOpInfo& info);      // "m64n128k16"
// "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", with " (A from registers)" for RS.
std::string wgmma_ptx(const WgmmaOpInfo& info);
// The SASS one wgmma becomes on sm_90a (tests/probes/tensor/test_sass_wgmma.py asserts it):
// "HGMMA.64x128x16.F32", "HGMMA.64x128x16.F32.BF16", "QGMMA.64x128x32.F32.E4M3.E4M3", ...
std::string wgmma_sass(const WgmmaOpInfo& info);

// The operands of one launch: the logical matrices (A: 64 x K, B: N x K, row-major, K fastest:
// D = A * B^T) as float64 values, and what the kernel reads: A and B in the shared-memory layout
// (wgmma_smem_offset) and, for RS forms, A as register fragments (thread-major, 4 words each).
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

// D = A * B^T in float64 (64 x N, row-major): tile_reference (probes/tensor/tile_reference.hpp).
std::vector<double> wgmma_reference(const WgmmaOpInfo& info, const WgmmaOperandData& data);
// The tile the kernel stores (thread-major accumulator registers) holding `values` (64 x N):
// what a correct GPU returns for the reference (the simulator's answer; tests corrupt it).
std::vector<uint32_t> wgmma_tile_words(const WgmmaOpInfo& info, const std::vector<double>& values);
// The kernel's stored tile as 64 x N values.
std::vector<double> wgmma_decode_tile(const WgmmaOpInfo& info, const std::vector<uint32_t>& words);

// The stored tile against the float64 reference with the family's per-precision tolerances
// (tile_tolerance_rel: f16/bf16/tf32 into f32 1e-4, f16 into f16 4e-3, fp8 1e-3, s8 exact, of
// the sum of the terms' magnitudes). Inputs are exact in their format, so these bound only the
// accumulation; a wrong layout or operand gives errors of order 1.
tensor::TileCheck check_wgmma_tile(const WgmmaOpInfo& info, const WgmmaOperandData& data,
                                   const std::vector<uint32_t>& words);

struct WgmmaSetup {
  WgmmaOp op = WgmmaOp::f16_f32_n128_ss;
  Kind kind = Kind::latency;
  tensor::Operands operands = tensor::Operands::random;  // the timed launch's (the self-check: random)
  uint32_t blocks = 1;        // latency: 1; throughput: SMs x blocks per SM (one warpgroup each)
};

struct WgmmaRun {
  uint64_t iterations = 1024;
  uint64_t seed = 1;          // of the random operands (the self-check's and the timed ones)
};

// One launch as a backend makes it: the kernel (an op's _lat/_thr, or the baseline when
// `baseline`), `blocks` blocks of one warpgroup, the operands, and whether the tile is stored.
struct WgmmaLaunch {
  WgmmaOp op;
  Kind kind;
  bool baseline = false;
  uint32_t blocks = 1;
  uint64_t iterations = 1;
  bool store = false;
  const WgmmaOperandData* operands = nullptr;
};
struct WgmmaLaunchOut {
  std::vector<tensor::WgmmaGroupOut> groups;   // one per warpgroup
  std::vector<uint32_t> tile;                  // store: thread-major accumulator registers
  LaunchRecord launch;
};
using WgmmaLauncher = std::function<WgmmaLaunchOut(const WgmmaLaunch&)>;

// The checks before any launch, on a GPU or the simulator (the device is sm_90, else Skip; the
// launch shape). Throws one-line Errors.
void check_wgmma_fits(const WgmmaSetup& setup, const DeviceInfo& info);

// The whole measurement: self-check launch (random operands, one iteration, tile stored and
// checked: gpuprobe::Error "self-check failed ..." on a mismatch), the timed launch, the baseline
// for latency, and the numbers (latency: the loop's cycles per iteration, the baseline's and their
// difference; throughput: per SM, the FLOP of its warpgroups over its span; units_per_sm:
// warpgroups). Every warpgroup must have run, on an SM, with end after start.
tensor::TensorResult run_wgmma(const WgmmaSetup& setup, const WgmmaRun& run, const WgmmaLauncher& launch);

}  // namespace gpuprobe::probes
