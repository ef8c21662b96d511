// The contract between the CUDA-core kernels (alu.cu) and their host side (alu_ops.cpp,
// alu_cuda.cpp, alu_sim.cpp): the op table, the kernel arguments and what every warp reports.
// Plain C++ that nvcc, NVRTC and g++ all compile.
//
// Two kernels per op:
//   gpuprobe_alu_<op>_lat   one dependent chain per thread (launched as one warp): latency
//   gpuprobe_alu_<op>_thr   kAluThroughputChains independent chains per thread (launched with
//                           many warps per SM): issue rate
// Every thread runs `iterations` iterations of kAluOpsPerIteration ops (unrolled), each chain
// x = op(x, b, c) from its start value; operands and start values are kernel arguments. Lane 0 of
// each warp records %clock64 around the loop (the closing read waits for every chain's result)
// and its SM; when `store` is set it also stores the chains' results, which the host checks
// against its own computation of the chain (probes/compute/alu_ops.cpp).
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

namespace gpuprobe::probes::compute {

// The ops, named after their PTX form (ptx/alu.cuh). X(op).
//   fma_rn_{f32,f64,f16x2,bf16x2,f32x2}   x = fma(x, b, c)
//   mad_lo_s32                             x = x * b + c
//   add_add_u32                            x = (x + b) + c, one IADD3
//   ex2_approx_ftz_f32                     x = ex2(-x)      (the negation is a MUFU operand modifier)
//   rsqrt_approx_ftz_f32, sin_approx_ftz_f32, tanh_approx_f32    x = op(x)
//   cvt_f16_f32                            x = cvt.f32.f16(cvt.rn.f16.f32(x)), a round trip
//   cvt_s32_f32                            x = cvt.rn.f32.s32(cvt.rzi.s32.f32(x)), a round trip
#define GPUPROBE_ALU_OPS(X)                                                                    \
  X(fma_rn_f32) X(fma_rn_f64) X(fma_rn_f16x2) X(fma_rn_bf16x2) X(fma_rn_f32x2) X(mad_lo_s32)   \
  X(add_add_u32) X(ex2_approx_ftz_f32) X(rsqrt_approx_ftz_f32) X(sin_approx_ftz_f32)           \
  X(tanh_approx_f32) X(cvt_f16_f32) X(cvt_s32_f32)

enum class AluOp {
#define GPUPROBE_ALU_ENUM(op) op,
  GPUPROBE_ALU_OPS(GPUPROBE_ALU_ENUM)
#undef GPUPROBE_ALU_ENUM
};

// PTX ops per thread per loop iteration (all chains together): 64 keeps the loop's own
// instructions (counter, compare, branch) under 5% of the issue slots.
constexpr uint32_t kAluOpsPerIteration = 64;
// Independent chains per thread of a throughput kernel; a latency kernel has one.
constexpr uint32_t kAluThroughputChains = 8;
constexpr uint32_t kAluMaxChains = kAluThroughputChains;

// What an op is, for the host: its instruction path and precision (the machine model's keys),
// the elements one op works on (2 for the packed x2 forms), the FLOPs per element (2 for an FMA,
// 0 where the op is not counted as FLOPs), the bytes of its register (4 or 8) and the capability
// it needs beyond the suite's sm_70 minimum (needs_cap false: none).
struct AluOpInfo {
  AluOp op;
  const char* name;
  const char* ptx;
  const char* path;       // "fma", "imad", "iadd3", "mufu", "cvt"
  const char* precision;  // "f32", "f64", "f16", "bf16", "s32", "u32"
  uint32_t elements;
  uint32_t flops_per_element;
  uint32_t reg_bytes;
  bool needs_cap;
  ptx::Cap cap;
};

inline constexpr AluOpInfo kAluOps[] = {
    {AluOp::fma_rn_f32, "fma_rn_f32", "fma.rn.f32", "fma", "f32", 1, 2, 4, false, ptx::Cap::sreg_timers},
    {AluOp::fma_rn_f64, "fma_rn_f64", "fma.rn.f64", "fma", "f64", 1, 2, 8, false, ptx::Cap::sreg_timers},
    {AluOp::fma_rn_f16x2, "fma_rn_f16x2", "fma.rn.f16x2", "fma", "f16", 2, 2, 4, false,
     ptx::Cap::sreg_timers},
    {AluOp::fma_rn_bf16x2, "fma_rn_bf16x2", "fma.rn.bf16x2", "fma", "bf16", 2, 2, 4, true,
     ptx::Cap::fma_bf16x2},
    {AluOp::fma_rn_f32x2, "fma_rn_f32x2", "fma.rn.f32x2", "fma", "f32x2", 2, 2, 8, true,
     ptx::Cap::fma_f32x2},
    {AluOp::mad_lo_s32, "mad_lo_s32", "mad.lo.s32", "imad", "s32", 1, 0, 4, false, ptx::Cap::sreg_timers},
    {AluOp::add_add_u32, "add_add_u32", "add.u32 + add.u32 (IADD3)", "iadd3", "u32", 1, 0, 4, false,
     ptx::Cap::sreg_timers},
    {AluOp::ex2_approx_ftz_f32, "ex2_approx_ftz_f32", "ex2.approx.ftz.f32", "mufu.ex2", "f32", 1, 0,
     4, false, ptx::Cap::sreg_timers},
    {AluOp::rsqrt_approx_ftz_f32, "rsqrt_approx_ftz_f32", "rsqrt.approx.ftz.f32", "mufu.rsq", "f32",
     1, 0, 4, false, ptx::Cap::sreg_timers},
    {AluOp::sin_approx_ftz_f32, "sin_approx_ftz_f32", "sin.approx.ftz.f32", "mufu.sin", "f32", 1, 0,
     4, false, ptx::Cap::sreg_timers},
    {AluOp::tanh_approx_f32, "tanh_approx_f32", "tanh.approx.f32", "mufu.tanh", "f32", 1, 0, 4, true,
     ptx::Cap::tanh_approx},
    {AluOp::cvt_f16_f32, "cvt_f16_f32", "cvt.rn.f16.f32 + cvt.f32.f16", "cvt.f16", "f32", 1, 0, 4,
     false, ptx::Cap::sreg_timers},
    {AluOp::cvt_s32_f32, "cvt_s32_f32", "cvt.rzi.s32.f32 + cvt.rn.f32.s32", "cvt.s32", "f32", 1, 0,
     4, false, ptx::Cap::sreg_timers},
};
inline constexpr unsigned kAluOpCount = sizeof(kAluOps) / sizeof(kAluOps[0]);

GPUPROBE_HD constexpr const AluOpInfo& alu_op_info(AluOp op) {
  return kAluOps[static_cast<unsigned>(op)];
}

namespace detail {
GPUPROBE_HD constexpr bool alu_table_in_enum_order() {
  for (unsigned i = 0; i < kAluOpCount; ++i)
    if (static_cast<unsigned>(kAluOps[i].op) != i) return false;
  return true;
}
static_assert(alu_table_in_enum_order(), "kAluOps must list the AluOp values in enum order");
}  // namespace detail

// Kernel arguments. Values travel as bits (the low 4 bytes for 32-bit registers).
struct AluArgs {
  uint64_t start[kAluMaxChains];  // each chain's first value
  uint64_t b;
  uint64_t c;
  uint64_t iterations;            // of the unrolled loop (kAluOpsPerIteration ops each)
  uint64_t zero;                  // a runtime 0: the closing clock read depends on the results
  uint32_t store;                 // non-zero: lane 0 of each warp stores its chains' results
};

// What lane 0 of each warp writes (timing and SM always; result only when `store`).
struct AluWarpOut {
  uint64_t start_cycles;
  uint64_t end_cycles;
  uint32_t smid;
  uint32_t ran;                   // 1 once the warp finished
  uint64_t result[kAluMaxChains];
};

}  // namespace gpuprobe::probes::compute
