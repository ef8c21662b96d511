#!/usr/bin/env bash
# The first thing to run on a machine with a real GPU, in one command of at most 7 minutes on an
# H100 (a 15-minute GPU window, the machine's start included, then leaves room for one targeted
# rerun): each family's GPU smoke test (every kernel for real, with its self-checks) under its own
# time cap and log, a compute-sanitizer rerun of the first failing family's smoke test, a
# clock-calibration burst, then `run-all --quick`; throughout, the driver's view of the GPU and
# its clocks, power and throttle reasons sampled every second. Everything needed to diagnose a
# failure offline lands in OUT, packed into at most 8 files.
#
#   scripts/first-run.sh [--device DEV] [--total-seconds S] [--families "F ..."] BUILD OUT
#   scripts/first-run.sh --print-carry BUILD      what a GPU machine needs of BUILD (one path a
#                                                 line; sizes and the 64 MiB check on stderr)
#   scripts/first-run.sh --make-carry BUILD DEST  copy those, stripped, to DEST/ (keeps the
#                                                 device code), then print DEST's carry list
#
# BUILD is a build folder (scripts/setup.sh; for a GPU: CMAKE_CUDA_ARCHITECTURES="90a-real;100a-real")
# holding gpuprobe and tests/gpuprobe_tests; nothing else of it is read. --device (default cuda)
# is run-all's and the calibration's device: `--device sim:h100-sxm` is the dry run CI makes
# (tests/scripts/test_first_run.py): every step runs, the smoke tests skip without a GPU, and what
# is missing (nvidia-smi, cuobjdump, compute-sanitizer, the kernel log) is recorded, not fatal.
#
# Time: the run ends within --total-seconds (default 380) plus packing (seconds): under 7 minutes.
# Each step has its own cap (below), shortened so the later steps keep their reserve: a hung
# family costs its cap, not the run. Typical H200 times (results/nvidia-h200/PROVENANCE.md):
# memory smoke 45 s, async 22 s, bandwidth 4 s, the others 0-2 s each (about 80 s for all);
# run-all --quick about a minute; so about 3 minutes when nothing hangs.
#
# Environment (mostly for tests and targeted reruns):
#   FIRSTRUN_DEVICE          the default of --device
#   FIRSTRUN_FAMILIES        smoke only these families ("memory atomics"); run-all still runs
#   FIRSTRUN_SMOKE_CAP       one cap (s) for every family's smoke test instead of its own
#   FIRSTRUN_RUN_ALL_CAP     run-all's cap (default 180); FIRSTRUN_RUN_ALL_ARGS: more run-all
#                            options (`--only memory,atomics`)
#   FIRSTRUN_SANITIZE_CAP    the sanitizer rerun's cap (default 60); FIRSTRUN_SANITIZE_MAX: how
#                            many failing families get one (default 1)
#   FIRSTRUN_TESTS, FIRSTRUN_SANITIZER, FIRSTRUN_NVIDIA_SMI, FIRSTRUN_CUOBJDUMP: the programs
#                            used (default BUILD/tests/gpuprobe_tests, compute-sanitizer,
#                            nvidia-smi, cuobjdump)
#
# OUT, at the end (at most 8 files; each at most 16 MiB):
#   summary.json        the manifest (scripts/first_run_summary.py): per family its status
#                       (passed, failed, timed out, skipped, not run), points measured and failed
#                       in run-all, failures, seconds, logs and self-check sidecar paths; the
#                       steps; the calibration; the tools found and missing
#   first-run.tar.gz    everything, under first-run/: env.txt (identity: driver, GPU, kernel,
#                       CUDA_* variables, ldd, the binaries' sha256, cuBLAS, git), list.txt,
#                       nvidia-smi-{before,after}.txt, nvidia-smi-{clocks-before,clocks-after}.txt,
#                       telemetry.csv (one line a second), dmon.txt, xid-{before,after}.txt,
#                       res-usage.txt, steps.tsv, smoke/<family>.log (and each family's working
#                       folder: sidecars `*.selfcheck/` land there), sanitize/<family>.log,
#                       calibration/*.json, run/ (run-all's raw/*.json with their `*.selfcheck/`
#                       sidecars, machine_model.json), run-all.log, summary.json
#   sass.txt.xz         `cuobjdump -sass` of BUILD/gpuprobe (.gz without xz; only the device's
#                       architecture if the whole is over 15 MiB)
#   first-run.log       this script's own output
#   run-all.log, env.txt, smoke-failures.log (the failing families' smoke and sanitizer logs)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
die() { echo "first-run: error: $*" >&2; exit 2; }

