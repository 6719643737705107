#!/bin/sh
# GPU machine: build the standalone runtime, run the reference and the
# sync-site-probed pipelined GEMMs (bench/measure/gen, from prepare_sync.py),
# and print the table (bench/measure/table.py). Carry runtime/third_party.
set -u
cd "$(dirname "$0")/../.."
sh bench/measure/build_runtime.sh || exit 1
out=${OUT:-/tmp/measure-out}
mkdir -p "$out"
for pass in 1 2; do
  for spec in bench/measure/gen/*.ref.json bench/measure/gen/*.sync.json; do
    name=$(basename "$spec" .json)
    (cd bench/measure/gen && /tmp/argus-rt/bin/argus-run "$(basename "$spec")" \
      --report "$out/$name.p$pass.report.json" --quiet) || echo "$name: argus-run exit $?"
  done
done
python3 bench/measure/table.py "$out"
