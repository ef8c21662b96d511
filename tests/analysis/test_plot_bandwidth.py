#!/usr/bin/env python3
"""Tests analysis/plot_bandwidth.py: the bandwidth probes on the simulated H100, `gpuprobe
analyze`, then the three plots (PNG and SVG); a model without bandwidth, or of the wrong shape,
gets one line and a non-zero exit, never a traceback."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import test_args  # noqa: E402

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print(f"FAIL: {message}")


def one_line_failure(r, what):
    check(r.returncode != 0, f"{what}: did not fail")
    check(r.stderr.count("\n") == 1 and r.stderr.startswith("plot_bandwidth: error: ")
          and "Traceback" not in r.stderr, f"{what}: not one error line: {r.stderr!r}")


def main():
    args = test_args(__doc__.splitlines()[0])
    script = os.path.join(args.source_dir, "analysis", "plot_bandwidth.py")
    with tempfile.TemporaryDirectory(prefix="gpuprobe-plot-bw-") as tmp:
        runs = []
        for probe, params in (("bandwidth/l1", ["--max-window-bytes", "512K"]),
                              ("bandwidth/l2", ["--max-footprint-bytes", "128M"]),
                              ("bandwidth/dram", ["--kind", "read"]),
                              ("bandwidth/shared", ["--strides", "1,2,4"])):
            out = os.path.join(tmp, probe.replace("/", "_") + ".json")
            r = subprocess.run([args.gpuprobe, "probe", probe, "--device", "sim:h100", "--out",
                                out, *params], capture_output=True, text=True)
            check(r.returncode == 0, f"{probe}: {r.stderr.strip()[-300:]}")
            runs.append(out)
        model = os.path.join(tmp, "model.json")
        r = subprocess.run([args.gpuprobe, "analyze", *runs, "--out", model], capture_output=True,
                           text=True)
        check(r.returncode == 0, f"analyze: {r.stderr.strip()[-300:]}")
        if failures:
            return 1
        r = subprocess.run([sys.executable, script, model], capture_output=True, text=True)
        check(r.returncode == 0, f"plot: {r.stderr.strip()}")
        for name in ("bandwidth-footprint", "bandwidth-inflight", "loaded-latency"):
            for ext in ("png", "svg"):
                path = os.path.join(tmp, f"model.{name}.{ext}")
                check(os.path.isfile(path) and os.path.getsize(path) > 1000,
                      f"{path} missing or empty")
        svg = open(os.path.join(tmp, "model.bandwidth-footprint.svg"), encoding="utf-8").read()
        check("TB/s" in svg, "the footprint plot labels no level bandwidth")

        good = json.load(open(model))

        def variant(name, mutate):
            m = json.loads(json.dumps(good))
            mutate(m)
            path = os.path.join(tmp, name + ".json")
            json.dump(m, open(path, "w"))
            return subprocess.run([sys.executable, script, path], capture_output=True, text=True)

        one_line_failure(variant("no_bandwidth", lambda m: m.pop("bandwidth")), "no bandwidth")
        one_line_failure(variant("points_dict", lambda m: m["bandwidth"]["L1"]["concurrency"]
                                 .__setitem__("points", {"a": 1})), "points an object")
        one_line_failure(variant("x_short", lambda m: m["bandwidth"]["L2"]["footprint_sweep"]["x"]
                                 .pop()), "mismatched footprint arrays")
        one_line_failure(variant("bw_string", lambda m: m["bandwidth"]["L1"]["concurrency"]
                                 ["points"][0].__setitem__("bandwidth_bytes_per_s", "fast")),
                         "bandwidth a string")
        r = subprocess.run([sys.executable, script, runs[0]], capture_output=True, text=True)
        one_line_failure(r, "a run record instead of a model")
        r = subprocess.run([sys.executable, script, model, "--out-prefix",
                            os.path.join(tmp, "missing", "x")], capture_output=True, text=True)
        one_line_failure(r, "an output folder that does not exist")
    print(f"plot_bandwidth: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
