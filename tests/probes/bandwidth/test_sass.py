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
The loaded-latency kernel (probes/bandwidth/loaded.cu, gpuprobe_bw_loaded), on every target:
  * no LDL/STL (local memory) and no CALL;
  * the chase loop (the innermost loop holding a 64-bit LDG) is straight-line code with exactly
    kLoadedHopsPerIteration (probes/bandwidth/loaded.cuh) LDG.E.64.STRONG.GPU (ld.global.cg),
    each load's address the previous load's value (the loop carries the chain), nothing else;
  * the stream loop (the innermost loop holding a 128-bit LDG) holds exactly kLoadedIlp
    LDG.E.128.STRONG.GPU (ld.global.cg.v4) and one 32-bit LDG.STRONG.GPU (the flag poll,
    ld.relaxed.gpu), no other memory instruction (kernel parameters from constant bank 0
    tolerated), at most one SHFL (the warp's phase) and nothing else heavy; the throttle's spin
    loop inside it touches no memory.
Self-test (sm_90): the control kernels pass; a kernel with fewer loads than its ILP, one with
ld.global where ld.global.cg is claimed, one whose loads are dead (ptxas drops them) and a shared
kernel whose non-volatile ld.shared ptxas hoists out of the loop each fail the check meant for
them; so do a loaded-latency streamer whose loads are dead, a chase through ld.global (not .cg)
and a chase whose loads do not depend on each other. Prints `sass_bandwidth: N passed, M failed`.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from sass_tools import (CONTROL_OPS, MEMORY_OPS, SelfTest, Values, address, arch_number,  # noqa: E402
                        hygiene, innermost_loop_holding, lines, loops, param_read, run_sass_test)

LOG = "sass_bandwidth"
SOURCES = {"stream": os.path.join("probes", "bandwidth", "stream.cu"),
           "stream_shared": os.path.join("probes", "bandwidth", "stream_shared.cu"),
           "loaded": os.path.join("probes", "bandwidth", "loaded.cu")}
LOADED_KERNEL = "gpuprobe_bw_loaded"
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
        if param_read(ins):
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


def loaded_constants(source_dir):
    """(hops per chase iteration, ILP of a stream group) from probes/bandwidth/loaded.cuh."""
    path = os.path.join(source_dir, "probes", "bandwidth", "loaded.cuh")
    text = open(path, encoding="utf-8").read()
    hops = re.search(r"kLoadedHopsPerIteration\s*=\s*(\d+)", text)
    ilp = re.search(r"kLoadedIlp\s*=\s*(\d+)", text)
    if not hops or not ilp:
        raise SystemExit(f"{LOG}: kLoadedHopsPerIteration or kLoadedIlp not found in {path}")
    return int(hops.group(1)), int(ilp.group(1))


def check_loaded_chase(checker, where, instructions, hops):
    # The timed loop: of the loops holding 64-bit loads, the one holding the most (the warm-up's
    # rolled loop holds one).
    def wide_loads(ab):
        return sum(1 for k in range(ab[0], ab[1] + 1) if instructions[k]["opcode"] == "LDG"
                   and "64" in instructions[k]["modifiers"])
    holding = [ab for ab in loops(instructions) if wide_loads(ab) > 0]
    if not checker.check(bool(holding), f"{where}: a loop holds the chase's 64-bit loads",
                         "", "count"):
        return
    loop = max(holding, key=lambda ab: (wide_loads(ab), -(ab[1] - ab[0])))
    body = instructions[loop[0]:loop[1] + 1]
    inner_control = [i for i in body[:-1] if i["opcode"] in CONTROL_OPS]
    checker.check(not inner_control, f"{where}: the chase loop is straight-line code",
                  lines(inner_control), "loop")
    loads = [i for i in body if i["opcode"] == "LDG"]
    checker.check(len(loads) == hops, f"{where}: {hops} LDG per chase-loop iteration",
                  f"found {len(loads)}: " + lines(loads), "count")
    wrong = [i for i in loads if not ({"64", "STRONG", "GPU"} <= set(i["modifiers"]))
             or "128" in i["modifiers"]]
    checker.check(not wrong, f"{where}: every chase load is LDG.E.64.STRONG.GPU (ld.global.cg)",
                  lines(wrong), "cache")
    other = [i for i in body if i["opcode"] in MEMORY_OPS and i["opcode"] != "LDG"
             and not param_read(i)]
    checker.check(not other, f"{where}: no other memory instruction in the chase loop",
                  lines(other), "count")
    # Each load's address is the previous load's value (second pass over the body).
    values, problems = Values(), []
    for turn in (0, 1):
        n = 0
        for ins in body:
            if ins["opcode"] != "LDG":
                values.step(ins)
                continue
            if turn == 1:
                previous = (1, n - 1) if n else (0, len(loads) - 1)
                base, no_offset = address(ins)
                got = [values.tag.get(r) for r in ([base, base + 1] if base is not None else [])]
                if not no_offset or got != [(previous, 0), (previous, 1)]:
                    problems.append(f"/*{ins['address']:04x}*/ {ins['text']}")
            values.step(ins, (turn, n))
            n += 1
    checker.check(loads and not problems, f"{where}: each chase load's address is the previous "
                  "load's value (the loop carries the chain)", "; ".join(problems[:3]),
                  "dependence")


def check_loaded_stream(checker, where, instructions, ilp):
    loop = innermost_loop_holding(
        instructions, lambda i: i["opcode"] == "LDG" and "128" in i["modifiers"])
    if not checker.check(loop is not None, f"{where}: a loop holds the streamers' 128-bit loads",
                         "", "count"):
        return
    body = instructions[loop[0]:loop[1] + 1]
    wide = [i for i in body if i["opcode"] == "LDG" and "128" in i["modifiers"]]
    flag = [i for i in body if i["opcode"] == "LDG" and not set(i["modifiers"]) & {"64", "128"}]
    checker.check(len(wide) == ilp, f"{where}: {ilp} 128-bit LDG per stream-loop iteration",
                  f"found {len(wide)}: " + lines(wide), "count")
    checker.check(len(flag) == 1, f"{where}: one 32-bit LDG (the flag poll) per stream-loop "
                  "iteration", f"found {len(flag)}: " + lines(flag), "count")
    weak = [i for i in wide + flag if not {"STRONG", "GPU"} <= set(i["modifiers"])]
    checker.check(not weak, f"{where}: the stream loads are ld.global.cg and the poll "
                  "ld.relaxed.gpu (LDG.STRONG.GPU)", lines(weak), "cache")
    other = [i for i in body if i["opcode"] in MEMORY_OPS and i not in wide + flag
             and not param_read(i)]
    checker.check(not other, f"{where}: no other memory instruction in the stream loop",
                  lines(other), "count")
    heavy = [i for i in body if i["opcode"] in HEAVY and i["opcode"] != "SHFL"]
    shuffles = [i for i in body if i["opcode"] == "SHFL"]
    checker.check(not heavy and len(shuffles) <= 1, f"{where}: nothing heavy in the stream loop "
                  "(one SHFL: the warp's phase)", lines(heavy + shuffles), "heavy")
    spins = [(a, b) for a, b in loops(instructions) if loop[0] <= a and b < loop[1]]
    touching = [instructions[k] for a, b in spins for k in range(a, b + 1)
                if instructions[k]["opcode"] in MEMORY_OPS and not param_read(instructions[k])]
    checker.check(not touching, f"{where}: the throttle's spin touches no memory",
                  lines(touching), "count")


def check_loaded(checker, where, instructions, constants):
    hops, ilp = constants
    hygiene(checker, where, instructions)
    check_loaded_chase(checker, where, instructions, hops)
    check_loaded_stream(checker, where, instructions, ilp)


def check_arch(checker, arch, functions, context):
    shape_list, loaded = context
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
    kernels = functions.get("loaded", {})
    if checker.check(LOADED_KERNEL in kernels, f"{arch} {LOADED_KERNEL}: kernel present"):
        check_loaded(checker, f"{arch} {LOADED_KERNEL}", kernels[LOADED_KERNEL], loaded)
    extra = sorted(set(kernels) - {LOADED_KERNEL})
    checker.check(not extra, f"{arch}: loaded.cu holds only {LOADED_KERNEL}", ", ".join(extra))


MUTANT_SOURCE = r"""
#include "probes/bandwidth/stream.cu"
#include "probes/bandwidth/stream_shared.cu"
namespace d = gpuprobe::probes::bandwidth::device;
using gpuprobe::ptx::GlobalCache;
using gpuprobe::probes::bandwidth::StreamGeometry;
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
LOADED_MUTANT_SOURCE = r"""
#include "probes/bandwidth/loaded.cu"
namespace bw = gpuprobe::probes::bandwidth;
namespace ptx = gpuprobe::ptx;
// The streamer's loads summed but the sum never leaves the kernel: ptxas drops them.
__device__ void dead_stream(const bw::LoadedParams& p, uint32_t* flag) {
  uint64_t addr = p.stream_base + threadIdx.x * 16;
  uint32_t sum = 0;
#pragma unroll 1
  for (;;) {
    const uint32_t seen = ptx::ld_relaxed_gpu_global_u32(reinterpret_cast<uint64_t>(flag));
    for (int k = 0; k < 4; ++k)
      sum += ptx::LdGlobal<4, ptx::GlobalCache::l2_only>::load(addr + k * blockDim.x * 16).w[0];
    addr += 4 * blockDim.x * 16;
    if (__shfl_sync(0xffffffffu, seen, 0) >= bw::kLoadedStop) break;
  }
  (void)sum;
}
template <class Load, bool kDependent>
__device__ void mutant_chase(const bw::LoadedParams& p, bw::LoadedOut* out) {
  uint64_t x = p.chain_base;
  uint64_t acc = 0;
#pragma unroll 1
  for (uint64_t i = p.timed_iterations; i != 0; --i) {
#pragma unroll
    for (uint64_t k = 0; k < bw::kLoadedHopsPerIteration; ++k) {
      if (kDependent) x = Load::load(x);
      else acc += Load::load(p.chain_base + k * 8 + (acc & p.zero));
    }
  }
  out->final_offset_bytes = x + acc;
}
#define MUTANT(name, chase_call, stream_call)                                               \
  extern "C" __global__ void name(bw::LoadedParams p, gpuprobe::cuda::SmPin pin,             \
                                  uint32_t* flag, bw::LoadedOut* out, uint32_t* smid,         \
                                  uint32_t* groups) {                                         \
    if (blockIdx.x == 0) { chase_call; return; }                                              \
    stream_call;                                                                              \
  }
MUTANT(gpuprobe_mutant_loaded_dead, bw::device::chase(p, (uint64_t)flag, out),
       dead_stream(p, flag))
MUTANT(gpuprobe_mutant_loaded_plain, (mutant_chase<ptx::load::plain, true>(p, out)),
       bw::device::stream(p, (uint64_t)flag, out, groups))
MUTANT(gpuprobe_mutant_loaded_independent, (mutant_chase<ptx::load::cg, false>(p, out)),
       bw::device::stream(p, (uint64_t)flag, out, groups))
"""
# (label, kernel, no claim: check_loaded reads loaded.cuh's constants, the check that must catch it).
LOADED_MUTANTS = [("loaded control", "gpuprobe_bw_loaded", None, None),
                  ("dead streamer loads", "gpuprobe_mutant_loaded_dead", None, "count"),
                  ("chase through ld.global, not .cg", "gpuprobe_mutant_loaded_plain", None, "cache"),
                  ("independent chase loads", "gpuprobe_mutant_loaded_independent", None,
                   "dependence")]
# (label, kernel, (kind, bytes, ilp) it claims, the check that must catch it or None: a control).
MUTANTS = [("control", "gpuprobe_mutant_control", ("read_l2", 16, 4), None),
           ("3 loads where ILP is 4", "gpuprobe_mutant_fewer", ("read_l2", 16, 4), "count"),
           ("ld.global where ld.global.cg is claimed", "gpuprobe_mutant_cache", ("read_l2", 16, 4),
            "cache"),
           ("dead loads (values unused)", "gpuprobe_mutant_dead", ("read_l2", 16, 4), "count"),
           ("shared control", "gpuprobe_bw_shared_v16_x2", ("shared", 16, 2), None),
           ("ld.shared hoisted out of the loop", "gpuprobe_mutant_shared_hoisted",
            ("shared", 16, 2), "count")]


def check_mutant(checker, where, instructions, claim):
    kind, vec_bytes, ilp = claim
    check_kernel(checker, where, instructions, kind, vec_bytes, ilp, MUTANT_ARCH)


def self_tests(context):
    _, loaded = context
    return [SelfTest("mutants", MUTANT_SOURCE, MUTANTS, check_mutant, MUTANT_ARCH),
            SelfTest("loaded_mutants", LOADED_MUTANT_SOURCE, LOADED_MUTANTS,
                     lambda probe, where, ins, _: check_loaded(probe, where, ins, loaded), MUTANT_ARCH)]


if __name__ == "__main__":
    sys.exit(run_sass_test(__doc__, LOG, SOURCES, check_arch,
                           setup=lambda source_dir: (shapes(source_dir), loaded_constants(source_dir)),
                           self_tests=self_tests))
