#!/usr/bin/env python3
"""Tests scripts/first-run.sh without a GPU: the whole script as a dry run on the simulator
(--device sim:h100-sxm, with nvidia-smi, cuobjdump and compute-sanitizer made absent): every step
runs, what is missing is recorded and not fatal, and OUT packs into at most 8 files whose
summary.json names every family; then with stand-in smoke tests that hang (memory), fail (sync,
atomics, which leaves a self-check sidecar) and pass (compute): the hang is cut at its cap, the
failures are parsed, only the first failing family is rerun under the stand-in sanitizer, and
the script exits 1, and a stand-in cuobjdump's SASS and resource usage are packed; a budget too
small for a step skips it and says so; scripts/gpu-check.sh calls it with its old arguments
mapped; bad input fails in one line; --print-carry and --make-carry name what a GPU machine
needs. Every summary.json must pass docs/schema/gpuprobe.first_run.v1.schema.json."""
import gzip
import json
import lzma
import os
import re
import stat
import subprocess
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import Checks, test_args  # noqa: E402

check = Checks("first_run")

FAMILIES = ["memory", "tensor-mma", "tensor-wgmma", "tensor-tcgen05", "async", "sync", "atomics", "launch",
            "compute", "bandwidth", "bandwidth-loaded", "goodput"]
VALIDATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "validate_outputs.py")
ABSENT = {"FIRSTRUN_NVIDIA_SMI": "/nonexistent/nvidia-smi", "FIRSTRUN_CUOBJDUMP": "/nonexistent/cuobjdump",
          "FIRSTRUN_SANITIZER": "/nonexistent/compute-sanitizer"}

# A stand-in gpuprobe_tests: the memory smoke hangs, sync fails with a Catch2 failure, atomics
# fails and leaves a sidecar in its working folder, everything else passes.
FAKE_TESTS = """#!/bin/bash
case "$1" in
  *chase*) sleep 60 ;;
  *sync/*)
    echo "/src/tests/probes/sync/test_gpu_smoke_sync.cpp:42: FAILED:"
    echo "  CHECK( lanes == want )"
    echo "with expansion:"
    echo "  17 == 18"
    echo
    echo "test cases: 1 | 0 passed | 1 failed"
    echo "assertions: 5 | 4 passed | 1 failed"
    exit 1 ;;
  *atomics/*)
    mkdir -p atomics_ops.selfcheck && echo '{"op": "global_cas"}' > atomics_ops.selfcheck/global_cas_b32.json
    echo "/src/tests/probes/atomics/test_gpu_smoke_atomics.cpp:7: FAILED:"
    echo "  REQUIRE( hits > 0 )"
    exit 1 ;;
  *) echo "All tests passed (3 assertions in 1 test case)" ;;
esac
"""
FAKE_CUOBJDUMP = """#!/bin/bash
case "$1" in
  -res-usage) echo "Function gpuprobe_chase_global_plain:"; echo "REG:24 STACK:0 SHARED:0 LOCAL:0" ;;
  -sass) echo "code for sm_90a"; echo "        /*0000*/                   LDC R1, c[0x0][0x28] ;" ;;
esac
"""
FAKE_SANITIZER = """#!/bin/bash
echo "$*" >> "$SANITIZER_LOG"
echo "========= COMPUTE-SANITIZER"
echo "========= ERROR SUMMARY: 0 errors"
"""


