#!/usr/bin/env python3
"""SASS assertions for the launch-overhead kernels (probes/launch/launch.cu).

Targets: every target the build ships (tests/sass_tools.py TARGETS). For every kernel on every
target:
  * no LDL/STL (local memory); no CALL, except the device-side cudaGraphLaunch of
    gpuprobe_launch_device_graph (one CALL.ABS.NOINC: a device-runtime builtin the driver resolves)
    and cooperative groups' grid-sync subroutine in gpuprobe_launch_scale_gsync (CALL.REL.NOINC);
  * the %globaltimer stamps: CS2R Rd, SR_GLOBALTIMERLO (sm_120 reads the
    PDL primary's spin poll into a uniform register, CS2UR, the same fixed-latency 64-bit read),
    exactly TIMER_READS per kernel (start and end; the PDL primary also polls it while it spins);
    never S2UR (the variable-latency read) or a 32-bit half;
  * every kernel counts that it ran: its RED/ATOM adds (COUNTS);
  * PDL: from sm_90 the primary holds one PREEXIT (griddepcontrol.launch_dependents)
    and the secondary one ACQBULK (griddepcontrol.wait), placed after its first timer read;
    before sm_90 both trap (BPT.TRAP) and hold neither;
  * the SCALE kernels: a loop holding one LDG.E.64, one DMUL and one STG.E.64; gsync holds a
    BAR.SYNC and the grid barrier's device-scope ATOM; pt its own barrier: an
    ATOMG add and a polling loop of one strong load, bounded (sass_tools.check_wait_bound: its
    32-bit %globaltimer_lo reads, which are no stamps, and the trap past the deadline).
Self-test (sm_90): a control kernel passes; a stamp whose end read is gone (the end stamp written
from the start one), a secondary without griddepcontrol.wait and an empty kernel that counts
nothing each fail the check meant for them. Prints `sass_launch: N passed, M failed`.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from sass_tools import (SelfTest, arch_number, check_table, check_wait_bound, lines, loops,  # noqa: E402
                        run_sass_test, wait_bound_reads)

LOG = "sass_launch"
SOURCES = {"launch": os.path.join("probes", "launch", "launch.cu")}
MUTANT_ARCH = "sm_90"
PDL_MIN_SM = 90

KERNELS = ["gpuprobe_launch_empty", "gpuprobe_launch_stamp", "gpuprobe_launch_pdl_primary",
           "gpuprobe_launch_pdl_secondary", "gpuprobe_launch_device_graph", "gpuprobe_launch_scale",
           "gpuprobe_launch_scale_gsync", "gpuprobe_launch_scale_pt"]
# %globaltimer reads per kernel (PDL kernels: where the target has griddepcontrol).
TIMER_READS = {"gpuprobe_launch_empty": 0, "gpuprobe_launch_stamp": 2, "gpuprobe_launch_pdl_primary": 3,
               "gpuprobe_launch_pdl_secondary": 2, "gpuprobe_launch_device_graph": 2,
               "gpuprobe_launch_scale": 0, "gpuprobe_launch_scale_gsync": 0, "gpuprobe_launch_scale_pt": 0}
# Counter adds (RED/REDG/ATOM/ATOMG .ADD on the counters): at least this many.
COUNTS = {"gpuprobe_launch_empty": 1, "gpuprobe_launch_stamp": 1, "gpuprobe_launch_pdl_primary": 1,
          "gpuprobe_launch_pdl_secondary": 1, "gpuprobe_launch_device_graph": 1,
          "gpuprobe_launch_scale": 2, "gpuprobe_launch_scale_gsync": 2, "gpuprobe_launch_scale_pt": 2}
CALLS = {"gpuprobe_launch_device_graph": {"CALL.ABS.NOINC": 1},
         "gpuprobe_launch_scale_gsync": {"CALL.REL.NOINC": None}}  # None: any number (cg's helper)


def timer_reads(instructions):
    """The measuring %globaltimer reads: a bounded wait's 32-bit reads are not stamps."""
    bound = {id(i) for i in wait_bound_reads(instructions)}
    return [i for i in instructions if "SR_GLOBALTIMER" in i["text"] and id(i) not in bound]


