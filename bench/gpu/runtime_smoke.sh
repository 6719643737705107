#!/usr/bin/env bash
# runtime_smoke.sh - build the standalone Argus runtime on a GPU machine and
# run argus-run on the hand-written probe GEMM (bench/gpu/probe_gemm.ptx).
#
# Usage, from anywhere:  bash bench/gpu/runtime_smoke.sh [OUTDIR]
# First, on the dev machine: bash bench/gpu/stage_runtime.sh, and carry
# runtime/third_party (the nlohmann/json headers; see docs/Runtime.md).
# OUTDIR defaults to $OUT (the device tool's folder) or ./runtime-smoke-out.
# Needs: cmake, a C++17 compiler, the NVIDIA driver (libcuda.so.1). No MLIR,
# no CUDA toolkit headers (the runtime dlopens the driver); python3+torch is
# optional (a cuBLAS reference time for context).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUTDIR=${1:-${OUT:-$PWD/runtime-smoke-out}}
BUILD=${ARGUS_SMOKE_BUILD:-/tmp/argus-build-rt}
mkdir -p "$OUTDIR"
exec > >(tee "$OUTDIR/smoke.log") 2>&1

step() { echo; echo "==== $* ===="; }

step "GPU"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,utilization.gpu --format=csv 2>&1 || nvidia-smi 2>&1 || echo "nvidia-smi not available"

step "build the standalone runtime"
[ -f "$ROOT/runtime/third_party/nlohmann/json.hpp" ] || [ -f /usr/include/nlohmann/json.hpp ] ||
  echo "WARNING: no nlohmann/json headers: run bench/gpu/stage_runtime.sh on the dev machine and carry runtime/third_party"
GEN=()
if command -v ninja >/dev/null 2>&1; then GEN=(-G Ninja); fi
cmake -S "$ROOT/runtime" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release >"$BUILD.cmake.log" 2>&1 \
  || { cat "$BUILD.cmake.log"; echo "FAIL: cmake configure"; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" 2>&1 | tail -3
RUN="$BUILD/bin/argus-run"
[ -x "$RUN" ] || { echo "FAIL: argus-run was not built"; exit 1; }

step "argus-run: probe GEMM 1024^3 (report + Chrome trace of the first 64 blocks)"
"$RUN" "$ROOT/bench/gpu/specs/probe_gemm.json" \
  --report "$OUTDIR/report.json" --trace "$OUTDIR/trace.json" --trace-blocks 64
echo "exit code: $?"

step "argus-run --batch bench/gpu/specs (probes, overflow, no probes)"
BATCH=/tmp/argus-smoke-batch
rm -rf "$BATCH"; cp -r "$ROOT/bench/gpu/specs" "$BATCH"; cp "$ROOT/bench/gpu/probe_gemm.ptx" /tmp/
"$RUN" --batch "$BATCH" --trace-blocks 4
echo "exit code: $?"
cp "$BATCH/results.json" "$OUTDIR/results.json"
cp "$BATCH/out/probe_gemm_overflow.report.json" "$OUTDIR/overflow.report.json" 2>/dev/null

step "error paths (expect exit 4 bad PTX, 5 bad launch, 4 missing kernel, 3 no driver)"
for s in bad_ptx bad_launch bad_kernel; do
  "$RUN" "$ROOT/bench/gpu/specs-errors/$s.json" --quiet
  echo "$s: exit code $?"
done
"$RUN" "$ROOT/bench/gpu/specs/probe_gemm.json" --cuda-lib libcuda-does-not-exist.so --hip-lib libhip-does-not-exist.so
echo "no-driver: exit code $?"

step "cuBLAS fp16 GEMM 1024^3 through torch (context only)"
python3 - <<'PY' 2>&1 || echo "torch reference skipped"
import torch
a = torch.rand(1024, 1024, device="cuda", dtype=torch.half) * 2 - 1
b = torch.rand(1024, 1024, device="cuda", dtype=torch.half) * 2 - 1
for _ in range(10): a @ b
times = []
for _ in range(50):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); a @ b; e.record(); e.synchronize(); times.append(s.elapsed_time(e))
times.sort()
print(f"torch fp16 matmul 1024^3: median {times[25]*1e3:.1f} us, min {times[0]*1e3:.1f} us, "
      f"{2*1024**3/(times[25]*1e-3)/1e12:.1f} TFLOP/s")
PY

step "summary"
python3 - "$OUTDIR" <<'PY' 2>&1 || echo "(python3 summary failed)"
import json, sys, os
d = sys.argv[1]
rep = json.load(open(os.path.join(d, "report.json")))
t = rep["timing"]; c = rep.get("check") or {}
print(f"kernel {rep['kernel']['name']} on {rep['device']['name']}: median {t['median']['value']*1e3:.1f} us, "
      f"min {t['min']['value']*1e3:.1f} us, p90 {t['p90']['value']*1e3:.1f} us, "
      f"{rep['throughput']['tflops_median']['value']:.2f} TFLOP/s; check passed={c.get('passed')} "
      f"max_abs_err={c.get('max_abs_err')} rel_fro_err={c.get('rel_fro_err')}")
p = rep["probes"]; b = p["buffer"]
print(f"probes: records {b['records']['value']}, dropped {b['dropped']['value']}, anomalies "
      + json.dumps({k: v for k, v in b['anomalies'].items() if k not in ('messages', 'provenance')}))
for r in p["regions"]:
    v = lambda k: r[k]["value"]
    print(f"  {r['name']:10s} id {r['id']} count {v('count'):6d} mean {v('mean'):8.1f} p50 {v('p50'):8.1f} "
          f"p90 {v('p90'):8.1f} p99 {v('p99'):8.1f} min {v('min'):8.1f} max {v('max'):8.1f} {r['unit']} "
          f"hw_ids {len(v('hw_ids'))}")
    it = r["per_iteration"]["iterations"]
    print("    per-iteration mean (first 4 / last): " +
          ", ".join(f"it{x['iteration']}={x['mean']:.0f}" for x in it[:4]) + f", it{it[-1]['iteration']}={it[-1]['mean']:.0f}")
res = json.load(open(os.path.join(d, "results.json")))
for e in res["results"]:
    print(f"batch {e.get('name')}: {e['status']} exit {e['exit_code']} time_ms {e.get('time_ms')} probes {e.get('probes')}")
tr = json.load(open(os.path.join(d, "trace.json")))
print(f"trace: {len(tr['traceEvents'])} events, {sum(1 for e in tr['traceEvents'] if e['ph']=='X')} X events")
PY
ls -la "$OUTDIR"
