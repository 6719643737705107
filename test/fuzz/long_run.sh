#!/usr/bin/env bash
# The long fuzz run outside CI (issue 13): N inputs per target (default
# 100000) through argus-opt's parser and verifiers, the passes users run,
# argus-run --validate and the Python bindings in process, with a seed per
# run (default: today's). Prints one count line per target; failures keep
# their inputs under OUT (default fuzz-long-out).
#
#   test/fuzz/long_run.sh [N] [build dir]
#
# TARGETS (default "argus-opt passes specs bindings dsl") picks targets, JOBS
# (default: the cores) the processes per target, TIME_BUDGET (seconds) stops
# starting new inputs after that long. argus-opt gets batches of 500 mutants
# as one --split-input-file input (a failing batch is rerun one mutant per
# process, which keeps the mutant); the passes get each batch's valid
# mutants, only IR not run before (--dedup); the bindings one interpreter
# per shard of 500 mutants, again only IR not run before, in at most 8 GiB.
#
# Measured (seed 20261201, JOBS=2 on 2 cores shared with other builds, nice
# 15, load 9-12, the three targets at once): argus-opt 100,000 mutants in
# 46 min (36/s); the passes 17,800 in 47 min (6.3/s; 3,280 valid, 462
# distinct IR; ~1.3 CPU s per distinct IR, mostly Z3 and the gfx942
# backend); the bindings 21,153 in 54 min (6.5/s). Specs: 130/s.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-100000}
build=${2:-$root/build}
out=${OUT:-$root/fuzz-long-out}
seed=${ARGUS_FUZZ_SEED:-$(date +%Y%m%d)}
targets=${TARGETS:-argus-opt passes specs bindings dsl}
jobs=${JOBS:-$(nproc)}
budget=()
[ -n "${TIME_BUDGET:-}" ] && budget=(--time-budget "$TIME_BUDGET")
mkdir -p "$out"
export PATH="$build/bin:$PATH"
status=0
run() { # name command...
  local name=$1; shift
  [[ " $targets " == *" $name "* ]] || return 0
  local t0=$SECONDS
  "$@" >"$out/$name.log" 2>&1 || status=1
  echo "$name: $(grep -E '^(valid|parsed|mutants run|distinct|built)' "$out/$name.log" |
    sed 's/ through --argus-verify-tags.*:/ through the passes:/' | paste -sd';' -);" \
    "$(grep -E '(mutants|programs): [0-9]+' "$out/$name.log" | tail -1) ($((SECONDS - t0)) s)"
}
run argus-opt /usr/bin/python3 "$root/test/fuzz/mutate_argus_opt.py" --tool argus-opt \
  --count "$n" --seed "$seed" --jobs "$jobs" --batch 500 "${budget[@]}" \
  --crash-dir "$out/argus-opt" \
  "$root"/examples/*.mlir "$root"/test/lit/Dialect/roundtrip.mlir
run passes /usr/bin/python3 "$root/test/fuzz/mutate_argus_opt.py" --tool argus-opt \
  --count "$n" --seed "$seed" --jobs "$jobs" --batch 200 --dedup "${budget[@]}" \
  --max-edits 1 --crash-dir "$out/passes" \
  --pass=--argus-verify-tags --pass=--argus-insert-probes --pass=--argus-to-gpu \
  --pass=--argus-to-nvptx --pass=--argus-to-gfx942 "$root"/examples/*.mlir
run specs /usr/bin/python3 "$root/test/fuzz/mutate_specs.py" --tool argus-run \
  --count "$n" --seed "$seed" --work-dir "$out/spec-work" --crash-dir "$out/specs" \
  "$root"/bench/gpu/specs/*.json "$root"/bench/gpu/specs-errors/*.json
PYTHONPATH="$build/python:$root/python" run bindings /usr/bin/python3 \
  "$root/test/fuzz/fuzz_bindings.py" --count "$n" --seed "$seed" --jobs "$jobs" \
  --batch 1000 --dedup --memory-gb 8 "${budget[@]}" --work-dir "$out/bindings-work" "$root"/examples/*.mlir
# DSL programs with out-of-range scalars and odd dtypes (fuzz_dsl.py).
PYTHONPATH="$build/python:$root/python" run dsl /usr/bin/python3 \
  "$root/test/fuzz/fuzz_dsl.py" --count "$n" --seed "$seed" --jobs "$jobs" \
  --work-dir "$out/dsl-work"
exit $status
