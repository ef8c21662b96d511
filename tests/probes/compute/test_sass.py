#!/usr/bin/env python3
"""SASS assertions for the CUDA-core kernels (probes/compute/compute.cu).

Targets: every target the build ships (tests/sass_tools.py TARGETS). Ops come from the rows of
probes/compute/compute.def; each has a latency kernel (one chain) and a throughput kernel (eight
chains), both 64 PTX ops per loop iteration. For every kernel on every target:
  * no LDL/STL (local memory) and no CALL;
  * an op this target lacks (bf16x2 before sm_80, f32x2 before sm_100) traps and has no loop;
  * otherwise the hot loop (the innermost loop holding the op's instruction) is straight-line code
    holding exactly the expected instructions per iteration (EXPECTED below, per target):
    FFMA, DFMA, HFMA2, HFMA2.BF16_V2, FFMA2 (FFMA x2 where f32x2 is emulated), IMAD, IADD3,
    MUFU.EX2/RSQ/SIN(+FMUL)/TANH, F2FP or F2F + HADD2.F32, F2I + I2F(P);
  * nothing else heavy (MUFU, conversions, FP64, tensor, memory other than a kernel-parameter
    reload from constant bank 0) and at most OTHER_BUDGET other instructions (loop control and
    register moves; NOPs, which pad dependent FP64 on sm_120, are not counted).
Self-test (sm_90): the control kernels pass; a chain whose results are dead (ptxas deletes it), an
rcp chain that ptxas folds (rcp(rcp(x)) = x), a throughput kernel one op short (3 chains of 21) and
a warp-uniform integer chain (ptxas moves it to the uniform datapath: UIMAD, not IMAD) each fail
the count check. Prints `sass_compute: N passed, M failed`.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from sass_tools import (CONTROL_OPS, MEMORY_OPS, SelfTest, arch_number, check_table,  # noqa: E402
                        check_traps, def_ops, hygiene, lines, loops, param_read, run_sass_test)

LOG = "sass_compute"
SOURCES = {"alu": os.path.join("probes", "compute", "compute.cu")}
OPS_PER_ITERATION = 64
HEAVY = {"MUFU", "F2F", "F2FP", "F2I", "I2F", "I2FP", "I2I", "FRND", "DFMA", "DADD", "DMUL",
         "HMMA", "IMMA", "DMMA", "QMMA", "BAR", "SHFL", "CALL", "BPT", "FFMA2", "FFMA", "HFMA2",
         "IMAD", "IADD3", "FMUL", "HADD2", "IDP", "POPC", "FLO"}
# Loop control (counter, compare, branch) and register moves ptxas adds around 64-bit operands;
# the largest seen is sm_75 fma_rn_f64_thr with 17 IMAD.MOV.
OTHER_BUDGET = 24
MUTANT_ARCH = "sm_90"


def ops(source_dir):
    return def_ops(source_dir, os.path.join("probes", "compute", "compute.def"), "GPUPROBE_COMPUTE_OP", LOG)


def is_move(ins):
    """IMAD.MOV / IMAD.U32 d, RZ, RZ, x: a register move on the integer pipe, not a multiply."""
    return ins["opcode"] == "IMAD" and ("MOV" in ins["modifiers"] or ins["operands"][1:3] == ["RZ", "RZ"])


# Instruction classes: name -> predicate.
CLASSES = {
    "FFMA": lambda i: i["opcode"] == "FFMA",
    "FFMA2": lambda i: i["opcode"] == "FFMA2",
    "DFMA": lambda i: i["opcode"] == "DFMA",
    "HFMA2": lambda i: i["opcode"] == "HFMA2" and "BF16_V2" not in i["modifiers"],
    "HFMA2.BF16_V2": lambda i: i["opcode"] == "HFMA2" and "BF16_V2" in i["modifiers"],
    "IMAD": lambda i: i["opcode"] == "IMAD" and not is_move(i),
    "IADD3": lambda i: i["opcode"] == "IADD3",
    "MUFU.EX2": lambda i: i["opcode"] == "MUFU" and "EX2" in i["modifiers"],
    "MUFU.RSQ": lambda i: i["opcode"] == "MUFU" and "RSQ" in i["modifiers"],
    "MUFU.SIN": lambda i: i["opcode"] == "MUFU" and "SIN" in i["modifiers"],
    "MUFU.TANH": lambda i: i["opcode"] == "MUFU" and "TANH" in i["modifiers"],
    "MUFU.RCP": lambda i: i["opcode"] == "MUFU" and "RCP" in i["modifiers"],
    "FMUL": lambda i: i["opcode"] == "FMUL",
    "F2FP": lambda i: i["opcode"] == "F2FP",
    "F2F": lambda i: i["opcode"] == "F2F",
    "HADD2.F32": lambda i: i["opcode"] == "HADD2" and "F32" in i["modifiers"],
    "F2I": lambda i: i["opcode"] == "F2I",
    "I2F": lambda i: i["opcode"] in {"I2F", "I2FP"},
}


def expected(op, kernel_kind, arch):
    """{class: count per loop iteration} for a kernel, or None where the target lacks the op
    (the kernel must trap)."""
    sm = arch_number(arch)
    n = OPS_PER_ITERATION
    if op == "fma_rn_f32":
        return {"FFMA": n}
    if op == "fma_rn_f64":
        return {"DFMA": n}
    if op == "fma_rn_f16x2":
        return {"HFMA2": n}
    if op == "fma_rn_bf16x2":
        return None if sm < 80 else {"HFMA2.BF16_V2": n}
    if op == "fma_rn_f32x2":
        if sm < 100:
            return None
        # FFMA2 only on sm_100/103; sm_110/120/121 accept the PTX and emit two FFMA.
        return {"FFMA2": n} if sm in (100, 103) else {"FFMA": 2 * n}
    if op == "mad_lo_s32":
        return {"IMAD": n}
    if op == "add_add_u32":
        # sm_90+ fuses the two adds into one IADD3; sm_75-89 keep two (the third input RZ).
        return {"IADD3": n if sm >= 90 else 2 * n}
    if op == "ex2_approx_ftz_f32":
        return {"MUFU.EX2": n}
    if op == "rsqrt_approx_ftz_f32":
        return {"MUFU.RSQ": n}
    if op == "sin_approx_ftz_f32":
        return {"MUFU.SIN": n, "FMUL": n}  # FMUL.RZ: the range reduction
    if op == "tanh_approx_f32":
        return None if sm < 75 else {"MUFU.TANH": n}
    if op == "cvt_f16_f32":
        if sm < 80:
            return {"F2F": n, "HADD2.F32": n}
        # One F2FP.PACK_AB converts two independent chains' values: half as many in the
        # throughput kernel.
        return {"F2FP": n if kernel_kind == "lat" else n // 2, "HADD2.F32": n}
    if op == "cvt_s32_f32":
        return {"F2I": n, "I2F": n}
    raise SystemExit(f"{LOG}: no SASS expectation for op {op}: add one to expected()")


def classify(ins, counts):
    for name in counts:
        if CLASSES[name](ins):
            return name
    return None


def check_kernel(checker, where, instructions, counts):
    """Every assertion on one kernel; counts None: the kernel must trap."""
    hygiene(checker, where, instructions)
    if counts is None:
        check_traps(checker, where, instructions, HEAVY - {"BPT"})
        return
    holding = [(a, b) for a, b in loops(instructions)
               if any(classify(instructions[k], counts) for k in range(a, b + 1))]
    if not checker.check(bool(holding), f"{where}: a loop holds the op's instructions",
                         "no loop holds " + ", ".join(counts), "count"):
        return
    first, last = min(holding, key=lambda ab: ab[1] - ab[0])
    body = instructions[first:last + 1]
    inner_control = [i for i in body[:-1] if i["opcode"] in CONTROL_OPS]
    checker.check(not inner_control, f"{where}: the hot loop is straight-line code",
                  lines(inner_control), "loop")
    for name, want in counts.items():
        got = [i for i in body if CLASSES[name](i)]
        checker.check(len(got) == want, f"{where}: {want} {name} per hot-loop iteration",
                      f"found {len(got)}", "count")
    rest = [i for i in body if classify(i, counts) is None and i["opcode"] not in CONTROL_OPS
            and i["opcode"] != "NOP"]
    memory = []
    for ins in rest:
        if ins["opcode"] not in MEMORY_OPS:
            continue
        if param_read(ins):
            checker.note("kernel-parameter read in the hot loop (constant bank 0)", where)
            continue
        memory.append(ins)
    checker.check(not memory, f"{where}: no memory instruction in the hot loop", lines(memory),
                  "heavy")
    heavy = [i for i in rest if i["opcode"] in HEAVY and not is_move(i)]
    checker.check(not heavy, f"{where}: nothing else heavy in the hot loop", lines(heavy), "heavy")
    checker.check(len(rest) <= OTHER_BUDGET, f"{where}: at most {OTHER_BUDGET} other "
                  "instructions per hot-loop iteration", f"found {len(rest)}: " + lines(rest),
                  "heavy")


def check_arch(checker, arch, functions, op_list):
    check_table(checker, arch, functions.get("alu", {}),
                [(f"gpuprobe_alu_{op}_{kind}", (op, kind)) for op in op_list for kind in ("lat", "thr")],
                lambda c, where, ins, claim: check_kernel(c, where, ins, expected(*claim, arch)),
                "every compute kernel is a table op")


MUTANT_SOURCE = r"""
#include "probes/compute/compute.cu"
namespace d = gpuprobe::probes::compute::device;
namespace v = gpuprobe::probes::device;
using Args = gpuprobe::probes::ValueChainArgs;
using Out = gpuprobe::probes::ValueChainOut;
namespace gpuprobe::probes::compute::device {
// rcp.approx.ftz chains fold: rcp(rcp(x)) = x.
struct mutant_rcp : F32Reg {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ Reg step(Reg x, Reg, Reg) {
    float y;
    asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
  }
};
}
extern "C" __global__ void gpuprobe_mutant_control(Args a, Out* out) {
  v::run_value_chains<d::mad_lo_s32, 8>(a, out);
}
// The chain's result is never used: ptxas deletes the loop body.
extern "C" __global__ void gpuprobe_mutant_dead(Args a, Out* out) {
  float x = __uint_as_float(uint32_t(a.start[0])) + threadIdx.x;
  const float b = __uint_as_float(uint32_t(a.b)), cc = __uint_as_float(uint32_t(a.c));
  const uint64_t t0 = clock64();
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < 64; ++u) x = gpuprobe::ptx::fma_rn_f32(x, b, cc);
  }
  out[0].start_cycles = t0;
  out[0].end_cycles = clock64();
}
extern "C" __global__ void gpuprobe_mutant_folded(Args a, Out* out) {
  v::run_value_chains<d::mutant_rcp, 1>(a, out);
}
// 3 chains of 64 / 3 = 21 ops: 63 per iteration.
extern "C" __global__ void gpuprobe_mutant_short(Args a, Out* out) {
  v::run_value_chains<d::fma_rn_f32, 3>(a, out);
}
// Warp-uniform values: the chain runs on the uniform datapath (UIMAD).
extern "C" __global__ void gpuprobe_mutant_uniform(Args a, Out* out) {
  uint32_t x = uint32_t(a.start[0]);
  const uint32_t b = uint32_t(a.b), cc = uint32_t(a.c);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < 64; ++u) x = uint32_t(gpuprobe::ptx::mad_lo_s32(int32_t(x), int32_t(b), int32_t(cc)));
  }
  out[0].result[0] = x;
}
"""
# (label, kernel, expected counts it claims, the check that must catch it or None: a control).
MUTANTS = [("control", "gpuprobe_mutant_control", {"IMAD": 64}, None),
           ("dead chain (results unused)", "gpuprobe_mutant_dead", {"FFMA": 64}, "count"),
           ("folded rcp chain", "gpuprobe_mutant_folded", {"MUFU.RCP": 64}, "count"),
           ("one op short (3 chains of 21)", "gpuprobe_mutant_short", {"FFMA": 64}, "count"),
           ("warp-uniform integer chain (UIMAD)", "gpuprobe_mutant_uniform", {"IMAD": 64},
            "count")]


if __name__ == "__main__":
    sys.exit(run_sass_test(__doc__, LOG, SOURCES, check_arch, setup=ops,
                           self_tests=[SelfTest("mutants", MUTANT_SOURCE, MUTANTS, check_kernel, MUTANT_ARCH)]))
