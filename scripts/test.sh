#!/usr/bin/env bash
# Sets up, builds and runs every test: the full build (CUDA probes, SASS assertions) and the
# host-only build (-DGPUPROBE_WITH_CUDA=OFF, g++ alone) that proves the harness, analysis and
# simulator do not need nvcc.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
GPUPROBE_WITH_CUDA=OFF scripts/setup.sh build-host
jobs=$(nproc)
ctest --test-dir build --output-on-failure -j "$jobs"
ctest --test-dir build-host --output-on-failure -j "$jobs"
