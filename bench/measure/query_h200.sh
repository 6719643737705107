#!/bin/sh
# GPU machine: the collections of bench/measure/query_h200.py (the scripts
# OfflineExecutor wrote, in order, each timed, none started after DEADLINE
# seconds and each cut at it) and the all-in-one runs; the staging
# directories (results) go back as $OUT/staging.tgz. Carry bench/measure/gen
# and runtime/third_party.
set -u
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/query-out}
mkdir -p "$out"
start=$(date +%s)
deadline=${DEADLINE:-420}
sh bench/measure/build_runtime.sh || exit 1
here=$PWD/bench/measure/gen/query
want=/work/main/bench/measure/gen/query
# The scripts name the artifact directories by the path they had there.
if [ "$here" != "$want" ]; then
  mkdir -p "$(dirname "$want")" && ln -sfn "$here" "$want" || exit 1
fi
(cd "$here/all" && for n in $(cat specs.txt); do
  /tmp/argus-rt/bin/argus-run "$n.json" --report "$out/$n.all.report.json" --quiet || echo "$n: exit $?"
done)
: > "$out/script_times.txt"
for s in $(cat "$here/scripts.txt"); do
  left=$((deadline - ($(date +%s) - start)))
  [ "$left" -gt 5 ] || { echo "deadline: $s not run"; continue; }
  t0=$(date +%s.%N)
  timeout "$left" bash "$here/$s" > /dev/null 2>&1
  echo "$s $t0 $(date +%s.%N) $?" >> "$out/script_times.txt"
done
cd "$here" && tar czf "$out/staging.tgz" $(ls -d store/*/staging)
echo "exits: $(ls store/*/staging/*/exit | wc -l), bad: $(grep -L '^0$' store/*/staging/*/exit | wc -l)"
cat "$out/script_times.txt"