def executable(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def first_run(script, build, out, *args, env=None):
    t0 = time.monotonic()
    r = subprocess.run([script, *args, build, out], capture_output=True, text=True,
                       env={**os.environ, **ABSENT, **(env or {})}, timeout=240)
    return r, time.monotonic() - t0


def packed(out, what):
    """OUT holds at most 8 plain files of at most 16 MiB, named as a device run brings them back."""
    names = sorted(os.listdir(out))
    check(len(names) <= 8, f"{what}: OUT holds {len(names)} entries, more than 8: {names}")
    for n in names:
        p = os.path.join(out, n)
        check(os.path.isfile(p), f"{what}: {n} is not a plain file (everything is packed)")
        check(re.fullmatch(r"[A-Za-z0-9._-]+", n) is not None, f"{what}: {n} is named with other characters")
        check(os.path.getsize(p) <= 16 * 1048576, f"{what}: {n} is over 16 MiB")
    for n in ("summary.json", "first-run.tar.gz", "first-run.log", "env.txt", "smoke-failures.log"):
        check(n in names, f"{what}: OUT lacks {n}: {names}")
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    # docs/schema/gpuprobe.first_run.v1.schema.json accepts it.
    r = subprocess.run([sys.executable, VALIDATE, os.path.join(out, "summary.json")], capture_output=True, text=True)
    check(r.returncode == 0, f"{what}: summary.json against its schema: {r.stdout[-1500:]} {r.stderr[-500:]}")
    with tarfile.open(os.path.join(out, "first-run.tar.gz")) as t:
        members = set(t.getnames())
    return summary, members


def main():
    args = test_args(__doc__.splitlines()[0])
    script = os.path.join(args.source_dir, "scripts", "first-run.sh")
    build = args.build_dir
    with tempfile.TemporaryDirectory(prefix="gpuprobe-first-run-") as tmp:
        # 1. The dry run: the whole script on the simulator.
        out = os.path.join(tmp, "dry")
        r, wall = first_run(script, build, out, "--device", "sim:h100-sxm")
        check(r.returncode == 0, f"dry run: exit {r.returncode}: {r.stdout[-2000:]} {r.stderr[-2000:]}")
        # How long the dry run takes is no pass/fail matter here (speed targets live in bench/): the
        # 7-minute budget on a GPU is held by the per-family time caps of scripts/first-run.sh.
        print(f"dry run: {wall:.0f} s")
        summary, members = packed(out, "dry run")
        check(summary.get("schema") == "gpuprobe.first_run" and summary.get("simulated") is True,
              "dry run: summary.json's schema or simulated flag")
        check(summary.get("ok") is True, "dry run: not ok")
        check(summary["nvidia_smi"]["available"] is False and "not found" in summary["nvidia_smi"]["reason"],
              "dry run: the absence of nvidia-smi is not recorded")
        check(summary["tools"]["cuobjdump"] is False and summary["tools"]["compute-sanitizer"] is False,
              "dry run: the absent tools are not recorded")
        check(list(summary["families"]) == FAMILIES, f"dry run: families {list(summary['families'])}")
        for name, fam in summary["families"].items():
            for key in ("status", "points", "failed_points", "failures", "seconds", "logs", "sidecars"):
                check(key in fam, f"dry run: {name} lacks {key}")
            if name != "goodput":
                # No GPU: each smoke test ran and skipped, saying why.
                check(fam["status"] == "skipped" and fam["smoke"]["skipped_because"],
                      f"dry run: {name}'s smoke is {fam['status']}, not skipped with a reason")
                check(f"first-run/smoke/{name}.log" in members, f"dry run: no smoke log of {name} in the tarball")
        for name in ("memory", "tensor-wgmma", "sync", "atomics", "launch", "goodput"):
            check(summary["families"][name]["points"] > 0, f"dry run: run-all measured no point of {name}")
        check(summary["run_all"]["exit_code"] == 0 and summary["run_all"]["model"] == "run/machine_model.json",
              f"dry run: run-all {summary['run_all']}")
        cal = summary["calibration"]
        check(cal["before"]["region_sm_clock_mhz"] is not None and
              abs(cal["before"]["region_sm_clock_mhz"] - 1980) < 20 and
              abs(cal["after"]["region_sm_clock_mhz"] - 1980) < 20,
              f"dry run: the calibration's clocks are not the preset's 1980 MHz: {cal}")
        check(cal["load"] and cal["load"]["probe"] == "tensor/wgmma", f"dry run: the calibration load {cal['load']}")
        for m in ("first-run/env.txt", "first-run/steps.tsv", "first-run/list.txt", "first-run/telemetry.csv",
                  "first-run/xid-before.txt", "first-run/xid-after.txt", "first-run/nvidia-smi-before.txt",
                  "first-run/calibration/before.json", "first-run/calibration/after.json",
                  "first-run/calibration/load.json", "first-run/run/machine_model.json",
                  "first-run/run/raw/tensor_wgmma.json", "first-run/run-all.log", "first-run/summary.json"):
            check(m in members, f"dry run: the tarball lacks {m}")
        env_txt = open(os.path.join(out, "env.txt"), encoding="utf-8").read()
        check("nvidia-smi: not found" in env_txt and "git_commit: " in env_txt
              and re.search(r"^[0-9a-f]{64}  .*gpuprobe$", env_txt, re.M),
              "dry run: env.txt does not say nvidia-smi is absent, or lacks the commit or the binaries' sha256")
        # A second run into the same OUT would overwrite the first: refused.
        r, _ = first_run(script, build, out, "--device", "sim:h100-sxm")
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("first-run: error: ")
              and "already holds a run" in r.stderr, f"a used OUT: {r.returncode} {r.stderr!r}")

        # 2. Stand-in smoke tests: a hang, two failures (one with a sidecar), a pass.
        bin_dir = os.path.join(tmp, "bin")
        os.mkdir(bin_dir)
        executable(os.path.join(bin_dir, "gpuprobe_tests"), FAKE_TESTS)
        executable(os.path.join(bin_dir, "compute-sanitizer"), FAKE_SANITIZER)
        executable(os.path.join(bin_dir, "cuobjdump"), FAKE_CUOBJDUMP)
        san_log = os.path.join(tmp, "sanitizer.log")
        out = os.path.join(tmp, "faults")
        r, wall = first_run(script, build, out, "--device", "sim:h100-sxm", env={
            "FIRSTRUN_TESTS": os.path.join(bin_dir, "gpuprobe_tests"),
            "FIRSTRUN_SANITIZER": os.path.join(bin_dir, "compute-sanitizer"), "SANITIZER_LOG": san_log,
            "FIRSTRUN_CUOBJDUMP": os.path.join(bin_dir, "cuobjdump"),
            "FIRSTRUN_FAMILIES": "memory sync atomics compute", "FIRSTRUN_SMOKE_CAP": "2",
            "FIRSTRUN_RUN_ALL_ARGS": "--only compute"})
        check(r.returncode == 1, f"faults: exit {r.returncode}, not 1: {r.stdout[-2000:]} {r.stderr[-1000:]}")
        summary, members = packed(out, "faults")
        fams = summary["families"]
        check(fams["memory"]["status"] == "timed out" and fams["memory"]["seconds"] <= 2 + 6,
              f"faults: the hung memory smoke: {fams['memory']['status']} after {fams['memory']['seconds']} s")
        check(fams["sync"]["status"] == "failed" and
              any("CHECK( lanes == want )" in f and "17 == 18" in f for f in fams["sync"]["failures"]),
              f"faults: sync's failure is not parsed: {fams['sync']['failures']}")
        check(fams["sync"]["smoke"]["assertions_failed"] == 1, "faults: sync's assertion counts")
        check(fams["atomics"]["status"] == "failed", "faults: atomics is not failed")
        check(fams["atomics"]["sidecars"] == ["smoke/atomics/atomics_ops.selfcheck/global_cas_b32.json"],
              f"faults: atomics' sidecar: {fams['atomics']['sidecars']}")
        check("first-run/smoke/atomics/atomics_ops.selfcheck/global_cas_b32.json" in members,
              "faults: the sidecar is not in the tarball")
        check(fams["compute"]["status"] == "passed" and fams["compute"]["smoke"]["assertions_passed"] == 3
              and fams["compute"]["points"] > 0, f"faults: compute: {fams['compute']}")
        for name in ("tensor-mma", "async", "launch"):
            check(fams[name]["status"] == "not run", f"faults: {name} ran though not asked for")
        # The sanitizer reran the first failing family only (sync; the hang is no memory error).
        runs = open(san_log, encoding="utf-8").read().splitlines() if os.path.exists(san_log) else []
        check(len(runs) == 1 and "gpu-smoke: sync/*" in runs[0] and "--tool memcheck" in runs[0],
              f"faults: sanitizer runs {runs}")
        check(fams["sync"]["sanitizer"] and fams["sync"]["sanitizer"]["errors"] == 0,
              f"faults: sync's sanitizer result {fams['sync']['sanitizer']}")
        check(fams["atomics"]["sanitizer"] is None, "faults: atomics was sanitized too")
        failures_log = open(os.path.join(out, "smoke-failures.log"), encoding="utf-8").read()
        check("smoke/sync.log" in failures_log and "smoke/atomics.log" in failures_log
              and "sanitize/sync.log" in failures_log and "smoke/compute.log" not in failures_log,
              "faults: smoke-failures.log holds the wrong logs")
        check(summary["ok"] is False, "faults: summary says ok")
        # The device code: -res-usage in the tarball, the SASS compressed beside it.
        sass = [n for n in os.listdir(out) if n.startswith("sass.txt.")]
        check(summary["tools"]["cuobjdump"] is True and "first-run/res-usage.txt" in members and len(sass) == 1,
              f"faults: the SASS and resource usage: {sass}")
        if sass:
            opener = lzma.open if sass[0].endswith(".xz") else gzip.open
            with opener(os.path.join(out, sass[0]), "rt") as f:
                check("LDC R1" in f.read(), "faults: the SASS file does not hold cuobjdump's output")

        # 3. A budget too small for the smoke tests: skipped, and said so.
        out = os.path.join(tmp, "tight")
        r, _ = first_run(script, build, out, "--device", "sim:h100-sxm", "--total-seconds", "30", env={
            "FIRSTRUN_TESTS": os.path.join(bin_dir, "gpuprobe_tests"), "FIRSTRUN_FAMILIES": "compute",
            "FIRSTRUN_RUN_ALL_ARGS": "--only compute"})
        summary, _ = packed(out, "tight budget")
        fam = summary["families"]["compute"]
        check(r.returncode == 1 and fam["status"] == "not run" and
              any("no time left" in f for f in fam["failures"]), f"tight budget: {r.returncode} {fam}")
        check(any(s["name"] == "smoke-compute" and s["ran"] is False for s in summary["steps"]),
              "tight budget: the skipped step is not in steps")

        # scripts/gpu-check.sh, which it replaces, calls it with its old variables mapped.
        gpu_check = os.path.join(args.source_dir, "scripts", "gpu-check.sh")
        out = os.path.join(tmp, "gpu-check")
        r = subprocess.run([gpu_check, build, out, "100", "7"], capture_output=True, text=True, timeout=240,
                           env={**os.environ, **ABSENT, "FIRSTRUN_DEVICE": "sim:h100-sxm",
                                "FIRSTRUN_TESTS": os.path.join(bin_dir, "gpuprobe_tests"),
                                "GPUCHECK_FAMILIES": "compute", "GPUCHECK_RUN_ALL_ARGS": "--quick --only compute"})
        summary, _ = packed(out, "gpu-check.sh")
        steps = {s["name"]: s for s in summary["steps"]}
        check(r.returncode == 0 and summary["families"]["compute"]["status"] == "passed"
              and summary["families"]["memory"]["status"] == "not run"
              and steps["smoke-compute"]["cap_s"] == 7 and steps["run-all"]["cap_s"] == 100,
              f"gpu-check.sh: {r.returncode} {r.stderr[-500:]} {steps}")

        # 4. Bad input: one line, exit 2.
        for argv, needle in (([], "usage"), (["--device"], "--device needs a value"),
                             (["--bogus", build, out], "unknown option"),
                             (["--total-seconds", "x", build, os.path.join(tmp, "x")], "--total-seconds"),
                             ([os.path.join(tmp, "nobuild"), os.path.join(tmp, "y")], "missing")):
            r = subprocess.run([script, *argv], capture_output=True, text=True)
            check(r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("first-run: error: ")
                  and needle in r.stderr, f"bad input {argv}: {r.returncode} {r.stderr!r}")

        # 5. What a GPU machine needs of the build: gpuprobe and tests/gpuprobe_tests.
        r = subprocess.run([script, "--print-carry", build], capture_output=True, text=True)
        lines = r.stdout.splitlines()
        check(r.returncode in (0, 1) and lines == [os.path.join(build, "gpuprobe"),
                                                   os.path.join(build, "tests", "gpuprobe_tests")],
              f"--print-carry: {r.returncode} {lines}")
        check("MiB of 64" in r.stderr, f"--print-carry says no total: {r.stderr!r}")
        dest = os.path.join(tmp, "carry")
        r = subprocess.run([script, "--make-carry", build, dest], capture_output=True, text=True)
        check(r.returncode in (0, 1) and r.stdout.splitlines() == [os.path.join(dest, "gpuprobe"),
                                                                   os.path.join(dest, "tests", "gpuprobe_tests")],
              f"--make-carry: {r.returncode} {r.stdout!r} {r.stderr!r}")
        lst = subprocess.run([os.path.join(dest, "gpuprobe"), "list"], capture_output=True, text=True)
        check(lst.returncode == 0 and "tensor/wgmma" in lst.stdout, "the carried gpuprobe does not run")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
