#!/usr/bin/env python3
"""SASS assertions for the wgmma kernels (probes/tensor/wgmma.sm90a.cu), on sm_90a only.

Ops come from probes/tensor/wgmma.def (inputs x N x SS/RS). For every op's
latency and throughput kernel:
  * no LDL/STL (local memory) and no CALL;
  * the hot loop (the shortest backward branch holding a GMMA) is straight-line code holding,
    per iteration, exactly the op's GMMA (1 in _lat, 8 in _thr): HGMMA (f16, bf16, tf32), QGMMA
    (e4m3, e5m2) or IGMMA (s8), of shape 64xNxK with the input and accumulator types, A from a
    register (RS) or a descriptor (SS); all of one commit group, so one of them carries gsb0;
  * exactly one WARPGROUP.ARRIVE and one WARPGROUP.DEPBAR.LE gsb0 (0x0 latency, 0x1 throughput)
    per iteration: no wait inside the group;
  * nothing else heavy (memory, barriers, other MMAs) and at most OTHER_BUDGET other instructions
    (loop control and the uniform descriptor arithmetic).
The baseline kernel's loop holds one ARRIVE, one DEPBAR.LE gsb0, 0x0 and at most the null
HGMMA.64x8x16 on RZ that ptxas puts into an empty commit group.
Self-test (sm_90a, nvcc): a control kernel passes; a throughput loop one wgmma short and a loop
with the m64n64 form where m64n128 is claimed fail the count check; a loop that waits after every
wgmma fails the sync check; an SS loop claimed as RS fails the form check.
Prints `sass_wgmma: N passed, M failed`.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from cuda_tools import compile_cubin, nvcc_path, test_args  # noqa: E402
from sass_tools import (CONTROL_OPS, MEMORY_OPS, Checker, build_object, check_mutations,  # noqa: E402
                        hygiene, lines, loops, parse_sass, print_summary, run, start)

LOG = "sass_wgmma"
SOURCE = os.path.join("probes", "tensor", "wgmma.sm90a.cu")
ARCH = "sm_90a"
GMMA = {"HGMMA", "QGMMA", "IGMMA", "BGMMA"}
HEAVY = GMMA | {"HMMA", "IMMA", "QMMA", "DMMA", "BAR", "SHFL", "MUFU", "WARPSYNC", "BPT"}
# Loop counter (64-bit), compare, branch and the descriptors' uniform arithmetic; the largest seen
# is 13 (RS throughput: the B descriptor rebuilt every iteration).
OTHER_BUDGET = 16
THROUGHPUT_PER_ITERATION = 8
CLASS = {"f16": "HGMMA", "bf16": "HGMMA", "tf32": "HGMMA", "e4m3": "QGMMA", "e5m2": "QGMMA",
         "s8": "IGMMA"}
TYPE_TOKENS = {"f16": [], "bf16": ["BF16"], "tf32": ["TF32"], "e4m3": ["E4M3"], "e5m2": ["E5M2"],
               "s8": ["S8"]}


def ops(source_dir):
    """[(input, acc, n, k, form)] from the rows of probes/tensor/wgmma.def."""
    path = os.path.join(source_dir, "probes", "tensor", "wgmma.def")
    rows = re.findall(r"^GPUPROBE_WGMMA_OP\((\w+), (\w+), (\d+), (\d+), (\w+)\)",
                      open(path, encoding="utf-8").read(), re.M)
    if not rows:
        raise SystemExit(f"{LOG}: no GPUPROBE_WGMMA_OP rows in {path}")
    return [(i, a, int(n), int(k), form) for i, a, n, k, form in rows]


def is_gmma(ins):
    return ins["opcode"] in GMMA


def matches(ins, want):
    """Does a GMMA instruction have the claimed class, shape, types and A operand?"""
    inp, acc, n, k, form = want
    mods = ins["modifiers"]
    if ins["opcode"] != CLASS[inp] or f"64x{n}x{k}" not in mods:
        return False
    if acc == "f16" and ("F16" not in mods or "F32" in mods):
        return False
    if acc == "f32" and "F32" not in mods:
        return False
    if any(t not in mods for t in TYPE_TOKENS[inp]):
        return False
    a_operand = ins["operands"][1] if len(ins["operands"]) > 1 else ""
    return bool(re.fullmatch(r"R\d+", a_operand)) == (form == "rs")


def hot_loop(instructions):
    holding = [(a, b) for a, b in loops(instructions)
               if any(is_gmma(instructions[i]) for i in range(a, b + 1))]
    if not holding:
        return None
    a, b = min(holding, key=lambda ab: ab[1] - ab[0])
    return instructions[a:b + 1]


def check_kernel(checker, where, instructions, want, per_iteration, pending):
    """want: (input, acc, n, k, form); pending: the DEPBAR's group count (0 or 1)."""
    hygiene(checker, where, instructions)
    body = hot_loop(instructions)
    if not checker.check(body is not None, f"{where}: a loop holds the wgmmas", "no loop", "count"):
        return
    inner = [i for i in body[:-1] if i["opcode"] in CONTROL_OPS]
    checker.check(not inner, f"{where}: the hot loop is straight-line code", lines(inner), "loop")
    gmma = [i for i in body if is_gmma(i)]
    good = [i for i in gmma if matches(i, want)]
    checker.check(len(good) == per_iteration and len(gmma) == per_iteration,
                  f"{where}: {per_iteration} {CLASS[want[0]]}.64x{want[2]}x{want[3]} per iteration",
                  f"found {len(good)} of the op among {len(gmma)}: " + lines(gmma), "count")
    if gmma and all(ins["opcode"] == CLASS[want[0]] and f"64x{want[2]}x{want[3]}" in ins["modifiers"]
                    for ins in gmma):
        form_ok = all(bool(re.fullmatch(r"R\d+", ins["operands"][1])) == (want[4] == "rs")
                      for ins in gmma)
        checker.check(form_ok, f"{where}: A from {'registers' if want[4] == 'rs' else 'a descriptor'}",
                      lines(gmma), "form")
    arrive = [i for i in body if i["opcode"] == "WARPGROUP" and "ARRIVE" in i["modifiers"]]
    depbar = [i for i in body if i["opcode"] == "WARPGROUP" and "DEPBAR" in i["modifiers"]]
    waits = [i for i in gmma if "gsb0" in i["operands"]]
    checker.check(len(arrive) == 1 and len(depbar) == 1 and len(waits) == 1 and
                  depbar[0]["operands"][-1] == hex(pending),
                  f"{where}: one WARPGROUP.ARRIVE, one DEPBAR.LE gsb0, {hex(pending)} and one "
                  "commit group per iteration",
                  lines(arrive + depbar + waits), "sync")
    rest = [i for i in body if not is_gmma(i) and i["opcode"] not in CONTROL_OPS and
            i["opcode"] not in {"WARPGROUP", "NOP"}]
    heavy = [i for i in rest if i["opcode"] in HEAVY or
             (i["opcode"] in MEMORY_OPS and not re.fullmatch(r"c\[0x0\]\[0x[0-9a-f]+\]",
                                                            i["operands"][-1] if i["operands"] else ""))]
    checker.check(not heavy, f"{where}: nothing else heavy in the hot loop", lines(heavy), "heavy")
    checker.check(len(rest) <= OTHER_BUDGET, f"{where}: at most {OTHER_BUDGET} other instructions "
                  "per iteration", f"found {len(rest)}: " + lines(rest), "heavy")


