#!/usr/bin/env python3
"""Tests analysis/plot_compare.py: `gpuprobe compare` of the fixtures of tests/data/compare (one
with a measured latency curve) and two published reference profiles draws the latency and roofline
overlays as PNG and SVG with every input in them; a Python that cannot be started is named in one
line with the table and JSON kept; the script alone on a document of the wrong shape gets one line
and a non-zero exit, never a traceback."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import Checks, test_args  # noqa: E402

check = Checks("plot_compare")


def main():
    args = test_args(__doc__.splitlines()[0])
    script = os.path.join(args.source_dir, "analysis", "plot_compare.py")
    data = os.path.join(args.source_dir, "tests", "data", "compare")
    ref = os.path.join(args.source_dir, "results", "reference")
    env = dict(os.environ, GPUPROBE_PYTHON=sys.executable)
    with tempfile.TemporaryDirectory(prefix="gpuprobe-plot-compare-") as tmp:
        # A measured model with its chase curve: the latency plot draws the curve itself.
        a = json.load(open(os.path.join(data, "a.json")))
        xs = [2.0 ** k for k in range(10, 31)]
        a["memory"] = {"levels_from": "memory/chase cache-op=default",
                       "paths": {"default": {"curve": {"x_name": "footprint_bytes", "x": xs,
                                                       "latency_cycles": [30 if x < 2**18 else 200 if x < 2**25 else 600
                                                                          for x in xs],
                                                       "clock_mhz": 1000.0}}}}
        a_path = os.path.join(tmp, "a.json")
        json.dump(a, open(a_path, "w"))
        inputs = [a_path, os.path.join(data, "b.json"), os.path.join(ref, "h100.json"), os.path.join(ref, "v100.json")]
        prefix = os.path.join(tmp, "cmp")
        r = subprocess.run([args.gpuprobe, "compare", *inputs, "--out", prefix], capture_output=True, text=True,
                           env=env)
        check(r.returncode == 0, f"compare: {r.stderr.strip()}")
        for kind in ("latency", "roofline"):
            for ext in ("png", "svg"):
                path = f"{prefix}.compare-{kind}.{ext}"
                check(os.path.isfile(path) and os.path.getsize(path) > 1000, f"{path} missing or empty")
        if check.failures:
            return 1
        doc = json.load(open(prefix + ".compare.json"))
        check(doc["plots"]["inputs"][0]["curve"] is not None, "the measured curve is not in the JSON")
        check(doc["plots"]["inputs"][2]["roofline"]["memory"].get("DRAM") == 3.18e12,
              f"h100 DRAM ceiling: {doc['plots']['inputs'][2]['roofline']}")
        latency = open(prefix + ".compare-latency.svg", encoding="utf-8").read()
        roofline = open(prefix + ".compare-roofline.svg", encoding="utf-8").read()
        for text in ("A: Test GPU A (measured)", "B: Test GPU B (simulated)", "(published)", "D: Tesla V100"):
            check(text in latency, f"the latency plot has no '{text}'")
            check(text in roofline, f"the roofline plot has no '{text}'")
        # One tensor precision for every input (f16, which all four have), never C's fastest (e4m3).
        for text in ("DRAM 3.18 TB/s, L2 4.86 TB/s", "C tensor f16 989 TFLOP/s", "(measured): DRAM 2.00 TB/s",
                     "D tensor f16 125 TFLOP/s", "D compute fma_rn_f32 15.7 TFLOP/s", "tensor lines: f16"):
            check(text in roofline, f"the roofline plot has no '{text}'")
        check("e4m3" not in roofline, "the roofline overlay draws C's e4m3 line against the others' f16")

        # Models without ceilings (memory only) or without latencies either (launch only): what has
        # nothing to draw is said in one line and not written, never a traceback; exit 0.
        b = json.load(open(os.path.join(data, "b.json")))
        for name, keep in (("memonly", ("memory.",)), ("launchonly", ("sync.", "atomics."))):
            paths = []
            for label, m in (("a", a), ("b", b)):
                doc = dict(m, metrics=[x for x in m["metrics"] if x["id"].startswith(keep)])
                if name == "launchonly":
                    doc.pop("memory", None)  # no measured curve either
                paths.append(os.path.join(tmp, f"{name}-{label}.json"))
                json.dump(doc, open(paths[-1], "w"))
            out = os.path.join(tmp, name)
            r = subprocess.run([args.gpuprobe, "compare", *paths, "--out", out], capture_output=True, text=True,
                               env=env)
            check(r.returncode == 0 and r.stderr == "", f"{name}: rc {r.returncode}, stderr {r.stderr!r}")
            check(f"no plot: {out}.compare-roofline: no input has a bandwidth or compute ceiling to draw\n"
                  in r.stdout, f"{name}: no 'no plot' line for the roofline: {r.stdout[-300:]!r}")
            check(not os.path.exists(out + ".compare-roofline.png"), f"{name}: an empty roofline plot")
            latency = os.path.exists(out + ".compare-latency.png")
            check(latency == (name == "memonly"), f"{name}: latency plot written: {latency}")
            if name == "launchonly":
                check(f"no plot: {out}.compare-latency: no input has a latency to draw\n" in r.stdout,
                      f"{name}: no 'no plot' line for the latency")

        # The Python cannot be started: one line, exit 1, the table and JSON written.
        again = os.path.join(tmp, "again")
        r = subprocess.run([args.gpuprobe, "compare", *inputs[:2], "--out", again], capture_output=True,
                           text=True, env=dict(os.environ, GPUPROBE_PYTHON=os.path.join(tmp, "no-python")))
        check(r.returncode == 1 and r.stderr.count("\n") == 1 and
              r.stderr.startswith("gpuprobe: error: the comparison plots were not drawn: no Python at"),
              f"missing Python: {r.returncode} {r.stderr!r}")
        check(os.path.isfile(again + ".compare.json") and os.path.isfile(again + ".compare.md"),
              "the JSON and Markdown were not kept")

        # The script alone: --out-prefix, and documents of the wrong shape.
        r = subprocess.run([sys.executable, script, prefix + ".compare.json", "--out-prefix",
                            os.path.join(tmp, "alone")], capture_output=True, text=True)
        check(r.returncode == 0 and os.path.isfile(os.path.join(tmp, "alone.compare-roofline.png")),
              f"the script alone with --out-prefix: {r.stderr.strip()}")
        good = json.load(open(prefix + ".compare.json"))
        for name, mutate in (("schema", lambda d: d.update(schema="gpuprobe.roofline")),
                             ("plots", lambda d: d.pop("plots")),
                             ("levels", lambda d: d["plots"]["inputs"][1].update(levels=[{"latency_cycles": "x"}])),
                             ("curve", lambda d: d["plots"]["inputs"][0]["curve"].update(latency_cycles=[1])),
                             ("count", lambda d: d["plots"]["inputs"].pop())):
            bad = json.loads(json.dumps(good))
            mutate(bad)
            path = os.path.join(tmp, f"bad-{name}.compare.json")
            json.dump(bad, open(path, "w"))
            r = subprocess.run([sys.executable, script, path], capture_output=True, text=True)
            check(r.returncode != 0 and r.stderr.count("\n") == 1 and r.stderr.startswith("plot_compare: error: ")
                  and "Traceback" not in r.stderr, f"{name}: not one error line: {r.stderr!r}")
        shutil.rmtree(tmp, ignore_errors=True)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
