#!/usr/bin/env bash
# The long fuzz run outside CI (issue 13): N inputs per target (default
# 100000) through argus-opt's parser and verifiers, the passes users run,
# argus-run --validate and the Python bindings in process, with a seed per
# run (default: today's). Prints one count line per target; failures keep
# their inputs under OUT (default fuzz-long-out).
#
#   test/fuzz/long_run.sh [N] [build dir]     (about 10 mutants/s per core
#                                              for the passes, 130/s specs)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-100000}
build=${2:-$root/build}
out=${OUT:-$root/fuzz-long-out}
seed=${ARGUS_FUZZ_SEED:-$(date +%Y%m%d)}
mkdir -p "$out"
export PATH="$build/bin:$PATH"
status=0
run() { # name command...
  local name=$1; shift
  local t0=$SECONDS
  "$@" >"$out/$name.log" 2>&1 || status=1
  echo "$name: $(grep -E 'mutants: [0-9]+' "$out/$name.log" | tail -1) ($((SECONDS - t0)) s)"
}
run argus-opt /usr/bin/python3 "$root/test/fuzz/mutate_argus_opt.py" --tool argus-opt \
  --count "$n" --seed "$seed" --crash-dir "$out/argus-opt" \
  "$root"/examples/*.mlir "$root"/test/lit/Dialect/roundtrip.mlir
run passes /usr/bin/python3 "$root/test/fuzz/mutate_argus_opt.py" --tool argus-opt \
  --count "$n" --seed "$seed" --max-edits 1 --crash-dir "$out/passes" \
  --pass=--argus-verify-tags --pass=--argus-insert-probes --pass=--argus-to-gpu \
  --pass=--argus-to-nvptx --pass=--argus-to-gfx942 "$root"/examples/*.mlir
run specs /usr/bin/python3 "$root/test/fuzz/mutate_specs.py" --tool argus-run \
  --count "$n" --seed "$seed" --work-dir "$out/spec-work" --crash-dir "$out/specs" \
  "$root"/bench/gpu/specs/*.json "$root"/bench/gpu/specs-errors/*.json
PYTHONPATH="$build/python:$root/python" run bindings /usr/bin/python3 \
  "$root/test/fuzz/fuzz_bindings.py" --count "$n" --seed "$seed" \
  --work-dir "$out/bindings-work" "$root"/examples/*.mlir
exit $status
