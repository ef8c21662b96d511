// The contract between the mma.sync kernels (mma.cu) and their host side (mma.cpp): the form
// table (ptx/mma_forms.def), the kernel arguments and what every warp reports. Plain C++ that
// nvcc, NVRTC and g++ all compile.
//
// Three kernels per form:
//   gpuprobe_mma_<form>_tile  one warp, one mma: D = A * B + C from the lanes' fragments, D's
//                             fragments stored (the self-check against the host's float64 tile)
//   gpuprobe_mma_<form>_lat   one warp, one accumulator: a dependent chain of mmas (latency)
//   gpuprobe_mma_<form>_thr   kMmaThroughputChains independent accumulators per warp, many warps
//                             on every SM (issue rate)
// Every lane reads its own A, B, -B and C fragments (MmaLane) from memory before the loop; the
// chains alternate B and -B, so an accumulator swings between C and C + A*B and never overflows.
// Where ptxas emulates a form (fp8 on sm_90/100/103/110, s4 on sm_90+, m8n8k4 f16 on sm_80+,
// m8n8k16 s8 on sm_100+; mma.cpp mma_implementation), each mma's A fragment is
// XORed with (its accumulator & zero), zero a runtime 0: otherwise ptxas computes the loop-invariant
// product once and the loop holds only adds (the unfed mutant of tests/probes/tensor/test_sass_mma.py).
// Lane 0 of each warp records %clock64 around the loop (the closing read waits for every
// accumulator) and its SM; with `store` set it also stores an XOR of the accumulators' bits.
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

