#!/usr/bin/env bash
# hopper_smoke.sh - argus-run's Hopper launch paths on a real sm_90 GPU:
# tensor maps by value and by pointer (TMA copies that must reproduce their
# input), clusters through cuLaunchKernelEx, an "sms" persistent grid, and
# dynamic shared memory above 48 KiB (and its limit).
#
# Usage: bash bench/gpu/hopper/hopper_smoke.sh [OUTDIR]   (default $OUT or ./hopper-smoke-out)
# Needs cmake, a C++17 compiler and the NVIDIA driver. hopper_smoke.ptx is
# built from hopper_smoke.cu with: nvcc -arch=sm_90a -ptx hopper_smoke.cu
# First, on the dev machine: bash bench/gpu/stage_runtime.sh, and carry
# runtime/third_party (the nlohmann/json headers; see docs/Runtime.md).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUTDIR=${1:-${OUT:-$PWD/hopper-smoke-out}}
BUILD=${ARGUS_SMOKE_BUILD:-/tmp/argus-build-rt}
mkdir -p "$OUTDIR"
exec > >(tee "$OUTDIR/hopper_smoke.log") 2>&1
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
[ -f "$ROOT/runtime/third_party/nlohmann/json.hpp" ] || [ -f /usr/include/nlohmann/json.hpp ] ||
  echo "WARNING: no nlohmann/json headers: run bench/gpu/stage_runtime.sh on the dev machine and carry runtime/third_party"
GEN=()
if command -v ninja >/dev/null 2>&1; then GEN=(-G Ninja); fi
cmake -S "$ROOT/runtime" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release >"$BUILD.cmake.log" 2>&1 \
  || { cat "$BUILD.cmake.log"; echo "FAIL: cmake configure"; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" --target argus-run 2>&1 | tail -1
RUN="$BUILD/bin/argus-run"

WORK=$(mktemp -d)
mkdir -p "$WORK/specs"
cp "$HERE/hopper_smoke.ptx" "$WORK/"
cp "$HERE"/specs/*.json "$WORK/specs/"
head -c $((60 * 96 * 4)) /dev/urandom >"$WORK/specs/A.bin"

for s in tma_value tma_pointer cluster_sms; do
  echo; echo "==== $s ===="
  "$RUN" "$WORK/specs/$s.json" --report "$OUTDIR/$s.report.json"
  rc=$?
  [ $rc -eq 0 ] && pass "$s: exit 0" || fail "$s: exit $rc"
done
cmp "$WORK/specs/A.bin" "$WORK/specs/out_value.bin" \
  && pass "tensor map by value, 128B swizzle: out == A" || fail "by value: out != A"
cmp "$WORK/specs/A.bin" "$WORK/specs/out_pointer.bin" \
  && pass "tensor map by pointer, cluster 2: out == A" || fail "by pointer: out != A"
count=$(od -An -td4 "$WORK/specs/count.bin" | tr -d ' ')
sms=$(grep -o '"multiprocessors": [0-9]*' "$OUTDIR/cluster_sms.report.json" | grep -o '[0-9]*$')
echo "cluster_sms: $count blocks counted (SMs: ${sms:-unknown}, rounded down to clusters of 8)"
[ -n "$count" ] && [ -n "$sms" ] && [ "$count" -eq $((sms - sms % 8)) ] \
  && pass "\"sms\" grid in clusters of 8: $count blocks" || fail "cluster_sms count '$count'"

echo; echo "==== shared memory above the opt-in maximum (expect exit 5) ===="
sed 's/"shared_mem": 200000/"shared_mem": 240000/' "$WORK/specs/tma_value.json" >"$WORK/specs/smem_over.json"
"$RUN" "$WORK/specs/smem_over.json" --quiet
rc=$?
[ $rc -eq 5 ] && pass "240000 bytes refused (exit 5)" || fail "smem_over: exit $rc"

echo; [ $fails -eq 0 ] && echo "ALL PASS" || echo "$fails FAILED"
rm -rf "$WORK"
exit $fails
