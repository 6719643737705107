#!/usr/bin/env bash
# Compile the sm_90a GEMM kernels to PTX (probes off, probes on with every
# signal, probes on with duration only) into bench/lowering/ptx/, plus a
# manifest (regions, ABI) for gemm_h200.py, and argus-run launch specs
# (make_specs.py) for run_argus.sh. Also a variant without ldmatrix
# (<kernel>.noldm.ptx) to measure it, and one with at least 4 resident blocks
# per SM (<kernel>.occ4.ptx: .minnctapersm 4, at most 128 registers). Runs on the development machine (needs
# argus-opt); the device machine has no MLIR.
#
#   bench/lowering/compile.sh [path/to/argus-opt] [--size 4096]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
opt="$root/build-lower/bin/argus-opt"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then opt="$1"; shift; fi
out="$here/ptx"
mkdir -p "$out"
# name:tile_n:source (tile_m 64, 128 threads, k-slab 32 for all)
kernels=(
  "gemm_mma_sync:64:$root/test/lit/Conversion/Inputs/gemm_mma_sync.mlir"
  "gemm_pipelined_2stage:64:$root/examples/gemm_pipelined_2stage.mlir"
  "gemm_pipelined_3stage:64:$root/examples/gemm_pipelined_3stage.mlir"
  "gemm_wgmma:128:$root/examples/gemm_wgmma.mlir"
)
manifest="$out/manifest.json"
echo "{" > "$manifest"
first=1
for kv in "${kernels[@]}"; do
  name="${kv%%:*}"; rest="${kv#*:}"; tile_n="${rest%%:*}"; src="${rest#*:}"
  "$opt" "$src" --argus-to-nvptx="dump=$out/$name.ptx" -o /dev/null
  "$opt" "$src" --argus-to-nvptx="probes=1 dump=$out/$name.probes.ptx" -o /dev/null
  "$opt" "$src" --argus-to-nvptx="probes=1 probe-signals=duration dump=$out/$name.probes_duration.ptx" -o /dev/null
  "$opt" "$src" --argus-to-nvptx="ldmatrix=0 dump=$out/$name.noldm.ptx" -o /dev/null
  "$opt" "$src" --argus-to-nvptx="min-blocks-per-sm=4 dump=$out/$name.occ4.ptx" -o /dev/null
  variants='"probes", "probes_duration", "noldm", "occ4"'
  vlist=("" .probes .probes_duration .noldm .occ4)
  # (Run 3 also timed gemm_wgmma with the B descriptor's LBO and SBO
  # swapped, as a control: it failed its check, rel. err 1.0, as it must.)
  if command -v /usr/local/cuda/bin/ptxas >/dev/null; then
    for v in "${vlist[@]}"; do
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
  printf '  "%s": {"block": 128, "tile_m": 64, "tile_n": %s, "tile_k": 32, "stages": %s, "variants": [%s], "regions": {%s}}' \
    "$name" "$tile_n" "$stages" "$variants" "$regions" >> "$manifest"
done
echo "" >> "$manifest"
echo "}" >> "$manifest"
# The exchange test kernel (reduce / broadcast / convert_layout), for
# exchange_check.py.
"$opt" "$here/kernels/exchange_sm90.mlir" --argus-to-nvptx="dump=$out/exchange_sm90.ptx" -o /dev/null
python3 "$here/make_specs.py" --ptx "$out" "$@"
echo "wrote $out"
