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
# The host-only build's proof is that it compiles and links without nvcc (its objects come from
# the first build's ccache where the source is the same). Its tests run the same code as build/'s,
# except those labelled `flavour` (tests/CMakeLists.txt), whose expectations depend on
# GPUPROBE_WITH_CUDA: it runs those.
others=$(ctest --test-dir build-host -N -LE flavour | sed -n 's/^Total Tests: //p')
echo "test: build-host: the tests labelled flavour; its $others other tests ran in build/ on the same code"
ctest --test-dir build-host --output-on-failure -j "$jobs" -L flavour
