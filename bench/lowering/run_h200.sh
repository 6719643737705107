#!/usr/bin/env bash
# On the GPU machine: check and time the argus sm_90a GEMMs compiled by
# compile.sh (carried as bench/lowering/ptx/), against torch.matmul, with
# probes off and on. Writes gemm_h200.json under $OUT (or bench/lowering/out).
#
#   bench/lowering/run_h200.sh [--size 4096] [--reps 50]
set -euo pipefail
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv || true
out="${OUT:-bench/lowering/out}"
mkdir -p "$out"
PYTHONUNBUFFERED=1 python3 bench/lowering/gemm_h200.py --out "$out" "$@" 2>&1 | tee "$out/gemm_h200.log"
