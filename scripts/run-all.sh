#!/usr/bin/env bash
# The main job: set up, build, run every probe on the first GPU (or, when there is none, on the
# simulated H100, with a banner saying so), fit the machine model, plot it and write its report.
#   scripts/run-all.sh [--out DIR] [--device SPEC]      outputs under results/ by default
# Options take "--name value" or "--name=value"; a relative --out is relative to the folder the
# script is called from. GPUPROBE_BUILD_DIR (default build) and GPUPROBE_SKIP_SETUP=1 let a test
# run it against the build under test without setting up again.
set -euo pipefail
caller_dir=$(pwd)
cd "$(dirname "$0")/.."
build_dir="${GPUPROBE_BUILD_DIR:-build}"

# The script works from the source folder, so a relative --out is made absolute first.
absolute() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$caller_dir" "$1" ;; esac; }
args=()
has_device=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || { echo "run-all.sh: error: --out needs a folder" >&2; exit 2; }
           args+=(--out "$(absolute "$2")"); shift 2; continue ;;
    --out=*) args+=(--out "$(absolute "${1#--out=}")") ;;
    --device|--device=*) has_device=1; args+=("$1") ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ $has_device -eq 0 ] && args+=(--device auto)
[ "${GPUPROBE_SKIP_SETUP:-0}" = 1 ] || scripts/setup.sh "$build_dir"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
"$build_dir/gpuprobe" run-all "${args[@]}" | tee "$log"
status=${PIPESTATUS[0]}
set -e
model=$(sed -n 's/^wrote \(.*machine_model\.json\)$/\1/p' "$log" | tail -n 1)
if [ -n "$model" ]; then
  .venv/bin/python analysis/plot_latency.py "$model" --out-prefix "$(dirname "$model")/latency"
  # Bandwidth plots next to the model (machine_model.bandwidth-footprint.png, ...).
  .venv/bin/python analysis/plot_bandwidth.py "$model"
  # The hierarchical roofline of the model: machine_model.roofline.json, .png and .svg.
  GPUPROBE_PYTHON=.venv/bin/python "$build_dir/gpuprobe" roofline --model "$model"
  # The report next to the model: report.md (its plots report-*.png) and report.html, one
  # self-contained page; reads machine_model.roofline.json and results/reference/.
  .venv/bin/python analysis/report.py "$model"
fi
exit "$status"
