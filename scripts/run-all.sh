#!/usr/bin/env bash
# The main job: set up, build, run every probe on the first GPU (or, when there is none, on the
# simulated H100, with a banner saying so), fit the machine model and plot it.
#   scripts/run-all.sh [--out DIR] [--device SPEC]      outputs under results/ by default
# GPUPROBE_BUILD_DIR (default build) and GPUPROBE_SKIP_SETUP=1 let a test run it against the
# build under test without setting up again.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${GPUPROBE_BUILD_DIR:-build}"
[ "${GPUPROBE_SKIP_SETUP:-0}" = 1 ] || scripts/setup.sh "$build_dir"

args=("$@")
has_device=0
for a in "${args[@]}"; do [ "$a" = "--device" ] && has_device=1; done
[ $has_device -eq 0 ] && args+=(--device auto)

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
"$build_dir/gpuprobe" run-all "${args[@]}" | tee "$log"
status=${PIPESTATUS[0]}
set -e
model=$(sed -n 's/^wrote \(.*machine_model\.json\)$/\1/p' "$log" | tail -n 1)
if [ -n "$model" ]; then
  .venv/bin/python analysis/plot_latency.py "$model"
fi
exit "$status"
