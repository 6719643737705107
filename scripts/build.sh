#!/usr/bin/env bash
# Configure and build Argus into ${ARGUS_BUILD_DIR:-build} with Ninja (and
# ccache when present). Re-running only rebuilds what changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ARGUS_BUILD_DIR:-$root/build}
if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DPython3_EXECUTABLE=/usr/bin/python3
fi
ninja -C "$build" -j "${ARGUS_JOBS:-$(nproc)}" "$@"
