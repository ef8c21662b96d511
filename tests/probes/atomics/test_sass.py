#!/usr/bin/env python3
"""SASS assertions for the atomics kernels (probes/atomics/atomics.cu).

Targets: every target the build ships (tests/sass_tools.py TARGETS). Ops come from
the rows of probes/atomics/atomics.def; each has a latency kernel (1 chain, 16 ops per
loop iteration) and a throughput kernel (4 chains: 64). For every kernel on every target: no
LDL/STL and no CALL (but the loop exit sm_80-89 writes as a predicated CALL.REL.NOINC to the
fall-through address before the back branch); red's latency kernel traps with no loop; otherwise the kernel holds exactly the
op's instructions, which say what ptxas did:
  * native: one ATOMG.E.<OP>[.64] (global) / ATOMS.<OP>[.64] (shared) per op, RED.E.ADD (sm_75,
    sm_80-89) or REDG.E.ADD (sm_90+) per red.global;
  * warp-aggregated (*_add_u32_uniform): per op 1 VOTE.ANY + 6 SHFL.UP (the scan) + 1 SHFL.IDX and
    2 ATOM paths;
  * CAS loop (atom.shared.add.f32, the 64-bit shared adds and red): one ATOMS.CAST.SPIN per op, no
    ATOMS.ADD;
  * red.shared.add.u32 of 1: ATOMS.POPC.INC.32 from sm_80 (ATOMS.ADD on sm_75).
Self-test (sm_90): a control passes; an add whose address is a kernel parameter (ptxas aggregates
it) claimed native and a dead chain (results unused) each fail the count check; a 64-bit division
of the word index (a CALL to a division routine) fails the hygiene check.
Prints `sass_atomics: N passed, M failed`.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from sass_tools import (SelfTest, arch_number, check_table, check_traps, hygiene,  # noqa: E402
                        matches, run_sass_test, def_ops)

LOG = "sass_atomics"
SOURCES = {"atomics": os.path.join("probes", "atomics", "atomics.cu")}
MUTANT_ARCH = "sm_90"
ATOMIC_OPS = {"ATOM", "ATOMG", "ATOMS", "RED", "REDG", "VOTE", "SHFL"}


def ops(source_dir):
    return def_ops(source_dir, os.path.join("probes", "atomics", "atomics.def"), "GPUPROBE_ATOMICS_OP", LOG)


def expected(op, kind, arch):
    """{class: count} over the whole kernel, or None where the kernel must trap (red latency).
    Counts of 0 forbid a class. The cas kernels' 5 SHFL.BFLY per chain are the hits' warp sum."""
    sm = arch_number(arch)
    n = 64 if kind == "thr" else 16
    chains = 4 if kind == "thr" else 1
    space, rest = op.split("_", 1)
    wide = rest.endswith("64")
    w = ".64" if wide else ""
    if rest.startswith("red_add") and kind == "lat":
        return None
    if op.endswith("_uniform"):
        unit = "ATOMG.ADD" if space == "global" else "ATOMS.ADD"
        return {unit: 2 * n, "VOTE.ANY": n, "SHFL.UP": 6 * n, "SHFL.IDX": n}
    if space == "shared" and (rest in ("add_u64", "red_add_u64", "add_f32")):
        return {"ATOMS.CAST.SPIN" + w: n, "ATOMS.ADD": 0, "VOTE": 0}
    if op == "shared_red_add_u32":
        return {"ATOMS.POPC.INC": n, "ATOMS.ADD": 0} if sm >= 80 else {"ATOMS.ADD": n}
    name = {"add": "ADD", "cas": "CAS", "exch": "EXCH", "red": "ADD"}[rest.split("_")[0]]
    if rest.startswith("red_add"):
        unit = ("REDG.ADD" if sm >= 90 else "RED.ADD") if space == "global" else "ATOMS.ADD"
    else:
        unit = ("ATOMG." if space == "global" else "ATOMS.") + name
    counts = {unit: n, "VOTE": 0, "SHFL.UP": 0}
    if wide:
        counts[unit + ".64"] = n
    if name == "CAS":
        counts["SHFL.BFLY"] = 5 * chains
    return counts


def loop_exit_call(instructions, i):
    """sm_80-89 ptxas leaves a uniform loop with `@!P CALL.REL.NOINC <next>; BRA <loop top>`: a
    predicated jump to the fall-through address, not a subroutine (nothing to return to)."""
    ins = instructions[i]
    if ins["opcode"] != "CALL" or ins["modifiers"] != ["REL", "NOINC"] or not ins["predicate"]:
        return False
    target = re.search(r"0x([0-9a-f]+)", " ".join(ins["operands"]))
    after = instructions[i + 2] if i + 2 < len(instructions) else None
    back = instructions[i + 1] if i + 1 < len(instructions) else None
    return (target is not None and after is not None and back is not None and back["opcode"] == "BRA"
            and int(target.group(1), 16) == after["address"])


def check_kernel(checker, where, instructions, expect):
    hygiene(checker, where, [ins for i, ins in enumerate(instructions)
                             if not loop_exit_call(instructions, i)])
    if expect is None:
        check_traps(checker, where, instructions, ATOMIC_OPS,
                    "traps, with no loop (red has no latency)")
        return
    for cls, want in expect.items():
        got = [i for i in instructions if matches(cls, i)]
        checker.check(len(got) == want, f"{where}: {want} {cls}", f"found {len(got)}", "count")


def check_arch(checker, arch, functions, op_list):
    check_table(checker, arch, functions.get("atomics", {}),
                [(f"gpuprobe_atomics_{op}_{kind}", (op, kind)) for op in op_list for kind in ("lat", "thr")],
                lambda c, where, ins, claim: check_kernel(c, where, ins, expected(*claim, arch)),
                "every atomics kernel is a table op")


MUTANT_SOURCE = r"""
#include "probes/atomics/atomics.cu"
namespace a = gpuprobe::probes::atomics;
extern "C" __global__ void gpuprobe_mutant_control(a::AtomicsArgs x, a::AtomicsWarpOut* out) {
  a::device::run<a::AtomicsOp::global_add_u32, 1>(x, out);
}
// The address is the kernel parameter: ptxas proves it warp-uniform and aggregates.
extern "C" __global__ void gpuprobe_mutant_uniform(a::AtomicsArgs x, a::AtomicsWarpOut* out) {
  uint32_t v = 1;
#pragma unroll 1
  for (uint64_t i = x.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < 16; ++u) v = a::device::atom_add(reinterpret_cast<uint64_t>(x.words), 1u + (v & uint32_t(x.zero)));
  }
  out[0].hits[0] = v;
}
// The returned values are never used: ptxas turns the atomics into REDs.
extern "C" __global__ void gpuprobe_mutant_dead(a::AtomicsArgs x, a::AtomicsWarpOut* out) {
  const uint64_t p = reinterpret_cast<uint64_t>(static_cast<uint32_t*>(x.words) + (threadIdx.x & 31) * x.pattern);
#pragma unroll 1
  for (uint64_t i = x.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < 16; ++u) atomicAdd(reinterpret_cast<uint32_t*>(p), 1u);
  }
  out[0].ran = 1;
}
// The shared word's index divided as a 64-bit value (what atomics_word() did): a division routine.
extern "C" __global__ void gpuprobe_mutant_div64(a::AtomicsArgs x, a::AtomicsWarpOut* out) {
  const uint64_t warp = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  out[0].hits[0] = a::device::atom_add(reinterpret_cast<uint64_t>(static_cast<uint32_t*>(x.words) +
                                            warp / x.pattern), 1u);
}
"""
NATIVE = {"ATOMG.ADD": 16, "VOTE": 0, "SHFL.UP": 0}
MUTANTS = [("control", "gpuprobe_mutant_control", NATIVE, None),
           ("uniform address claimed native (warp-aggregated)", "gpuprobe_mutant_uniform", NATIVE, "count"),
           ("dead atomics (results unused)", "gpuprobe_mutant_dead", NATIVE, "count"),
           ("64-bit division of the word index (a CALL)", "gpuprobe_mutant_div64",
            {"ATOMG.ADD": 1}, "hygiene")]


if __name__ == "__main__":
    sys.exit(run_sass_test(__doc__, LOG, SOURCES, check_arch, setup=ops,
                           self_tests=[SelfTest("mutants", MUTANT_SOURCE, MUTANTS, check_kernel, MUTANT_ARCH)]))
