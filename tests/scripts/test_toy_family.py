#!/usr/bin/env python3
"""A family added by its own folder alone: tests/fixtures/toy_family (one file) linked into
gpuprobe_toy (tests/CMakeLists.txt). run-all plans and runs toy/counter on the simulator (--quick
and --full), the machine model holds its section, its metrics[] rows and its family entry, the
report titles its section, and `gpuprobe list` names the probe. The fixture's folder holds all of
the family: nothing under probes/, harness/, analysis/ or cli/ names it."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import Checks, test_args  # noqa: E402

check = Checks("toy_family")


def main():
    args = test_args(__doc__.splitlines()[0])
    exe = args.gpuprobe
    listing = subprocess.run([exe, "list"], capture_output=True, text=True)
    check(listing.returncode == 0 and "toy/counter" in listing.stdout, "gpuprobe_toy list lacks toy/counter")
    for profile in ("--quick", "--full"):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "run")
            # --quick draws the plots and the report too: the family's report section is its own.
            plots = [] if profile == "--quick" else ["--no-plot"]
            r = subprocess.run([exe, "run-all", *plots, "--device", "sim:h100", profile, "--only", "toy",
                                "--out", out], capture_output=True, text=True)
            check(r.returncode == 0, f"run-all {profile} --only toy failed: {r.stderr[-1500:]}")
            raw = os.path.join(out, "raw", "toy_counter.json")
            if not check(os.path.isfile(raw), f"run-all {profile} wrote no raw/toy_counter.json"):
                continue
            record = json.load(open(raw))
            check(record.get("status") == "ok" and len(record.get("series", [])) == 2,
                  f"toy record: status {record.get('status')}, {len(record.get('series', []))} points")
            expect_iterations = 16 if profile == "--quick" else 64
            check(record.get("params", {}).get("iterations") == str(expect_iterations)
                  or record.get("params", {}).get("iterations") == expect_iterations,
                  f"{profile}: the plan's parameters did not reach the probe: {record.get('params')}")
            model = json.load(open(os.path.join(out, "machine_model.json")))
            ops = model.get("toy", {}).get("ops", {})
            check(abs(ops.get("tick", 0) - 6) < 0.5 and abs(ops.get("tock", 0) - 9) < 0.5,
                  f"the toy section does not give back its table (6, 9 cycles): {ops}")
            ids = {m["id"] for m in model.get("metrics", []) if m.get("family") == "toy"}
            check(ids == {"toy.tick.latency_cycles", "toy.tock.latency_cycles"}, f"toy metrics: {ids}")
            rows = [m for m in model.get("metrics", []) if m.get("family") == "toy"]
            check(all(m.get("checks") == ["sim-closed-loop"] for m in rows), "toy metrics lack their checks")
            check({"name": "toy", "title": "Toy family", "section": "toy"} in model.get("families", []),
                  f"the model's families lack the toy: {model.get('families')}")
            report = os.path.join(out, "report.md")
            if profile == "--quick" and check(os.path.isfile(report), "run-all wrote no report.md"):
                text = open(report, encoding="utf-8").read()
                labels = [m.get("label") or m["id"] for m in rows]
                check("## Toy family" in text and labels and all(f"| {lab} |" in text for lab in labels),
                      f"report.md lacks the toy family's section or its metrics {labels}")
            if profile == "--full":
                check(not os.path.exists(report), "run-all --no-plot wrote a report")
    # Nothing outside the fixture names the family.
    for top in ("probes", "harness", "analysis", "cli"):
        for dirpath, _, files in os.walk(os.path.join(args.source_dir, top)):
            for name in files:
                text = open(os.path.join(dirpath, name), encoding="utf-8", errors="replace").read()
                check("toy/counter" not in text, f"{os.path.join(dirpath, name)} names the toy family")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
