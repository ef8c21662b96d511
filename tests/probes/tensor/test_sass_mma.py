#!/usr/bin/env python3
"""SASS assertions for the mma.sync kernels (probes/tensor/mma.cu).

Targets: every target the build ships (tests/sass_tools.py TARGETS). Forms come from
ptx/mma_forms.def (GPUPROBE_MMA_FORM and the arch-specific GPUPROBE_MMA_FORM_SM120A: kind::f8f6f4
e2m1/e3m2/e2m3 and the block-scaled kind::mxf8f6f4 e4m3/e5m2/e3m2, kind::mxf4 and kind::mxf4nvf4
(2X ue8m0, 4X ue4m3), whose kernels only probes/tensor/mma.sm120a.cu has: compiled for sm_120a alone,
one QMMA.16832.F32.<fmt>.<fmt>, QMMA.SF...E8, OMMA.SF...E8 or OMMA.SF...UE4M3.4X per mma there, and
absent from every target's mma.cu); each has a tile kernel (one mma), a latency kernel (one accumulator, 32 dependent
mmas per loop iteration) and a throughput kernel (8 accumulators x 4 mmas). For every kernel on
every target:
  * no LDL/STL (local memory); no CALL except where ptxas emulates s4 with a subroutine;
  * a form the target lacks (min_sm in the .def above the target) traps, with no loop and no MMA;
  * otherwise the tile kernel holds the instructions of exactly one mma, and the hot loop (the
    innermost loop holding them) is straight-line code with exactly the expected instructions per
    iteration (EXPECTED below, per target): one HMMA.1688 /
    HMMA.16816 (.F16, .F32, .F32.BF16, .F32.TF32), IMMA.16832.S8, IMMA.16864.S4, DMMA.884 /
    DMMA.8x8x4 / DMMA.16x8x16 or QMMA.16832 per mma where native; eight DMMA.8x8x4 per m16n8k16
    f64 mma on sm_100/120; where emulated, two HMMA.16816.F32 per fp8 mma (sm_90/100) and one CALL
    per s4 mma (sm_90+), which is what probes/tensor/mma.cpp mma_implementation reports. The
    sm_70/75 shapes: m8n8k4 f16 two HMMA.884.F16 / four HMMA.884.F32 (the STEPs) per mma on sm_75
    and one CALL (no tensor instruction) from sm_80; m16n8k8 f16 one HMMA.1688.F16; m8n8k16 s8 one
    IMMA.8816.S8 (one IMMA.16816.S8 from sm_100); m8n8k32 s4 one IMMA.8832.S4 (a CALL from sm_90).
    sm_70 cannot be disassembled here: tests/probes/test_compile_cuda12.py counts its mma.sync in
    the NVRTC 12 PTX instead;
  * no memory instruction and no other tensor instruction in the hot loop, and for native forms
    at most OTHER_BUDGET other instructions (loop control) and MOVE_BUDGET_PER_MMA register moves
    per mma (ptxas shuffles the f64 forms' register pairs); NOPs and never-executed fillers
    (`@!UPT UIADD3 URZ...`, which pad dependent mma chains on sm_80-89) are not counted.
  * block-scaled forms: every QMMA.SF/OMMA.SF takes the selectors of probes/tensor/mma.cuh
    mma_block_scale_of (the ones the host reference assumes) from the uniform register it names.
Self-test (sm_120a): a kind::mxf4nvf4 4X chain with selectors {0, 0} fails the selector check, the
real form's chain passes.
Self-test (sm_90): the control kernel passes; a chain whose accumulator is dead (ptxas deletes
it), an fp8 chain without the accumulator feedback (ptxas hoists the loop-invariant product: fewer
HMMA in the loop) and a throughput kernel two mmas short (3 chains of 10) each fail the count check.
Prints `sass_tensor: N passed, M failed`.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from cuda_tools import compile_cubin, test_args  # noqa: E402
from sass_tools import (CONTROL_OPS, MEMORY_OPS, TARGETS, Checker, build_object,  # noqa: E402
                        check_mutations, disassemble, lines, loops, parse_sass, print_summary, start)

LOG = "sass_tensor"
SOURCES = {"mma": os.path.join("probes", "tensor", "mma.cu")}
# The arch-specific unit: its own target only (a compile error elsewhere, GPUPROBE_PTX_REQUIRE).
SM120A_SOURCE = os.path.join("probes", "tensor", "mma.sm120a.cu")
SM120A = "sm_120a"
MMAS_PER_ITERATION = 32
TENSOR = {"HMMA", "IMMA", "DMMA", "QMMA", "OMMA", "BMMA", "HGMMA", "UTCHMMA"}
OTHER_BUDGET = 16
# Register moves per mma (the largest seen: sm_90 m16n8k16 f64 throughput, about 3 per DMMA).
MOVE_BUDGET_PER_MMA = 4
MUTANT_ARCH = "sm_90"


def arch_number(arch):
    return int(re.match(r"sm_(\d+)", arch).group(1))


def forms(source_dir):
    """[(id, min_sm, arch_target)] from ptx/mma_forms.def (arch_target "sm_120a" or None)."""
    path = os.path.join(source_dir, "ptx", "mma_forms.def")
    found = re.findall(r"^GPUPROBE_MMA_FORM(_SM120A)?\((\w+),[^)]*?,\s*(\d+),\s*\"",
                       open(path, encoding="utf-8").read(), re.M)
    if not found:
        raise SystemExit(f"{LOG}: no GPUPROBE_MMA_FORM lines in {path}")
    return [(name, int(sm), SM120A if specific else None) for specific, name, sm in found]


def mods(i):
    return set(i["modifiers"])


# Instruction classes: name -> predicate.
CLASSES = {
    # Volta's m8n8k4 f16 on sm_75: HMMA.884.F16.F16.STEP0/1 (f16 accumulate), .F32.F32.STEP0-3.
    "HMMA.884.F16": lambda i: i["opcode"] == "HMMA" and {"884", "F16"} <= mods(i),
    "HMMA.884.F32": lambda i: i["opcode"] == "HMMA" and {"884", "F32"} <= mods(i),
    "HMMA.1688.F16": lambda i: i["opcode"] == "HMMA" and {"1688", "F16"} <= mods(i),
    "IMMA.8816.S8": lambda i: i["opcode"] == "IMMA" and {"8816", "S8"} <= mods(i),
    "IMMA.8832.S4": lambda i: i["opcode"] == "IMMA" and {"8832", "S4"} <= mods(i),
    "IMMA.16816.S8": lambda i: i["opcode"] == "IMMA" and {"16816", "S8"} <= mods(i),
    "HMMA.1688.F32": lambda i: i["opcode"] == "HMMA" and {"1688", "F32"} <= mods(i) and "TF32" not in mods(i),
    "HMMA.1688.F32.TF32": lambda i: i["opcode"] == "HMMA" and {"1688", "F32", "TF32"} <= mods(i),
    "HMMA.16816.F16": lambda i: i["opcode"] == "HMMA" and {"16816", "F16"} <= mods(i),
    "HMMA.16816.F32": lambda i: i["opcode"] == "HMMA" and {"16816", "F32"} <= mods(i) and "BF16" not in mods(i),
    "HMMA.16816.F32.BF16": lambda i: i["opcode"] == "HMMA" and {"16816", "F32", "BF16"} <= mods(i),
    "IMMA.16832.S8": lambda i: i["opcode"] == "IMMA" and {"16832", "S8"} <= mods(i),
    "IMMA.16864.S4": lambda i: i["opcode"] == "IMMA" and {"16864", "S4"} <= mods(i),
    "DMMA.884": lambda i: i["opcode"] == "DMMA" and "884" in mods(i),
    "DMMA.8x8x4": lambda i: i["opcode"] == "DMMA" and "8x8x4" in mods(i),
    "DMMA.16x8x16": lambda i: i["opcode"] == "DMMA" and "16x8x16" in mods(i),
    "QMMA.E4M3": lambda i: i["opcode"] == "QMMA" and "16832" in mods(i) and "E4M3" in mods(i) and "SF" not in mods(i),
    "QMMA.E5M2": lambda i: i["opcode"] == "QMMA" and "16832" in mods(i) and "E5M2" in mods(i) and "SF" not in mods(i),
    # kind::f8f6f4 on sm_120a (ptxas 13.0): QMMA.16832.F32.E2M1.E2M1 and the fp6 alike.
    "QMMA.E2M1": lambda i: i["opcode"] == "QMMA" and "16832" in mods(i) and "E2M1" in mods(i) and "SF" not in mods(i),
    "QMMA.E3M2": lambda i: i["opcode"] == "QMMA" and "16832" in mods(i) and "E3M2" in mods(i) and "SF" not in mods(i),
    "QMMA.E2M3": lambda i: i["opcode"] == "QMMA" and "16832" in mods(i) and "E2M3" in mods(i) and "SF" not in mods(i),
    # Block-scaled kinds on sm_120a (ptxas 13.0): QMMA.SF.16832.F32.<fmt>.<fmt>.E8 (mxf8f6f4),
    # OMMA.SF.16864.F32.E2M1.E2M1.E8 (kind::mxf4 and mxf4nvf4 scale_vec::2X, ue8m0 scales as E8)
    # and OMMA.SF.16864.F32.E2M1.E2M1.UE4M3.4X (mxf4nvf4 scale_vec::4X, ue4m3).
    "QMMA.SF.E4M3.E8": lambda i: i["opcode"] == "QMMA" and {"SF", "16832", "E4M3", "E8"} <= mods(i),
    "QMMA.SF.E5M2.E8": lambda i: i["opcode"] == "QMMA" and {"SF", "16832", "E5M2", "E8"} <= mods(i),
    "QMMA.SF.E3M2.E8": lambda i: i["opcode"] == "QMMA" and {"SF", "16832", "E3M2", "E8"} <= mods(i),
    "OMMA.SF.E2M1.E8": lambda i: i["opcode"] == "OMMA" and {"SF", "16864", "E2M1", "E8"} <= mods(i),
    "OMMA.SF.E2M1.UE4M3.4X": lambda i: i["opcode"] == "OMMA" and {"SF", "16864", "E2M1", "UE4M3", "4X"} <= mods(i),
    # The emulating subroutine's call: unconditional. ptxas 13.0 closes the m8n8k4 f16 loops on
    # sm_80-89 with a predicated CALL.REL.NOINC past the backward branch (the loop's exit), not an mma.
    "CALL": lambda i: i["opcode"] == "CALL" and not i["predicate"],
}


def expected(form, arch):
    """({class: count per mma}, emulated) on `arch`."""
    sm = arch_number(arch)
    fp8_native = sm == 89 or sm >= 120
    table = {
        # sm_70/75 shapes (ptxas 13.0): m8n8k4 f16 a call per mma from sm_80 on (SHFL/FFMA/HADD2.F32,
        # no tensor instruction); m8n8k16 s8 one IMMA.16816 from sm_100 on; m8n8k32 s4 a call from
        # sm_90 on (two s8 IMMA inside the subroutine, not in the loop).
        "m8n8k4_f16_f16": {"HMMA.884.F16": 2} if sm < 80 else {"CALL": 1},
        "m8n8k4_f16_f32": {"HMMA.884.F32": 4} if sm < 80 else {"CALL": 1},
        "m16n8k8_f16_f16": {"HMMA.1688.F16": 1},
        "m8n8k16_s8_s32": {"IMMA.8816.S8": 1} if sm < 100 else {"IMMA.16816.S8": 1},
        "m8n8k32_s4_s32": {"IMMA.8832.S4": 1} if sm < 90 else {"CALL": 1},
        "m16n8k8_f16_f32": {"HMMA.1688.F32": 1},
        "m16n8k16_f16_f16": {"HMMA.16816.F16": 1},
        "m16n8k16_f16_f32": {"HMMA.16816.F32": 1},
        "m16n8k16_bf16_f32": {"HMMA.16816.F32.BF16": 1},
        "m16n8k8_tf32_f32": {"HMMA.1688.F32.TF32": 1},
        "m8n8k4_f64_f64": {"DMMA.8x8x4" if sm >= 90 else "DMMA.884": 1},
        "m16n8k16_f64_f64": {"DMMA.16x8x16": 1} if sm == 90 else {"DMMA.8x8x4": 8},
        "m16n8k32_s8_s32": {"IMMA.16832.S8": 1},
        "m16n8k64_s4_s32": {"IMMA.16864.S4": 1} if sm < 90 else {"CALL": 1},
        "m16n8k32_e4m3_f32": {"QMMA.E4M3": 1} if fp8_native else {"HMMA.16816.F32": 2},
        "m16n8k32_e5m2_f32": {"QMMA.E5M2": 1} if fp8_native else {"HMMA.16816.F32": 2},
        "m16n8k32_e2m1_f32": {"QMMA.E2M1": 1},
        "m16n8k32_e3m2_f32": {"QMMA.E3M2": 1},
        "m16n8k32_e2m3_f32": {"QMMA.E2M3": 1},
        "m16n8k32_mxf8f6f4_e4m3_f32": {"QMMA.SF.E4M3.E8": 1},
        "m16n8k32_mxf8f6f4_e5m2_f32": {"QMMA.SF.E5M2.E8": 1},
        "m16n8k32_mxf8f6f4_e3m2_f32": {"QMMA.SF.E3M2.E8": 1},
        "m16n8k64_mxf4_e2m1_f32": {"OMMA.SF.E2M1.E8": 1},
        "m16n8k64_mxf4nvf4_e2m1_f32": {"OMMA.SF.E2M1.E8": 1},
        "m16n8k64_mxf4nvf4_ue4m3_e2m1_f32": {"OMMA.SF.E2M1.UE4M3.4X": 1},
    }
    if form not in table:
        raise SystemExit(f"{LOG}: no SASS expectation for form {form}: add one to expected()")
    emulated = (form == "m16n8k64_s4_s32" and sm >= 90) or (form.startswith("m16n8k32_e") and not fp8_native) \
        or (form.startswith("m8n8k4_f16") and sm >= 80) or (form == "m8n8k32_s4_s32" and sm >= 90) \
        or (form == "m8n8k16_s8_s32" and sm >= 100)
    return table[form], emulated


def block_scales(source_dir):
    """{form: selector byte} of the block-scaled forms, from probes/tensor/mma.cuh
    mma_block_scale_of ({vec, ue4m3, byte_a, thread_a, byte_b, thread_b} per group of cases)."""
    text = open(os.path.join(source_dir, "probes", "tensor", "mma.cuh"), encoding="utf-8").read()
    body = text[text.index("mma_block_scale_of(MmaOp op)"):]
    body = body[:body.index("default:")]
    found, pending = {}, []
    for line in body.splitlines():
        pending += re.findall(r"case MmaOp::(\w+):", line)
        ret = re.search(r"return \{(\d+), (?:true|false), (\d+), (\d+), (\d+), (\d+)\}", line)
        if ret:
            byte_a, thread_a, byte_b, thread_b = (int(x) for x in ret.groups()[1:])
            for form in pending:
                found[form] = selector_byte(byte_a, thread_a, byte_b, thread_b)
            pending = []
    if not found:
        raise SystemExit(f"{LOG}: no block-scaled forms in probes/tensor/mma.cuh mma_block_scale_of")
    return found


def selector_byte(byte_a, thread_a, byte_b, thread_b):
    """How ptxas 13.0 hands the four selectors to QMMA.SF/OMMA.SF on sm_120a: one uniform register,
    byte-id-a in bits 1:0, thread-id-a bit 2, byte-id-b bits 4:3, thread-id-b bits 6:5 (read off
    the SASS of the selector sets {3,1,1,2}, {2,1,2,3} and {0,1,0,1}: 0x4f, 0x76, 0x24)."""
    return byte_a | thread_a << 2 | byte_b << 3 | thread_b << 5


def check_selectors(checker, where, instructions, want):
    """Every block-scaled mma's last operand (the selectors' uniform register) holds `want`: the
    selectors the host reference assumes reached the instruction."""
    mmas = [i for i in instructions if i["opcode"] in {"QMMA", "OMMA"} and "SF" in mods(i)]
    got = set()
    for reg in {i["operands"][-1] for i in mmas}:
        if reg in {"URZ", "RZ"}:
            got.add(0)
        elif re.fullmatch(r"0x[0-9a-f]+", reg):
            got.add(int(reg, 16))
        else:
            for w in instructions:
                if w["opcode"] in {"UMOV", "MOV", "IMAD.MOV.U32"} and w["operands"] and w["operands"][0] == reg:
                    src = w["operands"][-1]
                    got.add(int(src, 16) if re.fullmatch(r"0x[0-9a-f]+", src) else src)
    checker.check(bool(mmas) and got == {want}, f"{where}: the block-scale selectors are {want:#x}",
                  f"found {sorted(str(g) for g in got) or 'no selector register'}", "selector")


def is_move(ins):
    """MOV, or IMAD.MOV / IMAD.U32 d, RZ, RZ, x: a register move, not arithmetic."""
    return ins["opcode"] == "MOV" or (ins["opcode"] == "IMAD" and (
        "MOV" in ins["modifiers"] or ins["operands"][1:3] == ["RZ", "RZ"]))


def is_filler(ins):
    """NOP, or an instruction under an always-false predicate (@!PT, @!UPT): never executes."""
    return ins["opcode"] == "NOP" or ins["predicate"] in {"@!PT", "@!UPT"}


def classify(ins, counts):
    for name in counts:
        if CLASSES[name](ins):
            return name
    return None


def check_kernel(checker, where, instructions, per_mma, mmas, emulated):
    """Every assertion on one kernel; per_mma None: the kernel must trap. mmas: per loop iteration
    (0: the tile kernel, one mma and no loop)."""
    calls_allowed = per_mma is not None and "CALL" in per_mma
    bad = [i for i in instructions if i["opcode"] in {"LDL", "STL"} or (i["opcode"] == "CALL" and not calls_allowed)]
    checker.check(not bad, f"{where}: no local memory, no calls", lines(bad), "hygiene")
    if per_mma is None:
        heavy = [i for i in instructions if i["opcode"] in TENSOR]
        checker.check(any(i["opcode"] == "BPT" for i in instructions) and not loops(instructions)
                      and not heavy, f"{where}: traps, with no loop, where the form does not exist",
                      lines(heavy), "trap")
        return
    if mmas == 0:
        for name, n in per_mma.items():
            got = [i for i in instructions if CLASSES[name](i)]
            checker.check(len(got) == n, f"{where}: {n} {name} for the one mma", f"found {len(got)}", "count")
        return
    holding = [(a, b) for a, b in loops(instructions)
               if any(classify(instructions[k], per_mma) for k in range(a, b + 1))]
    if not checker.check(bool(holding), f"{where}: a loop holds the form's instructions",
                         "no loop holds " + ", ".join(per_mma), "count"):
        return
    first, last = min(holding, key=lambda ab: ab[1] - ab[0])
    body = instructions[first:last + 1]
    inner_control = [i for i in body[:-1] if i["opcode"] in CONTROL_OPS and i["opcode"] != "CALL"]
    checker.check(not inner_control, f"{where}: the hot loop is straight-line code", lines(inner_control), "loop")
    for name, n in per_mma.items():
        got = [i for i in body if CLASSES[name](i)]
        want = n * mmas
        checker.check(len(got) == want, f"{where}: {want} {name} per hot-loop iteration", f"found {len(got)}",
                      "count")
    rest = [i for i in body if classify(i, per_mma) is None and i["opcode"] not in CONTROL_OPS
            and not is_filler(i)]
    memory = [i for i in rest if i["opcode"] in MEMORY_OPS and not (
        i["opcode"] in {"ULDC", "LDC", "LDCU"} and re.fullmatch(r"c\[0x0\]\[0x[0-9a-f]+\]", i["operands"][-1]))]
    checker.check(not memory, f"{where}: no memory instruction in the hot loop", lines(memory), "heavy")
    other_tensor = [i for i in rest if i["opcode"] in TENSOR]
    checker.check(not other_tensor, f"{where}: no other tensor instruction in the hot loop",
                  lines(other_tensor), "heavy")
    if not emulated:
        moves = [i for i in rest if is_move(i)]
        others = [i for i in rest if not is_move(i)]
        checker.check(len(others) <= OTHER_BUDGET, f"{where}: at most {OTHER_BUDGET} other instructions "
                      "per hot-loop iteration", f"found {len(others)}: " + lines(others), "heavy")
        checker.check(len(moves) <= MOVE_BUDGET_PER_MMA * mmas, f"{where}: at most "
                      f"{MOVE_BUDGET_PER_MMA * mmas} register moves per hot-loop iteration",
                      f"found {len(moves)}", "heavy")


def check_arch(checker, arch, functions, form_list, selectors):
    generic_mma = functions.get("mma", {})
    mma = dict(generic_mma)
    specific = functions.get("mma_sm120a", {})
    names = set()
    sm = arch_number(arch)
    for form, min_sm, target in form_list:
        if target:
            # Arch-specific forms: no kernel in any target's mma.cu; on their target, the unit's.
            generic = sorted(n for n in generic_mma if n.startswith(f"gpuprobe_mma_{form}_"))
            checker.check(not generic, f"{arch} {form}: no kernel in probes/tensor/mma.cu",
                          ", ".join(generic), "absent")
            if arch != target:
                continue
            for name, ins in specific.items():
                mma.setdefault(name, ins)
        per_mma, emulated = expected(form, arch)
        if sm < min_sm:
            per_mma = None
        for kind, mmas in (("tile", 0), ("lat", MMAS_PER_ITERATION), ("thr", MMAS_PER_ITERATION)):
            name = f"gpuprobe_mma_{form}_{kind}"
            names.add(name)
            if checker.check(name in mma, f"{arch} {name}: kernel present"):
                check_kernel(checker, f"{arch} {name}", mma[name], per_mma, mmas, emulated)
                if per_mma is not None and form in selectors:
                    check_selectors(checker, f"{arch} {name}", mma[name], selectors[form])
    unknown = sorted(set(mma) - names)
    checker.check(not unknown, f"{arch}: every tensor kernel is a table form", ", ".join(unknown))


MUTANT_SOURCE = r"""
#include "probes/tensor/mma.cu"
namespace d = gpuprobe::probes::tensor::device;
namespace t = gpuprobe::probes::tensor;
namespace gpuprobe::probes::tensor::device {
// fp8 on sm_90 without the accumulator feedback: ptxas hoists the loop-invariant product.
struct mutant_fp8_unfed : m16n8k32_e4m3_f32 {
  static constexpr bool kEmulated = false;
};
}
extern "C" __global__ void gpuprobe_mutant_control(t::MmaArgs a, t::MmaWarpOut* out) {
  d::run_chains<d::m16n8k16_f16_f32, 8>(a, out);
}
// The accumulator is never used: ptxas deletes the chain.
extern "C" __global__ void gpuprobe_mutant_dead(t::MmaArgs a, t::MmaWarpOut* out) {
  float acc[4] = {0, 0, 0, 0};
  const uint32_t av[4] = {a.lanes[0].a[0], a.lanes[0].a[1], a.lanes[0].a[2], a.lanes[0].a[3]};
  const uint32_t bv[2] = {a.lanes[0].b[0], a.lanes[0].b[1]};
  const uint64_t t0 = clock64();
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < 32; ++u) gpuprobe::ptx::mma_sync_aligned_m16n8k16_row_col_f32_f16_f16_f32(acc, av, bv);
  }
  out[0].start_cycles = t0;
  out[0].end_cycles = clock64();
}
extern "C" __global__ void gpuprobe_mutant_unfed(t::MmaArgs a, t::MmaWarpOut* out) {
  d::run_chains<d::mutant_fp8_unfed, 8>(a, out);
}
// 3 chains of 10 mmas: 30 per iteration.
extern "C" __global__ void gpuprobe_mutant_short(t::MmaArgs a, t::MmaWarpOut* out) {
  d::run_chains<d::m16n8k16_f16_f32, 3>(a, out);
}
"""
# (label, kernel, expected counts per mma it claims, emulated, the check that must catch it).
MUTANTS = [("control", "gpuprobe_mutant_control", {"HMMA.16816.F32": 1}, False, None),
           ("dead accumulator", "gpuprobe_mutant_dead", {"HMMA.16816.F32": 1}, False, "count"),
           ("fp8 without the accumulator feedback (hoisted product)", "gpuprobe_mutant_unfed",
            {"HMMA.16816.F32": 2}, True, "count"),
           ("two mmas short (3 chains of 10)", "gpuprobe_mutant_short", {"HMMA.16816.F32": 1}, False,
            "count")]


# sm_120a: the block-scaled selector check's self-test. A chain of kind::mxf4nvf4 4X mmas whose
# selectors are {0, 0} (a wrapper that dropped the form's selectors): it reads lanes 0/1 of each
# quad, which the tile fills with decoys, and must fail the selector check; the real form passes.
SCALED_MUTANT_SOURCE = r"""
#include "probes/tensor/mma.sm120a.cu"
namespace d = gpuprobe::probes::tensor::device;
namespace t = gpuprobe::probes::tensor;
namespace gpuprobe::probes::tensor::device {
struct mutant_selectors_zero : m16n8k64_mxf4nvf4_ue4m3_e2m1_f32 {
  static __device__ __forceinline__ void mma(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                                             uint32_t sa, uint32_t sb) {
    ptx::mma_sync_aligned_kind_mxf4nvf4_block_scale_scale_vec_4x_m16n8k64_row_col_f32_e2m1_e2m1_f32_ue4m3<0, 0, 0, 0>(
        c, a, b, sa, sb);
  }
};
}
extern "C" __global__ void gpuprobe_mutant_scaled_control(t::MmaArgs a, t::MmaWarpOut* out) {
  d::run_chains<d::m16n8k64_mxf4nvf4_ue4m3_e2m1_f32, 8>(a, out);
}
extern "C" __global__ void gpuprobe_mutant_selectors_zero(t::MmaArgs a, t::MmaWarpOut* out) {
  d::run_chains<d::mutant_selectors_zero, 8>(a, out);
}
"""
SCALED_MUTANT_FORM = "m16n8k64_mxf4nvf4_ue4m3_e2m1_f32"
SCALED_MUTANTS = [("control (kind::mxf4nvf4 4X)", "gpuprobe_mutant_scaled_control", None),
                  ("block-scale selectors {0, 0} instead of the form's", "gpuprobe_mutant_selectors_zero",
                   "selector")]


def check_scaled_mutants(checker, sass, selectors):
    functions = next(iter(parse_sass(sass, SM120A).values()), {})

    def check(probe, where, ins, _):
        check_kernel(probe, where, ins, expected(SCALED_MUTANT_FORM, SM120A)[0], MMAS_PER_ITERATION, False)
        check_selectors(probe, where, ins, selectors[SCALED_MUTANT_FORM])
    check_mutations(checker, functions, SCALED_MUTANTS, check, SM120A, LOG)


def check_mutants(checker, sass):
    functions = next(iter(parse_sass(sass, MUTANT_ARCH).values()), {})
    check_mutations(checker, functions, [(label, kernel, kind) for label, kernel, _, _, kind in MUTANTS],
                    lambda probe, where, ins, i: check_kernel(probe, where, ins, MUTANTS[i][2],
                                                              MMAS_PER_ITERATION, MUTANTS[i][3]),
                    MUTANT_ARCH, LOG)


def sm120a_functions(checker, args, cuobjdump):
    """{function: [instruction]} of probes/tensor/mma.sm120a.cu for sm_120a: the build's object
    where it is current, else nvcc."""
    obj, stale = build_object(args.build_dir, args.source_dir, SM120A_SOURCE)
    with tempfile.TemporaryDirectory() as tmp:
        if obj and not stale:
            binary = obj
        else:
            result, binary = compile_cubin(args.source_dir, os.path.join(args.source_dir, SM120A_SOURCE),
                                           SM120A, tmp)
            if not checker.check(result.returncode == 0, f"nvcc {SM120A_SOURCE} for {SM120A}",
                                 (result.stderr.strip().splitlines() or ["failed"])[-1]):
                return {}
        dump = subprocess.run([cuobjdump, "-sass", binary], capture_output=True, text=True)
    if not checker.check(dump.returncode == 0 and "Function" in dump.stdout,
                         f"disassemble {SM120A_SOURCE} for {SM120A}", dump.stderr.strip()):
        return {}
    parsed = parse_sass(dump.stdout, SM120A)
    checker.check(SM120A in parsed, f"{SM120A}: SASS for {SM120A_SOURCE}")
    return parsed.get(SM120A, {})


def main():
    args = test_args(__doc__.splitlines()[0])
    form_list = forms(args.source_dir)
    cuobjdump, status = start(args, LOG, sys.executable)
    if cuobjdump is None:
        return status
    checker = Checker()
    selectors = block_scales(args.source_dir)
    per_arch, origins, extra = disassemble(args, SOURCES, checker, cuobjdump,
                                           {"mutants": (MUTANT_SOURCE, MUTANT_ARCH),
                                            "mutants_sm120a": (SCALED_MUTANT_SOURCE, SM120A)}, LOG)
    if SM120A in per_arch:
        per_arch[SM120A]["mma_sm120a"] = sm120a_functions(checker, args, cuobjdump)
    for arch in TARGETS:
        print(f"{LOG}: {arch} from {'+'.join(sorted(origins[arch])) or 'nowhere'}")
        check_arch(checker, arch, per_arch[arch], form_list, selectors)
    if extra["mutants"] is not None:
        check_mutants(checker, extra["mutants"])
    if extra["mutants_sm120a"] is not None:
        check_scaled_mutants(checker, extra["mutants_sm120a"], selectors)
    return print_summary(checker, LOG)


if __name__ == "__main__":
    sys.exit(main())
