#!/usr/bin/env bash
# Compile the sm_90a flash-attention kernels to PTX for attention_bench.py
# (development machine: needs argus-opt and the Python module). Each kernel
# is verified first: bf16 and causal from examples/sm90a, fp16 from the bf16
# kernel with the element type replaced; from the DSL builder
# (examples/python/flash_attention_ws.py) the ping-pong variant of the bf16
# kernel (pingpong=True), head dim 64 (ping-pong, 3-stage K / V rings) and
# the causal ping-pong kernel whose blocks take two query tiles each
# (paired=True: S a multiple of 256), the causal ping-pong kernel without
# pairing, and causal head dim 64 (ping-pong, 3 stages; unpaired and
# paired), and the same four with head_by_head=True (query tiles along x).
#
#   bench/attention/compile.sh [path/to/build]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build}"
opt="$build/bin/argus-opt"
. "$root/bench/sm90a_ptx.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sed 's/bf16/f16/g' "$root/examples/sm90a/flash_attention_ws.mlir" > "$tmp/f16.mlir"
PYTHONPATH="$build/python:$root/python:$root/examples/python" /usr/bin/python3 -c "
import flash_attention_ws as f
open('$tmp/d64.mlir', 'w').write(
    f.make_flash_attention_ws(head_dim=64, pingpong=True, stages=3).ir())
open('$tmp/pp.mlir', 'w').write(f.make_flash_attention_ws(pingpong=True).ir())
open('$tmp/causal_paired.mlir', 'w').write(
    f.make_flash_attention_ws(causal=True, pingpong=True, paired=True).ir())
open('$tmp/causal_pp.mlir', 'w').write(f.make_flash_attention_ws(causal=True, pingpong=True).ir())
open('$tmp/causal_d64.mlir', 'w').write(
    f.make_flash_attention_ws(head_dim=64, causal=True, pingpong=True, stages=3).ir())
open('$tmp/causal_paired_d64.mlir', 'w').write(f.make_flash_attention_ws(
    head_dim=64, causal=True, pingpong=True, stages=3, paired=True).ir())
# Causal, query tiles along x (head by head): the fastest causal kernels.
hbh = dict(causal=True, pingpong=True, head_by_head=True)
d64 = dict(head_dim=64, stages=3)
open('$tmp/causal_pp_hbh.mlir', 'w').write(f.make_flash_attention_ws(**hbh).ir())
open('$tmp/causal_paired_hbh.mlir', 'w').write(
    f.make_flash_attention_ws(paired=True, **hbh).ir())
open('$tmp/causal_d64_hbh.mlir', 'w').write(f.make_flash_attention_ws(**d64, **hbh).ir())
open('$tmp/causal_paired_d64_hbh.mlir', 'w').write(
    f.make_flash_attention_ws(paired=True, **d64, **hbh).ir())"
for v in "flash_attention_ws:$root/examples/sm90a/flash_attention_ws.mlir" \
         "flash_attention_causal_ws:$root/examples/sm90a/flash_attention_causal_ws.mlir" \
         "flash_attention_ragged_ws:$root/examples/sm90a/flash_attention_ragged_ws.mlir" \
         "flash_attention_causal_ragged_ws:$root/examples/sm90a/flash_attention_causal_ragged_ws.mlir" \
         "flash_attention_ws_f16:$tmp/f16.mlir" "flash_attention_ws_d64:$tmp/d64.mlir" \
         "flash_attention_ws_pp:$tmp/pp.mlir" \
         "flash_attention_causal_paired_ws:$tmp/causal_paired.mlir" \
         "flash_attention_causal_ws_pp:$tmp/causal_pp.mlir" \
         "flash_attention_causal_ws_d64:$tmp/causal_d64.mlir" \
         "flash_attention_causal_paired_ws_d64:$tmp/causal_paired_d64.mlir" \
         "flash_attention_causal_ws_pp_hbh:$tmp/causal_pp_hbh.mlir" \
         "flash_attention_causal_paired_ws_hbh:$tmp/causal_paired_hbh.mlir" \
         "flash_attention_causal_ws_d64_hbh:$tmp/causal_d64_hbh.mlir" \
         "flash_attention_causal_paired_ws_d64_hbh:$tmp/causal_paired_d64_hbh.mlir"; do
  name="${v%%:*}"; file="${v#*:}"
  # A violated check stops; an unknown one is reported.
  compile_verified_ptx "$opt" "$file" "$here/$name.ptx" "$name" unknown-ok
done
