#!/usr/bin/env bash
# Compile the sm_90a GEMM kernels to PTX (probes off, probes on with every
# signal, probes on with duration only) into bench/lowering/ptx/, plus a
# manifest (regions, ABI) for gemm_h200.py. Runs on the development machine
# (needs argus-opt); the device machine has no MLIR.
#
#   bench/lowering/compile.sh [path/to/argus-opt]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
opt="${1:-$root/build-lower/bin/argus-opt}"
out="$here/ptx"
mkdir -p "$out"
kernels=(
  "gemm_mma_sync:$root/test/lit/Conversion/Inputs/gemm_mma_sync.mlir"
  "gemm_pipelined_2stage:$root/examples/gemm_pipelined_2stage.mlir"
  "gemm_pipelined_3stage:$root/examples/gemm_pipelined_3stage.mlir"
)
manifest="$out/manifest.json"
echo "{" > "$manifest"
first=1
for kv in "${kernels[@]}"; do
  name="${kv%%:*}"; src="${kv#*:}"
  "$opt" "$src" --argus-to-nvptx="dump=$out/$name.ptx" -o /dev/null
  "$opt" "$src" --argus-to-nvptx="probes=1 dump=$out/$name.probes.ptx" -o /dev/null
  "$opt" "$src" --argus-to-nvptx="probes=1 probe-signals=duration dump=$out/$name.probes_duration.ptx" -o /dev/null
  if command -v /usr/local/cuda/bin/ptxas >/dev/null; then
    for v in "" .probes .probes_duration; do
      /usr/local/cuda/bin/ptxas -arch=sm_90a -v "$out/$name$v.ptx" -o "$out/$name$v.cubin" 2>&1 |
        grep -E "registers|spill" | sed "s/^/[$name$v] /"
    done
  fi
  # Region IDs and names, straight from the markers.
  regions=$(grep -o 'argus.region.begin "[^"]*" id [0-9]*' "$src" |
    sed -E 's/argus.region.begin "([^"]*)" id ([0-9]*)/"\2": "\1"/' | paste -sd, -)
  stages=$(grep -o '!argus.buffer<[0-9]*' "$src" | head -1 | grep -o '[0-9]*$')
  [ $first = 1 ] || echo "," >> "$manifest"
  first=0
  printf '  "%s": {"block": 128, "tile_m": 64, "tile_n": 64, "tile_k": 32, "stages": %s, "regions": {%s}}' \
    "$name" "$stages" "$regions" >> "$manifest"
done
echo "" >> "$manifest"
echo "}" >> "$manifest"
echo "wrote $out"
