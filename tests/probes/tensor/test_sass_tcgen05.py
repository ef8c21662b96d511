#!/usr/bin/env python3
"""SASS assertions for the tcgen05 kernels (probes/tensor/tcgen05.sm100a.cu, sm_100a only).

Ops come from probes/tensor/tcgen05.def; each has a latency kernel (one MMA per commit) and a
throughput kernel (8 MMAs per commit). On sm_100a, for every kernel:
  * no LDL/STL (local memory); a CALL only outside the hot loop (tcgen05.alloc's error path);
  * the hot loop (the smallest loop holding a UTC*MMA and the commit, UTCBAR: ptxas wraps each
    single-thread tcgen05 instruction in its own small ELECT loop, nested inside) holds exactly 1
    (latency) or 8 (throughput) MMAs of the op's class per iteration: UTCHMMA (kind::f16 with f32
    or f16 D, tf32), UTCQMMA (f8f6f4: e4m3, e5m2 and the fp6/fp4 e3m2, e2m3, e2m1; the
    block-scaled mxf8f6f4), UTCOMMA (the block-scaled fp4 kinds mxf4 and, as UTCOMMA.4X,
    mxf4nvf4: ptxas 13), UTCIMMA (i8) (.2CTA for cta_group::2),
    and exactly one UTCBAR (the block-scaled kernels' scale-factor copies, UTCCP, come before it);
  * nothing else heavy in it: no memory instruction (the mbarrier wait is SYNCS.*; a kernel
    parameter reloaded from constant bank 0 is allowed), no TMEM
    load/store (LDTM/STTM), no other tensor or FP64 instruction, no barrier;
and each baseline kernel's loop holds a UTCBAR and no MMA.
The object is the build's (when it built sm_100a and is not older than its sources), else nvcc
compiles the source for sm_100a. The unit must fail to build for sm_100 (no tcgen05) and sm_100f
(no kind::i8), naming the capability (ptx/capability.hpp). Self-test (sm_100a): a control kernel passes; a latency loop
with two MMAs and one with a global load in it each fail the check they name.
Prints `sass_tcgen05: N passed, M failed`.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from cuda_tools import compile_cubin, nvcc_path, test_args  # noqa: E402
from sass_tools import (CONTROL_OPS, MEMORY_OPS, Checker, build_object,  # noqa: E402
                        check_mutations, lines, loops, parse_sass, print_summary, run, start)

LOG = "sass_tcgen05"
ARCH = "sm_100a"
SOURCE = os.path.join("probes", "tensor", "tcgen05.sm100a.cu")
MMA = re.compile(r"^UTC\w*MMA$")
CLASS = {"f16": "UTCHMMA", "tf32": "UTCHMMA", "f8f6f4": "UTCQMMA", "mxf8f6f4": "UTCQMMA",
         "mxf4": "UTCOMMA", "mxf4nvf4": "UTCOMMA", "i8": "UTCIMMA"}
HEAVY = MEMORY_OPS | {"LDTM", "STTM", "UTCCP", "HMMA", "IMMA", "QMMA", "DMMA", "HGMMA", "DFMA",
                      "BAR", "CALL", "MUFU"}
PER_ITERATION = {"lat": 1, "thr": 8}
# The scale-vector modifier ptxas writes on the MMA: .4X for mxf4nvf4 (scale_vec::4X), none for the
# ::1X/::2X kinds.
SCALE_VEC = {"mxf4nvf4": "4X"}

MUTANT_SOURCE = r"""
#include "ptx/mbarrier.cuh"
#include "ptx/tcgen05.cuh"
namespace p = gpuprobe::ptx;
template <int kMmas, bool kLoad>
__device__ void loop(const unsigned* src, unsigned* dst, unsigned long long n, unsigned tmem,
                     unsigned long long a, unsigned long long b, unsigned idesc) {
  __shared__ alignas(8) unsigned long long bar;
  const unsigned bar_addr = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) p::mbarrier_init_shared_b64(bar_addr, 1);
  __syncthreads();
  unsigned parity = 0, sum = 0;
  for (unsigned long long i = n; i != 0; --i) {
    for (int j = 0; j < kMmas; ++j) p::tcgen05_mma_f16_ss_cg1(tmem, a, b, idesc, 1);
    if (kLoad) sum += src[i];
    p::tcgen05_commit<1>(bar_addr);
    while (p::mbarrier_try_wait_parity_shared_b64(bar_addr, parity) == 0) {}
    parity ^= 1;
  }
  dst[threadIdx.x] = sum + parity;
}
extern "C" __global__ void control_lat(const unsigned* s, unsigned* d, unsigned long long n,
    unsigned t, unsigned long long a, unsigned long long b, unsigned i) { loop<1, false>(s, d, n, t, a, b, i); }
