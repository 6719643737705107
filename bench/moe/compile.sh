#!/usr/bin/env bash
# Compile the Hopper MoE grouped GEMMs (examples/sm90a/moe_grouped_gemm_ws.mlir,
# one block per tile, and moe_grouped_gemm_persistent_ws.mlir, a persistent
# work list) to PTX for moe_bench.py: K = 4096 as written (Mixtral-like
# hidden size) and K = 7168 (DeepSeek-like) with the hidden size replaced,
# each verified first. Runs on the development machine (needs argus-opt); prints ptxas -v.
#
#   bench/moe/compile.sh [path/to/argus-opt]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
opt="${1:-$root/build/bin/argus-opt}"
. "$root/bench/sm90a_ptx.sh"
k7168="$(mktemp --suffix=.mlir)"
trap 'rm -f "$k7168"' EXIT
for name in moe_grouped_gemm_ws moe_grouped_gemm_persistent_ws; do
  src="$root/examples/sm90a/$name.mlir"
  # The hidden size appears as the tensor's static width, the expert row
  # stride (tag map and preconditions) and the slab count (K / 64).
  sed 's/?x4096x/?x7168x/g; s/floordiv 4096/floordiv 7168/; s/mod 4096/mod 7168/;
       s/constant 4096 :/constant 7168 :/; s/4096 rows/7168 rows/;
       s/%ktiles = arith.constant 64/%ktiles = arith.constant 112/' "$src" > "$k7168"
  for v in "4096:$src" "7168:$k7168"; do
    k="${v%%:*}"; file="${v#*:}"
    compile_verified_ptx "$opt" "$file" "$here/${name}_k$k.ptx" "$name K=$k"
  done
done
