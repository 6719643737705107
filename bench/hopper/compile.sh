#!/usr/bin/env bash
# Compile the warp-specialized TMA GEMMs to PTX for gemm_bench.py: for each
# kernel of examples/sm90a (gemm_tma_ws: C stored from registers;
# gemm_tma_store_ws: C through shared memory and a bulk tensor store), bf16
# as written and fp16 with the element type replaced, each verified first;
# the DSL's bulk-store GEMM walking the tiles in groups of 8 tile rows
# (gemm_tma_store_ws_grouped) and in clusters of 4 blocks sharing B through
# multicast (gemm_tma_cluster4_ws), bf16 and fp16, for A/Bs against
# gemm_tma_store_ws and gemm_tma_cluster_ws with gemm_bench.py --ptx; and
# the fp32 GEMM on the tensor cores (gemm_tf32_tma_ws of
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
dsl_ir() { # python expression of a kernel of gemm_tma_ws.py, output file
  PYTHONPATH="$root/build/python:$root/python:$root/examples/python" /usr/bin/python3 -c \
    'import sys, gemm_tma_ws as g; open(sys.argv[2], "w").write(eval(sys.argv[1]).ir())' "$1" "$2"
}
for v in "gemm_tma_store_ws_grouped:group_m=8" "gemm_tma_cluster4_ws:cluster=4"; do
  name="${v%%:*}"; knob="${v#*:}"
  for dt in bf16 f16; do
    suffix=""; [ "$dt" = f16 ] && suffix="_f16"
    dsl_ir "g.make_gemm_tma_ws(epilogue='tma_store', $knob, dtype='$dt', name='$name')" "$f16"
    compile_verified_ptx "$opt" "$f16" "$here/$name$suffix.ptx" "$name $dt"
  done
done
dsl_ir g.gemm_tf32_tma_ws "$tf32"
compile_verified_ptx "$opt" "$tf32" "$here/gemm_tf32_tma_ws.ptx" "gemm_tf32_tma_ws tf32"
