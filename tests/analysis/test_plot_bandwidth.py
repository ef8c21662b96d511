#!/usr/bin/env python3
"""Tests analysis/plot_bandwidth.py: the bandwidth probes on the simulated H100, `gpuprobe
analyze`, then the three plots (PNG and SVG), the loaded-latency one with the points
bandwidth/loaded_latency measured (also alone, without any concurrency sweep); a model without bandwidth, or of the wrong shape,
gets one line and a non-zero exit, never a traceback."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import Checks, test_args  # noqa: E402

check = Checks("plot_bandwidth")


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
                              ("bandwidth/shared", ["--strides", "1,2,4"]),
                              ("bandwidth/loaded_latency", ["--hops", "512",
                                                            "--chain-footprint-bytes", "256K"])):
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
        r = subprocess.run([sys.executable, script, model], capture_output=True, text=True)
        check(r.returncode == 0, f"plot: {r.stderr.strip()}")
        for name in ("bandwidth-footprint", "bandwidth-inflight", "loaded-latency"):
            for ext in ("png", "svg"):
                path = os.path.join(tmp, f"model.{name}.{ext}")
                check(os.path.isfile(path) and os.path.getsize(path) > 1000,
                      f"{path} missing or empty")
        svg = open(os.path.join(tmp, "model.bandwidth-footprint.svg"), encoding="utf-8").read()
        check("TB/s" in svg, "the footprint plot labels no level bandwidth")
        svg = open(os.path.join(tmp, "model.loaded-latency.svg"), encoding="utf-8").read()
        check("L2 measured: chase under load" in svg and "L2 fit" in svg,
              "the loaded-latency plot shows no measured points or no fit")

        # The contention probe alone: its loaded-latency plot, and no other.
        alone = os.path.join(tmp, "alone.json")
        r = subprocess.run([args.gpuprobe, "analyze", runs[-1], "--out", alone],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"analyze of bandwidth/loaded_latency alone: {r.stderr.strip()}")
        r = subprocess.run([sys.executable, script, alone], capture_output=True, text=True)
        check(r.returncode == 0, f"plot of bandwidth/loaded_latency alone: {r.stderr.strip()}")
        check(os.path.isfile(os.path.join(tmp, "alone.loaded-latency.png")),
              "no loaded-latency plot from the contention points alone")
        check(not os.path.exists(os.path.join(tmp, "alone.bandwidth-inflight.png")),
              "an in-flight plot without a concurrency sweep")

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
        one_line_failure(variant("ll_points_dict", lambda m: m["bandwidth"]["L2"]["loaded_latency"]
                                 .__setitem__("points", {"a": 1})), "loaded-latency points an object")
        one_line_failure(variant("x_short", lambda m: m["bandwidth"]["L2"]["footprint_sweep"]["x"]
                                 .pop()), "mismatched footprint arrays")
        one_line_failure(variant("bw_string", lambda m: m["bandwidth"]["L1"]["concurrency"]
                                 ["points"][0].__setitem__("bandwidth_bytes_per_s", "fast")),
                         "bandwidth a string")
        r = subprocess.run([sys.executable, script, runs[0]], capture_output=True, text=True)
        one_line_failure(r, "a run record instead of a model")

        # Curves imported with analyze --import-csv (bandwidth.imported, the same shapes): the
        # footprint plot, and the in-flight plot; without an SM count no latency plot.
        imported = [("footprint_bytes", [(1024 * 2 ** (i / 2), 2e13 if i < 16 else 6e12 if i < 30 else 2e12)
                                         for i in range(40)], "footprint"),
                    ("bytes_in_flight_per_sm", [(256 * 2 ** (i / 2), min(3e12, 256 * 2 ** (i / 2) * 1e8))
                                                for i in range(24)], "inflight")]
        for x_name, rows, name in imported:
            csv = os.path.join(tmp, f"{name}.csv")
            with open(csv, "w") as f:
                f.write(f"{x_name},bandwidth_bytes_per_s\n")
                f.writelines(f"{x!r},{y!r}\n" for x, y in rows)
            model = os.path.join(tmp, f"imported-{name}.json")
            r = subprocess.run([args.gpuprobe, "analyze", "--import-csv", csv, "--out", model],
                               capture_output=True, text=True)
            check(r.returncode == 0, f"analyze --import-csv {name}: {r.stderr.strip()}")
            r = subprocess.run([sys.executable, script, model], capture_output=True, text=True)
            check(r.returncode == 0, f"plot of the imported {name} sweep: {r.stderr.strip()}")
            drawn = "bandwidth-footprint" if name == "footprint" else "bandwidth-inflight"
            check(os.path.isfile(os.path.join(tmp, f"imported-{name}.{drawn}.png")),
                  f"no {drawn} plot of the imported {name} sweep")
            check(not os.path.exists(os.path.join(tmp, f"imported-{name}.loaded-latency.png")),
                  f"a loaded-latency plot of the imported {name} sweep without an SM count")
        r = subprocess.run([sys.executable, script, model, "--out-prefix",
                            os.path.join(tmp, "missing", "x")], capture_output=True, text=True)
        one_line_failure(r, "an output folder that does not exist")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
