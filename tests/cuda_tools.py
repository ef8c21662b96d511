"""Shared by the Python tests: their arguments, their checks (Checks), finding the CUDA
disassemblers and reading CMake booleans."""
import argparse
import glob
import os
import shutil
import subprocess
import sys


# The exit status of a test that cannot run here (a host-only build has no kernels to check): ctest
# reports it Skipped (tests/CMakeLists.txt SKIP_RETURN_CODE), never Passed.
SKIP = 77


def skip(log, reason):
    """Says why the test `log` cannot run here and returns SKIP (its exit status)."""
    print(f"{log}: SKIPPED: {reason}")
    return SKIP


def truthy(text):
    return str(text).strip().lower() in {"1", "on", "true", "yes"}


def find_tool(name, venv_python):
    candidates = []
    if venv_python:
        prefix = os.path.dirname(os.path.dirname(os.path.abspath(venv_python)))
        candidates += glob.glob(os.path.join(prefix, "lib", "python3*", "site-packages", "nvidia",
                                             "**", "bin", name), recursive=True)
    candidates += glob.glob(os.path.join(sys.prefix, "lib", "python3*", "site-packages", "nvidia",
                                         "**", "bin", name), recursive=True)
    candidates.append(os.path.join("/usr/local/cuda/bin", name))
    found = shutil.which(name)
    if found:
        candidates.append(found)
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def test_args(description):
    """The arguments tests/CMakeLists.txt passes to every Python test."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--gpuprobe", default="")
    parser.add_argument("--with-cuda", default="0")
    parser.add_argument("--cuda-targets", default="")
    return parser.parse_args()


class Checks:
    """One way to check in a Python test: `check = Checks("name")`, then `check(condition, message)`
    prints `FAIL: message` when the condition is false and returns the condition;
    `check.failures` lists the failed messages; `check.finish()` prints `name: N passed, M failed`
    and returns the test's exit code (1 on any failure)."""

    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failures = []

    def __call__(self, condition, message):
        if condition:
            self.passed += 1
        else:
            self.failures.append(message)
            print(f"FAIL: {message}")
        return condition

    check = __call__

    def finish(self):
        print(f"{self.name}: {self.passed} passed, {len(self.failures)} failed")
        return 1 if self.failures else 0


def nvcc_path():
    return shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def compile_cubin(source_dir, source, target, out_dir):
    """Compiles one .cu for one target (sm_80, sm_90a...) with the build's language level and
    ptxas -v; returns the CompletedProcess and the cubin's path."""
    number = target.split("_")[1]
    cubin = os.path.join(out_dir, f"{os.path.basename(source)}.{target}.cubin")
    cmd = [nvcc_path(), "-std=c++17", "-I", source_dir, "-cubin",
           f"-gencode=arch=compute_{number},code={target}", "-Xptxas", "-v", source, "-o", cubin]
    return subprocess.run(cmd, capture_output=True, text=True), cubin
