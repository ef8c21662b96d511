#!/usr/bin/env python3
"""SASS assertions for the bandwidth kernels (probes/bandwidth/stream.cu, stream_shared.cu).

Targets: every target the build ships (tests/sass_tools.py TARGETS). Shapes (vector bytes, ILP)
come from GPUPROBE_BW_SHAPES (global kernels) and GPUPROBE_BW_SHARED_SHAPES (shared kernels) in
probes/bandwidth/stream.cuh. For every kernel on every target:
  * no LDL/STL (local memory) and no CALL;
  * the hot loop (the innermost loop holding the kernel's data accesses) is straight-line code
    with exactly ILP accesses of each kind per iteration and no other memory instruction (a
    re-read of a kernel parameter from constant bank 0 is tolerated and noted: ptxas on sm_100
    reloads the base and the footprint there with LDC): read ILP LDG, read_l2 ILP LDG with
    .STRONG.GPU (ld.global.cg), write ILP STG, copy ILP LDG and ILP STG, shared ILP LDS;
  * every access has the shape's width: 4 bytes no width modifier, 8 .64, 16 .128, 32 .256;
    read and copy loads are weak (no .STRONG: they may allocate in L1);
  * nothing else heavy in the loop (no MUFU, conversion, barrier, shuffle or atomic), and at most
    ALU_PER_ACCESS x accesses + ALU_PER_WORD x words + ALU_FIXED other instructions;
  * 32-byte kernels: LDG/STG .256 on sm_100+; a trap and no access on older targets.
Self-test (sm_90): the control kernels pass; a kernel with fewer loads than its ILP, one with
ld.global where ld.global.cg is claimed, one whose loads are dead (ptxas drops them) and a shared
kernel whose non-volatile ld.shared ptxas hoists out of the loop each fail the check meant for
them. Prints `sass_bandwidth: N passed, M failed`.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import test_args, truthy  # noqa: E402
from sass_tools import (CONTROL_OPS, MEMORY_OPS, TARGETS, Checker, disassemble,  # noqa: E402
                        find_cuobjdump_or_fail, hygiene, lines, parse_sass, print_summary)

LOG = "sass_bandwidth"
SOURCES = {"stream": os.path.join("probes", "bandwidth", "stream.cu"),
           "stream_shared": os.path.join("probes", "bandwidth", "stream_shared.cu")}
FIXED_KERNELS = {"stream": ["gpuprobe_bw_fill", "gpuprobe_bw_verify"]}
GLOBAL_KINDS = ["read", "read_l2", "write", "copy"]
WIDTH = {4: None, 8: "64", 16: "128", 32: "256"}
HEAVY = {"MUFU", "I2F", "F2I", "I2I", "F2F", "BAR", "SHFL", "ATOM", "ATOMG", "ATOMS", "RED",
         "REDG", "REDS", "DMUL", "DFMA", "DADD", "CALL", "BPT"}
# Budget for non-memory instructions per loop iteration: a 64-bit address add per access, one
# add per loaded word (the checksum; IADD3 folds two) or a pattern word per stored one, and the
# window walk's compare and wrap. The largest seen (sm_100 write_v4_x8) is 51 of 72.
ALU_PER_ACCESS = 4
ALU_PER_WORD = 1.5
ALU_FIXED = 28
MUTANT_ARCH = "sm_90"


def shapes(source_dir):
    """{"shared": [(vec_bytes, ilp)], "global": [...]} from the X-macro tables of stream.cuh."""
    path = os.path.join(source_dir, "probes", "bandwidth", "stream.cuh")
    text = open(path, encoding="utf-8").read().replace("\\\n", " ")
    found = {}
    for key, macro in (("shared", "GPUPROBE_BW_SHARED_SHAPES"), ("global", "GPUPROBE_BW_SHAPES")):
        match = re.search(rf"#define {macro}\(X\)(.*)", text)
        body = match.group(1) if match else ""
        found[key] = [(int(a), int(b)) for a, b in re.findall(r"X\((\d+),\s*(\d+)\)", body)]
        if "GPUPROBE_BW_SHARED_SHAPES(X)" in body:
            found[key] = found["shared"] + found[key]
        if not found[key]:
            raise SystemExit(f"{LOG}: {macro} not found in {path}")
    return found


def arch_number(arch):
    return int(re.match(r"sm_(\d+)", arch).group(1))


def loops(instructions):
    """(first, last) index pairs of every backward branch's body."""
    found = []
    for i, ins in enumerate(instructions):
        if ins["opcode"] != "BRA":
            continue
        target = re.search(r"0x([0-9a-f]+)", " ".join(ins["operands"]))
        if not target or int(target.group(1), 16) > ins["address"]:
            continue
        begin = next((k for k, x in enumerate(instructions)
                      if x["address"] == int(target.group(1), 16)), None)
        if begin is not None and begin < i:
            found.append((begin, i))
    return found


