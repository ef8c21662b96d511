#!/usr/bin/env python3
"""The host-side launch benchmarks (bench/bench_launch.cpp, Google Benchmark) run.

With the bench built (GPUPROBE_BUILD_BENCH=ON): `gpuprobe_bench --benchmark_filter=Launch` exits 0
and lists every launch benchmark (enqueue, round trip, graph launch and instantiate at 1..256
nodes). Without a GPU (or without CUDA in the build) each one is skipped with its reason in one
line (`no CUDA GPU: ...`, `gpuprobe was built without CUDA ...`); with a GPU each reports a time
per call between 0.1 us and 10 ms. Without the bench in the build there is nothing to run: said,
and passed; a build whose cache says it has the bench but lacks the binary fails.
Prints `bench_launch: N passed, M failed`.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import test_args  # noqa: E402

NAMES = ["BM_LaunchEnqueue", "BM_LaunchRoundTrip"] + \
        [f"BM_LaunchGraph/{n}" for n in (1, 4, 16, 64, 256)] + \
        [f"BM_LaunchGraphInstantiate/{n}" for n in (1, 4, 16, 64, 256)]


def main():
    args = test_args(__doc__.splitlines()[0])
    passed = failed = 0

    def check(ok, what, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"PASS {what}")
        else:
            failed += 1
            print(f"FAIL {what}" + (f": {detail}" if detail else ""))
        return ok

    cache = os.path.join(args.build_dir, "CMakeCache.txt")
    built = os.path.exists(cache) and any(
        re.match(r"GPUPROBE_BUILD_BENCH:BOOL=(ON|1|TRUE)$", line.strip(), re.I) for line in open(cache))
    exe = os.path.join(args.build_dir, "bench", "gpuprobe_bench")
    if not built:
        print("bench_launch: the bench is not built (GPUPROBE_BUILD_BENCH=OFF): nothing to run")
        print("bench_launch: 0 passed, 0 failed")
        return 0
    if not check(os.path.exists(exe), f"{exe} exists (the build has the bench)"):
        print(f"bench_launch: {passed} passed, {failed} failed")
        return 1
    result = subprocess.run([exe, "--benchmark_filter=Launch", "--benchmark_format=json",
                             "--benchmark_min_time=0.01"], capture_output=True, text=True, timeout=600)
    check(result.returncode == 0, "gpuprobe_bench --benchmark_filter=Launch exits 0", result.stderr[-2000:])
    try:
        runs = {b["name"]: b for b in json.loads(result.stdout)["benchmarks"]}
    except (ValueError, KeyError) as e:
        check(False, "the benchmark output is JSON", f"{e}: {result.stdout[-2000:]}")
        print(f"bench_launch: {passed} passed, {failed} failed")
        return 1
    for name in NAMES:
        b = runs.get(name)
        if not check(b is not None, f"{name} listed"):
            continue
        if b.get("error_occurred"):
            why = b.get("error_message", "")
            check(why.startswith("no CUDA GPU: ") or why.startswith("gpuprobe was built without CUDA"),
                  f"{name}: skipped with the reason in one line ({why})", why)
        else:
            t = b.get("real_time", 0) * {"ns": 1e-3, "us": 1, "ms": 1e3}.get(b.get("time_unit"), 1)
            check(0.1 < t < 10_000, f"{name}: {t:.2f} us per call, between 0.1 us and 10 ms", str(b))
    print(f"bench_launch: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
