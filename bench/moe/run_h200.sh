#!/bin/sh
# The MoE benchmark on the device (one call, about a minute): both shapes,
# the one-block-per-tile kernel and the persistent one, each checked against
# an fp32 reference first, then timed twice.
set -e
cd "$(dirname "$0")"
for k in moe_grouped_gemm_ws moe_grouped_gemm_persistent_ws; do
  python3 moe_bench.py --ptx ${k}_k4096.ptx --shape mixtral
  python3 moe_bench.py --ptx ${k}_k7168.ptx --shape deepseek
done
