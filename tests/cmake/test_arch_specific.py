#!/usr/bin/env python3
"""Tests cmake/GpuprobeCuda.cmake: an arch-specific translation unit (<name>.sm90a.cu) is built
only for its own target, only when the user's targets include its family, and the list of built
targets (GPUPROBE_CUDA_TARGETS) says so. The fixture's sm90a file uses wgmma behind
GPUPROBE_PTX_REQUIRE, so building it for any other target would fail the build."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import find_tool, nvcc_path, test_args, truthy  # noqa: E402

FIXTURE_CMAKE = """cmake_minimum_required(VERSION 3.25)
project(fixture LANGUAGES CXX CUDA)
set(CMAKE_CUDA_STANDARD 17)
find_package(CUDAToolkit REQUIRED)
include({src}/cmake/GpuprobeCuda.cmake)
add_library(fixture STATIC host.cpp)
target_include_directories(fixture PRIVATE {src})
gpuprobe_add_cuda_sources(fixture)
file(WRITE ${{CMAKE_BINARY_DIR}}/targets.txt "${{GPUPROBE_CUDA_TARGETS}}")
"""
GENERIC = "__global__ void generic_kernel(int* p) { *p = 1; }\n"
SPECIFIC = """#include "ptx/capability.hpp"
__global__ void specific_kernel(int* p) {
  GPUPROBE_PTX_REQUIRE(wgmma);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  *p = 2;
}
"""

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print(f"FAIL: {message}")


def configure_and_build(src, work, archs):
    build = os.path.join(work, "build-" + archs.replace(";", "_"))
    r = subprocess.run(["cmake", "-S", work, "-B", build, "-G", "Ninja",
                        f"-DCMAKE_CUDA_ARCHITECTURES={archs}",
                        "-DCMAKE_CUDA_COMPILER=" + nvcc_path()],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return r, build
    r = subprocess.run(["cmake", "--build", build], capture_output=True, text=True)
    return r, build


def elf_archs(obj, cuobjdump):
    r = subprocess.run([cuobjdump, "--list-elf", obj], capture_output=True, text=True)
    return sorted(line.split(".")[-2] for line in r.stdout.split() if line.endswith(".cubin"))


def main():
    args = test_args(__doc__.splitlines()[0])
    if not truthy(args.with_cuda):
        print("arch_specific: CUDA is off in this build; nothing to compile")
        print("arch_specific: 0 passed, 0 failed")
        return 0
    cuobjdump = find_tool("cuobjdump", sys.executable)
    if cuobjdump is None:
        print("arch_specific: cuobjdump not found: install nvidia-cuda-cuobjdump into .venv "
              "(scripts/setup.sh)")
        return 1
    with tempfile.TemporaryDirectory() as work:
        os.makedirs(os.path.join(work, "probes", "demo"))
        open(os.path.join(work, "CMakeLists.txt"), "w").write(FIXTURE_CMAKE.format(src=args.source_dir))
        open(os.path.join(work, "host.cpp"), "w").write("int fixture_host() { return 0; }\n")
        open(os.path.join(work, "probes", "demo", "generic.cu"), "w").write(GENERIC)
        open(os.path.join(work, "probes", "demo", "specific.sm90a.cu"), "w").write(SPECIFIC)

        # Targets that include sm_90: the sm90a unit is built, for sm_90a alone.
        r, build = configure_and_build(args.source_dir, work, "80-real;90-real")
        check(r.returncode == 0, "build with sm_80 and sm_90 failed:\n" + r.stdout[-3000:] + r.stderr[-3000:])
        if r.returncode == 0:
            targets = open(os.path.join(build, "targets.txt")).read()
            check(targets == "sm_80,sm_90,sm_90a", f"GPUPROBE_CUDA_TARGETS is {targets!r}")
            specific = [os.path.join(dp, f) for dp, _, fs in os.walk(build) for f in fs
                        if f.startswith("specific.sm90a") and f.endswith(".o")]
            generic = [os.path.join(dp, f) for dp, _, fs in os.walk(build) for f in fs
                       if f.startswith("generic") and f.endswith(".o")]
            check(len(specific) == 1 and len(generic) == 1, f"objects: {specific} {generic}")
            if specific and generic:
                check(elf_archs(specific[0], cuobjdump) == ["sm_90a"],
                      f"sm90a unit holds {elf_archs(specific[0], cuobjdump)}")
                check(elf_archs(generic[0], cuobjdump) == ["sm_80", "sm_90"],
                      f"generic unit holds {elf_archs(generic[0], cuobjdump)}")

        # Targets without sm_90: the sm90a unit is left out, and the build says so.
        r, build = configure_and_build(args.source_dir, work, "80-real")
        check(r.returncode == 0, "build with sm_80 only failed:\n" + r.stderr[-3000:])
        if r.returncode == 0:
            targets = open(os.path.join(build, "targets.txt")).read()
            check(targets == "sm_80", f"GPUPROBE_CUDA_TARGETS is {targets!r} without sm_90")

    passed = 7 - len(failures)
    print(f"arch_specific: {passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