# --- what a GPU machine needs ----------------------------------------------------------------
carry_files() { printf '%s\n' "$1/gpuprobe" "$1/tests/gpuprobe_tests"; }
print_carry() {
  local build="$1" total=0 f size tree
  for f in $(carry_files "$build"); do
    [ -x "$f" ] || die "$f is missing: build BUILD first (scripts/setup.sh BUILD)"
  done
  for f in $(carry_files "$build"); do
    size=$(stat -c %s "$f"); total=$((total + size))
    printf '%s\n' "$f"
    printf 'first-run: carry %s (%s MiB)\n' "$f" "$((size / 1048576))" >&2
  done
  # The working tree travels too (tracked and untracked files git does not ignore).
  tree=$(cd "$here/.." && git ls-files -co --exclude-standard -z 2>/dev/null | xargs -0 -r stat -c %s 2>/dev/null |
         awk '{s += $1} END {print s + 0}')
  printf 'first-run: carried %s MiB + working tree %s MiB = %s MiB of 64\n' "$((total / 1048576))" \
    "$((tree / 1048576))" "$(((total + tree) / 1048576))" >&2
  if [ $((total + tree)) -gt $((64 * 1048576)) ]; then
    echo "first-run: error: over 64 MiB: carry a stripped copy (scripts/first-run.sh --make-carry $build DEST)" >&2
    return 1
  fi
  return 0
}
make_carry() {
  local build="$1" dest="$2" f
  for f in $(carry_files "$build"); do [ -x "$f" ] || die "$f is missing: build BUILD first"; done
  mkdir -p "$dest/tests" || die "cannot make $dest"
  # strip keeps allocated sections: the CUDA fat binaries (.nv_fatbin) stay, the symbols go.
  for f in gpuprobe tests/gpuprobe_tests; do
    cp "$build/$f" "$dest/$f" || die "cannot copy $build/$f"
    command -v strip > /dev/null && strip --strip-unneeded "$dest/$f" 2> /dev/null
  done
  print_carry "$dest"
}

device="${FIRSTRUN_DEVICE:-cuda}"; total_budget=380; families_arg="${FIRSTRUN_FAMILIES:-}"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --print-carry) [ $# -eq 2 ] || die "usage: first-run.sh --print-carry BUILD"; print_carry "$2"; exit $? ;;
    --make-carry) [ $# -eq 3 ] || die "usage: first-run.sh --make-carry BUILD DEST"; make_carry "$2" "$3"; exit $? ;;
    --device) [ $# -ge 2 ] || die "--device needs a value"; device="$2"; shift 2 ;;
    --device=*) device="${1#*=}"; shift ;;
    --total-seconds) [ $# -ge 2 ] || die "--total-seconds needs a value"; total_budget="$2"; shift 2 ;;
    --total-seconds=*) total_budget="${1#*=}"; shift ;;
    --families) [ $# -ge 2 ] || die "--families needs a value"; families_arg="$2"; shift 2 ;;
    --families=*) families_arg="${1#*=}"; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -eq 2 ] || die "usage: first-run.sh [--device DEV] [--total-seconds S] BUILD OUT"
build="${args[0]}"; out="${args[1]}"
if ! [[ "$total_budget" =~ ^[0-9]+$ ]] || [ "$total_budget" -lt 30 ]; then
  die "--total-seconds must be a whole number >= 30"
