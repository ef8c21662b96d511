#!/usr/bin/env python3
"""Compile matrix for every generic probe source (probes/*/*.cu) and the capability guard.

The matrix is sm_75 80 86 89 90 90a 100 100a 120 120a. The build compiles the probes for its own
targets (CMAKE_CUDA_ARCHITECTURES) with a spill, any local memory (a stack frame) or any compiler
warning as an error (GPUPROBE_CUDA_CHECKS in cmake/GpuprobeCuda.cmake; this test fails if those
flags leave it), so a built target is proven by the build; this test compiles each source as a
cubin (nvcc -Xptxas -v) for every other target of the matrix, in parallel, and asserts success,
0 bytes spill stores/loads, a 0-byte stack frame for every kernel and no warning. Then compiles a
kernel that uses GPUPROBE_PTX_REQUIRE(wgmma) for sm_80 and sm_90a: it must fail on sm_80 with an
error naming the capability, and build on sm_90a.
Prints `compile_matrix: N passed, M failed`; exits non-zero on any failure.
"""
import concurrent.futures
import glob
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import skip, compile_cubin, nvcc_path, test_args, truthy  # noqa: E402

TARGETS = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_120",
           "sm_120a"]
REQUIRE_SOURCE = """#include "ptx/capability.hpp"
__global__ void needs_wgmma(int* out) {
  GPUPROBE_PTX_REQUIRE(wgmma);
  *out = 1;
}
"""

# What cmake/GpuprobeCuda.cmake must pass nvcc for a built target to need no check here.
BUILD_CHECKS = ["-Xptxas=-warn-spills,-warn-lmem-usage", "-Werror=all-warnings"]


def built_targets(build_dir):
    """The sm_XY targets the build compiled the generic probes for: CMAKE_CUDA_ARCHITECTURES
    from its CMakeCache.txt (75-real -> sm_75, 90a-real -> sm_90a, 120 -> sm_120)."""
    try:
        cache = open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8").read()
    except OSError:
        return set()
    match = re.search(r"^CMAKE_CUDA_ARCHITECTURES:[A-Z]+=(.*)$", cache, re.M)
    if not match:
        return set()
    return {"sm_" + a.split("-")[0] for a in match.group(1).split(";")
            if a and not a.endswith("-virtual")}


def main():
    args = test_args(__doc__.splitlines()[0])

    if not truthy(args.with_cuda):
        if args.cuda_targets.strip():
            print("compile_matrix: told --with-cuda false, but CUDA targets were built")
            print("compile_matrix: 0 passed, 1 failed")
            return 1
        return skip("compile_matrix", "the CUDA probes are not built (GPUPROBE_WITH_CUDA=OFF): nothing to check")
    if not os.path.exists(nvcc_path()):
        print("compile_matrix: nvcc not found, but the build is configured with CUDA")
        return 1

    passed = failed = 0

    def check(ok, what, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {what}" + (f": {detail}" if detail else ""))

    # Every generic probe source (arch-specific *.smXYa.cu units build for their own target).
    probes = sorted(p for p in glob.glob(os.path.join(args.source_dir, "probes", "*", "*.cu")) +
                    glob.glob(os.path.join(args.source_dir, "harness", "cuda", "*.cu"))
                    if not re.search(r"\.sm\d+[af]\.cu$", p))
    check(len(probes) >= 2, f"found the probe sources: {probes}")
    flags = open(os.path.join(args.source_dir, "cmake", "GpuprobeCuda.cmake"),
                 encoding="utf-8").read()
    match = re.search(r"set\(GPUPROBE_CUDA_CHECKS([^)]*)\)", flags)
    checks = match.group(1).split() if match else []
    check(all(f in checks for f in BUILD_CHECKS),
          f"the build compiles with {' '.join(BUILD_CHECKS)} (GPUPROBE_CUDA_CHECKS, "
          "cmake/GpuprobeCuda.cmake)", f"found {checks}")
    built = built_targets(args.build_dir)
    todo = [t for t in TARGETS if t not in built]
    print(f"compile_matrix: proven by the build (its targets): {' '.join(sorted(built)) or 'none'}")
    print(f"compile_matrix: compiling here: {' '.join(todo) or 'none'}")
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        jobs = [(s, t, pool.submit(compile_cubin, args.source_dir, s, t, tmp))
                for s in probes for t in todo]
        for source, target, job in jobs:
            rel = os.path.relpath(source, args.source_dir)
            result, _ = job.result()
            log = result.stdout + result.stderr
            check(result.returncode == 0, f"{rel} builds for {target}", log[-2000:])
            if result.returncode != 0:
                continue
            frames = re.findall(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                                r"(\d+) bytes spill loads", log)
            check(len(frames) > 0, f"{rel} {target}: ptxas -v reported the kernels")
            bad = [f for f in frames if any(int(x) != 0 for x in f)]
            check(not bad, f"{rel} {target}: 0 bytes stack frame and spills in every kernel",
                  str(bad))
            check("warning" not in log.lower(), f"{rel} {target}: no compiler warnings", log[-2000:])

        probe = os.path.join(tmp, "require_wgmma.cu")
        with open(probe, "w") as f:
            f.write(REQUIRE_SOURCE)
        bad, _ = compile_cubin(args.source_dir, probe, "sm_80", tmp)
        message = bad.stdout + bad.stderr
        check(bad.returncode != 0, "GPUPROBE_PTX_REQUIRE(wgmma) fails to build for sm_80")
        check("'wgmma'" in message and "__CUDA_ARCH__=800" in message,
              "the error names the capability and the target", message[-1500:])
        good, _ = compile_cubin(args.source_dir, probe, "sm_90a", tmp)
        check(good.returncode == 0, "GPUPROBE_PTX_REQUIRE(wgmma) builds for sm_90a",
              (good.stdout + good.stderr)[-1500:])

    print(f"compile_matrix: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
