#!/usr/bin/env bash
# The main job: set up, build, run every probe on the first GPU (or, when there is none, on the
# simulated H100, with a banner saying so), fit the machine model and plot it.
#   scripts/run-all.sh [--out DIR] [--device SPEC]      outputs under results/ by default
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build

args=("$@")
has_device=0
for a in "${args[@]}"; do [ "$a" = "--device" ] && has_device=1; done
[ $has_device -eq 0 ] && args+=(--device auto)

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
build/gpuprobe run-all "${args[@]}" | tee "$log"
status=${PIPESTATUS[0]}
set -e
model=$(sed -n 's/^wrote \(.*machine_model\.json\)$/\1/p' "$log" | tail -n 1)
if [ -n "$model" ]; then
  .venv/bin/python analysis/plot_latency.py "$model"
fi
exit "$status"
