#!/bin/sh
# Argus flash attention (sm_90a) vs torch SDPA on one H200: bf16 and fp16,
# head dims 128 and 64, non-causal and causal. PTX from compile.sh.
cd "$(dirname "$0")" || exit 2
A="python3 attention_bench.py --repeat 2"
$A --ptx flash_attention_ws.ptx --shapes "8,16,4096,128;16,16,2048,128;2,16,8192,128"
$A --ptx flash_attention_ws_pp.ptx --shapes "8,16,4096,128;16,16,2048,128;2,16,8192,128"
$A --ptx flash_attention_ragged_ws.ptx --shapes "4,16,3000,128;8,16,4096,128;2,16,8000,128;16,16,2047,128"
$A --ptx flash_attention_causal_ws.ptx --causal --shapes "8,16,4096,128;16,16,2048,128;2,16,8192,128"
$A --ptx flash_attention_causal_ws_pp.ptx --causal --shapes "8,16,4096,128;16,16,2048,128;2,16,8192,128"
$A --ptx flash_attention_causal_paired_ws.ptx --causal --shapes "8,16,4096,128;16,16,2048,128;2,16,8192,128"
$A --ptx flash_attention_causal_ragged_ws.ptx --causal --shapes "4,16,3000,128;16,16,2047,128;2,16,8000,128;8,16,4096,128"
$A --ptx flash_attention_ws_f16.ptx --dtype fp16 --shapes "8,16,4096,128;16,16,2048,128"
$A --ptx flash_attention_ws_d64.ptx --head-dim 64 --shapes "4,32,8192,64;8,16,4096,64"
$A --ptx flash_attention_causal_ws_d64.ptx --causal --head-dim 64 --shapes "4,32,8192,64;8,16,4096,64"
$A --ptx flash_attention_causal_paired_ws_d64.ptx --causal --head-dim 64 --shapes "4,32,8192,64;8,16,4096,64"
# Causal, head by head (query tiles along x): ping-pong, then paired.
C="--causal --shapes 8,16,4096,128;16,16,2048,128;2,16,8192,128"
$A --ptx flash_attention_causal_ws_pp_hbh.ptx $C
$A --ptx flash_attention_causal_paired_ws_hbh.ptx $C
C64="--causal --head-dim 64 --shapes 4,32,8192,64;8,16,4096,64"
$A --ptx flash_attention_causal_ws_d64_hbh.ptx $C64
$A --ptx flash_attention_causal_paired_ws_d64_hbh.ptx $C64