fi
gpuprobe="$build/gpuprobe"
tests="${FIRSTRUN_TESTS:-$build/tests/gpuprobe_tests}"
[ -x "$gpuprobe" ] || die "$gpuprobe is missing or not executable"
[ -x "$tests" ] || die "$tests is missing or not executable"
gpuprobe="$(cd "$(dirname "$gpuprobe")" && pwd)/gpuprobe"
tests="$(cd "$(dirname "$tests")" && pwd)/$(basename "$tests")"
build="$(dirname "$gpuprobe")"
mkdir -p "$out" || die "cannot make $out"
out="$(cd "$out" && pwd)"
work="$out/first-run"
for f in "$work" "$out/summary.json" "$out/first-run.tar.gz"; do
  [ -e "$f" ] && die "$out already holds a run ($(basename "$f")): give an empty OUT"
done
mkdir -p "$work"/{smoke,sanitize,calibration} || die "cannot write $work"

nvsmi="${FIRSTRUN_NVIDIA_SMI:-nvidia-smi}"
have_nvsmi=0; command -v "$nvsmi" > /dev/null 2>&1 && have_nvsmi=1
cuobjdump="${FIRSTRUN_CUOBJDUMP:-cuobjdump}"
command -v "$cuobjdump" > /dev/null 2>&1 || { [ -x /usr/local/cuda/bin/cuobjdump ] && cuobjdump=/usr/local/cuda/bin/cuobjdump; }
sanitizer="${FIRSTRUN_SANITIZER:-compute-sanitizer}"
command -v "$sanitizer" > /dev/null 2>&1 || { [ -x /usr/local/cuda/bin/compute-sanitizer ] && sanitizer=/usr/local/cuda/bin/compute-sanitizer; }
python="$(command -v python3 || true)"

t0=$SECONDS
deadline=$((t0 + total_budget))
log="$out/first-run.log"
: > "$log"
say() { printf '%s\n' "$*" | tee -a "$log"; }
printf 'step\texit_code\tseconds\tcap_s\tlog\n' > "$work/steps.tsv"

# cap_for WANT RESERVE: WANT seconds, or fewer so that RESERVE seconds stay before the deadline
# (0: no time left).
cap_for() {
  local left=$((deadline - SECONDS - $2))
  [ "$left" -lt "$1" ] && { [ "$left" -lt 3 ] && echo 0 || echo "$left"; return; }
  echo "$1"
}

