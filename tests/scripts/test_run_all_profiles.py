#!/usr/bin/env python3
"""run-all's profiles on the simulated H100: every ceiling of `--quick` is within 3% of `--full`
(README "run-all profiles"): memory bandwidth per level and the DRAM read/write/copy bandwidth,
every compute op's rate and each precision's compute ceiling, the latency of every cache level and
of shared memory at 3%; the launch fits (costs, not ceilings: intercepts and slopes of fits to
timings, noisier than a plateau) at LAUNCH_TOLERANCE. One run of each profile (--full: about 30 s
on 2 cores).
The models are compared through their flat metrics[] table where both have one (its ceilings and
latencies), else through their roofline, bandwidth, memory and launch sections."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import Checks, test_args  # noqa: E402

TOLERANCE = 0.03
LAUNCH_TOLERANCE = 0.10
check = Checks("run_all_profiles")


def model(gpuprobe, profile, out):
    r = subprocess.run([gpuprobe, "run-all", "--no-plot", "--device", "sim:h100", profile, "--out", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: run-all {profile} exited {r.returncode}: {r.stderr[-2000:]}")
    import json
    with open(os.path.join(out, "machine_model.json"), encoding="utf-8") as f:
        return json.load(f)


def from_metrics(m):
    """id -> value of the ceilings and latencies in metrics[] (schema_version 2)."""
    out = {}
    for metric in m.get("metrics", []):
        mid, value = metric.get("id", ""), metric.get("value")
        wanted = (metric.get("ceiling") or
                  (mid.startswith("memory.") and mid.endswith(".latency_cycles")) or
                  mid.startswith("launch."))
        if wanted and isinstance(value, (int, float)):
            out[mid] = value
    return out


def from_sections(m):
    """id -> value of the same quantities, read from the model's sections."""
    out = {}
    for level in m.get("memory", {}).get("levels", []):
        out[f"memory.{level['name']}.latency_cycles"] = level.get("latency_cycles")
    out["memory.shared.latency_cycles"] = m.get("memory", {}).get("shared", {}).get("latency_cycles")
    roof = m.get("roofline", {})
    for level, v in roof.get("memory", {}).items():
        out[f"bandwidth.{level}.bytes_per_s"] = v.get("bytes_per_s")
    for precision, v in roof.get("compute", {}).items():
        out[f"roofline.{precision}.flops_per_s"] = v.get("flops_per_s")
    for kind, v in m.get("bandwidth", {}).get("DRAM", {}).items():
        if isinstance(v, dict) and "bandwidth_bytes_per_s" in v:
            out[f"bandwidth.DRAM.{kind}_bytes_per_s"] = v["bandwidth_bytes_per_s"]
    for op, v in m.get("compute", {}).get("ops", {}).items():
        for q in ("ops_per_s", "flops_per_s"):
            if isinstance(v, dict) and q in v:
                out[f"compute.{op}.{q}"] = v[q]
    launch = m.get("launch", {})
    for measure, v in launch.get("overhead", {}).items():
        out[f"launch.overhead.{measure}_ns"] = v.get("ns")
    for measure, v in launch.get("graph", {}).items():
        for q in ("ns", "per_graph_ns", "per_node_ns"):
            if q in v:
                out[f"launch.graph.{measure}.{q}"] = v[q]
    for method, v in launch.get("small_kernels", {}).items():
        if isinstance(v, dict):
            for q in ("overhead_ns", "bytes_per_s"):
                if q in v:
                    out[f"launch.small_kernels.{method}.{q}"] = v[q]
    return {k: v for k, v in out.items() if isinstance(v, (int, float))}


def main():
    args = test_args(__doc__.splitlines()[0])
    with tempfile.TemporaryDirectory() as tmp:
        full = model(args.gpuprobe, "--full", os.path.join(tmp, "full"))
        quick = model(args.gpuprobe, "--quick", os.path.join(tmp, "quick"))
    if "metrics" in full and "metrics" in quick:
        want, got, how = from_metrics(full), from_metrics(quick), "metrics[]"
    else:
        want, got, how = from_sections(full), from_sections(quick), "sections"
    check(len(want) >= 40, f"--full's model has only {len(want)} ceilings ({how}): {sorted(want)}")
    for needed in ("memory.L1.latency_cycles", "memory.L2.latency_cycles",
                   "memory.L2-far.latency_cycles", "memory.DRAM.latency_cycles",
                   "bandwidth.DRAM.read_bytes_per_s", "bandwidth.L2.bytes_per_s"):
        check(needed in want, f"--full's model lacks {needed} ({how})")
    for key, full_value in sorted(want.items()):
        if key not in got:
            check(False, f"--quick lacks {key} (--full: {full_value:.6g})")
            continue
        quick_value = got[key]
        scale = max(abs(full_value), 1e-30)
        off = abs(quick_value - full_value) / scale
        bound = TOLERANCE
        # A launch time near zero (PDL overlap) is compared on the largest launch time instead.
        if key.startswith("launch.") and key.endswith("_ns"):
            off = abs(quick_value - full_value) / max(abs(full_value), 1000.0)
            bound = LAUNCH_TOLERANCE
        check(off <= bound, f"{key}: --quick {quick_value:.6g}, --full {full_value:.6g} "
                            f"({100 * off:.1f}% off, at most {100 * bound:.0f}%)")
    print(f"run_all_profiles: compared {len(want)} ceilings through {how}")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
