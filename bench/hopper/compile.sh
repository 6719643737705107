#!/usr/bin/env bash
# Compile the warp-specialized TMA GEMM to PTX for gemm_bench.py: bf16 from
# examples/sm90a/gemm_tma_ws.mlir, fp16 from the same kernel with the
# element type replaced (verified first, like the bf16 one). Runs on the
# development machine (needs argus-opt); prints ptxas -v for both.
#
#   bench/hopper/compile.sh [path/to/argus-opt]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
opt="${1:-$root/build/bin/argus-opt}"
src="$root/examples/sm90a/gemm_tma_ws.mlir"
f16="$(mktemp --suffix=.mlir)"
trap 'rm -f "$f16"' EXIT
sed 's/bf16/f16/g' "$src" > "$f16"
for v in "bf16:$src" "f16:$f16"; do
  name="${v%%:*}"; file="${v#*:}"
  out="$here/gemm_tma_ws.ptx"
  [ "$name" = f16 ] && out="$here/gemm_tma_ws_f16.ptx"
  "$opt" "$file" --argus-verify-tags -o /dev/null
  "$opt" "$file" --argus-to-nvptx="dump=$out" -o /dev/null
  if command -v /usr/local/cuda/bin/ptxas >/dev/null; then
    /usr/local/cuda/bin/ptxas -arch=sm_90a -v "$out" -o /dev/null 2>&1 |
      grep -E "registers|spill|warn" | sed "s/^/[$name] /"
  fi
done
echo "wrote $here/gemm_tma_ws.ptx $here/gemm_tma_ws_f16.ptx"
