#!/bin/sh
# One device call: the DSL variants of bench/hopper/README.md ("DSL variants
# for A/B runs") beside the kernels they vary, each run checked against
# PyTorch and timed against cuBLAS in the same process (gemm_bench.py).
# Extra arguments go to every run (e.g. --shapes "4096,4096,4096" --isolate).
cd "$(dirname "$0")/../.." || exit 2
for k in gemm_tma_store_ws gemm_tma_store_ws_grouped gemm_tma_cluster_ws gemm_tma_cluster4_ws; do
  echo "== $k"
  python3 bench/hopper/gemm_bench.py --ptx "bench/hopper/$k.ptx" \
    --ptx-fp16 "bench/hopper/${k}_f16.ptx" --no-triton --repeat 2 "$@" || exit $?
done