extern "C" __global__ void two_mmas_lat(const unsigned* s, unsigned* d, unsigned long long n,
    unsigned t, unsigned long long a, unsigned long long b, unsigned i) { loop<2, false>(s, d, n, t, a, b, i); }
extern "C" __global__ void load_in_loop_lat(const unsigned* s, unsigned* d, unsigned long long n,
    unsigned t, unsigned long long a, unsigned long long b, unsigned i) { loop<1, true>(s, d, n, t, a, b, i); }
"""
MUTANTS = [("control", "control_lat", None),
           ("two MMAs per iteration", "two_mmas_lat", "count"),
           ("a global load in the hot loop", "load_in_loop_lat", "heavy")]


def ops(source_dir):
    """[(kernel stem, PTX kind)] from the rows of probes/tensor/tcgen05.def."""
    path = os.path.join(source_dir, "probes", "tensor", "tcgen05.def")
    rows = re.findall(r"^GPUPROBE_TCGEN05_OP\((\w+), (\w+), (\w+), (\d+), \d+, (\w+), (\d)\)",
                      open(path, encoding="utf-8").read(), re.M)
    if not rows:
        raise SystemExit(f"{LOG}: no GPUPROBE_TCGEN05_OP rows in {path}")
    return [(f"gpuprobe_tcgen05_{i}_{acc}_n{n}_{form}_cg{cg}", kind) for i, acc, kind, n, form, cg in rows]


def hot_loop(instructions):
    """The smallest loop body holding an MMA and a commit (UTCBAR), or None."""
    best = None
    for first, last in loops(instructions):
        body = instructions[first:last + 1]
        if any(MMA.match(i["opcode"]) for i in body) and \
                any(i["opcode"] == "UTCBAR" for i in body) and (best is None or len(body) < len(best)):
            best = body
    return best


def is_param_reload(ins):
    """LDC/LDCU from constant bank 0: a kernel parameter read again, not memory traffic."""
    return ins["opcode"] in {"LDC", "LDCU"} and "c[0x0]" in " ".join(ins["operands"])


def no_local_memory(checker, where, instructions):
    bad = [i for i in instructions if i["opcode"] in {"LDL", "STL"}]
    checker.check(not bad, f"{where}: no local memory", lines(bad), "hygiene")


def check_loop(checker, where, instructions, mmas, mma_class, scale_vec=None):
    no_local_memory(checker, where, instructions)
    body = hot_loop(instructions)
    if not checker.check(body is not None, f"{where}: a loop holds an MMA and its commit",
                         kind="count"):
        return
    found = [i for i in body if MMA.match(i["opcode"])]
    checker.check(len(found) == mmas and all(i["opcode"] == mma_class for i in found),
                  f"{where}: {mmas} {mma_class} per iteration", lines(found), "count")
    if mma_class == "UTCOMMA":
        checker.check(all((scale_vec in i["modifiers"]) if scale_vec else
                          not any(m.endswith("X") for m in i["modifiers"]) for i in found),
                      f"{where}: {mma_class}{'.' + scale_vec if scale_vec else ''} (scale vector)",
                      lines(found), "count")
    commits = [i for i in body if i["opcode"] == "UTCBAR"]
    checker.check(len(commits) == 1, f"{where}: one UTCBAR (commit) per iteration",
                  lines(commits), "count")
    heavy = [i for i in body if (i["opcode"] in HEAVY and not is_param_reload(i)) or
             (i["opcode"] in CONTROL_OPS and i["opcode"] not in {"BRA", "BSSY", "BSYNC", "WARPSYNC"})]
    checker.check(not heavy, f"{where}: nothing heavy in the hot loop", lines(heavy), "heavy")


def dump(cuobjdump, binary):
    result = run([cuobjdump, "-sass", binary])
    if result.returncode != 0 or "Function" not in result.stdout:
        return None, f"cuobjdump -sass {binary}: {result.stderr.strip()}"
    return parse_sass(result.stdout, ARCH).get(ARCH, {}), ""


def compile_and_dump(cuobjdump, source_dir, path, tmp):
    result, cubin = compile_cubin(source_dir, path, ARCH, tmp)
    if result.returncode != 0:
        return None, (result.stderr.strip().splitlines() or ["nvcc failed"])[-1]
    return dump(cuobjdump, cubin)


def main():
    args = test_args(__doc__.splitlines()[0])
    op_list = ops(args.source_dir)
    cuobjdump, status = start(args, LOG, sys.executable)
    if cuobjdump is None:
        return status
    checker = Checker()
    checker.check(len(op_list) == 74, f"{len(op_list)} ops in probes/tensor/tcgen05.def (74 expected)")
    with tempfile.TemporaryDirectory() as tmp:
        obj, stale = build_object(args.build_dir, args.source_dir, SOURCE)
        if obj and not stale and ARCH in args.cuda_targets:
            functions, error = dump(cuobjdump, obj)
            print(f"{LOG}: {ARCH} from the build")
        else:
            functions, error = compile_and_dump(cuobjdump, args.source_dir,
                                                os.path.join(args.source_dir, SOURCE), tmp)
            print(f"{LOG}: {ARCH} from nvcc")
        if checker.check(functions is not None, f"disassemble {SOURCE} for {ARCH}", error):
            for stem, kind in op_list:
                for suffix, mmas in PER_ITERATION.items():
                    name = f"{stem}_{suffix}"
                    if checker.check(name in functions, f"{ARCH} {name} present"):
                        check_loop(checker, f"{ARCH} {name}", functions[name], mmas, CLASS[kind],
                                   SCALE_VEC.get(kind))
            for cg in (1, 2):
                name = f"gpuprobe_tcgen05_baseline_cg{cg}_lat"
                if checker.check(name in functions, f"{ARCH} {name} present"):
                    ins = functions[name]
                    no_local_memory(checker, f"{ARCH} {name}", ins)
                    checker.check(not any(MMA.match(i["opcode"]) for i in ins) and
                                  any(i["opcode"] == "UTCBAR" for i in ins),
                                  f"{ARCH} {name}: commits (UTCBAR) and issues no MMA")
        # The capability guard: the unit builds for sm_100a only. A plain sm_100 pass lacks
        # tcgen05; the sm_100f family pass has it but not kind::i8 (an `a`-target feature).
        for target, cap in (("sm_100", "'tcgen05'"), ("sm_100f", "'tcgen05_block_scaled'")):
            result, _ = compile_cubin(args.source_dir, os.path.join(args.source_dir, SOURCE), target,
                                      tmp)
            log = result.stdout + result.stderr
            checker.check(result.returncode != 0 and cap in log,
                          f"{SOURCE} is refused for {target}, naming capability {cap}", log[-600:])
        path = os.path.join(tmp, "mutants.cu")
        with open(path, "w") as f:
            f.write(MUTANT_SOURCE)
        mutants, error = compile_and_dump(cuobjdump, args.source_dir, path, tmp) \
            if os.path.exists(nvcc_path()) else (None, "nvcc not found")
        if checker.check(mutants is not None, "self-test kernels compile for sm_100a", error):
            check_mutations(checker, mutants, MUTANTS,
                            lambda probe, where, ins, _: check_loop(probe, where, ins, 1, "UTCHMMA"),
                            ARCH, LOG)
    return print_summary(checker, LOG)


if __name__ == "__main__":
    sys.exit(main())
