#!/usr/bin/env bash
# The first thing to run on a machine with a real GPU: each family's GPU smoke test (every kernel
# for real, with its self-checks) under its own time cap and log, then run-all, then the per-SM L2
# map, with the driver's view of the GPU before and after and its clocks, power and throttle
# reasons sampled every second throughout.
#   scripts/gpu-check.sh BUILD_DIR OUT_DIR [RUN_ALL_SECONDS] [SMOKE_SECONDS] [MAP_SECONDS]
# SMOKE_SECONDS caps each family's smoke test, not all of them together. GPUCHECK_RUN_ALL_ARGS adds
# options to run-all (for example --quick when the window is short). A family whose smoke test
# fails is run again under compute-sanitizer (memcheck, SANITIZE_SECONDS each, default 40) for the
# first GPUCHECK_SANITIZE_MAX (default 2) such families, so a bad access is named in the same run
# (exit code 4, Catch2's "every test skipped", and 124, a time cap, are not such failures).
# GPUCHECK_FAMILIES (for example "memory atomics") limits the smoke tests to those families, for a
# targeted second run. A probe cut off by a time
# bound keeps the points it measured (run records are rewritten after every point).
# Everything lands in OUT_DIR:
#   env.txt                 identity: nvidia-smi summary, driver, kernel, CUDA_* variables, ldd,
#                           the binaries' sha256, the cuBLAS that dlopen will find, GIT_COMMIT
#   nvidia-smi-{before,after}.txt, nvidia-smi-summary.csv, xid-{before,after}.txt
#   telemetry.csv           one line a second: SM/memory clock, power, temperature, throttle reasons
#   smoke-<family>.log      each family's smoke test (Catch2 output, durations)
#   sanitize-<family>.log   compute-sanitizer memcheck of a family whose smoke test failed
#   list.txt                `gpuprobe list`: the probes and parameters of this build
#   run-all.log, run/       run-all's output and results (raw/*.json, machine_model.json)
#   sm_map.json             the per-SM L2 latency map
#   summary.txt             one line per step: name, exit code, seconds
# Pack OUT_DIR with `tar czf` to bring it back from a machine that returns a few files only.
set -uo pipefail
build="${1:?build dir}"; out="${2:?output dir}"
budget="${3:-240}"; smoke_budget="${4:-60}"; map_budget="${5:-60}"
mkdir -p "$out"
: > "$out/summary.txt"

step() {  # step NAME SECONDS LOG CMD...: run CMD under a time cap, log it, note exit code and time
  local name="$1" cap="$2" log="$3"; shift 3
  local t0=$SECONDS
  echo "== $name (cap ${cap}s)"
  timeout --kill-after=10 "$cap" "$@" > "$log" 2>&1
  local rc=$?
  printf '%s\t%s\t%s\n' "$name" "$rc" "$((SECONDS - t0))" | tee -a "$out/summary.txt"
  tail -n 3 "$log"
  return 0
}

{
  echo "date: $(date -u +%FT%TZ)"
  echo "git_commit: ${GIT_COMMIT:-unknown}"
  uname -a
  nvidia-smi --query-gpu=name,uuid,pci.bus_id,driver_version,vbios_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit,mig.mode.current,compute_mode,ecc.mode.current --format=csv
  nvidia-smi -L
  command -v nvcc >/dev/null && nvcc --version | tail -n 2
  env | grep -E '^(CUDA|NVIDIA|LD_LIBRARY_PATH)' | sort
  sha256sum "$build/gpuprobe" "$build/tests/gpuprobe_tests"
  ldd "$build/gpuprobe"
  echo "cublas candidates:"; ldconfig -p | grep -E 'libcublas(Lt)?\.so' ; echo "${GPUPROBE_CUBLAS_DIR:-}"
  nvidia-smi topo -m
  nvidia-smi -q -d CLOCK,PERFORMANCE,POWER
} > "$out/env.txt" 2>&1
"$build/gpuprobe" list > "$out/list.txt" 2>&1
nvidia-smi -q > "$out/nvidia-smi-before.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active,mig.mode.current,compute_mode --format=csv > "$out/nvidia-smi-summary.csv" 2>&1
(dmesg -T 2>/dev/null || journalctl -k 2>/dev/null) | grep -i -E 'NVRM|Xid' > "$out/xid-before.txt" 2>&1

nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,clocks_event_reasons.active --format=csv -l 1 > "$out/telemetry.csv" 2>&1 &
telemetry=$!
trap 'kill $telemetry 2>/dev/null' EXIT

# Catch2 test-name patterns, one per family, in the order the review asks (first contact).
smokes=(
  "memory|gpu-smoke: the CUDA backend runs every chase kernel*"
  "tensor-mma|gpu-smoke: tensor/mma *"
  "tensor-wgmma|gpu-smoke: tensor/wgmma *"
  "tensor-tcgen05|gpu-smoke: tensor/tcgen05 *"
  "async|gpu-smoke: async/*"
  "sync|gpu-smoke: sync/*"
  "atomics|gpu-smoke: atomics/*"
  "launch|gpu-smoke: launch *"
  "compute|gpu-smoke: compute/*"
  "bandwidth|gpu-smoke: every bandwidth probe*"
  "bandwidth-loaded|gpu-smoke: bandwidth/loaded_latency*"
)
sanitize_left="${GPUCHECK_SANITIZE_MAX:-2}"
for s in "${smokes[@]}"; do
  fam="${s%%|*}"; pattern="${s#*|}"
  case " ${GPUCHECK_FAMILIES:-$fam} " in *" $fam "*) ;; *) continue ;; esac
  step "smoke-$fam" "$smoke_budget" "$out/smoke-$fam.log" \
    "$build/tests/gpuprobe_tests" "$pattern" --durations yes
  rc=$(tail -n 1 "$out/summary.txt" | cut -f 2)
  if [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ "$rc" != 124 ] && [ "$sanitize_left" -gt 0 ] && command -v compute-sanitizer > /dev/null; then
    sanitize_left=$((sanitize_left - 1))
    step "sanitize-$fam" "${SANITIZE_SECONDS:-40}" "$out/sanitize-$fam.log" \
      compute-sanitizer --tool memcheck --print-limit 20 "$build/tests/gpuprobe_tests" "$pattern"
  fi
done

step run-all "$budget" "$out/run-all.log" \
  "$build/gpuprobe" run-all --device cuda --no-plot --out "$out/run" --max-seconds-per-point 0.25 \
  ${GPUCHECK_RUN_ALL_ARGS:-}
step sm-map "$map_budget" "$out/sm_map.log" \
  "$build/gpuprobe" probe memory/chase --sm all --sampled-hops 0 \
  --device cuda --out "$out/sm_map.json" --max-seconds-per-point 0.2

kill $telemetry 2>/dev/null
nvidia-smi -q > "$out/nvidia-smi-after.txt" 2>&1
nvidia-smi -q -d CLOCK,PERFORMANCE,POWER >> "$out/env.txt" 2>&1
(dmesg -T 2>/dev/null || journalctl -k 2>/dev/null) | grep -i -E 'NVRM|Xid' > "$out/xid-after.txt" 2>&1
cat "$out/summary.txt"
