#!/usr/bin/env bash
# The first thing to run on a machine with a real GPU: the GPU smoke tests (every kernel for real,
# with its self-checks), then run-all, then the per-SM L2 map, with the driver's view of the GPU
# before and after.
#   scripts/gpu-check.sh BUILD_DIR OUT_DIR [RUN_ALL_SECONDS] [SMOKE_SECONDS] [MAP_SECONDS]
# Everything lands in OUT_DIR: nvidia-smi-before.txt, smoke.log, run-all.log, run/ (run-all's
# results), sm_map.json, nvidia-smi-after.txt. A probe cut off by a time bound keeps the points it
# measured (run records are rewritten after every point).
set -uo pipefail
build="${1:?build dir}"; out="${2:?output dir}"
budget="${3:-420}"; smoke_budget="${4:-200}"; map_budget="${5:-150}"
mkdir -p "$out"
nvidia-smi -q > "$out/nvidia-smi-before.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active,mig.mode.current,compute_mode --format=csv > "$out/nvidia-smi-summary.csv" 2>&1
echo "== gpu-smoke"
timeout "$smoke_budget" "$build/tests/gpuprobe_tests" "[gpu-smoke]" --durations yes 2>&1 | tee "$out/smoke.log"
echo "smoke exit: ${PIPESTATUS[0]}"
echo "== run-all (bounded to ${budget}s)"
timeout "$budget" "$build/gpuprobe" run-all --device cuda --out "$out/run" \
  --max-seconds-per-point 0.25 2>&1 | tee "$out/run-all.log"
echo "run-all exit: ${PIPESTATUS[0]}"
echo "== per-SM L2 map (bounded to ${map_budget}s)"
timeout "$map_budget" "$build/gpuprobe" probe memory/chase --sm all --sampled-hops 0 \
  --device cuda --out "$out/sm_map.json" --max-seconds-per-point 0.2 2>&1 | tail -n 5
echo "map exit: ${PIPESTATUS[0]}"
nvidia-smi -q > "$out/nvidia-smi-after.txt" 2>&1
ls -la "$out" "$out/run" "$out/run/raw" 2>/dev/null
