#!/usr/bin/env python3
"""Tests analysis/plot_latency.py: a model from `gpuprobe analyze` becomes a PNG and an SVG with
the fitted levels labelled; bad input gets one line and a non-zero exit."""
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


def main():
    args = test_args(__doc__.splitlines()[0])
    script = os.path.join(args.source_dir, "analysis", "plot_latency.py")
    real = os.path.join(args.source_dir, "tests", "data", "real", "gpu-benches", "gpu-latency",
                        "a100_40.txt")

    with tempfile.TemporaryDirectory() as tmp:
        # An A100 curve from the real data, turned into the documented CSV format.
        csv = os.path.join(tmp, "a100.csv")
        with open(real, encoding="utf-8") as src, open(csv, "w", encoding="utf-8") as dst:
            dst.write("footprint_bytes,latency_cycles\n")
            for line in src.readlines()[1:]:
                cols = line.split()
                if len(cols) >= 5:
                    dst.write(f"{int(cols[2]) * 1024},{cols[4]}\n")
        model = os.path.join(tmp, "model.json")
        r = subprocess.run([args.gpuprobe, "analyze", "--import-csv", csv, "--clock-mhz", "1410",
                            "--out", model], capture_output=True, text=True)
        check(r.returncode == 0, f"gpuprobe analyze failed: {r.stderr.strip()}")
        levels = [l["name"] for l in json.load(open(model))["memory"]["levels"]]
        check(levels == ["L1", "L2", "L2-far", "DRAM"], f"levels {levels}")

        r = subprocess.run([sys.executable, script, model], capture_output=True, text=True)
        check(r.returncode == 0, f"plot failed: {r.stderr.strip()}")
        png = os.path.join(tmp, "latency.png")
        svg = os.path.join(tmp, "latency.svg")
        check(os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n",
              "latency.png is not a PNG")
        check(os.path.getsize(png) > 20000 if os.path.exists(png) else False, "PNG is nearly empty")
        text = open(svg, encoding="utf-8").read() if os.path.exists(svg) else ""
        for name in levels:
            check(f"{name}: " in text, f"SVG does not label level {name}")
        check("far L2 detected" in text, "SVG title does not report the far L2")
        check(not any(f.startswith("latency.") and ".tmp-" in f for f in os.listdir(tmp)),
              "temporary plot files left behind")

        # A simulated model says so in the title.
        m = json.load(open(model))
        m["simulated"] = True
        sim_model = os.path.join(tmp, "sim.json")
        json.dump(m, open(sim_model, "w"))
        r = subprocess.run([sys.executable, script, sim_model, "--out-prefix",
                            os.path.join(tmp, "sim")], capture_output=True, text=True)
        check(r.returncode == 0 and "SIMULATED" in open(os.path.join(tmp, "sim.svg")).read(),
              "a simulated model's plot does not say SIMULATED")

        # Bad input: one line, non-zero exit, no traceback.
        bad = os.path.join(tmp, "bad.json")
        open(bad, "w").write("{\"schema\": \"something else\"}")
        for path in (bad, os.path.join(tmp, "missing.json")):
            r = subprocess.run([sys.executable, script, path], capture_output=True, text=True)
            check(r.returncode != 0, f"plot of {path} did not fail")
            check(r.stderr.count("\n") == 1 and "Traceback" not in r.stderr,
                  f"plot of {path} did not fail with one line: {r.stderr!r}")

    print(f"plot: {0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