def expected_counts(kind, ilp):
    return {"read": {"LDG": ilp}, "read_l2": {"LDG": ilp}, "write": {"STG": ilp},
            "copy": {"LDG": ilp, "STG": ilp}, "shared": {"LDS": ilp}}[kind]


def check_kernel(checker, where, instructions, kind, vec_bytes, ilp, arch):
    """Every assertion on one bandwidth kernel."""
    hygiene(checker, where, instructions)
    counts = expected_counts(kind, ilp)
    accesses = [i for i in instructions if i["opcode"] in counts]
    if vec_bytes == 32 and arch_number(arch) < 100:
        checker.check(not accesses and any(i["opcode"] == "BPT" for i in instructions),
                      f"{where}: traps, with no access, where 32-byte accesses do not exist",
                      lines(accesses), "trap")
        return
    # The hot loop: the innermost loop holding a data access.
    holding = [(a, b) for a, b in loops(instructions)
               if any(instructions[k]["opcode"] in counts for k in range(a, b + 1))]
    if not checker.check(bool(holding), f"{where}: a loop holds the data accesses",
                         lines(accesses), "count"):
        return
    first, last = min(holding, key=lambda ab: ab[1] - ab[0])
    body = instructions[first:last + 1]
    inner_control = [i for i in body[:-1] if i["opcode"] in CONTROL_OPS]
    checker.check(not inner_control, f"{where}: the hot loop is straight-line code",
                  lines(inner_control), "loop")
    for opcode, want in counts.items():
        got = [i for i in body if i["opcode"] == opcode]
        checker.check(len(got) == want, f"{where}: {want} {opcode} per hot-loop iteration",
                      f"found {len(got)}: " + lines(got), "count")
    width = WIDTH[vec_bytes]
    wrong_width, wrong_cache = [], []
    for ins in body:
        if ins["opcode"] not in counts:
            continue
        mods = set(ins["modifiers"])
        at = f"/*{ins['address']:04x}*/ {ins['text']}"
        widths = mods & {"64", "128", "256"}
        if (width is None and widths) or (width is not None and widths != {width}):
            wrong_width.append(f"{at}: not {vec_bytes} bytes")
        if ins["opcode"] == "LDG" and kind == "read_l2" and not {"STRONG", "GPU"} <= mods:
            wrong_cache.append(f"{at}: not ld.global.cg (LDG.STRONG.GPU)")
        if ins["opcode"] == "LDG" and kind != "read_l2" and "STRONG" in mods:
            wrong_cache.append(f"{at}: a strong load, not the weak ld.global")
    checker.check(not wrong_width, f"{where}: every access is {vec_bytes} bytes wide",
                  "; ".join(wrong_width), "width")
    if "LDG" in counts:
        checker.check(not wrong_cache, f"{where}: every load is "
                      + ("ld.global.cg" if kind == "read_l2" else "the weak ld.global"),
                      "; ".join(wrong_cache), "cache")
    other = []
    for ins in body:
        if ins["opcode"] not in MEMORY_OPS or ins["opcode"] in counts:
            continue
        if ins["opcode"] in {"ULDC", "LDC", "LDCU"} and \
                re.fullmatch(r"c\[0x0\]\[0x[0-9a-f]+\]", ins["operands"][-1]):
            checker.note(f"kernel-parameter read in the hot loop ({ins['opcode']}, constant "
                         "bank 0, off the data path)", where)
            continue
        other.append(ins)
    checker.check(not other, f"{where}: no other memory instruction in the hot loop",
                  lines(other), "count")
    heavy = [i for i in body if i["opcode"] in HEAVY]
    checker.check(not heavy, f"{where}: nothing heavy in the hot loop", lines(heavy), "heavy")
    alu = [i for i in body if i["opcode"] not in MEMORY_OPS and i["opcode"] not in CONTROL_OPS]
    accesses_per_iteration = sum(counts.values())
    budget = ALU_PER_ACCESS * accesses_per_iteration + \
        ALU_PER_WORD * accesses_per_iteration * vec_bytes / 4 + ALU_FIXED
    checker.check(len(alu) <= budget, f"{where}: at most {budget:.0f} other instructions per "
                  "hot-loop iteration", f"found {len(alu)}", "heavy")


