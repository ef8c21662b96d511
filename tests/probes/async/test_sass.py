#!/usr/bin/env python3
"""SASS assertions for the async-copy kernels (probes/async/async.cu).

Targets: every target the build ships (tests/sass_tools.py TARGETS). Ops come from the rows of
probes/async/async.def; each has a kernel per depth D (1, 2, 4, 8 copies in flight), and there is
the TMA chase; the sm_90a unit multicast.sm90a.cu holds the multicast kernel (checked on sm_90a:
1 UTMALDG.2D.MULTICAST, its arrive and wait and one cluster barrier per round). For every kernel
on every target:
  * no LDL/STL (local memory) and no CALL;
  * an op this target lacks (cp.async before sm_80; bulk, TMA and the chase before sm_90) traps and
    has no loop;
  * otherwise the main loop (the backward branch whose body holds the most of the op's copy
    instruction, the shortest on a tie) holds the expected instructions per iteration, times the
    same whole factor k >= 1 for every class (ptxas unrolls small loops by itself):
      cp.async   D LDGSTS.E of the op's width (.BYPASS for .cg, none for .ca), D LDGDEPBAR (commit)
                 and D DEPBAR.LE SB0, D-1 (wait_group D-1);
      ld + st    D LDG.E and D STS of the op's width;
      bulk/TMA   D UBLKCP.S.G / UTMALDG.1D / UTMALDG.2D, D SYNCS.ARRIVE.TRANS64 (expect_tx) and D
                 SYNCS.PHASECHK.TRANS64.TRYWAIT (the wait, with its retry branch);
      the chase  two loops (warm-up and timed), each 1 UTMALDG.1D, 1 SYNCS.ARRIVE.TRANS64, 1
                 SYNCS.PHASECHK.TRANS64.TRYWAIT and the LDS of the next coordinate;
    every phase wait bounded (its %globaltimer_lo reads and the trap past the deadline:
    sass_tools.check_wait_bound), nothing else heavy (another memory or sync instruction) and at
    most k x OTHER_BUDGET other instructions, plus WAIT_BOUND_HELPERS per wait.
Self-test (sm_90): the control kernel passes; a cp.async loop without its commit, a loop waiting
for every group (wait_group 0 at depth 4), a .ca kernel claimed as .cg, a TMA loop one copy short,
a TMA loop with a fence.proxy.async per copy and one whose wait has no deadline each fail. Prints `sass_async: N passed, M failed`.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from sass_tools import (CONTROL_OPS, MEMORY_OPS, WAIT_BOUND_HELPERS, SelfTest, arch_number,  # noqa: E402
                        check_table, check_wait_bound, def_ops, expected_loops, lines, loops, param_read,
                        parse_sass, run_sass_test)

LOG = "sass_async"
SOURCES = {"async": os.path.join("probes", "async", "async.cu")}
MUTANT_ARCH = "sm_90"
DEPTHS = (1, 2, 4, 8)
HEAVY = MEMORY_OPS | {"SYNCS", "BAR", "MEMBAR", "FENCE", "DEPBAR", "ATOMS", "ARRIVES"}
# Address arithmetic, loop control, the ELECT retry around each bulk/TMA issue and the R2URs of
# its uniform operands, per copy in the loop.
OTHER_BUDGET = 40


def ops(source_dir):
    return def_ops(source_dir, os.path.join("probes", "async", "async.def"), "GPUPROBE_ASYNC_OP", LOG)


class Cls:
    """An instruction class: the opcode, modifiers it must carry, modifiers it must not carry and
    an operand text it must contain."""

    def __init__(self, name, opcode, need=(), avoid=(), operand=None):
        self.name, self.opcode = name, opcode
        self.need, self.avoid, self.operand = set(need), set(avoid), operand

    def matches(self, ins):
        mods = set(ins["modifiers"])
        return (ins["opcode"] == self.opcode and self.need <= mods and not (self.avoid & mods) and
                (self.operand is None or self.operand in ", ".join(ins["operands"])))


class Expect:
    """Per iteration: {Cls: count} (the first finds the loop), how many such loops, and whether
    the loop is straight-line."""

    def __init__(self, counts, loops_count=1, straight=True, tolerate=(), waits=0):
        self.counts = counts
        self.loops_count = loops_count
        self.straight = straight
        self.tolerate = set(tolerate)
        self.waits = waits  # bounded waits per loop (sass_tools.check_wait_bound)


WIDTHS = {4: set(), 8: {"64"}, 16: {"128"}}


def width(need, size):
    return need | WIDTHS[size], {w for s, m in WIDTHS.items() if s != size for w in m}


def expected(op, depth, arch):
    """The Expect of a kernel, or None where the target lacks the op (the kernel must trap)."""
    sm = arch_number(arch)
    d = depth
    if op == "chase":
        if sm < 90:
            return None
        return Expect({Cls("UTMALDG.1D", "UTMALDG", {"1D"}): 1,
                       Cls("SYNCS.ARRIVE.TRANS64", "SYNCS", {"ARRIVE", "TRANS64"}): 1,
                       Cls("SYNCS.PHASECHK.TRANS64.TRYWAIT", "SYNCS", {"PHASECHK", "TRYWAIT"}): 1,
                       Cls("LDS", "LDS"): 1}, loops_count=2, straight=False, waits=1)
    if op.startswith("cp_async_"):
        if sm < 80:
            return None
        size = int(op.rsplit("_", 1)[1])
        bypass = "_cg_" in op
        need, avoid = width({"E", "BYPASS"} if bypass else {"E"}, size)
        if not bypass:
            avoid = avoid | {"BYPASS"}
        name = "LDGSTS.E" + (".BYPASS" if bypass else "") + ("." + "".join(WIDTHS[size]) if WIDTHS[size] else "")
        return Expect({Cls(name, "LDGSTS", need, avoid): d, Cls("LDGDEPBAR", "LDGDEPBAR"): d,
                       Cls(f"DEPBAR.LE SB0, {d - 1}", "DEPBAR", {"LE"}, (), f"SB0, 0x{d - 1:x}"): d})
    if op.startswith("ld_st_"):
        size = int(op.rsplit("_", 1)[1])
        ld_need, ld_avoid = width({"E"}, size)
        st_need, st_avoid = width(set(), size)
        return Expect({Cls("LDG.E" + "".join("." + w for w in WIDTHS[size]), "LDG", ld_need, ld_avoid): d,
                       Cls("STS" + "".join("." + w for w in WIDTHS[size]), "STS", st_need, st_avoid): d})
    if op in ("bulk", "tma_1d", "tma_2d"):
        if sm < 90:
            return None
        copy = {"bulk": Cls("UBLKCP.S.G", "UBLKCP", {"S", "G"}),
                "tma_1d": Cls("UTMALDG.1D", "UTMALDG", {"1D"}),
                "tma_2d": Cls("UTMALDG.2D", "UTMALDG", {"2D"})}[op]
        return Expect({copy: d, Cls("SYNCS.ARRIVE.TRANS64", "SYNCS", {"ARRIVE", "TRANS64"}): d,
                       Cls("SYNCS.PHASECHK.TRANS64.TRYWAIT", "SYNCS", {"PHASECHK", "TRYWAIT"}): d},
                      straight=False, waits=d)
    raise SystemExit(f"{LOG}: no SASS expectation for op {op}: add one to expected()")


# The multicast unit (probes/async/multicast.sm90a.cu, sm_90a only): per round 1 UTMALDG.2D.MULTICAST
# (issued by rank 0), the CTA's expect_tx arrive and phase wait, and one cluster barrier
# (UCGABAR_ARV + UCGABAR_WAIT; its release fence MEMBAR.ALL.GPU + ERRBAR + CGAERRBAR, the wait's
# CCTL.IVALL and ptxas's BAR.SYNC fallback for a launch without a cluster are tolerated).
MULTICAST = Expect({Cls("UTMALDG.2D.MULTICAST", "UTMALDG", {"2D", "MULTICAST"}): 1,
                    Cls("SYNCS.ARRIVE.TRANS64", "SYNCS", {"ARRIVE", "TRANS64"}): 1,
                    Cls("SYNCS.PHASECHK.TRANS64.TRYWAIT", "SYNCS", {"PHASECHK", "TRYWAIT"}): 1,
                    Cls("UCGABAR_ARV", "UCGABAR_ARV"): 1, Cls("UCGABAR_WAIT", "UCGABAR_WAIT"): 1},
                   straight=False, tolerate={"MEMBAR", "ERRBAR", "CGAERRBAR", "CCTL", "BAR"}, waits=1)


def classify(ins, counts):
    return next((c for c in counts if c.matches(ins)), None)


def main_loops(instructions, expect):
    """The loops holding the most of the first class (the shortest first), as many as expected;
    of nested ones the first found. The ELECT retry loops ptxas wraps around each bulk/TMA issue
    are not candidates."""
    first = next(iter(expect.counts))
    scored = []
    for a, b in loops(instructions):
        if "ANY" in instructions[b]["modifiers"]:
            continue  # the ELECT retry around one bulk/TMA issue (BRA.U.ANY), not the copy loop
        held = sum(1 for i in instructions[a:b + 1] if first.matches(i))
        if held:
            scored.append((-held, b - a, a, b))
    scored.sort()
    chosen = []
    for _, _, a, b in scored:
        if len(chosen) == expect.loops_count:
            break
        if not any((x <= a and b <= y) or (a <= x and y <= b) for x, y in chosen):
            chosen.append((a, b))
    return chosen


def check_kernel(checker, where, instructions, expect):
    """Every assertion on one kernel; expect None: the kernel must trap."""
    chosen = expected_loops(checker, where, instructions, expect, main_loops, HEAVY, "hold the copies")
    if chosen is None:
        return
    for first, last in chosen:
        # ptxas pads a DEPBAR with never-executed loads (@!PT LDS RZ, [RZ]): not instructions.
        body = [i for i in instructions[first:last + 1] if i["predicate"] != "@!PT"]
        if expect.straight:
            inner = [i for i in body[:-1] if i["opcode"] in CONTROL_OPS - {"NOP"}]
            checker.check(not inner, f"{where}: the loop is straight-line code", lines(inner), "loop")
        got = {c: sum(1 for i in body if c.matches(i)) for c in expect.counts}
        lead = next(iter(expect.counts))
        k = got[lead] // expect.counts[lead] if expect.counts[lead] else 0
        for c, want in expect.counts.items():
            checker.check(k >= 1 and got[c] == k * want,
                          f"{where}: {want} {c.name} per iteration (x{max(k, 1)} unrolled)",
                          f"found {got[c]}", "count")
        rest = [i for i in body if classify(i, expect.counts) is None and i["opcode"] not in CONTROL_OPS
                and i["opcode"] != "NOP"]
        heavy = []
        for ins in rest:
            if ins["opcode"] not in HEAVY or ins["opcode"] in expect.tolerate:
                continue
            if param_read(ins):
                checker.note("kernel-parameter read in the loop (constant bank 0)", where)
                continue
            heavy.append(ins)
        checker.check(not heavy, f"{where}: nothing else heavy in the loop", lines(heavy), "heavy")
        if expect.waits:
            check_wait_bound(checker, where, instructions, body, max(k, 1) * expect.waits)
        budget = max(k, 1) * (OTHER_BUDGET * max(expect.counts[lead], 1) + WAIT_BOUND_HELPERS * expect.waits)
        checker.check(len(rest) <= budget, f"{where}: at most {budget} other instructions per loop",
                      f"found {len(rest)}: " + lines(rest), "heavy")


def check_arch(checker, arch, functions, op_list):
    check_table(checker, arch, functions.get("async", {}),
                [(f"gpuprobe_async_{op}_d{d}", (op, d)) for op in op_list for d in DEPTHS] +
                [("gpuprobe_async_tma_chase", ("chase", 1))],
                lambda c, where, ins, claim: check_kernel(c, where, ins, expected(*claim, arch)),
                "every async kernel is a table op")


def check_multicast(checker, sass, _):
    """The sm_90a multicast unit, compiled on the side: its one kernel."""
    if checker.check(sass["multicast"] is not None, "sm_90a multicast unit: compiled and disassembled"):
        kernels = next(iter(parse_sass(sass["multicast"], "sm_90a").values()), {})
        name = "gpuprobe_async_tma_multicast"
        if checker.check(set(kernels) == {name}, f"sm_90a multicast unit: holds {name} only", str(sorted(kernels))):
            check_kernel(checker, f"sm_90a {name}", kernels[name], MULTICAST)


MUTANT_SOURCE = r"""
#include "probes/async/async.cu"
namespace d = gpuprobe::probes::async::device;
namespace s = gpuprobe::probes::async;
namespace p = gpuprobe::ptx;
extern "C" __global__ void gpuprobe_mutant_control(s::AsyncArgs a, s::AsyncCtaOut* out) {
  d::run_cp_async<16, false, 4>(a, out);
}
// Copies issued without their commit_group: no LDGDEPBAR, the waits wait for nothing.
extern "C" __global__ void gpuprobe_mutant_no_commit(s::AsyncArgs a, s::AsyncCtaOut* out) {
  const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(d::gpuprobe_async_smem)) + threadIdx.x * 16;
  const uint64_t src = reinterpret_cast<uint64_t>(a.src) + threadIdx.x * 16;
  const uint64_t c0 = p::get_sreg_clock64_after(src, a.zero);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      p::cp_async_wait_group<3>();
      p::cp_async_shared_global<16, false>(dst + k * 4096, src + 4 * ((i * 4 + k) * 1024 & (a.src_words - 1)));
    }
  }
  p::cp_async_wait_group<0>();
  out[blockIdx.x].start_cycles = c0;
  out[blockIdx.x].end_cycles = clock64();
}
// Depth 4 claimed, but every copy waits for all groups (wait_group 0): one copy in flight.
extern "C" __global__ void gpuprobe_mutant_wait_all(s::AsyncArgs a, s::AsyncCtaOut* out) {
  const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(d::gpuprobe_async_smem)) + threadIdx.x * 16;
  const uint64_t src = reinterpret_cast<uint64_t>(a.src) + threadIdx.x * 16;
  const uint64_t c0 = p::get_sreg_clock64_after(src, a.zero);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      p::cp_async_wait_group<0>();
      p::cp_async_shared_global<16, false>(dst + k * 4096, src + 4 * ((i * 4 + k) * 1024 & (a.src_words - 1)));
      p::cp_async_commit_group();
    }
  }
  p::cp_async_wait_group<0>();
  out[blockIdx.x].start_cycles = c0;
  out[blockIdx.x].end_cycles = clock64();
}
// The .ca kernel, claimed to be .cg.
extern "C" __global__ void gpuprobe_mutant_ca_as_cg(s::AsyncArgs a, s::AsyncCtaOut* out) {
  d::run_cp_async<16, false, 1>(a, out);
}
// TMA 2D at depth 2, claimed as depth 4 (one copy short per iteration, twice).
extern "C" __global__ void __launch_bounds__(512) gpuprobe_mutant_tma_short(
    s::AsyncArgs a, const __grid_constant__ s::AsyncTensorMap map, s::AsyncCtaOut* out) {
  d::run_bulk<s::AsyncEngine::tma_2d, 2>(a, map, out);
}
// A TMA 1D loop with a fence.proxy.async before every copy.
extern "C" __global__ void __launch_bounds__(32) gpuprobe_mutant_tma_fence(
    s::AsyncArgs a, const __grid_constant__ s::AsyncTensorMap map, s::AsyncCtaOut* out) {
  const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(d::gpuprobe_async_smem));
  const uint32_t bar = dst + 128;
  if (threadIdx.x != 0) return;
  p::mbarrier_init_shared_b64(bar, 1);
  uint32_t x = a.start_word, parity = 0;
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
    p::fence_proxy_async_shared_cta();
    p::mbarrier_arrive_expect_tx_shared_cta(bar, 16);
    p::cp_async_bulk_tensor_1d(dst, &map, static_cast<int32_t>(x), bar);
    d::wait_phase(bar, parity, static_cast<uint32_t>(i), 16);
    parity ^= 1;
    x = p::LdShared<1>::load(dst).w[0];
  }
  out[0].result = x;
}
// The TMA 1D loop waiting for its phase without a deadline (a spin that could hang forever).
extern "C" __global__ void __launch_bounds__(32) gpuprobe_mutant_unbounded_wait(
    s::AsyncArgs a, const __grid_constant__ s::AsyncTensorMap map, s::AsyncCtaOut* out) {
  const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(d::gpuprobe_async_smem));
  const uint32_t bar = dst + 128;
  if (threadIdx.x != 0) return;
  p::mbarrier_init_shared_b64(bar, 1);
  uint32_t x = a.start_word, parity = 0;
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
    p::mbarrier_arrive_expect_tx_shared_cta(bar, 16);
    p::cp_async_bulk_tensor_1d(dst, &map, static_cast<int32_t>(x), bar);
    while (p::mbarrier_try_wait_parity_shared_b64(bar, parity) == 0) {
    }
    parity ^= 1;
    x = p::LdShared<1>::load(dst).w[0];
  }
  out[0].result = x;
}
"""
TMA_LOOP = {Cls("UTMALDG.1D", "UTMALDG", {"1D"}): 1,
            Cls("SYNCS.ARRIVE.TRANS64", "SYNCS", {"ARRIVE", "TRANS64"}): 1,
            Cls("SYNCS.PHASECHK.TRANS64.TRYWAIT", "SYNCS", {"PHASECHK", "TRYWAIT"}): 1,
            Cls("LDS", "LDS"): 1}
# (label, kernel, what it claims, the check that must catch it or None: a control).
MUTANTS = [("control", "gpuprobe_mutant_control", expected("cp_async_ca_16", 4, MUTANT_ARCH), None),
           ("cp.async without commit_group", "gpuprobe_mutant_no_commit",
            expected("cp_async_ca_16", 4, MUTANT_ARCH), "count"),
           ("wait_group 0 at depth 4", "gpuprobe_mutant_wait_all",
            expected("cp_async_ca_16", 4, MUTANT_ARCH), "count"),
           (".ca kernel claimed as .cg", "gpuprobe_mutant_ca_as_cg",
            expected("cp_async_cg_16", 1, MUTANT_ARCH), "count"),
           ("TMA 2D at depth 2 claimed as depth 4", "gpuprobe_mutant_tma_short",
            expected("tma_2d", 4, MUTANT_ARCH), "count"),
           ("fence.proxy.async per TMA copy", "gpuprobe_mutant_tma_fence",
            Expect(TMA_LOOP, straight=False, waits=1), "heavy"),
           ("a phase wait without a deadline", "gpuprobe_mutant_unbounded_wait",
            Expect(TMA_LOOP, straight=False, waits=1), "bound")]


if __name__ == "__main__":
    sys.exit(run_sass_test(__doc__, LOG, SOURCES, check_arch, setup=ops,
                           self_tests=[SelfTest("mutants", MUTANT_SOURCE, MUTANTS, check_kernel, MUTANT_ARCH)],
                           extra={"multicast": ('#include "probes/async/multicast.sm90a.cu"\n', "sm_90a")},
                           after_targets=check_multicast))
