#!/usr/bin/env python3
"""Tests analysis/plot_latency.py: a model from `gpuprobe analyze` becomes a PNG and an SVG with
the fitted levels labelled; bad input gets one line and a non-zero exit."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import Checks, test_args  # noqa: E402

check = Checks("plot")


def one_line_failure(r, what):
    check(r.returncode != 0, f"{what}: did not fail")
    check(r.stderr.count("\n") == 1 and r.stderr.startswith("plot_latency: error: ")
          and "Traceback" not in r.stderr, f"{what}: not one error line: {r.stderr!r}")


def check_robustness(script, good_model, tmp):
    """Malformed models, null latencies and bad output folders give one line, never a
    traceback; two models in one folder get plots of their own."""
    good = json.load(open(good_model))

    def plot_variant(name, mutate, *extra):
        m = json.loads(json.dumps(good))
        mutate(m)
        path = os.path.join(tmp, name + ".json")
        json.dump(m, open(path, "w"))
        return subprocess.run([sys.executable, script, path, *extra], capture_output=True,
                              text=True)

    def set_path(m, keys, value):
        for k in keys[:-1]:
            m = m[k]
        m[keys[-1]] = value

    shapes = {
        "memory_list": (["memory"], []),
        "paths_list": (["memory", "paths"], [1, 2]),
        "curve_string": (["memory", "paths", "imported", "curve"], "x"),
        "x_missing": (["memory", "paths", "imported", "curve", "x"], None),
        "x_strings": (["memory", "paths", "imported", "curve", "x"], ["a"] * 3),
        "levels_dict": (["memory", "levels"], {"L1": 1}),
        "level_list": (["memory", "levels", 0], [1, 2]),
        "plateau_short": (["memory", "levels", 0, "plateau_bytes"], [1024]),
        "level_cycles_null": (["memory", "levels", 1, "latency_cycles"], None),
        "capacity_string": (["memory", "levels", 0, "capacity_bytes"], "96K"),
    }
    for name, (keys, value) in shapes.items():
        r = plot_variant(name, lambda m, k=keys, v=value: set_path(m, k, v))
        one_line_failure(r, f"model with {name}")

    r = plot_variant("mismatched", lambda m: m["memory"]["paths"]["imported"]["curve"]["x"].pop())
    one_line_failure(r, "mismatched x and latency_cycles")
    check("99 x values but 100 latencies" in r.stderr, f"mismatch not named: {r.stderr!r}")

    # No clock: latency_ns null (issue 6) plots cycles only; a null point is a gap in the curve.
    def no_clock(m):
        for level in m["memory"]["levels"]:
            level["latency_ns"] = None
        m["memory"]["paths"]["imported"]["curve"]["latency_cycles"][3] = None
    r = plot_variant("noclock", no_clock)
    check(r.returncode == 0, f"null latency_ns: {r.stderr!r}")
    svg = os.path.join(tmp, "noclock.latency.svg")
    text = open(svg, encoding="utf-8").read() if os.path.exists(svg) else ""
    check("L1: " in text and " ns)" not in text, "null latency_ns: levels not plotted in cycles only")

    # An output folder that does not exist.
    r = plot_variant("nofolder", lambda m: None, "--out-prefix",
                     os.path.join(tmp, "no", "such", "folder", "plot"))
    one_line_failure(r, "missing output folder")
    check("does not exist" in r.stderr, f"missing folder not named: {r.stderr!r}")

    # Two models in one folder: each gets its own plot, named after the model.
    shared = os.path.join(tmp, "two")
    os.mkdir(shared)
    for name in ("a", "b"):
        path = os.path.join(shared, name + ".json")
        m = json.loads(json.dumps(good))
        m["device"]["name"] = "device " + name
        json.dump(m, open(path, "w"))
        r = subprocess.run([sys.executable, script, path], capture_output=True, text=True)
        check(r.returncode == 0, f"plot of {name}.json failed: {r.stderr!r}")
    for name in ("a", "b"):
        svg = os.path.join(shared, name + ".latency.svg")
        text = open(svg, encoding="utf-8").read() if os.path.exists(svg) else ""
        check("device " + name in text, f"{name}.latency.svg is missing or shows another model")


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
        levels = [lv["name"] for lv in json.load(open(model))["memory"]["levels"]]
        check(levels == ["L1", "L2", "L2-far", "DRAM"], f"levels {levels}")

        r = subprocess.run([sys.executable, script, model], capture_output=True, text=True)
        check(r.returncode == 0, f"plot failed: {r.stderr.strip()}")
        png = os.path.join(tmp, "model.latency.png")  # named after the model
        svg = os.path.join(tmp, "model.latency.svg")
        check(os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n",
              "model.latency.png is not a PNG")
        check(os.path.getsize(png) > 20000 if os.path.exists(png) else False, "PNG is nearly empty")
        text = open(svg, encoding="utf-8").read() if os.path.exists(svg) else ""
        for name in levels:
            check(f"{name}: " in text, f"SVG does not label level {name}")
        check("far L2 detected" in text, "SVG title does not report the far L2")
        check(not any(".latency." in f and ".tmp-" in f for f in os.listdir(tmp)),
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

        check_robustness(script, model, tmp)

    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
