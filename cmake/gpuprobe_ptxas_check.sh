#!/bin/sh
# Compiler launcher for the arch-specific CUDA units (cmake/GpuprobeCuda.cmake): runs the compile
# command given as arguments (nvcc, possibly behind ccache, which replays ptxas's messages on a
# cache hit) and fails it when ptxas reports that it serialised wgmma instructions:
#   C7510/C7511  "wgmma.mma_async instructions are serialized ..." (calls, non-constant
#                accumulator indexing, too few registers for the wgmma pipeline)
#   C7517/C7519  "warpgroup.wait / warpgroup.arrive is injected ..." (an accumulator or A
#                fragment touched between a wgmma and its wait_group)
# ptxas prints these as info lines and succeeds; a timing of serialised code is not a wgmma rate,
# so here they are build errors (tests/cmake/test_wgmma_serialisation.py). The object is deleted
# so the failed step is not mistaken for a built one.
log=$(mktemp "${TMPDIR:-/tmp}/gpuprobe_ptxas.XXXXXX") || exit 1
"$@" >"$log" 2>&1
status=$?
cat "$log"
if grep -E '\(C75(10|11|17|19)\)|wgmma[._a-z]* instructions are serialized' "$log" >/dev/null; then
  echo "gpuprobe: error: ptxas serialised wgmma (C7510/C7511/C7517/C7519 above): the build of this unit fails; keep accumulators untouched between a wgmma and its wait_group (ptx/wgmma.cuh says which rules ptxas enforces)" >&2
  output=""
  previous=""
  for arg in "$@"; do
    [ "$previous" = "-o" ] && output=$arg
    previous=$arg
  done
  [ -n "$output" ] && rm -f "$output"
  status=1
fi
rm -f "$log"
exit $status
