#!/bin/sh
# GPU machine: build the standalone runtime, run every spec an index of
# bench/measure/gen lists (prepare_completion.py: completion_index.json,
# prepare_partition.py: partition_index.json) and print the table of the
# given table script. Carry runtime/third_party and bench/measure/gen.
#   sh bench/measure/run_specs_h200.sh completion_index.json table_completion.py
set -u
index=$1 table=$2
cd "$(dirname "$0")/../.."
echo "$(date +%T) building the runtime"
sh bench/measure/build_runtime.sh || exit 1
out=${OUT:-/tmp/measure-out}
mkdir -p "$out"
specs=$(python3 -c "import json, sys; i = json.load(open(sys.argv[1])); print(' '.join(r['spec'] for k in i.values() for r in k['runs']))" "bench/measure/gen/$index")
for name in $specs; do
  echo "$(date +%T) $name"
  (cd bench/measure/gen && timeout "${SPEC_TIMEOUT:-120}" /tmp/argus-rt/bin/argus-run \
    "$name.json" --report "$out/$name.report.json" --quiet) || echo "$name: argus-run exit $?"
done
python3 "bench/measure/$table" "$out"
