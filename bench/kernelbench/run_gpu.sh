#!/usr/bin/env bash
# Evaluate the whole bench/kernelbench suite on a GPU host in one call.
#
# Needs: a CUDA GPU, PyTorch with CUDA, and either argus built on this host
# (the _argus extension) or a prepared batch (below; docs/Agents.md "Where it
# runs"). Writes, under OUT (default
# bench/kernelbench/results-<host>-<date>):
#   records.jsonl  one evaluation record per task, as they finish (rerun to resume)
#   results.json   {"summary": ..., "records": [...]}
#   table.txt      the table and the summary line (correct, fast_0.8, fast_1, geomean)
#   env.txt        GPU, driver, torch and argus versions
# Without argus built on the GPU host (no MLIR there), prepare a batch on a
# machine with argus built and carry it (with this repository's python/):
#   here:  PYTHONPATH=build/python:python python3 -m argus.kernelbench prepare \
#              bench/kernelbench --out kb-batch
#   there: bench/kernelbench/run_gpu.sh OUT --prepared kb-batch
# (the proofs and kernels then come from the batch: argus.aot exports).
# Usage: bench/kernelbench/run_gpu.sh [OUT] [extra argus-kernelbench suite options]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$here/results-$(hostname)-$(date +%Y%m%d-%H%M)}
shift || true
mkdir -p "$out"
build=${ARGUS_BUILD:-$root/build}
export PYTHONPATH="$build/python:$root/python${PYTHONPATH:+:$PYTHONPATH}"
py=${PYTHON:-python3}
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
  "$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  "$py" -c 'import argus; print("argus features", argus.features())' || true
  git -C "$root" rev-parse HEAD 2>/dev/null || true
} > "$out/env.txt" 2>&1
cat "$out/env.txt"
"$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else "no CUDA GPU visible to torch")'
"$py" -m argus.kernelbench suite "$here" --seeds 5 --timeout 1800 \
    --log "$out/records.jsonl" --resume --json "$out/results.json" "$@" | tee "$out/table.txt"
