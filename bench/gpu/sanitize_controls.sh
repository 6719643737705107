#!/usr/bin/env bash
# Controls for sanitize.sh (run here, after bench/lowering/compile.sh): two
# bug-corpus kernels lowered to PTX and an argument too small for its
# kernel (A one row short, no result check), each as an argus-run spec next
# to compile.sh's specs.
#
#   bash bench/gpu/sanitize_controls.sh [path/to/argus-opt]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
opt="${1:-$root/build/bin/argus-opt}"
ptx="$root/bench/lowering/ptx"
[ -f "$ptx/specs/gemm_pipelined_2stage.json" ] || { echo "run bench/lowering/compile.sh first"; exit 1; }
for bug in missing_wait consumer_reads_next_stage; do
  "$opt" "$root/test/lit/Verify/bugs/$bug.mlir" --argus-to-nvptx="dump=$ptx/bug_$bug.ptx" -o /dev/null
done
python3 - "$ptx/specs" <<'PY'
import json, sys
d = sys.argv[1]
base = json.load(open(f"{d}/gemm_pipelined_2stage.json"))
for bug in ["missing_wait", "consumer_reads_next_stage"]:
    s = dict(base, name="bug_" + bug, module=f"../bug_{bug}.ptx")
    json.dump(s, open(f"{d}/bug_{bug}.json", "w"), indent=1)
s = json.loads(json.dumps(base))
s["name"] = "oob_small_A"
s.pop("check", None)  # the result check would refuse the short A up front
for a in s["args"]:
    if a.get("name") == "A":
        a["shape"] = [a["shape"][0] - 1, a["shape"][1]]
json.dump(s, open(f"{d}/oob_small_A.json", "w"), indent=1)
PY
echo "wrote controls to $ptx/specs"
