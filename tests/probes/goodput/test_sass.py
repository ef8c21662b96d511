#!/usr/bin/env python3
"""SASS assertions for the goodput reference kernels (probes/goodput/goodput.cu).

Targets: every target the build ships (tests/sass_tools.py TARGETS). For every kernel on every
target: no LDL/STL (local memory), no CALL. Then per kernel:
  * gpuprobe_goodput_triad: a loop holding exactly 2 LDG.E.128, 4 FFMA and 1 STG.E.128 (one
    16-byte vector of a = b + s c per iteration);
  * gpuprobe_goodput_reduce: a loop holding exactly kReduceIlp (4) 128-bit LDGs (ld.global.cg) and
    no store;
  * gpuprobe_goodput_tile: from sm_80 a loop holding exactly 64 HMMA.16816.F32 (2 k-steps x 32
    mmas of the 64 x 64 warp tile) and 64 LDS (2 k-steps x (4 A fragments x 4 + 8 B fragments x
    2) words): the fragments are loaded from shared memory again on every repeat; before sm_80 it
    traps (BPT.TRAP) and holds no HMMA;
  * gpuprobe_goodput_chain: one RED/ATOM add (the chain counter).
Self-test (sm_90): a control triad passes; a triad with 4-byte accesses, a reduction with two
loads in flight and a tile loop whose fragments are hoisted out of the repeat loop (plain shared
loads) each fail the check meant for them. Prints `sass_goodput: N passed, M failed`.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from sass_tools import (SelfTest, arch_number, check_table, innermost_loop_holding, lines, matches, run_sass_test)

LOG = "sass_goodput"
SOURCES = {"goodput": os.path.join("probes", "goodput", "goodput.cu")}
MUTANT_ARCH = "sm_90"
TILE_MIN_SM = 80
REDUCE_ILP = 4
TILE_HMMA, TILE_LDS = 64, 64

KERNELS = ["gpuprobe_goodput_fill", "gpuprobe_goodput_triad_verify", "gpuprobe_goodput_fill_words",
           "gpuprobe_goodput_triad", "gpuprobe_goodput_reduce", "gpuprobe_goodput_tile", "gpuprobe_goodput_chain"]


def count(body, cls):
    return [i for i in body if matches(cls, i)]


def check_kernel(checker, where, name, instructions, sm):
    bad = [i for i in instructions if i["opcode"] in {"LDL", "STL"}]
    checker.check(not bad, f"{where}: no local memory", lines(bad), "hygiene")
    calls = [i for i in instructions if i["opcode"] == "CALL"]
    checker.check(not calls, f"{where}: no call", lines(calls), "hygiene")

    if name == "gpuprobe_goodput_triad":
        loop = innermost_loop_holding(instructions, lambda i: i["opcode"] == "FFMA")
        if checker.check(loop is not None, f"{where}: a loop holds the triad's FFMA", "", "triad"):
            body = instructions[loop[0]:loop[1] + 1]
            for cls, want in (("LDG.E.128", 2), ("FFMA", 4), ("STG.E.128", 1)):
                got = count(body, cls)
                checker.check(len(got) == want, f"{where}: {want} {cls} per 16-byte vector",
                              f"found {len(got)}: " + lines(body), "triad")
            narrow = [i for i in body if i["opcode"] in {"LDG", "STG"} and "128" not in i["modifiers"]]
            checker.check(not narrow, f"{where}: only 128-bit global accesses in the loop", lines(narrow), "triad")
    elif name == "gpuprobe_goodput_reduce":
        loop = innermost_loop_holding(instructions, lambda i: i["opcode"] == "LDG")
        if checker.check(loop is not None, f"{where}: a loop holds the reduction's loads", "", "reduce"):
            body = instructions[loop[0]:loop[1] + 1]
            got = [i for i in body if i["opcode"] == "LDG" and "128" in i["modifiers"]]
            checker.check(len(got) == REDUCE_ILP and len(got) == len(count(body, "LDG")),
                          f"{where}: {REDUCE_ILP} 128-bit loads in flight per iteration",
                          f"found {len(got)}: " + lines(body), "reduce")
            stores = [i for i in body if i["opcode"] in {"STG", "ST", "RED", "ATOM", "ATOMG", "REDG"}]
            checker.check(not stores, f"{where}: the loop only loads and adds", lines(stores), "reduce")
    elif name == "gpuprobe_goodput_tile":
        hmma = [i for i in instructions if i["opcode"] == "HMMA"]
        if sm < TILE_MIN_SM:
            traps = [i for i in instructions if i["opcode"] == "BPT"]
            checker.check(bool(traps) and not hmma, f"{where}: traps below sm_80 (no m16n8k16 f16), no HMMA",
                          lines(hmma), "tile")
            return
        loop = innermost_loop_holding(instructions, lambda i: i["opcode"] == "HMMA")
        if checker.check(loop is not None, f"{where}: a loop holds the HMMAs", "", "tile"):
            body = instructions[loop[0]:loop[1] + 1]
            mmas = count(body, "HMMA.16816.F32")
            checker.check(len(mmas) == TILE_HMMA and len(mmas) == len(count(body, "HMMA")),
                          f"{where}: {TILE_HMMA} HMMA.16816.F32 per repeat", f"found {len(mmas)}", "tile")
            lds = count(body, "LDS")
            checker.check(len(lds) == TILE_LDS, f"{where}: {TILE_LDS} LDS per repeat (fragments from shared memory)",
                          f"found {len(lds)}", "tile")
    elif name == "gpuprobe_goodput_chain":
        adds = [i for i in instructions if i["opcode"] in {"RED", "REDG", "ATOM", "ATOMG"} and "ADD" in i["modifiers"]]
        checker.check(len(adds) == 1, f"{where}: one counter add", f"found {len(adds)}", "chain")


def check_arch(checker, arch, functions, _):
    sm = arch_number(arch)
    check_table(checker, arch, functions.get("goodput", {}), [(name, name) for name in KERNELS],
                lambda c, where, ins, name: check_kernel(c, where, name, ins, sm),
                "every goodput kernel is known to this test")


MUTANT_SOURCE = r"""
#include "probes/goodput/goodput.cu"
namespace gpg = gpuprobe::probes::goodput;
using gpuprobe::probes::goodput::ReduceArgs;
using gpuprobe::probes::goodput::TileArgs;
using gpuprobe::probes::goodput::TriadArgs;
extern "C" __global__ void gpuprobe_mutant_control(TriadArgs t) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (uint64_t v = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < t.vectors; v += stride) {
    const float4 b = reinterpret_cast<const float4*>(t.b)[v];
    const float4 c = reinterpret_cast<const float4*>(t.c)[v];
    reinterpret_cast<float4*>(t.a)[v] = make_float4(__fmaf_rn(t.scalar, c.x, b.x), __fmaf_rn(t.scalar, c.y, b.y),
                                                    __fmaf_rn(t.scalar, c.z, b.z), __fmaf_rn(t.scalar, c.w, b.w));
  }
}
// 4-byte accesses: four times the instructions per byte.
extern "C" __global__ void gpuprobe_mutant_narrow(TriadArgs t) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < 4 * t.vectors; i += stride)
    t.a[i] = __fmaf_rn(t.scalar, t.c[i], t.b[i]);
}
// Two loads in flight instead of four.
extern "C" __global__ void gpuprobe_mutant_reduce_ilp2(ReduceArgs r) {
  const uint64_t threads = uint64_t(gridDim.x) * blockDim.x;
  const uint4* w = reinterpret_cast<const uint4*>(r.words);
  uint32_t sum = 0;
#pragma unroll 1
  for (uint64_t it = 0; it < r.iterations; ++it) {
    const uint4 a = __ldcg(w + it * 2 * threads + blockIdx.x * blockDim.x + threadIdx.x);
    const uint4 b = __ldcg(w + it * 2 * threads + threads + blockIdx.x * blockDim.x + threadIdx.x);
    sum += a.x + a.y + a.z + a.w + b.x + b.y + b.z + b.w;
  }
  atomicAdd(r.sum, (unsigned long long)sum);
}
// Plain shared loads: the fragments are loop-invariant, so they leave the repeat loop.
extern "C" __global__ void gpuprobe_mutant_hoisted(TileArgs t) {
  __shared__ uint32_t smem[1024];
  smem[threadIdx.x] = t.a[threadIdx.x];
  __syncthreads();
  float acc[8][4] = {};
#pragma unroll 1
  for (uint32_t r = 0; r < t.repeats; ++r) {
    const uint32_t a[4] = {smem[threadIdx.x % 32], smem[32 + threadIdx.x % 32], smem[64 + threadIdx.x % 32],
                           smem[96 + threadIdx.x % 32]};
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const uint32_t b[2] = {smem[128 + 8 * j + threadIdx.x % 8], smem[256 + 8 * j + threadIdx.x % 8]};
      gpuprobe::ptx::mma_sync_aligned_m16n8k16_row_col_f32_f16_f16_f32(acc[j], a, b);
    }
  }
  for (int j = 0; j < 8; ++j) t.d[threadIdx.x * 32 + j] = acc[j][0] + acc[j][1] + acc[j][2] + acc[j][3];
}
"""
# (label, kernel, the kernel whose checks it claims to pass, the check that must catch it).
MUTANTS = [("control", "gpuprobe_mutant_control", "gpuprobe_goodput_triad", None),
           ("triad with 4-byte accesses", "gpuprobe_mutant_narrow", "gpuprobe_goodput_triad", "triad"),
           ("reduction with two loads in flight", "gpuprobe_mutant_reduce_ilp2", "gpuprobe_goodput_reduce", "reduce"),
           ("tile loop with hoisted fragments", "gpuprobe_mutant_hoisted", "gpuprobe_goodput_tile", "tile")]


def check_mutant(checker, where, instructions, claimed):
    check_kernel(checker, where, claimed, instructions, arch_number(MUTANT_ARCH))


if __name__ == "__main__":
    sys.exit(run_sass_test(__doc__, LOG, SOURCES, check_arch,
                           self_tests=[SelfTest("mutants", MUTANT_SOURCE, MUTANTS, check_mutant, MUTANT_ARCH)]))
