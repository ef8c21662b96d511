#!/usr/bin/env python3
"""Tests cmake/GpuprobeCuda.cmake: an arch-specific translation unit (<name>.sm90a.cu) is built
only for its own target, only when the user's targets include its family, the list of built
targets (GPUPROBE_CUDA_TARGETS) says so, and the unit's static self-registration survives linking.

The fixture mirrors the project: gpuprobe_add_cuda_sources(<harness> <probes>) with a small harness
STATIC library (a registry: a function-local static vector and `struct Reg`) and a probes OBJECT
library. The fixture's sm90a file uses wgmma behind GPUPROBE_PTX_REQUIRE, so building it for any
other target would fail the build; it and a generic unit register themselves with `static Reg`,
and an executable that never names their symbols prints the registry. A variant whose probes are
a STATIC library shows why the project uses OBJECT: the linker drops the unreferenced objects and
their registrations with them."""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import skip, find_tool, nvcc_path, test_args, truthy  # noqa: E402

FIXTURE_CMAKE = """cmake_minimum_required(VERSION 3.25)
project(fixture LANGUAGES CXX CUDA)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CUDA_STANDARD 17)
find_package(CUDAToolkit REQUIRED)
include({src}/cmake/GpuprobeCuda.cmake)
# OBJECT as in the project; STATIC for the variant that shows what OBJECT prevents.
set(FIXTURE_PROBES_KIND OBJECT CACHE STRING "library type of the probes target")
add_library(fixture_harness STATIC registry.cpp)
target_include_directories(fixture_harness PUBLIC ${{CMAKE_SOURCE_DIR}} {src})
add_library(fixture_probes ${{FIXTURE_PROBES_KIND}})
target_link_libraries(fixture_probes PUBLIC fixture_harness)
gpuprobe_add_cuda_sources(fixture_harness fixture_probes)
# In neither library, and names no symbol of the registering objects.
add_executable(fixture_main main.cpp)
target_link_libraries(fixture_main PRIVATE fixture_probes)
file(WRITE ${{CMAKE_BINARY_DIR}}/targets.txt "${{GPUPROBE_CUDA_TARGETS}}")
"""
REGISTRY_HPP = """#pragma once
#include <string>
#include <vector>
std::vector<std::string>& fixture_registry();
struct Reg {
  explicit Reg(const char* name);
};
"""
REGISTRY_CPP = """#include "registry.hpp"
std::vector<std::string>& fixture_registry() {
  static std::vector<std::string> names;
  return names;
}
Reg::Reg(const char* name) { fixture_registry().push_back(name); }
"""
MAIN = """#include <cstdio>
#include "registry.hpp"
int main() {
  std::printf("targets %s\\n", GPUPROBE_CUDA_TARGETS);
  for (const auto& name : fixture_registry()) std::printf("registered %s\\n", name.c_str());
  return 0;
}
"""
GENERIC = """#include "registry.hpp"
__global__ void generic_kernel(int* p) { *p = 1; }
static Reg reg("generic");
"""
SPECIFIC = """#include "ptx/capability.hpp"
#include "registry.hpp"
#ifndef GPUPROBE_CUDA_TARGETS
#error "the arch-specific unit lacks the harness's compile definitions"
#endif
__global__ void specific_kernel(int* p) {
  GPUPROBE_PTX_REQUIRE(wgmma);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  *p = 2;
}
static Reg reg("specific");
"""

checks = {"passed": 0, "failed": 0}


def check(condition, what, detail=""):
    if condition:
        checks["passed"] += 1
        print(f"PASS: {what}")
    else:
        checks["failed"] += 1
        print(f"FAIL: {what}" + (f"\n{detail}" if detail else ""))
    return condition


def configure_and_build(work, archs, kind="OBJECT"):
    build = os.path.join(work, f"build-{kind.lower()}-" + archs.replace(";", "_"))
    start = time.monotonic()
    r = subprocess.run(["cmake", "-S", work, "-B", build, "-G", "Ninja",
                        f"-DCMAKE_CUDA_ARCHITECTURES={archs}",
                        f"-DFIXTURE_PROBES_KIND={kind}",
                        "-DCMAKE_CUDA_COMPILER=" + nvcc_path()],
                       capture_output=True, text=True)
    if r.returncode == 0:
        r = subprocess.run(["cmake", "--build", build], capture_output=True, text=True)
    print(f"  ({kind} probes, CMAKE_CUDA_ARCHITECTURES={archs}: configure+build "
          f"{time.monotonic() - start:.1f} s)")
    return r, build


def build_log(r):
    return (r.stdout[-3000:] + r.stderr[-3000:]).rstrip()


def elf_archs(obj, cuobjdump):
    r = subprocess.run([cuobjdump, "--list-elf", obj], capture_output=True, text=True)
    return sorted(line.split(".")[-2] for line in r.stdout.split() if line.endswith(".cubin"))


def objects(build, prefix):
    return [os.path.join(dp, f) for dp, _, fs in os.walk(build) for f in fs
            if f.startswith(prefix) and f.endswith(".o")]


