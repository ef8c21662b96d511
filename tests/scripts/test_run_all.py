#!/usr/bin/env python3
"""Tests scripts/run-all.sh, the README's main command, against the build under test: it runs
gpuprobe run-all, which fits the model, plots it and writes its roofline and report; a failing
run-all makes the script fail, and plots that cannot be drawn fail run-all in one line, keeping
the model."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import Checks, test_args  # noqa: E402

check = Checks("run_all_script")


def main():
    args = test_args(__doc__.splitlines()[0])
    script = os.path.abspath(os.path.join(args.source_dir, "scripts", "run-all.sh"))
    env = dict(os.environ, GPUPROBE_SKIP_SETUP="1",
               GPUPROBE_BUILD_DIR=os.path.abspath(args.build_dir))
    with tempfile.TemporaryDirectory() as tmp:
        # Called from another folder with a relative --out and --device=X: the outputs land
        # under the caller's folder, not the script's.
        rel = f"gpuprobe-run-all-test-{os.getpid()}"
        out = os.path.join(tmp, rel)
        # --quick: the whole chain (run-all, model, plots, roofline, report) at a CI cost;
        # tests/scripts/test_run_all_profiles.py holds --quick against --full.
        r = subprocess.run([script, "--device=sim:v100", "--quick", "--out", rel], env=env, cwd=tmp,
                           capture_output=True, text=True)
        check(r.returncode == 0, f"run-all.sh failed: {r.stderr[-2000:]}")
        misplaced = os.path.join(args.source_dir, rel)
        if os.path.exists(misplaced):
            check(False, "a relative --out was taken relative to the source folder")
            shutil.rmtree(misplaced)
        for name in ("machine_model.json", "latency.png", "latency.svg",
                     os.path.join("raw", "memory_chase_default.json"),
                     os.path.join("raw", "bandwidth_dram.json"),
                     "machine_model.bandwidth-footprint.png", "machine_model.bandwidth-inflight.svg",
                     "machine_model.loaded-latency.png", "machine_model.roofline.json",
                     "machine_model.roofline.png", "machine_model.roofline.svg",
                     "report.md", "report.html", "report-latency.png", "report-roofline.png"):
            check(os.path.isfile(os.path.join(out, name)), f"run-all.sh did not write {name}")
        check("SIMULATED DEVICE" in r.stderr, "no simulated-device banner")
        check(f"wrote {os.path.join(out, 'latency.png')}" in r.stdout, "the plot was not reported")
        check("Bandwidth:\n" in r.stdout, "the summary does not print the bandwidth")
        check(f"wrote {os.path.join(out, 'report.html')}" in r.stdout, "the report was not reported")
        if os.path.isfile(os.path.join(out, "report.md")):
            report = open(os.path.join(out, "report.md"), encoding="utf-8").read()
            check("# gpuprobe report: " in report and "SIMULATED DEVICE" in report
                  and "## Is my number normal?" in report, "report.md lacks its header or summary")

        # A run-all that fails (unknown device) fails the script, with one error line, no plot.
        bad = os.path.join(tmp, "bad")
        r = subprocess.run([script, "--device", "sim:nope", "--out", bad], env=env,
                           capture_output=True, text=True)
        check(r.returncode != 0, "run-all.sh succeeded with an unknown device")
        check(r.stderr.count("gpuprobe: error:") == 1, f"stderr: {r.stderr!r}")
        check(not os.path.exists(os.path.join(bad, "latency.png")), "plotted a failed run")
        check(not os.path.exists(os.path.join(bad, "report.html")), "reported a failed run")

        # An empty --out names no folder: refused, nothing written (it used to be the caller's
        # folder itself).
        for form in (["--out", ""], ["--out="]):
            empty = os.path.join(tmp, f"empty{len(form)}")
            os.makedirs(empty)
            r = subprocess.run([script, "--device", "sim:v100", "--quick", "--no-plot", "--only", "launch/overhead",
                                *form], env=env, cwd=empty, capture_output=True, text=True)
            check(r.returncode != 0 and r.stderr.count("error:") == 1 and "--out" in r.stderr,
                  f"run-all.sh {form}: rc {r.returncode}: {r.stderr[-400:]!r}")
            check(not os.listdir(empty), f"run-all.sh {form} wrote {os.listdir(empty)}")

        # No Python to draw with: run-all keeps its records and model, names the cause in one
        # line and exits 1; --no-plot asks for no Python at all.
        for extra, want_rc in (([], 1), (["--no-plot"], 0)):
            out = os.path.join(tmp, f"noplot{len(extra)}")
            r = subprocess.run([os.path.join(args.build_dir, "gpuprobe"), "run-all", *extra, "--device",
                                "sim:v100", "--quick", "--only", "launch", "--out", out],
                               env=dict(os.environ, GPUPROBE_PYTHON="/nonexistent/python3"),
                               capture_output=True, text=True)
            check(r.returncode == want_rc, f"run-all {extra} without Python: rc {r.returncode}: {r.stderr}")
            check(os.path.isfile(os.path.join(out, "machine_model.json")),
                  f"run-all {extra} without Python lost its model")
            errors = [line for line in r.stderr.splitlines() if line.startswith("gpuprobe: error:")]
            if want_rc:
                check(len(errors) == 1 and "no Python at '/nonexistent/python3'" in errors[0],
                      f"run-all without Python: {errors}")
            else:
                check(not errors and not os.path.exists(os.path.join(out, "report.md")),
                      f"run-all --no-plot: {errors}")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