namespace gpuprobe::probes::tensor {

enum class MmaOp {
#define GPUPROBE_MMA_FORM(id, m, n, k, input, acc, min_sm, ptx) id,
#include "ptx/mma_forms.def"
#undef GPUPROBE_MMA_FORM
};

// What a form is, for the host: its name (the records' op), shape, input and accumulator
// precision (tile_reference.hpp names), the oldest SM with it and its PTX.
struct MmaOpInfo {
  MmaOp op;
  const char* name;         // "mma_m16n8k16_f16_f32"
  const char* shape;        // "m16n8k16"
  uint32_t m, n, k;
  const char* input;        // "f16"
  const char* accumulator;  // "f32"
  int min_sm;
  const char* ptx;
  // "" for forms every target from min_sm on accepts (probes/tensor/mma.cu); "sm_120a" for the
  // arch-specific forms (GPUPROBE_MMA_FORM_SM120A: kernels only in probes/tensor/mma.sm120a.cu).
  const char* arch_target;
};

inline constexpr MmaOpInfo kMmaOps[] = {
#define GPUPROBE_MMA_FORM(id, m, n, k, input, acc, min_sm, ptx) \
  {MmaOp::id, "mma_" #id, "m" #m "n" #n "k" #k, m, n, k, #input, #acc, min_sm, ptx, ""},
#define GPUPROBE_MMA_FORM_SM120A(id, m, n, k, input, acc, min_sm, ptx) \
  {MmaOp::id, "mma_" #id, "m" #m "n" #n "k" #k, m, n, k, #input, #acc, min_sm, ptx, "sm_120a"},
#include "ptx/mma_forms.def"
#undef GPUPROBE_MMA_FORM_SM120A
#undef GPUPROBE_MMA_FORM
};
inline constexpr unsigned kMmaOpCount = sizeof(kMmaOps) / sizeof(kMmaOps[0]);

GPUPROBE_HD constexpr const MmaOpInfo& mma_op_info(MmaOp op) {
  return kMmaOps[static_cast<unsigned>(op)];
}

// mmas per warp per loop iteration (all chains together). An mma is tens of cycles of tensor
// work, so 32 keep the loop's own instructions negligible; independent accumulators per warp in a
// throughput kernel (8 x 4 mmas per iteration); a latency kernel has one (32 dependent mmas).
constexpr uint32_t kMmaPerIteration = 32;
constexpr uint32_t kMmaThroughputChains = 8;
constexpr uint32_t kMmaMaxChains = kMmaThroughputChains;
// Largest fragments of any form, in 32-bit words per lane (m16n8k16 f64: A 8, B 4, C 4 doubles).
constexpr uint32_t kMmaMaxAWords = 16;
constexpr uint32_t kMmaMaxBWords = 8;
constexpr uint32_t kMmaMaxCWords = 8;
// The largest block a throughput kernel is built for (__launch_bounds__).
constexpr uint32_t kMmaMaxBlockThreads = 256;

// The block-scaled forms (ptx/mma_forms.def kind::mxf8f6f4 / mxf4 / mxf4nvf4): D = (A x SF_A)
// (B x SF_B) + C, PTX ISA 9.7.14.3 "Block Scaling for mma.sync". scale_A is M x vec, scale_B
// vec x N: each row of A and column of B splits into vec blocks of K / vec elements, each with its
// own scale factor (ue8m0 2^(e - 127), or ue4m3: e4m3 without the sign). Every lane passes one
// .b32 of scale data for A and one for B; the selectors (immediates in the instruction) pick who
// supplies what:
//   SF_A of row r, block kb: lane 4 (r % 8) + 2 thread_a + r / 8, byte byte_a + kb
//     (thread-id-a 0 picks the thread pair %laneid % 4 == 0, 1, thread-id-a 1 the pair 2, 3; the
//     pair's first thread gives row g = %laneid / 4, its second row g + 8: CUTLASS's SFALayout)
//   SF_B of column c, block kb: lane 4 c + thread_b, byte byte_b + kb
//     (%laneid % 4 == thread-id-b in each quad; quad c gives column c: CUTLASS's SFBLayout)
// byte_a/byte_b: any byte for scale_vec::1X, 0 or 2 (the byte pair) for 2X, 0 for 4X. The probe
// uses non-zero selectors wherever the PTX ISA allows one, and fills every byte no selector picks
// with a decoy scale (probes/tensor/mma.cpp mma_tile), so a GPU that read another lane's or
// byte's scale misses the float64 reference.
struct MmaBlockScale {
  uint32_t vec = 0;      // scale factors per row of A / column of B: 1, 2, 4; 0 when not block-scaled
  bool ue4m3 = false;    // the scale format: ue4m3 (NVFP4), else ue8m0
  uint32_t byte_a = 0, thread_a = 0, byte_b = 0, thread_b = 0;  // {byte-id, thread-id} of A and B
};

GPUPROBE_HD constexpr MmaBlockScale mma_block_scale_of(MmaOp op) {
  switch (op) {
    case MmaOp::m16n8k32_mxf8f6f4_e4m3_f32:
    case MmaOp::m16n8k32_mxf8f6f4_e5m2_f32:
    case MmaOp::m16n8k32_mxf8f6f4_e3m2_f32: return {1, false, 3, 1, 1, 2};
    case MmaOp::m16n8k64_mxf4_e2m1_f32:
    case MmaOp::m16n8k64_mxf4nvf4_e2m1_f32: return {2, false, 2, 1, 2, 3};
    case MmaOp::m16n8k64_mxf4nvf4_ue4m3_e2m1_f32: return {4, true, 0, 1, 0, 1};
    default: return {};
  }
}

// One lane's fragments (words as the registers hold them).
struct MmaLane {
  uint32_t a[kMmaMaxAWords];
  uint32_t b[kMmaMaxBWords];
  uint32_t b_neg[kMmaMaxBWords];  // the fragment of -B
  uint32_t c[kMmaMaxCWords];
  uint32_t scale_a;  // block-scaled forms: the lane's scale-a-data and scale-b-data (else unused)
  uint32_t scale_b;
};

struct MmaArgs {
  const MmaLane* lanes;  // 32 lanes
  uint64_t iterations;   // of the unrolled loop (kMmaPerIteration mmas per warp each)
  uint64_t zero;         // a runtime 0: the chains' distinct starts, the feedback, the clock read
  uint32_t store;        // non-zero: lane 0 of each warp stores its checksum
};

// What lane 0 of each warp writes.
struct MmaWarpOut {
  uint64_t start_cycles;
  uint64_t end_cycles;
  uint32_t smid;
  uint32_t ran;          // 1 once the warp finished
  uint64_t checksum;     // XOR of every accumulator word of the lane (when `store`)
};

}  // namespace gpuprobe::probes::tensor
