#!/usr/bin/env bash
# Compile the warp-specialized TMA GEMMs to PTX for gemm_bench.py: for each
# kernel of examples/sm90a (gemm_tma_ws: C stored from registers;
# gemm_tma_store_ws: C through shared memory and a bulk tensor store), bf16
# as written and fp16 with the element type replaced, each verified first;
# and the fp32 GEMM on the tensor cores (gemm_tf32_tma_ws of
# examples/python/gemm_tma_ws.py, traced by the DSL) for tf32_bench.py.
# Runs on the development machine (needs argus-opt); prints ptxas -v.
#
#   bench/hopper/compile.sh [path/to/argus-opt]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
opt="${1:-$root/build/bin/argus-opt}"
. "$root/bench/sm90a_ptx.sh"
f16="$(mktemp --suffix=.mlir)"
tf32="$(mktemp --suffix=.mlir)"
trap 'rm -f "$f16" "$tf32"' EXIT
for kernel in gemm_tma_ws gemm_tma_store_ws gemm_tma_cluster_ws; do
  src="$root/examples/sm90a/$kernel.mlir"
  sed 's/bf16/f16/g' "$src" > "$f16"
  for v in "bf16:$src" "f16:$f16"; do
    name="${v%%:*}"; file="${v#*:}"
    out="$here/$kernel.ptx"
    [ "$name" = f16 ] && out="$here/${kernel}_f16.ptx"
    compile_verified_ptx "$opt" "$file" "$out" "$kernel $name"
  done
done
PYTHONPATH="$root/build/python:$root/python:$root/examples/python" /usr/bin/python3 -c \
  'import sys, gemm_tma_ws; open(sys.argv[1], "w").write(gemm_tma_ws.gemm_tf32_tma_ws.ir())' "$tf32"
compile_verified_ptx "$opt" "$tf32" "$here/gemm_tf32_tma_ws.ptx" "gemm_tf32_tma_ws tf32"
