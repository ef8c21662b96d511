#!/usr/bin/env python3
"""ctest fixture gpuprobe_sim_run_all (tests/CMakeLists.txt): one simulated run-all output folder,
BUILD/fixtures/sim-run-all, made once per ctest run for the tests that read gpuprobe's outputs
(FIXTURES_REQUIRED gpuprobe_sim_run_all). It holds what `run-all --device sim:h100 --quick` writes
for a cheap subset with every family (raw/*.json, machine_model.json with its goodput section;
tensor/tcgen05 is a skipped record on the H100; memory/chase is left out) and `roofline
--no-plot` of that model with command-line and Nsight Compute kernels
(machine_model.roofline.json). Takes about ten seconds."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import test_args  # noqa: E402

# Cheap on the simulator (one to three seconds each on the shared 2-core machine); memory/chase
# takes over ten there, so the subset leaves it out (the model has no latency hierarchy).
ONLY = ["memory/chase_shared", "memory/tlb", "bandwidth/l1", "bandwidth/l2", "bandwidth/dram",
        "compute/alu", "tensor/mma", "tensor/tcgen05", "sync/primitives", "atomics", "async",
        "launch", "goodput"]


def fixture_dir(build_dir):
    return os.path.join(os.path.abspath(build_dir), "fixtures", "sim-run-all")


def main():
    args = test_args(__doc__.splitlines()[0])
    out = fixture_dir(args.build_dir)
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    steps = [
        [args.gpuprobe, "run-all", "--no-plot", "--device", "sim:h100", "--quick", "--only", ",".join(ONLY),
         "--out", out],
        [args.gpuprobe, "roofline", "--model", os.path.join(out, "machine_model.json"),
         "--no-plot", "--kernel", "triad:flops=2e9,time_s=1e-3,bytes_hbm=2.4e10",
         "--kernel", "gemm:flops=1e13,time_s=0.02,bytes_hbm=1e9,precision=bf16",
         "--ncu-csv", os.path.join(args.source_dir, "tests", "data", "ncu", "roofline_raw.csv")],
    ]
    for cmd in steps:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL: {' '.join(cmd[1:3])} exited {r.returncode}: {r.stderr[-2000:]}")
            return 1
    print(f"sim_run_all_fixture: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
