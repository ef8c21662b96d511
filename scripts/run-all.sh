#!/usr/bin/env bash
# The main job: set up, build, then `gpuprobe run-all`, which runs every probe on the first GPU (or,
# when there is none, on the simulated H100, with a banner saying so), fits the machine model,
# plots it and writes its roofline and report.
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
    --out) if [ $# -lt 2 ] || [ -z "$2" ]; then echo "run-all.sh: error: --out needs a folder" >&2; exit 2; fi
           args+=(--out "$(absolute "$2")"); shift 2; continue ;;
    --out=*) [ -n "${1#--out=}" ] || { echo "run-all.sh: error: --out needs a folder" >&2; exit 2; }
             args+=(--out "$(absolute "${1#--out=}")") ;;
    --device|--device=*) has_device=1; args+=("$1") ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ $has_device -eq 0 ] && args+=(--device auto)
[ "${GPUPROBE_SKIP_SETUP:-0}" = 1 ] || scripts/setup.sh "$build_dir"

exec "$build_dir/gpuprobe" run-all "${args[@]}"
