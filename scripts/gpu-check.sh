#!/usr/bin/env bash
# Replaced by scripts/first-run.sh (README.md, "First run on a GPU"); kept so that the commands in
# results/*/PROVENANCE.md still run. Its old arguments and variables map onto first-run's:
#   scripts/gpu-check.sh BUILD_DIR OUT_DIR [RUN_ALL_SECONDS] [SMOKE_SECONDS] [MAP_SECONDS]
# RUN_ALL_SECONDS -> FIRSTRUN_RUN_ALL_CAP, SMOKE_SECONDS -> FIRSTRUN_SMOKE_CAP (each family's cap),
# GPUCHECK_FAMILIES -> FIRSTRUN_FAMILIES, GPUCHECK_RUN_ALL_ARGS -> FIRSTRUN_RUN_ALL_ARGS (run-all
# is always --quick now), GPUCHECK_SANITIZE_MAX -> FIRSTRUN_SANITIZE_MAX, SANITIZE_SECONDS ->
# FIRSTRUN_SANITIZE_CAP. MAP_SECONDS is ignored: the per-SM L2 map is no longer part of the run
# (`gpuprobe probe memory/chase --sm all --sampled-hops 0 --device cuda --out sm_map.json`).
set -uo pipefail
[ $# -ge 2 ] || { echo "gpu-check: error: usage: gpu-check.sh BUILD_DIR OUT_DIR (now scripts/first-run.sh)" >&2; exit 2; }
[ -n "${3:-}" ] && export FIRSTRUN_RUN_ALL_CAP="$3"
[ -n "${4:-}" ] && export FIRSTRUN_SMOKE_CAP="$4"
[ -n "${GPUCHECK_FAMILIES:-}" ] && export FIRSTRUN_FAMILIES="$GPUCHECK_FAMILIES"
[ -n "${GPUCHECK_SANITIZE_MAX:-}" ] && export FIRSTRUN_SANITIZE_MAX="$GPUCHECK_SANITIZE_MAX"
[ -n "${SANITIZE_SECONDS:-}" ] && export FIRSTRUN_SANITIZE_CAP="$SANITIZE_SECONDS"
if [ -n "${GPUCHECK_RUN_ALL_ARGS:-}" ]; then
  args=" $GPUCHECK_RUN_ALL_ARGS "
  args="${args// --quick / }"
  export FIRSTRUN_RUN_ALL_ARGS="${args// --full / }"
fi
exec "$(dirname "$0")/first-run.sh" "$1" "$2"
