#!/usr/bin/env bash
# The README's first command: install, build, then run the main job on the
# bundled examples -- check every kernel (parse + all op verifiers), print
# its structure (regions, buffers, matrix-core ops, tag assertions) and the
# kernel itself.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ARGUS_BUILD_DIR:-$root/build}
"$root/scripts/deps.sh"
"$root/scripts/build.sh" argus-opt
for kernel in "$root"/examples/*.mlir; do
  echo "=== $(basename "$kernel")"
  "$build/bin/argus-opt" --verify-each --argus-print-structure "$kernel" \
    -o "$build/$(basename "$kernel" .mlir).printed.mlir"
  echo "--- verified; printed form:"
  cat "$build/$(basename "$kernel" .mlir).printed.mlir"
  echo
done
