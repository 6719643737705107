#!/bin/sh
# Argus gemm_tma_ws vs cuBLAS vs Triton on one H200 (see gemm_bench.py --help).
cd "$(dirname "$0")/../.." || exit 2
exec python3 bench/hopper/gemm_bench.py --ptx bench/hopper/gemm_tma_ws.ptx "$@"
