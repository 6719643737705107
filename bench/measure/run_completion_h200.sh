#!/bin/sh
# GPU machine: build the standalone runtime, run every spec of
# bench/measure/gen/completion_index.json (prepare_completion.py: reference,
# site-trace and completion-probed variants of each kernel) and print the
# table (table_completion.py). Carry runtime/third_party and bench/measure/gen.
set -u
cd "$(dirname "$0")/../.."
gen=Ninja; command -v ninja >/dev/null || gen="Unix Makefiles"
echo "$(date +%T) building the runtime"
cmake -S runtime -B /tmp/argus-rt -G "$gen" -DCMAKE_BUILD_TYPE=Release >/tmp/cmake.log 2>&1 &&
  cmake --build /tmp/argus-rt -j "$(nproc)" >>/tmp/cmake.log 2>&1 ||
  { tail -30 /tmp/cmake.log; exit 1; }
out=${OUT:-/tmp/measure-out}
mkdir -p "$out"
specs=$(python3 -c "import json; i = json.load(open('bench/measure/gen/completion_index.json')); print(' '.join(r['spec'] for k in i.values() for r in k['runs']))")
for name in $specs; do
  echo "$(date +%T) $name"
  (cd bench/measure/gen && timeout "${SPEC_TIMEOUT:-120}" /tmp/argus-rt/bin/argus-run \
    "$name.json" --report "$out/$name.report.json" --quiet) || echo "$name: argus-run exit $?"
done
python3 bench/measure/table_completion.py "$out"
