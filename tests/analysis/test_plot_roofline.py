#!/usr/bin/env python3
"""Tests analysis/plot_roofline.py: compute/alu and the bandwidth probes on the simulated H100,
`gpuprobe analyze`, then `gpuprobe roofline` with kernels, which runs the script: PNG and SVG
with every ceiling, ridge point and kernel; the script alone on a roofline file of the wrong
shape gets one line and a non-zero exit, never a traceback."""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import Checks, test_args  # noqa: E402

check = Checks("plot_roofline")


def one_line_failure(r, what):
    check(r.returncode != 0, f"{what}: did not fail")
    check(r.stderr.count("\n") == 1 and r.stderr.startswith("plot_roofline: error: ")
          and "Traceback" not in r.stderr, f"{what}: not one error line: {r.stderr!r}")


def main():
    args = test_args(__doc__.splitlines()[0])
    script = os.path.join(args.source_dir, "analysis", "plot_roofline.py")
    env = dict(os.environ, GPUPROBE_PYTHON=sys.executable)
    with tempfile.TemporaryDirectory(prefix="gpuprobe-plot-roofline-") as tmp:
        runs = []
        for probe, params in (("compute/alu", ["--iterations", "64"]),
                              ("bandwidth/l2", ["--max-footprint-bytes", "128M"]),
                              ("bandwidth/dram", ["--kind", "read"]),
                              ("bandwidth/shared", ["--strides", "1"])):
            out = os.path.join(tmp, probe.replace("/", "_") + ".json")
            r = subprocess.run([args.gpuprobe, "probe", probe, "--device", "sim:h100", "--out",
                                out, *params], capture_output=True, text=True)
            check(r.returncode == 0, f"{probe}: {r.stderr.strip()[-300:]}")
            runs.append(out)
        model = os.path.join(tmp, "model.json")
        r = subprocess.run([args.gpuprobe, "analyze", *runs, "--out", model], capture_output=True,
                           text=True)
        check(r.returncode == 0, f"analyze: {r.stderr.strip()[-300:]}")
        if check.failures:
            return 1
        r = subprocess.run([args.gpuprobe, "roofline", "--model", model,
                            "--kernel", "triad:flops=1e9,bytes_hbm=2.4e10,time_s=0.0125",
                            "--kernel", "sgemm:flops=4e12,bytes_hbm=2e9,bytes_l2=2e10,time_s=0.1",
                            "--kernel", "dgemm:flops=1e12,bytes_hbm=1e9,time_s=0.1,precision=f64"],
                           capture_output=True, text=True, env=env)
        check(r.returncode == 0, f"roofline: {r.stderr.strip()}")
        for ext in ("png", "svg"):
            path = os.path.join(tmp, f"model.roofline.{ext}")
            check(os.path.isfile(path) and os.path.getsize(path) > 1000, f"{path} missing or empty")
        if check.failures:
            return 1
        svg = open(os.path.join(tmp, "model.roofline.svg"), encoding="utf-8").read()
        # The DRAM ceiling is the read probe's measured top (docs/ANALYSIS.md), printed to 3 digits.
        dram_tb_s = json.load(open(os.path.join(tmp, "model.roofline.json")))["roofline"]["memory"]["DRAM"]["bytes_per_s"] / 1e12
        for text in ("triad [f32]", "sgemm [f32]", "dgemm [f64]", "(DRAM)", "f32 fma", "f64 fma",
                     f"DRAM {dram_tb_s:.2f} TB/s", "L2 7.", "shared 2"):
            check(text in svg, f"the plot has no '{text}'")
        check(not re.search(r"L1 \d", svg), "an L1 ceiling drawn although bandwidth/l1 did not run")

        roof = os.path.join(tmp, "model.roofline.json")
        good = json.load(open(roof))
        r = subprocess.run([sys.executable, script, roof, "--out-prefix", os.path.join(tmp, "again")],
                           capture_output=True, text=True)
        check(r.returncode == 0 and os.path.isfile(os.path.join(tmp, "again.png")),
              f"the script alone with --out-prefix: {r.stderr.strip()}")

        # Many kernels (an ncu export of a training step): the 12 with the most time are labelled,
        # the rest drawn in grey and counted, never a block of overlapping labels.
        many = json.loads(json.dumps(good))
        sgemm = next(k for k in good["kernels"] if k["name"] == "sgemm")
        many["kernels"] = [dict(sgemm, name=f"kern{i:02d}", time_s=float(i + 1),
                                achieved_flops_per_s=sgemm["achieved_flops_per_s"] * (1 + i / 10))
                           for i in range(40)]
        json.dump(many, open(os.path.join(tmp, "many.roofline.json"), "w"))
        r = subprocess.run([sys.executable, script, os.path.join(tmp, "many.roofline.json")], capture_output=True,
                           text=True)
        check(r.returncode == 0, f"40 kernels: {r.stderr.strip()}")
        if r.returncode == 0:
            svg = open(os.path.join(tmp, "many.roofline.svg"), encoding="utf-8").read()
            labels = sorted(set(re.findall(r"kern(\d\d) \[f32\]", svg)))
            check(len(labels) <= 12 and labels[-1] == "39", f"labelled kernels: {labels}")
            check("kern00 [f32]" not in svg, "the kernel with the least time is labelled")
            check("28 more kernels in grey, unlabelled" in svg, "the unlabelled kernels are not counted")

        # An integer precision's ceiling is labelled (int) in OP/s, never FLOP/s.
        ints = json.loads(json.dumps(good))
        ints["roofline"]["compute"]["s8"] = {
            "flops_per_s": 1.0e15, "unit": "op/s", "path": "mma.sync", "op": "mma_m16n8k32_s8_s32",
            "paths": {"mma.sync": {"op": "mma_m16n8k32_s8_s32", "flops_per_s": 1.0e15}}}
        json.dump(ints, open(os.path.join(tmp, "ints.roofline.json"), "w"))
        r = subprocess.run([sys.executable, script, os.path.join(tmp, "ints.roofline.json")], capture_output=True,
                           text=True)
        check(r.returncode == 0, f"an s8 ceiling: {r.stderr.strip()}")
        if r.returncode == 0:
            svg = open(os.path.join(tmp, "ints.roofline.svg"), encoding="utf-8").read()
            check("s8 (int) mma.sync 1.00 POP/s" in svg, "the s8 ceiling is not labelled in OP/s (int)")
            check("1.00 PFLOP/s" not in svg, "an integer ceiling labelled in FLOP/s")
            check("OP/s for the dotted integer ceilings" in svg, "the axis does not say OP/s for integers")

        def variant(name, mutate):
            m = json.loads(json.dumps(good))
            mutate(m)
            path = os.path.join(tmp, name + ".json")
            json.dump(m, open(path, "w"))
            return subprocess.run([sys.executable, script, path], capture_output=True, text=True)

        one_line_failure(variant("no_ceilings", lambda m: m["roofline"].update(memory={}, compute={})),
                         "no ceiling at all")
        one_line_failure(variant("bw_string", lambda m: m["roofline"]["memory"]["DRAM"]
                                 .__setitem__("bytes_per_s", "fast")), "bandwidth a string")
        one_line_failure(variant("kernels_object", lambda m: m.__setitem__("kernels", {"a": 1})),
                         "kernels an object")
        one_line_failure(variant("schema", lambda m: m.__setitem__("schema", "gpuprobe.machine_model")),
                         "another schema")
        one_line_failure(subprocess.run([sys.executable, script, os.path.join(tmp, "absent.json")],
                                        capture_output=True, text=True), "a missing file")
        one_line_failure(subprocess.run([sys.executable, script, roof, "--out-prefix",
                                         os.path.join(tmp, "missing", "x")],
                                        capture_output=True, text=True),
                         "an output folder that does not exist")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
