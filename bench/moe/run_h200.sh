#!/bin/sh
# The MoE benchmark on the device (one call, about 30 s): both shapes, each
# checked against an fp32 reference first, then timed twice.
set -e
cd "$(dirname "$0")"
python3 moe_bench.py --ptx moe_grouped_gemm_ws_k4096.ptx --shape mixtral
python3 moe_bench.py --ptx moe_grouped_gemm_ws_k7168.ptx --shape deepseek