def check_arch(checker, arch, functions, shape_list):
    for key, names in FIXED_KERNELS.items():
        for name in names:
            if checker.check(name in functions.get(key, {}), f"{arch} {name}: kernel present"):
                hygiene(checker, f"{arch} {name}", functions[key][name])
    stream = functions.get("stream", {})
    shared = functions.get("stream_shared", {})
    expected = set(FIXED_KERNELS["stream"])
    for vec_bytes, ilp in shape_list["global"]:
        for kind in GLOBAL_KINDS:
            name = f"gpuprobe_bw_{kind}_v{vec_bytes}_x{ilp}"
            expected.add(name)
            if checker.check(name in stream, f"{arch} {name}: kernel present"):
                check_kernel(checker, f"{arch} {name}", stream[name], kind, vec_bytes, ilp, arch)
    shared_expected = set()
    for vec_bytes, ilp in shape_list["shared"]:
        name = f"gpuprobe_bw_shared_v{vec_bytes}_x{ilp}"
        shared_expected.add(name)
        if checker.check(name in shared, f"{arch} {name}: kernel present"):
            check_kernel(checker, f"{arch} {name}", shared[name], "shared", vec_bytes, ilp, arch)
    unknown = sorted(set(stream) - expected) + sorted(set(shared) - shared_expected)
    checker.check(not unknown, f"{arch}: every bandwidth kernel is a table shape", ", ".join(unknown))