def is_add_atomic(ins):
    return ins["opcode"] in {"RED", "REDG", "ATOM", "ATOMG"} and "ADD" in ins["modifiers"]


def check_kernel(checker, where, name, instructions, sm):
    bad = [i for i in instructions if i["opcode"] in {"LDL", "STL"}]
    checker.check(not bad, f"{where}: no local memory", lines(bad), "hygiene")
    calls = [i for i in instructions if i["opcode"] == "CALL"]
    allowed = CALLS.get(name, {})
    unexpected = [i for i in calls if ".".join([i["opcode"]] + i["modifiers"]) not in allowed]
    checker.check(not unexpected, f"{where}: no call but {', '.join(allowed) or 'none'}",
                  lines(unexpected), "hygiene")
    for form, want in allowed.items():
        got = [i for i in calls if ".".join([i["opcode"]] + i["modifiers"]) == form]
        if want is not None:
            checker.check(len(got) == want, f"{where}: {want} {form} (the device-side cudaGraphLaunch)",
                          f"found {len(got)}", "call")

    pdl = name in ("gpuprobe_launch_pdl_primary", "gpuprobe_launch_pdl_secondary")
    traps = [i for i in instructions if i["opcode"] == "BPT"]
    if pdl and sm < PDL_MIN_SM:
        held = [i for i in instructions if i["opcode"] in {"ACQBULK", "PREEXIT"} or "SR_GLOBALTIMER" in i["text"]]
        checker.check(bool(traps) and not held and not loops(instructions),
                      f"{where}: traps below sm_90 (no griddepcontrol), holding nothing else",
                      lines(held), "pdl")
        return

    reads = timer_reads(instructions)
    want = TIMER_READS[name]
    checker.check(len(reads) == want, f"{where}: {want} %globaltimer reads", f"found {len(reads)}: " + lines(reads),
                  "timer")
    wrong = [i for i in reads if not (i["opcode"] in {"CS2R", "CS2UR"} and
                                      re.search(r"SR_GLOBALTIMERLO\b", i["text"]))]
    checker.check(not wrong, f"{where}: %globaltimer read as one 64-bit CS2R (or CS2UR) SR_GLOBALTIMERLO",
                  lines(wrong), "timer")
    adds = [i for i in instructions if is_add_atomic(i)]
    checker.check(len(adds) >= COUNTS[name], f"{where}: at least {COUNTS[name]} counter adds (it records that it ran)",
                  f"found {len(adds)}", "count")

    if name == "gpuprobe_launch_pdl_primary":
        pre = [i for i in instructions if i["opcode"] == "PREEXIT"]
        checker.check(len(pre) == 1, f"{where}: one PREEXIT (griddepcontrol.launch_dependents)",
                      f"found {len(pre)}", "pdl")
    if name == "gpuprobe_launch_pdl_secondary":
        acq = [k for k, i in enumerate(instructions) if i["opcode"] == "ACQBULK"]
        checker.check(len(acq) == 1, f"{where}: one ACQBULK (griddepcontrol.wait)", f"found {len(acq)}", "pdl")
        first_read = next((k for k, i in enumerate(instructions) if "SR_GLOBALTIMER" in i["text"]), None)
        if acq and first_read is not None:
            checker.check(first_read < acq[0], f"{where}: the start stamp is read before the wait",
                          lines(instructions[min(first_read, acq[0]):max(first_read, acq[0]) + 1]), "pdl")
    if name.startswith("gpuprobe_launch_scale"):
        holding = [(a, b) for a, b in loops(instructions)
                   if any(instructions[k]["opcode"] == "DMUL" for k in range(a, b + 1))]
        if checker.check(bool(holding), f"{where}: a loop holds SCALE's DMUL", "", "scale"):
            a, b = min(holding, key=lambda ab: ab[1] - ab[0])
            body = instructions[a:b + 1]
            for op, form in (("LDG", "E.64"), ("DMUL", None), ("STG", "E.64")):
                got = [i for i in body if i["opcode"] == op and (form is None or ".".join(i["modifiers"]).startswith(form))]
                checker.check(len(got) == 1, f"{where}: one {op}{'.' + form if form else ''} per SCALE element",
                              f"found {len(got)}: " + lines(body), "scale")
    if name == "gpuprobe_launch_scale_gsync":
        bars = [i for i in instructions if i["opcode"] == "BAR"]
        atom = [i for i in instructions if i["opcode"] in {"ATOM", "ATOMG"} and "ADD" in i["modifiers"]]
        checker.check(len(bars) >= 2 and bool(atom), f"{where}: grid.sync is CTA barriers around a device-scope "
                      "atomic add", lines(bars + atom), "barrier")
    if name == "gpuprobe_launch_scale_pt":
        atom = [i for i in instructions if i["opcode"] in {"ATOM", "ATOMG"} and "ADD" in i["modifiers"]]
        polls = [(a, b) for a, b in loops(instructions)
                 if b - a < 16 and any(instructions[k]["opcode"] == "LDG" and "STRONG" in instructions[k]["modifiers"]
                                      for k in range(a, b + 1))]
        checker.check(bool(atom) and bool(polls), f"{where}: an atomic arrival and a polling loop of one strong load",
                      lines(atom), "barrier")
        if polls:
            a, b = min(polls, key=lambda ab: ab[1] - ab[0])
            check_wait_bound(checker, where, instructions, instructions[a:b + 1], 1)