def check_baseline(checker, instructions):
    where = f"{ARCH} gpuprobe_wgmma_baseline_lat"
    hygiene(checker, where, instructions)
    body = next((instructions[a:b + 1] for a, b in loops(instructions)), None)
    if not checker.check(body is not None, f"{where}: a loop"):
        return
    arrive = [i for i in body if i["opcode"] == "WARPGROUP" and "ARRIVE" in i["modifiers"]]
    depbar = [i for i in body if i["opcode"] == "WARPGROUP" and "DEPBAR" in i["modifiers"]]
    checker.check(len(arrive) == 1 and len(depbar) == 1 and depbar[0]["operands"][-1] == "0x0",
                  f"{where}: one ARRIVE and one DEPBAR.LE gsb0, 0x0 per iteration",
                  lines(arrive + depbar))
    gmma = [i for i in body if is_gmma(i)]
    null = [i for i in gmma if i["operands"][:1] == ["RZ"] and "64x8x16" in i["modifiers"]]
    checker.check(len(gmma) <= 1 and len(null) == len(gmma),
                  f"{where}: no wgmma but ptxas's null HGMMA.64x8x16 on RZ", lines(gmma))
    heavy = [i for i in body if (i["opcode"] in HEAVY - GMMA) or i["opcode"] in MEMORY_OPS]
    checker.check(not heavy, f"{where}: nothing else heavy", lines(heavy))