MUTANT_SOURCE = r"""
#include "probes/bandwidth/stream.cu"
#include "probes/bandwidth/stream_shared.cu"
namespace d = gpuprobe::probes::bandwidth::device;
using gpuprobe::ptx::GlobalCache;
extern "C" __global__ void gpuprobe_mutant_control(uint64_t b, StreamGeometry g,
                                                   unsigned long long* c) {
  d::read<16, 4, GlobalCache::l2_only>(b, g, c);
}
extern "C" __global__ void gpuprobe_mutant_fewer(uint64_t b, StreamGeometry g,
                                                 unsigned long long* c) {
  d::read<16, 3, GlobalCache::l2_only>(b, g, c);
}
extern "C" __global__ void gpuprobe_mutant_cache(uint64_t b, StreamGeometry g,
                                                 unsigned long long* c) {
  d::read<16, 4, GlobalCache::all_levels>(b, g, c);
}
extern "C" __global__ void gpuprobe_mutant_dead(uint64_t b, StreamGeometry g,
                                                unsigned long long* c) {
  const uint64_t stride = uint64_t(blockDim.x) * 16;
  d::for_each_tile<16, 4>(g, [&](uint64_t offset) {
    uint32_t s = 0;
    for (int k = 0; k < 4; ++k) s += reinterpret_cast<const uint4*>(b + offset + k * stride)->x;
    (void)s;
  });
  *c = 0;
}
// ld.shared without .volatile: ptxas may load once before the loop (it did, on sm_90 and sm_100).
extern "C" __global__ void gpuprobe_mutant_shared_hoisted(uint32_t smem_bytes, uint32_t stride,
                                                          uint32_t iterations,
                                                          unsigned long long* c) {
  extern __shared__ __align__(16) uint32_t m[];
  for (uint32_t w = threadIdx.x; w < smem_bytes / 4; w += blockDim.x) m[w] = w;
  __syncthreads();
  const uint32_t a = uint32_t(__cvta_generic_to_shared(m)) + (threadIdx.x & 31) * stride * 16;
  uint32_t s = 0;
#pragma unroll 1
  for (uint32_t i = iterations; i != 0; --i) {
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      uint32_t x, y, z, w;
      asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a + k * 128));
      s += x + y + z + w;
    }
  }
  atomicAdd(c, static_cast<unsigned long long>(s));
}
"""
# (label, kernel, (kind, bytes, ilp) it claims, the check that must catch it or None: a control).
MUTANTS = [("control", "gpuprobe_mutant_control", ("read_l2", 16, 4), None),
           ("3 loads where ILP is 4", "gpuprobe_mutant_fewer", ("read_l2", 16, 4), "count"),
           ("ld.global where ld.global.cg is claimed", "gpuprobe_mutant_cache", ("read_l2", 16, 4),
            "cache"),
           ("dead loads (values unused)", "gpuprobe_mutant_dead", ("read_l2", 16, 4), "count"),
           ("shared control", "gpuprobe_bw_shared_v16_x2", ("shared", 16, 2), None),
           ("ld.shared hoisted out of the loop", "gpuprobe_mutant_shared_hoisted",
            ("shared", 16, 2), "count")]


def check_mutants(checker, sass):
    functions = next(iter(parse_sass(sass, MUTANT_ARCH).values()), {})
    for label, kernel, (claim, vec_bytes, ilp), kind in MUTANTS:
        if not checker.check(kernel in functions, f"self-test {label}: kernel {kernel} present"):
            continue
        probe = Checker(quiet=True)
        check_kernel(probe, f"{MUTANT_ARCH} {kernel}", functions[kernel], claim, vec_bytes, ilp,
                     MUTANT_ARCH)
        if kind is None:
            checker.check(probe.failed == 0, f"self-test: {label} passes every check",
                          " || ".join(m for _, m in probe.failures))
            continue
        caught = [m for k, m in probe.failures if k == kind]
        if checker.check(bool(caught), f"self-test: mutation '{label}' caught by the {kind} check",
                         "its checks: " + (" || ".join(m for _, m in probe.failures) or
                                           "all passed")):
            print(f"{LOG}: mutation '{label}' caught: {caught[0][len('FAIL '):]}")


def main():
    args = test_args(__doc__.splitlines()[0])
    shape_list = shapes(args.source_dir)
    if not truthy(args.with_cuda):
        if args.cuda_targets.strip():
            print(f"{LOG}: told --with-cuda false, but CUDA targets were built")
            print(f"{LOG}: 0 passed, 1 failed")
            return 1
        print(f"{LOG}: the CUDA probes are not built (GPUPROBE_WITH_CUDA=OFF): nothing to check")
        print(f"{LOG}: 0 passed, 0 failed")
        return 0
    cuobjdump = find_cuobjdump_or_fail(LOG, sys.executable)
    if cuobjdump is None:
        return 1
    checker = Checker()
    per_arch, origins, extra = disassemble(args, SOURCES, checker, cuobjdump,
                                           {"mutants": (MUTANT_SOURCE, MUTANT_ARCH)}, LOG)
    for arch in TARGETS:
        print(f"{LOG}: {arch} from {'+'.join(sorted(origins[arch])) or 'nowhere'}")
        check_arch(checker, arch, per_arch[arch], shape_list)
    if extra["mutants"] is not None:
        check_mutants(checker, extra["mutants"])
    return print_summary(checker, LOG)


if __name__ == "__main__":
    sys.exit(main())
