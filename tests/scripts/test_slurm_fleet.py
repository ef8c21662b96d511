#!/usr/bin/env python3
"""Tests scripts/slurm/gpuprobe-fleet.sbatch without SLURM or GPUs: a stand-in srun starts the task
command once per SLURM_LOCALID, and a stand-in gpuprobe turns `run-all --device cuda:K` into a
short simulator run (GPU 2 an injected slow device, sim:h100,slowdown=1.3) so that the script's
own aggregate step must flag exactly that GPU and exit 3; with one visible GPU per task every task
must ask for cuda:0; a missing gpuprobe fails in one line."""
import glob
import json
import os
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import Checks, test_args  # noqa: E402

check = Checks("slurm_fleet")

# srun --ntasks-per-node=N [other options] bash -c SCRIPT: SCRIPT once per local id, in turn.
FAKE_SRUN = """#!/bin/bash
n=1
while [[ $# -gt 0 && "$1" == -* ]]; do
  case "$1" in --ntasks-per-node=*) n=${1#*=} ;; esac
  shift
done
status=0
for ((i = 0; i < n; i++)); do SLURM_LOCALID=$i "$@" || status=$?; done
exit $status
"""

# gpuprobe run-all --device cuda:K ... --out DIR: DRAM read bandwidth of sim:h100 (GPU 2 slowed),
# fitted into DIR/machine_model.json; the device asked for is logged. Everything else: the real one.
FAKE_GPUPROBE = """#!/bin/bash
if [[ "$1" != run-all ]]; then exec "$REAL_GPUPROBE" "$@"; fi
while [[ $# -gt 0 ]]; do
  case "$1" in --device) device=$2; shift ;; --out) out=$2; shift ;; esac
  shift
done
echo "$device" >> "$DEVICE_LOG"
sim=sim:h100; [[ "$device" == cuda:2 ]] && sim=sim:h100,slowdown=1.3
mkdir -p "$out/raw"
"$REAL_GPUPROBE" probe bandwidth/dram --kind read --concurrency off --device "$sim" \\
  --out "$out/raw/bandwidth_dram.json" >/dev/null 2>&1 &&
  "$REAL_GPUPROBE" analyze "$out/raw/bandwidth_dram.json" --out "$out/machine_model.json" >/dev/null
"""


def executable(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def run_batch(script, tmp, name, gpuprobe, extra_env):
    out = os.path.join(tmp, name)
    log = os.path.join(tmp, name + ".devices")
    env = dict(os.environ, PATH=os.path.join(tmp, "bin") + os.pathsep + os.environ["PATH"],
               GPUPROBE=gpuprobe, OUT=out, GPUS_PER_NODE="4", DEVICE_LOG=log, SLURM_JOB_ID="42")
    env.pop("CUDA_VISIBLE_DEVICES", None)
    env.update(extra_env)
    r = subprocess.run(["bash", script], env=env, capture_output=True, text=True, cwd=tmp)
    devices = open(log, encoding="utf-8").read().split() if os.path.exists(log) else []
    return r, out, devices


def main():
    args = test_args(__doc__.splitlines()[0])
    script = os.path.join(os.path.abspath(args.source_dir), "scripts", "slurm", "gpuprobe-fleet.sbatch")
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "bin"))
        executable(os.path.join(tmp, "bin", "srun"), FAKE_SRUN)
        fake = os.path.join(tmp, "gpuprobe")
        executable(fake, FAKE_GPUPROBE)
        os.environ["REAL_GPUPROBE"] = os.path.abspath(args.gpuprobe)

        r, out, devices = run_batch(script, tmp, "fleet", fake, {})
        check(r.returncode == 3, f"exit {r.returncode}, not 3 (outliers): {r.stderr[-1500:]}")
        check(devices == ["cuda:0", "cuda:1", "cuda:2", "cuda:3"], f"devices asked for: {devices}")
        folders = sorted(os.path.basename(os.path.dirname(p))
                         for p in glob.glob(os.path.join(out, "*", "machine_model.json")))
        check(len(folders) == 4 and all(f.endswith(f"-gpu{i}") for i, f in enumerate(folders)),
              f"run folders: {folders}")
        summary = os.path.join(out, "fleet.aggregate.json")
        check(os.path.isfile(summary) and os.path.isfile(os.path.join(out, "fleet.aggregate.md")),
              "no fleet.aggregate.json / .md")
        if os.path.isfile(summary):
            doc = json.load(open(summary, encoding="utf-8"))
            flagged = sorted({os.path.basename(os.path.dirname(o["file"])) for o in doc["outliers"]})
            check(len(flagged) == 1 and flagged[0].endswith("-gpu2"), f"flagged: {flagged}")
        check("outliers flagged" in r.stdout, f"stdout: {r.stdout[-500:]!r}")

        # One GPU visible per task (the site binds them): each task's GPU is cuda:0.
        r, _, devices = run_batch(script, tmp, "bound", fake, {"CUDA_VISIBLE_DEVICES": "3"})
        check(devices == ["cuda:0"] * 4, f"bound devices asked for: {devices}")

        r, _, devices = run_batch(script, tmp, "nobinary", os.path.join(tmp, "missing"), {})
        check(r.returncode == 1 and r.stderr.count("\n") == 1 and "is not an executable" in r.stderr,
              f"missing gpuprobe: exit {r.returncode}, stderr {r.stderr!r}")
        check(devices == [], "ran tasks without a gpuprobe")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
