#!/usr/bin/env python3
"""Every CUDA runtime call and kernel launch in the CUDA sources is checked.

A call to cudaXxx(...) must be inside GPUPROBE_CUDA_CHECK(...), or assign its status to a
cudaError_t that the code then handles, or be discarded on purpose with static_cast<void>(...)
(the discovery code, which reports its own error). A launch `kernel<<<...>>>(...);` must be
followed by GPUPROBE_CUDA_CHECK_LAUNCH before the next statement that is not part of it.
Step 5 of README.md's "How the probes are verified without a GPU".
Prints 'cuda_calls: N passed, M failed'."""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import test_args  # noqa: E402

CALL = re.compile(r"\b(cuda[A-Z]\w*)\s*\(")
# Not runtime calls: types, enums and the macro's own helper.
NOT_CALLS = {"cudaGetErrorName", "cudaGetErrorString"}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def enclosing_ok(text, pos):
    """Is the call at pos wrapped by a check, a handled status or a deliberate discard?"""
    # Look back over the statement the call belongs to (up to the previous ';', '{' or '}').
    stmt_start = max(text.rfind(";", 0, pos), text.rfind("{", 0, pos), text.rfind("}", 0, pos)) + 1
    before = text[stmt_start:pos]
    if "GPUPROBE_CUDA_CHECK(" in before or "GPUPROBE_CUDA_CHECK (" in before:
        return True
    if "static_cast<void>(" in before:
        return True
    if re.search(r"cudaError_t\s+\w+\s*=\s*$", before.strip() + " ") or \
            re.search(r"cudaError_t\s+\w+\s*=", before):
        return True
    # A status compared in an if: `if (cudaXxx(...) != cudaSuccess ...`
    if re.search(r"!=\s*cudaSuccess", text[pos:pos + 300].split(";")[0]):
        return True
    return False


def main():
    args = test_args(__doc__.splitlines()[0])
    # Host code that calls the runtime: harness/cuda/*.cpp (device discovery, the launch path, the
    # timing layer) and each family's probes/<family>/*_cuda.cpp. Kernel files (*.cu) hold device
    # code only and launch nothing: every launch goes through harness/cuda/launch.cpp.
    sources = sorted(glob.glob(os.path.join(args.source_dir, "harness", "cuda", "*.[ch]pp")) +
                     glob.glob(os.path.join(args.source_dir, "probes", "*", "*_cuda.cpp")) +
                     glob.glob(os.path.join(args.source_dir, "harness", "cuda", "*.cu")) +
                     glob.glob(os.path.join(args.source_dir, "probes", "*", "*.cu")))
    passed, failed = 0, 0
    for path in sources:
        text = strip_comments(open(path, encoding="utf-8").read())
        rel = os.path.relpath(path, args.source_dir)
        for m in CALL.finditer(text):
            name = m.group(1)
            if name in NOT_CALLS:
                continue
            # Inside the macro definitions themselves.
            line = text[text.rfind("\n", 0, m.start()) + 1:text.find("\n", m.start())]
            if line.rstrip().endswith("\\"):
                passed += 1
                continue
            if enclosing_ok(text, m.start()):
                passed += 1
            else:
                failed += 1
                lineno = text.count("\n", 0, m.start()) + 1
                print(f"FAIL: {rel}:{lineno}: {name}(...) is not checked")
        for m in re.finditer(r"<<<", text):
            failed += 1
            lineno = text.count("\n", 0, m.start()) + 1
            print(f"FAIL: {rel}:{lineno}: a <<<>>> launch: launch through harness/cuda/launch.hpp, "
                  "the one launch path (checked, recorded)")
    if passed == 0:
        print("FAIL: no CUDA call found: the scan is looking in the wrong place")
        failed += 1
    print(f"cuda_calls: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