def registered(build):
    """Runs the fixture's executable (it launches nothing, so it needs no GPU); returns the
    registered names and the GPUPROBE_CUDA_TARGETS it was compiled with."""
    r = subprocess.run([os.path.join(build, "fixture_main")], capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"fixture_main exited {r.returncode}: {r.stdout}{r.stderr}"
    lines = r.stdout.splitlines()
    names = [line.split(" ", 1)[1] for line in lines if line.startswith("registered ")]
    targets = [line.split(" ", 1)[1] for line in lines if line.startswith("targets ")]
    return names, targets[0] if targets else None


def main():
    args = test_args(__doc__.splitlines()[0])
    if not truthy(args.with_cuda):
        return skip("arch_specific", "CUDA is off in this build: nothing to compile")
    cuobjdump = find_tool("cuobjdump", sys.executable)
    if cuobjdump is None:
        print("arch_specific: cuobjdump not found: install nvidia-cuda-cuobjdump into .venv "
              "(scripts/setup.sh)")
        return 1
    with tempfile.TemporaryDirectory() as work:
        os.makedirs(os.path.join(work, "probes", "demo"))
        files = {"CMakeLists.txt": FIXTURE_CMAKE.format(src=args.source_dir),
                 "registry.hpp": REGISTRY_HPP, "registry.cpp": REGISTRY_CPP, "main.cpp": MAIN,
                 os.path.join("probes", "demo", "generic.cu"): GENERIC,
                 os.path.join("probes", "demo", "specific.sm90a.cu"): SPECIFIC}
        for name, text in files.items():
            with open(os.path.join(work, name), "w") as f:
                f.write(text)

        # Targets that include sm_90: the sm90a unit is built, for sm_90a alone, and registers.
        print("targets 80-real;90-real, probes an OBJECT library:")
        r, build = configure_and_build(work, "80-real;90-real")
        if check(r.returncode == 0, "fixture builds for sm_80 and sm_90", build_log(r)):
            targets = open(os.path.join(build, "targets.txt")).read()
            check(targets == "sm_80,sm_90,sm_90a",
                  f"GPUPROBE_CUDA_TARGETS (parent scope) is sm_80,sm_90,sm_90a: {targets!r}")
            specific, generic = objects(build, "specific.sm90a"), objects(build, "generic")
            if check(len(specific) == 1 and len(generic) == 1,
                     "one object each for the sm90a and the generic unit",
                     f"objects: {specific} {generic}"):
                archs = elf_archs(specific[0], cuobjdump)
                check(archs == ["sm_90a"], f"sm90a unit holds sm_90a alone: {archs}")
                archs = elf_archs(generic[0], cuobjdump)
                check(archs == ["sm_80", "sm_90"], f"generic unit holds sm_80 and sm_90: {archs}")
            names, exe_targets = registered(build)
            if check(names is not None, "fixture_main runs", exe_targets):
                check(exe_targets == "sm_80,sm_90,sm_90a",
                      f"GPUPROBE_CUDA_TARGETS reaches the executable: {exe_targets!r}")
                check(sorted(names) == ["generic", "specific"],
                      f"the sm90a and the generic unit's registrations survive linking: {names}")

        # Targets without sm_90: the sm90a unit is left out, and the build says so.
        print("targets 80-real, probes an OBJECT library:")
        r, build = configure_and_build(work, "80-real")
        if check(r.returncode == 0, "fixture builds for sm_80 alone", build_log(r)):
            targets = open(os.path.join(build, "targets.txt")).read()
            check(targets == "sm_80", f"GPUPROBE_CUDA_TARGETS is sm_80 without sm_90: {targets!r}")
            check(objects(build, "specific.sm90a") == [], "no sm90a object without sm_90")
            names, exe_targets = registered(build)
            if check(names is not None, "fixture_main runs", exe_targets):
                check(exe_targets == "sm_80",
                      f"GPUPROBE_CUDA_TARGETS reaches the executable: {exe_targets!r}")
                check(names == ["generic"],
                      f"only the generic unit registers without sm_90: {names}")

        # Why the probes are an OBJECT library: as a STATIC library, the linker takes only the
        # members that resolve an undefined symbol, and nothing names the registering objects.
        # (Whether the sm90a object is an archive member depends on how the function attaches
        # the arch units to the probes target; every registering member must be dropped.)
        print("targets 90-real, probes a STATIC library (the failure mode OBJECT prevents):")
        r, build = configure_and_build(work, "90-real", kind="STATIC")
        if check(r.returncode == 0, "STATIC variant builds for sm_90", build_log(r)):
            archive = os.path.join(build, "libfixture_probes.a")
            ar = subprocess.run(["ar", "t", archive], capture_output=True, text=True)
            members = ar.stdout.split()
            archived = [name for name, prefix in (("generic", "generic"),
                                                  ("specific", "specific.sm90a"))
                        if any(m.startswith(prefix) for m in members)]
            check("generic" in archived,
                  f"the archive holds the registering objects {archived}: members {members}")
            names, exe_targets = registered(build)
            if check(names is not None, "fixture_main runs", exe_targets):
                dropped = [name for name in archived if name not in names]
                check(archived and dropped == archived,
                      f"linked from a STATIC library, {archived} lose their registration: "
                      f"the executable prints {names}")

    print(f"arch_specific: {checks['passed']} passed, {checks['failed']} failed")
    return 1 if checks["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
