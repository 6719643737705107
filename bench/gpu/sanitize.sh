#!/usr/bin/env bash
# sanitize.sh - compute-sanitizer (memcheck and racecheck) over every example
# kernel that runs on NVIDIA and over the probe-buffer overflow case, on the
# GPU machine, in one call.
#
#   here:   bash bench/lowering/compile.sh build/bin/argus-opt --size 512 --reps 1
#           bash bench/gpu/sanitize_controls.sh build/bin/argus-opt
#           bash bench/gpu/stage_runtime.sh
#   there:  bash bench/gpu/sanitize.sh  (carry bench/lowering/ptx and runtime/third_party)
#
# Builds the standalone runtime, runs `argus-run` on each spec under both
# tools and prints a table of errors / hazards per kernel (logs under $OUT).
# The gfx942 examples (gemm_mfma, flash attention, MoE) have no NVIDIA
# lowering and are not run.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-bench/gpu/sanitize-out}"
mkdir -p "$out"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
[ -n "$cs" ] || { echo "compute-sanitizer not found"; exit 1; }
"$cs" --version | tail -1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
[ -f runtime/third_party/nlohmann/json.hpp ] || [ -f /usr/include/nlohmann/json.hpp ] ||
  echo "WARNING: no nlohmann/json headers: run bench/gpu/stage_runtime.sh on the dev machine and carry runtime/third_party"
gen=Ninja; command -v ninja >/dev/null || gen="Unix Makefiles"
cmake -S runtime -B /tmp/argus-rt -G "$gen" -DCMAKE_BUILD_TYPE=Release >/tmp/cmake.log 2>&1 &&
  cmake --build /tmp/argus-rt -j "$(nproc)" >>/tmp/cmake.log 2>&1 ||
  { tail -30 /tmp/cmake.log; exit 1; }
run=/tmp/argus-rt/bin/argus-run
specs=bench/lowering/ptx/specs
[ -d "$specs" ] || { echo "no $specs: run bench/lowering/compile.sh here and carry bench/lowering/ptx"; exit 1; }

# name:spec:tools
cases=()
for k in gemm_mma_sync gemm_pipelined_2stage gemm_pipelined_3stage gemm_wgmma; do
  cases+=("$k:$specs/$k.json:memcheck racecheck synccheck")
  cases+=("$k+probes:$specs/$k.probes.json:memcheck racecheck")
done
cases+=("probe_gemm overflow:bench/gpu/specs/probe_gemm_overflow.json:memcheck racecheck")
# Controls, which the tools must flag (else a clean table means nothing):
# two bug-corpus kernels the verifier rejects (a cp.async group read before
# its wait; the consumer reading the stage being filled), and the 2-stage
# GEMM given an A one row short.
for s in bug_missing_wait bug_consumer_reads_next_stage oob_small_A; do
  [ -f "$specs/$s.json" ] && cases+=("control $s:$specs/$s.json:memcheck racecheck")
done

summary() { # tool log -> "N"
  case "$1" in
    racecheck) grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazard' "$2" | grep -Eo '[0-9]+' | head -1 ;;
    *) grep -Eo 'ERROR SUMMARY: [0-9]+ error' "$2" | grep -Eo '[0-9]+' | head -1 ;;
  esac
}

table="| kernel | tool | errors / hazards | argus-run exit |"$'\n'"| --- | --- | ---: | ---: |"
for c in "${cases[@]}"; do
  name="${c%%:*}"; rest="${c#*:}"; spec="${rest%%:*}"; tools="${rest#*:}"
  for tool in $tools; do
    log="$out/$(echo "$name" | tr ' +' '__').$tool.log"
    # Padding between allocations: an overrun of one buffer would otherwise
    # land in the next one, which memcheck takes for a valid access.
    pad=(); [ "$tool" = memcheck ] && pad=(--padding 65536)
    timeout 120 "$cs" --tool "$tool" "${pad[@]}" --print-limit 20 "$run" "$spec" >"$log" 2>&1
    rc=$?
    n=$(summary "$tool" "$log")
    table+=$'\n'"| $name | $tool | ${n:-?} | $rc |"
    echo "$name $tool: ${n:-?} (exit $rc)"
  done
done
echo
echo "$table" | tee "$out/table.md"