# step NAME CAP LOG CMD...: CMD under a time cap (SIGTERM, then SIGKILL 5 s later), its output in
# LOG (line-buffered, so a killed step keeps what it printed), a row in steps.tsv.
step() {
  local name="$1" cap="$2" steplog="$3"; shift 3
  local s=$SECONDS rc
  if [ "$cap" -le 0 ]; then
    say "== $name: not run: no time left in the ${total_budget} s budget"
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "none" 0 0 "${steplog#"$work/"}" >> "$work/steps.tsv"
    return 0
  fi
  say "== $name (cap ${cap} s)"
  if command -v stdbuf > /dev/null; then
    timeout --kill-after=5 "$cap" stdbuf -oL -eL "$@" > "$steplog" 2>&1
  else
    timeout --kill-after=5 "$cap" "$@" > "$steplog" 2>&1
  fi
  rc=$?
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$rc" "$((SECONDS - s))" "$cap" "${steplog#"$work/"}" >> "$work/steps.tsv"
  say "   exit $rc after $((SECONDS - s)) s"
  tail -n 2 "$steplog" | cut -c 1-200 | sed 's/^/   | /' | tee -a "$log"
  return 0
}
last_rc() { tail -n 1 "$work/steps.tsv" | cut -f 2; }

telemetry_pids=()
finished=0
finish() {
  [ "$finished" = 1 ] && return; finished=1
  local pid
  for pid in "${telemetry_pids[@]}"; do kill "$pid" 2> /dev/null; done
  if [ -n "${sass_pid:-}" ]; then
    # shellcheck disable=SC2046  # the pids of its pipeline, one word each
    kill $(ps -o pid= --ppid "$sass_pid" 2> /dev/null) "$sass_pid" 2> /dev/null
    wait "$sass_pid" 2> /dev/null
  fi
  if [ "$have_nvsmi" = 1 ]; then
    timeout 20 "$nvsmi" -q > "$work/nvidia-smi-after.txt" 2>&1
    timeout 20 "$nvsmi" -q -d CLOCK,PERFORMANCE,POWER > "$work/nvidia-smi-clocks-after.txt" 2>&1
  else
    echo "nvidia-smi: not found ($nvsmi)" > "$work/nvidia-smi-after.txt"
  fi
  kernel_log > "$work/xid-after.txt" 2>&1
  say "== summary"
  if [ -n "$python" ]; then
    "$python" "$here/first_run_summary.py" --work "$work" --device "$device" --budget "$total_budget" \
      --wall "$((SECONDS - t0))" --nvidia-smi "$have_nvsmi" --cuobjdump "$cuobjdump" \
      --sanitizer "$sanitizer" 2>&1 | tee -a "$log" || say "first-run: the summary failed (see first-run.log)"
  fi
  [ -f "$work/summary.json" ] ||
    printf '{"schema": "gpuprobe.first_run", "schema_version": 1, "error": "no summary (python3 %s)"}\n' \
      "${python:-absent}" > "$work/summary.json"
  pack
}
trap finish EXIT
trap 'say "first-run: interrupted"; exit 130' INT TERM

kernel_log() {  # the kernel's NVRM and Xid lines (Xid 13/31/43/79: bad instruction, MMU fault, hang, bus)
  if dmesg -T > /dev/null 2>&1; then dmesg -T | grep -i -E 'NVRM|Xid' || echo "dmesg: no NVRM or Xid line"
  elif command -v journalctl > /dev/null && journalctl -k -q --no-pager > /dev/null 2>&1; then
    journalctl -k -q --no-pager | grep -i -E 'NVRM|Xid' || echo "journalctl -k: no NVRM or Xid line"
  else echo "kernel log: not readable here (dmesg and journalctl -k both refused)"; fi
  return 0
}

pack() {
  local f
  # Top level: the manifest, the main logs and one tarball of everything else.
  cp "$work/summary.json" "$out/summary.json" 2> /dev/null
  cp "$work/env.txt" "$out/env.txt" 2> /dev/null
  [ -f "$work/run-all.log" ] && cp "$work/run-all.log" "$out/run-all.log"
  : > "$out/smoke-failures.log"
  for f in "$work"/smoke/*.log "$work"/sanitize/*.log; do
    [ -f "$f" ] || continue
    if [ "${f#"$work/sanitize/"}" != "$f" ] || ! grep -q -E '^(All tests passed|GPUPROBE-TEST-SKIPPED)' "$f"; then
      { echo "===== ${f#"$work/"}"; tail -c 2000000 "$f"; } >> "$out/smoke-failures.log"
    fi
  done
  [ -s "$out/smoke-failures.log" ] || echo "no smoke test failed" > "$out/smoke-failures.log"
  rm -f "$out"/*.tmp
  cp "$log" "$work/first-run.log" 2> /dev/null
  if tar -C "$out" -czf "$out/first-run.tar.gz.tmp" first-run && mv "$out/first-run.tar.gz.tmp" "$out/first-run.tar.gz"; then
    rm -rf "$work"
    for f in "$out"/*; do
      [ "$(stat -c %s "$f")" -gt $((16 * 1048576)) ] && say "first-run: warning: $f is over 16 MiB: it may not come back whole"
    done
  else
    say "first-run: packing failed: $work left as it is"
  fi
  say "first-run: OUT holds $(find "$out" -maxdepth 1 -type f | wc -l) files: $(cd "$out" && ls | tr '\n' ' ')"
}

# --- identity and environment ----------------------------------------------------------------
say "first-run: device $device, build $build, out $out, budget ${total_budget} s"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "device: $device"
  echo "git_commit: $(git -C "$here/.." rev-parse HEAD 2> /dev/null || echo "${GIT_COMMIT:-unknown}")"
  git -C "$here/.." status --short 2> /dev/null | head -n 50 | sed 's/^/git_status: /'
  git -C "$here/.." diff --stat 2> /dev/null | tail -n 1 | sed 's/^/git_diff: /'
  uname -a
  echo "nproc: $(nproc 2> /dev/null)"
  if [ "$have_nvsmi" = 1 ]; then
    timeout 20 "$nvsmi" --query-gpu=name,uuid,pci.bus_id,driver_version,vbios_version,compute_cap,memory.total,clocks.max.sm,clocks.max.mem,power.limit,mig.mode.current,compute_mode,ecc.mode.current --format=csv
    timeout 20 "$nvsmi" -L
    timeout 20 "$nvsmi" topo -m
  else
    echo "nvidia-smi: not found ($nvsmi): no driver view of the GPU in this run"
  fi
  command -v nvcc > /dev/null && nvcc --version | tail -n 2
  echo "cuobjdump: $(command -v "$cuobjdump" || echo absent)"
  echo "compute-sanitizer: $(command -v "$sanitizer" || echo absent)"
  env | grep -E '^(CUDA|NVIDIA|LD_LIBRARY_PATH|GPUPROBE)' | sort
  sha256sum "$gpuprobe" "$tests"
  ls -l "$gpuprobe" "$tests"
  ldd "$gpuprobe"
  echo "cublas candidates:"; ldconfig -p 2> /dev/null | grep -E 'libcublas(Lt)?\.so'; echo "${GPUPROBE_CUBLAS_DIR:-}"
} > "$work/env.txt" 2>&1
"$gpuprobe" list > "$work/list.txt" 2>&1
if [ "$have_nvsmi" = 1 ]; then
  timeout 20 "$nvsmi" -q > "$work/nvidia-smi-before.txt" 2>&1
  timeout 20 "$nvsmi" -q -d CLOCK,PERFORMANCE,POWER > "$work/nvidia-smi-clocks-before.txt" 2>&1
  # One line a second; the clock-event fields' names changed (throttle -> event) in newer drivers.
  q="timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,memory.used"
  for reasons in "clocks_event_reasons.active,clocks_event_reasons.sw_power_cap,clocks_event_reasons.hw_slowdown,clocks_event_reasons.sw_thermal_slowdown,clocks_event_reasons.hw_thermal_slowdown" \
                 "clocks_throttle_reasons.active" ""; do
    fields="$q${reasons:+,$reasons}"
    timeout 20 "$nvsmi" --query-gpu="$fields" --format=csv > /dev/null 2>&1 && break
  done
  "$nvsmi" --query-gpu="$fields" --format=csv -l 1 > "$work/telemetry.csv" 2>&1 &
  telemetry_pids+=($!)
  "$nvsmi" dmon -s pucvmet -d 1 > "$work/dmon.txt" 2>&1 &
  telemetry_pids+=($!)
else
  echo "nvidia-smi: not found ($nvsmi)" | tee "$work/nvidia-smi-before.txt" "$work/telemetry.csv" > /dev/null
fi
kernel_log > "$work/xid-before.txt" 2>&1

# --- the device code: resource usage now, SASS in the background (niced; done before run-all) --
if command -v "$cuobjdump" > /dev/null 2>&1; then
  "$cuobjdump" -res-usage "$gpuprobe" > "$work/res-usage.txt" 2>&1
  (
    compress() { if command -v xz > /dev/null; then xz -T2 -6 -c; else gzip -6 -c; fi; }
    ext=xz; command -v xz > /dev/null || ext=gz
    nice -n 19 timeout 150 "$cuobjdump" -sass "$gpuprobe" 2>&1 | compress > "$out/sass.txt.$ext.tmp"
    if [ "$(stat -c %s "$out/sass.txt.$ext.tmp")" -gt $((15 * 1048576)) ]; then
      # Too big to come back: the architecture of the GPU in this machine only.
      arch=$(timeout 20 "$nvsmi" --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -n 1 | tr -d ' .')
      case "$arch" in 90) arch=sm_90a ;; 100) arch=sm_100a ;; "") arch=sm_90a ;; *) arch="sm_$arch" ;; esac
      nice -n 19 timeout 120 "$cuobjdump" -sass -arch "$arch" "$gpuprobe" 2>&1 | compress > "$out/sass.txt.$ext.tmp"
    fi
    mv "$out/sass.txt.$ext.tmp" "$out/sass.txt.$ext"
  ) &
  sass_pid=$!
else
  echo "cuobjdump: not found: no SASS or resource usage in this run" > "$work/res-usage.txt"
fi

# --- each family's smoke test, under its own cap and log ---------------------------------------
# family|cap seconds|Catch2 test-name pattern, in the order a first contact needs them. The caps
# hold each family's H200 time at least 1.5 times over (memory 45 s, async 22 s).
smokes=(
  "memory|75|gpu-smoke: the CUDA backend runs every chase kernel*"
  "tensor-mma|25|gpu-smoke: tensor/mma *"
  "tensor-wgmma|40|gpu-smoke: tensor/wgmma *"
  "tensor-tcgen05|45|gpu-smoke: tensor/tcgen05 *"
  "async|45|gpu-smoke: async/*"
  "sync|25|gpu-smoke: sync/*"
  "atomics|25|gpu-smoke: atomics/*"
  "launch|25|gpu-smoke: launch *"
  "compute|25|gpu-smoke: compute/*"
  "bandwidth|30|gpu-smoke: every bandwidth probe*"
  "bandwidth-loaded|25|gpu-smoke: bandwidth/loaded_latency*"
)
run_all_cap="${FIRSTRUN_RUN_ALL_CAP:-180}"
sanitize_cap="${FIRSTRUN_SANITIZE_CAP:-60}"
sanitize_left="${FIRSTRUN_SANITIZE_MAX:-1}"
# Kept for what follows the smoke tests: run-all (at least 90 s), calibration (30 s), packing (15 s).
reserve_after_smoke=135
failed_families=()
for s in "${smokes[@]}"; do
  IFS='|' read -r fam cap pattern <<< "$s"
  case " ${families_arg:-$fam} " in *" $fam "*) ;; *) continue ;; esac
  cap="${FIRSTRUN_SMOKE_CAP:-$cap}"
  mkdir -p "$work/smoke/$fam"
  # Its own working folder: sidecars a test writes beside records of relative paths land there.
  # shellcheck disable=SC2016  # $1 and $@ are the inner shell's
  step "smoke-$fam" "$(cap_for "$cap" "$reserve_after_smoke")" "$work/smoke/$fam.log" \
    bash -c 'cd "$1" && shift && exec "$@"' _ "$work/smoke/$fam" \
    "$tests" "$pattern" --durations yes --warn NoTests
  rc=$(last_rc)
  if [ "$rc" != 0 ] && [ "$rc" != none ] && [ "$rc" != 124 ] && [ "$rc" != 137 ]; then failed_families+=("$fam|$pattern"); fi
done
# A time cap is no memory error: only the families that failed are rerun, first first.
for f in "${failed_families[@]}"; do
  [ "$sanitize_left" -gt 0 ] || break
  fam="${f%%|*}"; pattern="${f#*|}"
  if ! command -v "$sanitizer" > /dev/null 2>&1; then
    say "== sanitize-$fam: not run: compute-sanitizer not found"
    echo "compute-sanitizer: not found ($sanitizer)" > "$work/sanitize/$fam.log"
    break
  fi
  sanitize_left=$((sanitize_left - 1))
  # shellcheck disable=SC2016  # $1 and $@ are the inner shell's
  step "sanitize-$fam" "$(cap_for "$sanitize_cap" 120)" "$work/sanitize/$fam.log" \
    bash -c 'cd "$1" && shift && exec "$@"' _ "$work/smoke/$fam" \
    "$sanitizer" --tool memcheck --print-limit 20 "$tests" "$pattern"
done
# The SASS dump finishes before anything is timed from the host (run-all's launch costs), within
# what the budget leaves; cut short, it is said so in first-run.log.
if [ -n "${sass_pid:-}" ]; then
  sass_until=$((SECONDS + $(cap_for 60 105)))
  while kill -0 "$sass_pid" 2> /dev/null && [ "$SECONDS" -lt "$sass_until" ]; do sleep 1; done
  if kill -0 "$sass_pid" 2> /dev/null; then
    say "first-run: the SASS dump ran out of time: stopped"
    # shellcheck disable=SC2046  # the pids of its pipeline, one word each
    kill $(ps -o pid= --ppid "$sass_pid" 2> /dev/null) "$sass_pid" 2> /dev/null
  fi
  wait "$sass_pid" 2> /dev/null
  sass_pid=""
fi

# --- clock calibration: clock64 against globaltimer before and after ~2 s of full-GPU load -------
# No kernel of its own: a one-footprint L1 chase (its timed region brackets %clock64 with
# %globaltimer: region_sm_clock_mhz), the load (the device's tensor path at a fixed size, else FP32
# FMA), the same chase again. first_run_summary.py compares them.
cal="$work/calibration"
chase=(probe memory/chase --device "$device" --min-footprint-bytes 16K --max-footprint-bytes 16K
       --sampled-hops 0 --min-region-us 20000 --max-seconds-per-point 1)
step calibration-before "$(cap_for 20 105)" "$cal/before.log" "$gpuprobe" "${chase[@]}" --out "$cal/before.json"
cc=""
[ "$have_nvsmi" = 1 ] && cc=$(timeout 20 "$nvsmi" --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -n 1 | tr -d ' ')
if [ -z "$cc" ] && [ -f "$cal/before.json" ] && [ -n "$python" ]; then
  cc=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["device"].get("compute_capability", ""))' "$cal/before.json" 2> /dev/null)
fi
case "$cc" in
  9.0) load=(probe tensor/wgmma --op wgmma_m64n256k16_f16_f32_ss --kind throughput --operands random --iterations 524288) ;;
  10.*) load=(probe tensor/tcgen05 --op tcgen05_m128n256k16_bf16_f32_ss_cg1 --kind throughput --operands random --iterations 262144) ;;
  *) load=(probe compute/alu --op fma_rn_f32 --kind throughput --iterations 1048576) ;;
esac
step calibration-load "$(cap_for 30 100)" "$cal/load.log" "$gpuprobe" "${load[@]}" --device "$device" \
  --max-seconds-per-point 2 --out "$cal/load.json"
step calibration-after "$(cap_for 20 95)" "$cal/after.log" "$gpuprobe" "${chase[@]}" --out "$cal/after.json"

# --- run-all --quick ---------------------------------------------------------------------------
# shellcheck disable=SC2086  # FIRSTRUN_RUN_ALL_ARGS is a list of options
step run-all "$(cap_for "$run_all_cap" 15)" "$work/run-all.log" \
  "$gpuprobe" run-all --quick --device "$device" --no-plot --out "$work/run" --max-seconds-per-point 0.25 \
  ${FIRSTRUN_RUN_ALL_ARGS:-}
say "first-run: done in $((SECONDS - t0)) s"

finish
# Exit 1 when a family failed or timed out (summary.json says which), else 0.
status=0
if [ -f "$out/summary.json" ] && [ -n "$python" ]; then
  "$python" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d.get("ok") else 1)' "$out/summary.json" || status=1
fi
exit "$status"