def check_arch(checker, arch, functions, _):
    sm = arch_number(arch)
    check_table(checker, arch, functions.get("launch", {}), [(name, name) for name in KERNELS],
                lambda c, where, ins, name: check_kernel(c, where, name, ins, sm),
                "every launch kernel is known to this test")


MUTANT_SOURCE = r"""
#include "probes/launch/launch.cu"
using gpuprobe::probes::launch::LaunchStamp;
extern "C" __global__ void gpuprobe_mutant_control(LaunchStamp* s, uint32_t i, uint32_t* c) {
  if (threadIdx.x != 0) return;
  const uint64_t t = gpuprobe::ptx::get_sreg_globaltimer();
  atomicAdd(c, 1u);
  s[i].start_ns = t;
  s[i].ran = 1;
  s[i].end_ns = gpuprobe::ptx::get_sreg_globaltimer();
}
// The end stamp is the start one: one timer read.
extern "C" __global__ void gpuprobe_mutant_one_read(LaunchStamp* s, uint32_t i, uint32_t* c) {
  if (threadIdx.x != 0) return;
  const uint64_t t = gpuprobe::ptx::get_sreg_globaltimer();
  atomicAdd(c, 1u);
  s[i].start_ns = t;
  s[i].ran = 1;
  s[i].end_ns = t;
}
// A secondary that never waits for its primary.
extern "C" __global__ void gpuprobe_mutant_no_wait(LaunchStamp* s, uint32_t i, uint32_t* c) {
  if (threadIdx.x != 0) return;
  const uint64_t t = gpuprobe::ptx::get_sreg_globaltimer();
  atomicAdd(c, 1u);
  s[i].start_ns = t;
  s[i].ran = 1;
  s[i].end_ns = gpuprobe::ptx::get_sreg_globaltimer();
}
// An empty kernel that records nothing.
extern "C" __global__ void gpuprobe_mutant_silent(uint32_t* c) {}
"""
# (label, kernel, the kernel whose checks it claims to pass, the check that must catch it).
MUTANTS = [("control", "gpuprobe_mutant_control", "gpuprobe_launch_stamp", None),
           ("end stamp without its own timer read", "gpuprobe_mutant_one_read", "gpuprobe_launch_stamp", "timer"),
           ("PDL secondary without griddepcontrol.wait", "gpuprobe_mutant_no_wait",
            "gpuprobe_launch_pdl_secondary", "pdl"),
           ("empty kernel that counts nothing", "gpuprobe_mutant_silent", "gpuprobe_launch_empty", "count")]


def check_mutant(checker, where, instructions, claimed):
    check_kernel(checker, where, claimed, instructions, arch_number(MUTANT_ARCH))


if __name__ == "__main__":
    sys.exit(run_sass_test(__doc__, LOG, SOURCES, check_arch,
                           self_tests=[SelfTest("mutants", MUTANT_SOURCE, MUTANTS, check_mutant, MUTANT_ARCH)]))
