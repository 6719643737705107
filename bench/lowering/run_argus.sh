#!/usr/bin/env bash
# On the GPU machine, in one call: build the runtime standalone, run the
# lowered sm_90a GEMMs (PTX + specs from compile.sh, carried as
# bench/lowering/ptx/) through `argus-run --batch`, time torch.matmul on the
# same shape, and print the table. Results under $OUT (or bench/lowering/out):
# table.md, summary.json, results.json (the batch), reports.tar.gz (every run
# report), trace.json (Chrome trace of the 2-stage kernel with probes),
# argus-run.log.
#
#   bench/lowering/run_argus.sh [--size 4096]
# The runtime needs the nlohmann/json headers: run bench/gpu/stage_runtime.sh
# here first and carry runtime/third_party.
set -uo pipefail
cd "$(dirname "$0")/../.."
here=bench/lowering
out="${OUT:-$here/out}"
mkdir -p "$out"
size=4096
[ "${1:-}" = "--size" ] && size="$2"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv || true
gen=Ninja; command -v ninja >/dev/null || gen="Unix Makefiles"
cmake -S runtime -B /tmp/argus-rt -G "$gen" -DCMAKE_BUILD_TYPE=Release >/tmp/cmake.log 2>&1 &&
  cmake --build /tmp/argus-rt -j "$(nproc)" >>/tmp/cmake.log 2>&1 ||
  { tail -30 /tmp/cmake.log; exit 1; }
echo "runtime built: /tmp/argus-rt/bin/argus-run"
specs="$here/ptx/specs"
rm -rf /tmp/argus-out && mkdir -p /tmp/argus-out
/tmp/argus-rt/bin/argus-run --batch "$specs" --out-dir /tmp/argus-out --trace-blocks 2 \
  2>&1 | tee "$out/argus-run.log"
cp "$specs/results.json" "$out/results.json"
PYTHONUNBUFFERED=1 python3 "$here/torch_matmul.py" --size "$size" > /tmp/argus-out/torch.json
python3 "$here/table.py" "$out/results.json" /tmp/argus-out /tmp/argus-out/torch.json \
  "$out/summary.json" | tee "$out/table.md"
trace=/tmp/argus-out/gemm_pipelined_2stage.probes.trace.json
[ -f "$trace" ] && cp "$trace" "$out/trace.json"
# The exchange lowerings (reduce / broadcast / convert_layout) on the device.
[ -f "$here/ptx/exchange_sm90.ptx" ] &&
  PYTHONUNBUFFERED=1 python3 "$here/exchange_check.py" 2>&1 | tee "$out/exchange_check.log"
tar czf "$out/reports.tar.gz" -C /tmp/argus-out .
ls -la "$out"
