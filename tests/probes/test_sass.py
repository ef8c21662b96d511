#!/usr/bin/env python3
"""SASS assertions for the pointer-chase kernels (probes/memory/chase.cu, chase_shared.cu).

For sm_80 and sm_90 and every chase kernel (global .ca .cg .cs .lu .cv .nc, shared):
  * the timed loop (the backward branch between the two clock reads that bracket it) holds
    exactly kChaseHopsPerIteration loads (read from harness/device.hpp), LDG with the cache operator's modifiers or LDS,
    and no other memory instruction;
  * each sampled hop is CS2R SR_CLOCKLO; one load; STS of the loaded value; CS2R SR_CLOCKLO;
  * no LDL/STL (local memory) and no CALL anywhere in the kernel.
Disassembles the object CMake built; if the build lacks sm_80/sm_90 it compiles the sources for
them with nvcc. Prints `sass: N passed, M failed`; exits non-zero on any failure.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import compile_cubin, find_tool, test_args, truthy  # noqa: E402



def hops_per_iteration(source_dir):
    """kChaseHopsPerIteration from harness/device.hpp: the count is written once, in the code."""
    text = open(os.path.join(source_dir, "harness", "device.hpp"), encoding="utf-8").read()
    match = re.search(r"kChaseHopsPerIteration\s*=\s*(\d+)", text)
    if not match:
        raise SystemExit("sass: kChaseHopsPerIteration not found in harness/device.hpp")
    return int(match.group(1))


HOPS_PER_ITERATION = None  # set in main() from the source
ARCHS = ["sm_80", "sm_90"]
# CacheOp enum order in harness/device.hpp: ca, cg, cs, lu, cv, nc.
# Expected LDG modifiers (without .E and the .64 width), read from nvdisasm/cuobjdump 13.0.
CACHE_OPS = [
    ("ca", 0, {"STRONG", "SM"}),
    ("cg", 1, {"STRONG", "GPU"}),
    ("cs", 2, {"EF"}),
    ("lu", 3, {"LU"}),
    ("cv", 4, {"STRONG", "SYS"}),
    ("nc", 5, {"CONSTANT"}),
]
MEMORY_OPS = {"LDG", "STG", "LDS", "STS", "LD", "ST", "LDL", "STL", "LDC", "ATOM", "ATOMG",
              "ATOMS", "RED", "REDG", "LDSM", "LDGSTS", "CCTL", "LDGDEPBAR", "ULDC"}
INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")


def parse_functions(sass_text):
    functions = {}
    current = None
    for line in sass_text.splitlines():
        if "Function :" in line:
            current = line.split("Function :", 1)[1].strip()
            functions[current] = []
            continue
        match = INSTRUCTION.search(line)
        if current is None or not match:
            continue
        address = int(match.group(1), 16)
        text = re.sub(r"\s+", " ", match.group(2)).strip()
        predicate = ""
        if text.startswith("@"):
            predicate, text = text.split(" ", 1)
        opcode_full = text.split(" ", 1)[0]
        operands = text.split(" ", 1)[1] if " " in text else ""
        functions[current].append({
            "address": address, "predicate": predicate, "opcode": opcode_full.split(".")[0],
            "modifiers": opcode_full.split(".")[1:], "operands": operands, "text": text,
        })
    return functions


def is_clock(ins):
    return ins["opcode"] in {"CS2R", "S2R", "S2UR"} and "SR_CLOCKLO" in ins["operands"]


def is_load(ins, space):
    return ins["opcode"] == ("LDG" if space == "global" else "LDS")


def ldg_modifiers(ins):
    return {m for m in ins["modifiers"] if m not in {"E", "64"}}


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {what}" + (f": {detail}" if detail else ""))


def timed_loop(instructions, first_clock, second_clock):
    """The backward branch between two clock reads: returns the loop body."""
    start_address = instructions[first_clock]["address"]
    for i in range(second_clock - 1, first_clock, -1):
        ins = instructions[i]
        if ins["opcode"] != "BRA":
            continue
        target = re.search(r"0x([0-9a-f]+)", ins["operands"])
        if target and start_address < int(target.group(1), 16) <= ins["address"]:
            begin = next(k for k, x in enumerate(instructions)
                         if x["address"] == int(target.group(1), 16))
            return instructions[begin:i + 1]
    return None


def check_kernel_hygiene(checker, arch, label, instructions):
    bad = [i["text"] for i in instructions if i["opcode"] in {"LDL", "STL", "CALL"}]
    checker.check(not bad, f"{arch} {label}: no local memory, no calls", "; ".join(bad))


def check_timed(checker, arch, label, loop, space, modifiers):
    if loop is None:
        checker.check(False, f"{arch} {label}: timed loop found between the clock reads")
        return
    loads = [i for i in loop if is_load(i, space)]
    checker.check(len(loads) == HOPS_PER_ITERATION,
                  f"{arch} {label}: {HOPS_PER_ITERATION} loads per timed-loop iteration",
                  f"found {len(loads)}: " + "; ".join(i["text"] for i in loads))
    if space == "global":
        wrong = [i["text"] for i in loads if ldg_modifiers(i) != modifiers]
        checker.check(not wrong, f"{arch} {label}: LDG modifiers {sorted(modifiers)}",
                      "; ".join(wrong))
    other = [i["text"] for i in loop if i["opcode"] in MEMORY_OPS and not is_load(i, space)]
    checker.check(not other, f"{arch} {label}: no other memory instructions in the timed loop",
                  "; ".join(other))


def check_sampled(checker, arch, label, instructions, clocks, space, modifiers):
    """Clock pairs of the sampled loop: CS2R; one load; STS; CS2R."""
    pairs = 0
    for a, b in zip(clocks, clocks[1:]):
        between = instructions[a + 1:b]
        loads = [i for i in between if is_load(i, space)]
        if not loads:
            continue
        pairs += 1
        ok = (len(loads) == 1 and instructions[a]["opcode"] == "CS2R"
              and instructions[b]["opcode"] == "CS2R")
        load_at = between.index(loads[0])
        stores = [i for i in between[load_at + 1:] if i["opcode"] == "STS"]
        ok = ok and len(stores) >= 1
        ok = ok and all(i["opcode"] not in MEMORY_OPS for i in between
                        if i is not loads[0] and i["opcode"] != "STS")
        if space == "global":
            ok = ok and ldg_modifiers(loads[0]) == modifiers
        checker.check(ok, f"{arch} {label}: sampled hop is CS2R; one load; STS; CS2R",
                      " | ".join(i["text"] for i in instructions[a:b + 1]))
    checker.check(pairs == 1, f"{arch} {label}: one sampled-hop clock pair", f"found {pairs}")


def find_function(functions, needle):
    names = [n for n in functions if needle in n]
    return names[0] if len(names) == 1 else None


def check_arch(checker, arch, sass_text):
    functions = parse_functions(sass_text)
    for name, number, modifiers in CACHE_OPS:
        bulk = find_function(functions, f"chase_global_kernelILNS_7CacheOpE{number}EE")
        sampled = find_function(functions, f"chase_global_sampled_kernelILNS_7CacheOpE{number}EE")
        checker.check(bulk is not None and sampled is not None,
                      f"{arch} {name}: bulk and sampled kernels present")
        if bulk:
            ins = functions[bulk]
            check_kernel_hygiene(checker, arch, f"global.{name}", ins)
            clocks = [k for k, i in enumerate(ins) if is_clock(i)]
            checker.check(len(clocks) == 2, f"{arch} global.{name}: two clock reads",
                          f"found {len(clocks)}")
            if len(clocks) == 2:
                check_timed(checker, arch, f"global.{name}", timed_loop(ins, *clocks), "global",
                            modifiers)
        if sampled:
            ins = functions[sampled]
            check_kernel_hygiene(checker, arch, f"global.{name} sampled", ins)
            clocks = [k for k, i in enumerate(ins) if is_clock(i)]
            check_sampled(checker, arch, f"global.{name}", ins, clocks, "global", modifiers)
    shared = find_function(functions, "chase_shared_kernel")
    checker.check(shared is not None, f"{arch} shared: kernel present")
    if shared:
        ins = functions[shared]
        check_kernel_hygiene(checker, arch, "shared", ins)
        clocks = [k for k, i in enumerate(ins) if is_clock(i)]
        checker.check(len(clocks) == 4, f"{arch} shared: four clock reads", f"found {len(clocks)}")
        if len(clocks) == 4:
            check_timed(checker, arch, "shared", timed_loop(ins, clocks[0], clocks[1]), "shared",
                        None)
            check_sampled(checker, arch, "shared", ins, clocks[2:], "shared", None)


def main():
    args = test_args(__doc__.splitlines()[0])
    global HOPS_PER_ITERATION
    HOPS_PER_ITERATION = hops_per_iteration(args.source_dir)

    if not truthy(args.with_cuda):
        cache = os.path.join(args.build_dir, "CMakeCache.txt")
        configured_on = False
        if os.path.exists(cache):
            with open(cache) as f:
                configured_on = any(re.match(r"GPUPROBE_WITH_CUDA:BOOL=(ON|1|TRUE)$", l.strip(),
                                             re.I) for l in f)
        if configured_on or args.cuda_targets.strip():
            print("sass: told --with-cuda false, but the build is configured with CUDA")
            print("sass: 0 passed, 1 failed")
            return 1
        print("sass: the CUDA probes are not built (GPUPROBE_WITH_CUDA=OFF): nothing to check")
        print("sass: 0 passed, 0 failed")
        return 0

    cuobjdump = find_tool("cuobjdump", sys.executable)
    if cuobjdump is None:
        print("sass: cuobjdump not found: install nvidia-cuda-cuobjdump into .venv "
              "(scripts/requirements.txt) or a CUDA toolkit")
        return 1

    targets = {t.strip() for t in args.cuda_targets.split(",") if t.strip()}
    sources = ["chase.cu", "chase_shared.cu"]  # probes/memory/: the kernels checked here
    objects = {}
    for name in sources:
        found = glob.glob(os.path.join(args.build_dir, "**", "probes", "memory", name + ".o"),
                          recursive=True)
        if found:
            objects[name] = found[0]
    checker = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        for arch in ARCHS:
            sass = ""
            for name in sources:
                if arch in targets and name in objects:
                    binary, origin = objects[name], "build"
                else:
                    result, binary = compile_cubin(
                        args.source_dir, os.path.join(args.source_dir, "probes", "memory", name),
                        arch, tmp)
                    if result.returncode != 0:
                        raise subprocess.CalledProcessError(result.returncode, "nvcc",
                                                            result.stdout, result.stderr)
                    origin = "nvcc"
                result = subprocess.run([cuobjdump, "-sass", "-arch", arch, binary],
                                        capture_output=True, text=True)
                if result.returncode != 0 or "Function" not in result.stdout:
                    checker.check(False, f"{arch}: disassemble {binary}", result.stderr.strip())
                    continue
                print(f"sass: {arch} from {origin}: {os.path.relpath(binary, args.build_dir)}")
                sass += result.stdout
            check_arch(checker, arch, sass)
    print(f"sass: {checker.passed} passed, {checker.failed} failed")
    return 1 if checker.failed else 0


if __name__ == "__main__":
    sys.exit(main())