MUTANT_SOURCE = r"""
#include "probes/tensor/wgmma.sm90a.cu"
namespace wd = gpuprobe::probes::tensor::device;
namespace gp = gpuprobe::ptx;
using gpuprobe::probes::tensor::WgmmaArgs;
using gpuprobe::probes::tensor::WgmmaGroupOut;
#define SS(fn) [](auto& d, const uint32_t(&)[4], uint64_t ad, uint64_t bd) { gp::fn(d, ad, bd); }
extern "C" __global__ void __launch_bounds__(128) mutant_control(WgmmaArgs a, WgmmaGroupOut* o) {
  wd::measure<64, false, 128, true, 2>(a, o, SS(wgmma_m64n128k16_f32_f16_ss));
}
// A group of 7: one wgmma short.
extern "C" __global__ void __launch_bounds__(128) mutant_short(WgmmaArgs a, WgmmaGroupOut* o) {
  int n = 0;
  wd::measure<64, false, 128, true, 2>(a, o, [&n](auto& d, const uint32_t(&)[4], uint64_t ad, uint64_t bd) {
    if (n++ % 8 != 7) gp::wgmma_m64n128k16_f32_f16_ss(d, ad, bd);
  });
}
// The m64n64 form where m64n128 is claimed.
extern "C" __global__ void __launch_bounds__(128) mutant_shape(WgmmaArgs a, WgmmaGroupOut* o) {
  wd::measure<32, false, 64, true, 2>(a, o, SS(wgmma_m64n64k16_f32_f16_ss));
}
// A wait after every wgmma: eight commit groups per iteration, each waited for.
extern "C" __global__ void __launch_bounds__(128) mutant_waits(WgmmaArgs a, WgmmaGroupOut* o) {
  wd::measure<64, false, 128, true, 2>(a, o, [](auto& d, const uint32_t(&)[4], uint64_t ad, uint64_t bd) {
    gp::wgmma_m64n128k16_f32_f16_ss(d, ad, bd);
    gp::wgmma_commit_group();
    gp::wgmma_wait_group<0>();
  });
}
"""
# (label, kernel, claimed op, per iteration, pending, the check that must catch it or None).
MUTANTS = [("control", "mutant_control", ("f16", "f32", 128, 16, "ss"), 8, 1, None),
           ("one wgmma short (7 per group)", "mutant_short", ("f16", "f32", 128, 16, "ss"), 8, 1,
            "count"),
           ("m64n64 where m64n128 is claimed", "mutant_shape", ("f16", "f32", 128, 16, "ss"), 8, 1,
            "count"),
           ("a wait after every wgmma", "mutant_waits", ("f16", "f32", 128, 16, "ss"), 8, 1, "sync"),
           ("an SS loop claimed as RS", "mutant_control", ("f16", "f32", 128, 16, "rs"), 8, 1,
            "form")]


def disassemble(args, cuobjdump, checker, tmp):
    """{function: [instruction]} of the build's sm_90a object (or nvcc's cubin), and the mutants'."""
    obj, stale = build_object(args.build_dir, args.source_dir, SOURCE)
    built = "sm_90a" in args.cuda_targets
    if obj and not stale and built:
        origin, binary = "build", obj
    else:
        result, binary = compile_cubin(args.source_dir, os.path.join(args.source_dir, SOURCE), ARCH,
                                       tmp)
        origin = "nvcc"
        if not checker.check(result.returncode == 0, f"nvcc {SOURCE} for {ARCH}",
                             result.stderr.strip()[-400:]):
            return None, None
    print(f"{LOG}: {ARCH} from {origin}")
    dump = run([cuobjdump, "-sass", binary])
    if not checker.check(dump.returncode == 0 and "Function" in dump.stdout,
                         f"cuobjdump -sass {binary}", dump.stderr.strip()):
        return None, None
    functions = parse_sass(dump.stdout, ARCH).get(ARCH, {})
    mutant_path = os.path.join(tmp, "mutants.cu")
    with open(mutant_path, "w") as f:
        f.write(MUTANT_SOURCE)
    result, cubin = compile_cubin(args.source_dir, mutant_path, ARCH, tmp)
    mutants = None
    if checker.check(result.returncode == 0, "self-test: compile the mutants",
                     result.stderr.strip()[-400:]):
        dump = run([cuobjdump, "-sass", cubin])
        mutants = parse_sass(dump.stdout, ARCH).get(ARCH, {})
    return functions, mutants


def main():
    args = test_args(__doc__.splitlines()[0])
    cuobjdump, status = start(args, LOG, sys.executable)
    if cuobjdump is None:
        return status
    checker = Checker()
    if not checker.check(os.path.exists(nvcc_path()), f"nvcc found ({nvcc_path()})"):
        return print_summary(checker, LOG)
    with tempfile.TemporaryDirectory() as tmp:
        functions, mutants = disassemble(args, cuobjdump, checker, tmp)
    if functions is None:
        return print_summary(checker, LOG)
    names = {"gpuprobe_wgmma_baseline_lat"}
    for want in ops(args.source_dir):
        inp, acc, n, k, form = want
        for kind, per, pending in (("lat", 1, 0), ("thr", THROUGHPUT_PER_ITERATION, 1)):
            name = f"gpuprobe_wgmma_{inp}_{acc}_n{n}_{form}_{kind}"
            names.add(name)
            if checker.check(name in functions, f"{ARCH} {name}: kernel present"):
                check_kernel(checker, f"{ARCH} {name}", functions[name], want, per, pending)
    if checker.check("gpuprobe_wgmma_baseline_lat" in functions, "the baseline kernel is present"):
        check_baseline(checker, functions["gpuprobe_wgmma_baseline_lat"])
    unknown = sorted(set(functions) - names)
    checker.check(not unknown, f"{ARCH}: every wgmma kernel is a table op", ", ".join(unknown))
    if mutants is not None:
        def check(probe, where, instructions, index):
            _, _, want, per, pending, _ = MUTANTS[index]
            check_kernel(probe, where, instructions, want, per, pending)
        check_mutations(checker, mutants, [(m[0], m[1], m[5]) for m in MUTANTS], check, ARCH, LOG)
    return print_summary(checker, LOG)


if __name__ == "__main__":
    sys.exit(main())
