#!/usr/bin/env python3
"""SASS assertions for the synchronization kernels (probes/sync/sync.cu).

Targets: every target the build ships (tests/sass_tools.py TARGETS). Ops come from the rows of
probes/sync/sync.def; each has a latency and a throughput kernel. For every kernel on every
target:
  * no LDL/STL (local memory) and no CALL;
  * an op this target lacks (redux and mbarrier before sm_80; elect, clusters, DSMEM, try_wait and
    the cluster/proxy fences before sm_90) traps and has no loop;
  * otherwise the main loop (the backward branch whose body holds the most of the op's first
    instruction class, the shortest on a tie) holds exactly the expected instructions per
    iteration (EXPECTED below, per target): SHFL.IDX/UP/DOWN/BFLY, VOTE.ANY/ALL (emulated with
    VOTE.ANY on sm_75), MATCH.ANY/ALL (MATCH.ALL emulated on sm_75), REDUX.SUM/MIN (CREDUX.MIN on
    sm_100), ELECT with the REDUX.OR + R2UR of its register mask, no WARPSYNC for bar.warp.sync
    (ptxas leaves one NOP: the warp is converged), BAR.SYNC / BAR.ARV / BAR.RED.POPC,
    UCGABAR_ARV + UCGABAR_WAIT (+ the release fence's MEMBAR.ALL.GPU), the DSMEM chase's LD,
    the grid barrier's 2 BAR.SYNC + ATOM + strong-GPU poll, SYNCS.ARRIVE + SYNCS.PHASECHK
    (ATOMS.ARRIVE on sm_80-89), MEMBAR.SC.CTA/GPU/SYS, MEMBAR.ALL.GPU, FENCE.VIEW.ASYNC.S;
  * the loops of chains and barriers are straight-line (no branch inside; the elect, cluster,
    grid and mbarrier loops carry their retry branches), nothing else heavy (another sync or
    memory instruction) and at most OTHER_BUDGET other instructions beyond the op's helpers;
  * the grid barrier's poll and every mbarrier wait are bounded (%globaltimer_lo reads and the
    trap past the deadline: sass_tools.check_wait_bound), each with WAIT_BOUND_HELPERS more.
bar.arrive's kernel has two loops (the CTA's two halves), each with 16 BAR.ARV and 16 BAR.SYNC.
Self-test (sm_90): the control kernel passes; a dead shuffle chain (ptxas deletes it), a
bar.warp.sync with per-lane masks (ptxas's MATCH/REDUX + WARPSYNC.COLLECTIVE lowering), an elect
with an immediate mask (ptxas merges the ELECTs), a fence loop one short, a chase through the
CTA's own ld.shared instead of ld.shared::cluster each fail the count check, and a shuffle chain
with a store in its loop fails the heavy check, and an mbarrier wait without a deadline the bound
check. Prints `sass_sync: N passed, M failed`.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from sass_tools import (CONTROL_OPS, MEMORY_OPS, WAIT_BOUND_HELPERS, SelfTest, arch_number,  # noqa: E402
                        check_table, check_wait_bound, def_ops, expected_loops, lines, loops, matches,
                        param_read, run_sass_test)

LOG = "sass_sync"
SOURCES = {"sync": os.path.join("probes", "sync", "sync.cu")}
MUTANT_ARCH = "sm_90"
BRANCHES = {"BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT", "BREAK", "BSSY", "BSYNC", "KILL"}
SYNC_OPS = {"SHFL", "VOTE", "VOTEU", "MATCH", "REDUX", "CREDUX", "BAR", "SYNCS", "MEMBAR", "FENCE",
            "ELECT", "UCGABAR_ARV", "UCGABAR_WAIT", "ERRBAR", "CGAERRBAR", "B2R"}
HEAVY = SYNC_OPS | MEMORY_OPS
# Loop control and register moves besides the op's own helpers.
OTHER_BUDGET = 24


def ops(source_dir):
    return def_ops(source_dir, os.path.join("probes", "sync", "sync.def"), "GPUPROBE_SYNC_OP", LOG)


class Expect:
    """What one kernel's main loop holds: counts per class (the first is the one that finds the
    loop), the op's helper instructions allowed beyond OTHER_BUDGET, sync or memory opcodes the
    op's lowering adds (tolerated), whether the loop is straight-line, how many such loops, and
    how many bounded waits (harness/cuda/bounded_wait.cuh) one loop holds."""

    def __init__(self, counts, helpers=0, tolerate=(), straight=True, loops_count=1, waits=0):
        self.counts = counts
        self.helpers = helpers
        self.waits = waits
        self.tolerate = set(tolerate)
        self.straight = straight
        self.loops_count = loops_count


def expected(op, kind, arch):
    """The Expect of a kernel, or None where the target lacks the op (the kernel must trap)."""
    sm = arch_number(arch)
    chains = 8 if kind == "thr" else 1
    n = 64
    if op.startswith("shfl_"):
        return Expect({"SHFL." + op[5:].upper(): n})
    if op == "vote_any":
        return Expect({"VOTE.ANY": n}, helpers=n + 8 if sm < 80 else 16)
    if op == "vote_all":
        if sm < 80:  # emulated: VOTE.ANY of the negated predicate
            return Expect({"VOTE.ANY": n, "VOTE.ALL": 0}, helpers=2 * n + 16, tolerate={"VOTEU"})
        return Expect({"VOTE.ALL": n}, helpers=16)
    if op == "vote_ballot":
        return Expect({"VOTE.ANY": n, "LOP3": n})
    if op == "match_any":
        return Expect({"MATCH.ANY": n})
    if op == "match_all":
        if sm < 80:  # emulated: MATCH.ANY compared with the full mask
            return Expect({"MATCH.ANY": n, "MATCH.ALL": 0}, helpers=3 * n, tolerate={"VOTE"})
        return Expect({"MATCH.ALL": n})
    if op in ("redux_add", "redux_min"):
        if sm < 80:
            return None
        if op == "redux_add":
            return Expect({"REDUX.SUM": n}, helpers=n)  # the move out of the uniform register
        return Expect({"CREDUX.MIN" if sm in (100, 103) else "REDUX.MIN": n}, helpers=n)
    if op == "elect":
        if sm < 90:
            return None
        # The register mask: REDUX.OR + R2UR, the or's LOP3, a retry branch per ELECT.
        return Expect({"ELECT": n, "REDUX.OR": n, "R2UR": n}, helpers=3 * n, straight=False)
    if op == "bar_warp_sync":
        return Expect({"NOP": n, "WARPSYNC": 0})
    if op == "bar_sync":
        return Expect({"BAR.SYNC": 16})
    if op == "bar_arrive":
        return Expect({"BAR.ARV": 16, "BAR.SYNC": 16}, loops_count=2)
    if op == "bar_red_popc":
        return Expect({"BAR.RED.POPC": 16, "B2R": 16, "LOP3": 16})
    if op in ("barrier_cluster", "barrier_cluster_relaxed"):
        if sm < 90:
            return None
        counts = {"UCGABAR_ARV": 16, "UCGABAR_WAIT": 16}
        counts.update({"MEMBAR.ALL.GPU": 16, "ERRBAR": 16, "CGAERRBAR": 16} if op == "barrier_cluster"
                      else {"MEMBAR": 0})
        # The wait is followed by a CCTL.IVALL and a BAR.SYNC, with a branch around each.
        return Expect(counts, helpers=4 * 16 + 4, tolerate={"CCTL", "BAR"}, straight=False)
    if op == "dsmem_ld":
        if sm < 90:
            return None
        # The generic LD (high half SR_SWINHI) and the two moves that form its address.
        return Expect({"LD": n, "LDS": 0, "LDG": 0}, helpers=2 * n)
    if op == "grid_sync":
        # bar.sync; warp-aggregated atom.add.release (VOTEU, FLO, POPC, SHFL); poll; bar.sync.
        return Expect({"BAR.SYNC": 2, "ATOM": 1, "LD.STRONG.GPU": 1, "MEMBAR.ALL.GPU": 1}, helpers=40,
                      tolerate={"VOTE", "VOTEU", "SHFL", "ERRBAR", "CGAERRBAR", "CCTL", "FLO", "POPC"},
                      straight=False, waits=1)
    if op == "mbarrier_test_wait":
        if sm < 80:
            return None
        if sm < 90:
            return Expect({"ATOMS.ARRIVE": 8, "MEMBAR.ALL.CTA": 8}, helpers=8 * 8,
                          tolerate={"LDS"}, straight=False, waits=8)
        return Expect({"SYNCS.ARRIVE": 8, "SYNCS.PHASECHK": 8}, helpers=8 * 4, straight=False, waits=8)
    if op == "mbarrier_try_wait":
        if sm < 90:
            return None
        return Expect({"SYNCS.ARRIVE": 8, "SYNCS.PHASECHK.TRYWAIT": 8}, helpers=8 * 4, straight=False,
                      waits=8)
    errbar = {"ERRBAR": 16, "CCTL.IVALL": 16}
    if sm >= 90:
        errbar["CGAERRBAR"] = 16
    if op == "membar_cta":
        return Expect({"MEMBAR.SC.CTA": 16})
    if op == "membar_gl":
        return Expect({"MEMBAR.SC.GPU": 16, **errbar})
    if op == "membar_sys":
        return Expect({"MEMBAR.SC.SYS": 16, **errbar})
    if op == "fence_acq_rel_gpu":
        return Expect({"MEMBAR.ALL.GPU": 16, **errbar})
    if op == "fence_acq_rel_cluster":
        return None if sm < 90 else Expect({"MEMBAR.ALL.GPU": 16, **errbar})
    if op == "fence_proxy_async":
        return None if sm < 90 else Expect({"FENCE.VIEW.ASYNC.S": 16, "MEMBAR.ALL.CTA": 16})
    raise SystemExit(f"{LOG}: no SASS expectation for op {op} ({chains} chains): add one to expected()")


def classify(ins, counts):
    return next((c for c in counts if matches(c, ins)), None)


def main_loops(instructions, expect):
    """The loops holding the most of the first class (the shortest first), as many as expected."""
    first = next(iter(expect.counts))
    scored = []
    for a, b in loops(instructions):
        held = sum(1 for i in instructions[a:b + 1] if matches(first, i))
        if held:
            scored.append((-held, b - a, a, b))
    scored.sort()
    best = [(a, b) for held, _, a, b in scored if held == scored[0][0]] if scored else []
    if expect.loops_count == 1:
        # Retry branches (elect, mbarrier, grid) jump back into the loop and make overlapping
        # spans: the loop itself is the shortest that holds the most.
        return best[:1]
    # Separate loops (bar_arrive's two halves): nested ones with the same count keep the innermost.
    chosen = []
    for a, b in sorted(best, key=lambda ab: ab[1] - ab[0]):
        if not any(a <= x and y <= b for x, y in chosen):
            chosen.append((a, b))
    return chosen


def check_kernel(checker, where, instructions, expect):
    """Every assertion on one kernel; expect None: the kernel must trap."""
    chosen = expected_loops(checker, where, instructions, expect, main_loops, HEAVY,
                            "hold the op's instructions")
    if chosen is None:
        return
    for first, last in chosen:
        body = instructions[first:last + 1]
        if expect.straight:
            inner = [i for i in body[:-1] if i["opcode"] in BRANCHES]
            checker.check(not inner, f"{where}: the loop is straight-line code", lines(inner), "loop")
        for cls, want in expect.counts.items():
            got = [i for i in body if matches(cls, i)]
            checker.check(len(got) == want, f"{where}: {want} {cls} per loop iteration",
                          f"found {len(got)}", "count")
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
            check_wait_bound(checker, where, instructions, body, expect.waits)
        budget = OTHER_BUDGET + expect.helpers + WAIT_BOUND_HELPERS * expect.waits
        checker.check(len(rest) <= budget, f"{where}: at most {budget} other instructions per loop "
                      "iteration", f"found {len(rest)}: " + lines(rest), "heavy")


def check_arch(checker, arch, functions, op_list):
    check_table(checker, arch, functions.get("sync", {}),
                [(f"gpuprobe_sync_{op}_{kind}", (op, kind)) for op in op_list for kind in ("lat", "thr")],
                lambda c, where, ins, claim: check_kernel(c, where, ins, expected(*claim, arch)),
                "every sync kernel is a table op")


MUTANT_SOURCE = r"""
#include "probes/sync/sync.cu"
#include "ptx/ld.cuh"
namespace d = gpuprobe::probes::sync::device;
namespace s = gpuprobe::probes::sync;
namespace p = gpuprobe::ptx;
namespace gpuprobe::probes::sync::device {
// bar.warp.sync with each lane's mask from memory: ptxas cannot prove it warp-uniform.
struct mutant_lane_mask {
  static constexpr bool kOnThisPass = true;
  static constexpr bool kUniformAux = false;
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t aux) {
    p::bar_warp_sync(aux);
    return x;
  }
};
// elect.sync with an immediate mask: no input, ptxas merges the identical ELECTs.
struct mutant_elect_imm {
  static constexpr bool kOnThisPass = true;
  static constexpr bool kUniformAux = false;
  static __device__ __forceinline__ uint32_t step(uint32_t x, uint32_t) {
    uint32_t e;
    asm volatile("{\n\t.reg .pred q;\n\telect.sync %0|q, 0xffffffff;\n\t}" : "=r"(e));
    return x + e;
  }
};
// mbarrier.try_wait.parity in a plain spin: no deadline, a wrong arrival count would hang.
struct mutant_unbounded_wait {
  static constexpr bool kOnThisPass = true;
  static __device__ __forceinline__ uint32_t step(uint32_t bar, uint32_t done) {
    p::mbarrier_arrive_shared_b64(bar);
    while (p::mbarrier_try_wait_parity_shared_b64(bar, done & 1) == 0) {
    }
    return done + 1;
  }
};
}
extern "C" __global__ void gpuprobe_mutant_unbounded_wait(s::SyncArgs a, s::SyncWarpOut* out) {
  d::run_mbarrier<d::mutant_unbounded_wait>(a, out);
}
extern "C" __global__ void gpuprobe_mutant_control(s::SyncArgs a, s::SyncWarpOut* out) {
  d::run_warp<d::shfl_idx, 8>(a, out);
}
// The chain's result is never used: ptxas deletes the loop body.
extern "C" __global__ void gpuprobe_mutant_dead(s::SyncArgs a, s::SyncWarpOut* out) {
  uint32_t x = a.lanes[threadIdx.x & 31];
  const uint32_t src = a.lanes[32 + (threadIdx.x & 31)];
  const uint64_t t0 = clock64();
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < 64; ++u) x = p::shfl_sync_idx_b32(x, src);
  }
  out[0].start_cycles = t0;
  out[0].end_cycles = clock64();
}
extern "C" __global__ void gpuprobe_mutant_lane_mask(s::SyncArgs a, s::SyncWarpOut* out) {
  d::run_warp<d::mutant_lane_mask, 1>(a, out);
}
extern "C" __global__ void gpuprobe_mutant_elect_imm(s::SyncArgs a, s::SyncWarpOut* out) {
  d::run_warp<d::mutant_elect_imm, 1>(a, out);
}
// 15 fences per iteration.
extern "C" __global__ void gpuprobe_mutant_short_fence(s::SyncArgs a, s::SyncWarpOut* out) {
  uint32_t x = a.lanes[threadIdx.x & 31];
  const uint64_t c0 = p::get_sreg_clock64_after(x, a.zero);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < 15; ++u) p::membar_gl();
  }
  d::record(a, out, c0, p::get_sreg_clock64_after(x, a.zero), &x, 1);
}
// A chase through the CTA's own shared memory (LDS), not the peer's.
extern "C" __global__ void gpuprobe_mutant_local_chase(s::SyncArgs a, s::SyncWarpOut* out) {
  __shared__ uint32_t ring[1024];
  for (uint32_t i = threadIdx.x; i < 1024; i += blockDim.x)
    ring[i] = static_cast<uint32_t>(__cvta_generic_to_shared(&ring[(i + 97) % 1024]));
  __syncthreads();
  uint32_t x = static_cast<uint32_t>(__cvta_generic_to_shared(&ring[a.lanes[threadIdx.x & 31] & 1023]));
  const uint64_t c0 = p::get_sreg_clock64_after(x, a.zero);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < 64; ++u) x = p::ld_shared_u32(x);
  }
  d::record(a, out, c0, p::get_sreg_clock64_after(x, a.zero), &x, 1);
}
// A store in the shuffle loop.
extern "C" __global__ void gpuprobe_mutant_store(s::SyncArgs a, s::SyncWarpOut* out) {
  uint32_t x = a.lanes[threadIdx.x & 31];
  const uint32_t src = a.lanes[32 + (threadIdx.x & 31)];
  const uint64_t c0 = p::get_sreg_clock64_after(x, a.zero);
#pragma unroll 1
  for (uint64_t i = a.iterations; i != 0; --i) {
#pragma unroll
    for (int u = 0; u < 64; ++u) x = p::shfl_sync_idx_b32(x, src);
    asm volatile("st.global.u32 [%0], %1;" :: "l"(&out[0].result[0]), "r"(x) : "memory");
  }
  d::record(a, out, c0, p::get_sreg_clock64_after(x, a.zero), &x, 1);
}
"""
MEMBAR_GL = {"MEMBAR.SC.GPU": 16, "ERRBAR": 16, "CCTL.IVALL": 16, "CGAERRBAR": 16}
# (label, kernel, what it claims, the check that must catch it or None: a control).
MUTANTS = [("control", "gpuprobe_mutant_control", Expect({"SHFL.IDX": 64}), None),
           ("dead shuffle chain (results unused)", "gpuprobe_mutant_dead", Expect({"SHFL.IDX": 64}), "count"),
           ("bar.warp.sync with per-lane masks (collective lowering)", "gpuprobe_mutant_lane_mask",
            Expect({"NOP": 64, "WARPSYNC": 0}), "heavy"),
           ("elect.sync with an immediate mask (merged)", "gpuprobe_mutant_elect_imm",
            Expect({"ELECT": 64}), "count"),
           ("fence loop one short (15)", "gpuprobe_mutant_short_fence", Expect(MEMBAR_GL), "count"),
           ("chase through the CTA's own ld.shared", "gpuprobe_mutant_local_chase",
            Expect({"LD": 64, "LDS": 0, "LDG": 0}, helpers=128), "count"),
           ("store in the shuffle loop", "gpuprobe_mutant_store", Expect({"SHFL.IDX": 64}), "heavy"),
           ("mbarrier wait without a deadline", "gpuprobe_mutant_unbounded_wait",
            Expect({"SYNCS.ARRIVE": 8, "SYNCS.PHASECHK.TRYWAIT": 8}, helpers=8 * 4, straight=False, waits=8),
            "bound")]


if __name__ == "__main__":
    sys.exit(run_sass_test(__doc__, LOG, SOURCES, check_arch, setup=ops,
                           self_tests=[SelfTest("mutants", MUTANT_SOURCE, MUTANTS, check_kernel, MUTANT_ARCH)]))
