#!/usr/bin/env bash
# The README's first command: install, build, then run the main job on the
# bundled examples: check every kernel (parse + all op verifiers) and print
# its structure (regions, buffers, matrix-core ops, tag assertions); then
# verify the tags of a correct GEMM (proved) and of a buggy one (violated,
# with a counterexample naming the thread, the element and the program
# point).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ARGUS_BUILD_DIR:-$root/build}
"$root/scripts/deps.sh"
# Everything the README's next sections use: the tools, the _argus extension
# and the runtime (`cmake --install build` installs them all), not only
# argus-opt.
"$root/scripts/build.sh"
for kernel in "$root"/examples/*.mlir; do
  echo "=== $(basename "$kernel")"
  "$build/bin/argus-opt" --verify-each --argus-print-structure "$kernel" \
    -o "$build/$(basename "$kernel" .mlir).printed.mlir"
  echo "(printed form: $build/$(basename "$kernel" .mlir).printed.mlir)"
  echo
done

echo "=== tag verification: correct GEMM (examples/gemm_mfma.mlir)"
"$build/bin/argus-opt" "$root/examples/gemm_mfma.mlir" -o /dev/null \
  --argus-verify-tags="report=$build/gemm_mfma.verify.json"
/usr/bin/python3 "$root/scripts/verify_summary.py" "$build/gemm_mfma.verify.json"
echo

buggy=$root/test/lit/Verify/bugs/swizzle_write_only.mlir
echo "=== tag verification: buggy pipelined GEMM (swizzle applied on write, not on read)"
if "$build/bin/argus-opt" "$buggy" -o /dev/null \
     --argus-verify-tags="report=$build/buggy.verify.json"; then
  echo "error: the buggy GEMM was not reported" >&2
  exit 1
fi
/usr/bin/python3 "$root/scripts/verify_summary.py" "$build/buggy.verify.json"
