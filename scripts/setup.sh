#!/usr/bin/env bash
# Installs what gpuprobe needs on Debian 12 (with the CUDA Toolkit already installed), makes the
# Python virtual environment and builds. Idempotent: what is present is not installed again.
#   scripts/setup.sh [BUILD_DIR]         default build/
# Set GPUPROBE_WITH_CUDA=OFF to build the host-only configuration (harness, analysis, simulator).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${1:-build}"

debs=(cmake ninja-build g++ ccache libeigen3-dev catch2 nlohmann-json3-dev libcli11-dev libbenchmark-dev
      python3 python3-venv chromium)   # chromium: tests/scripts/test_report_html.py opens the report
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Python: a virtual environment of our own (Debian's system Python refuses pip installs).
req=scripts/requirements.txt
stamp=.venv/.requirements.sha256
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: preparing .venv from $req"
  python3 -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$req"
  echo "$want" > "$stamp"
fi

with_cuda="${GPUPROBE_WITH_CUDA:-}"
if [ -z "$with_cuda" ]; then
  if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    with_cuda=ON
  else
    echo "setup: no nvcc found: building without the CUDA probes (simulator only)"
    with_cuda=OFF
  fi
fi

# ccache, with its cache in .ccache/: the CUDA and host-only builds compile the same C++ (what
# differs is a few macros that most files never read, and ccache hashes the preprocessed source),
# so the second build takes its objects from the first. CCACHE_BASEDIR makes paths in the tree
# relative, so that a unity batch of test files (generated inside the build folder) hashes alike
# from either folder.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER_LAUNCHER="env;CCACHE_DIR=$PWD/.ccache;CCACHE_BASEDIR=$PWD;ccache" \
  -DGPUPROBE_WITH_CUDA="$with_cuda" -DGPUPROBE_PYTHON="$PWD/.venv/bin/python" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
