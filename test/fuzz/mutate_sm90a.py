#!/usr/bin/env python3
"""Protocol mutants of the sm_90a examples, for the verifier against the
concrete model (ArgusVerifyTests "[.mutants]").

Each mutant is one edit of a synchronisation-relevant line: an index
constant changed (N -> N - 1, N + 1, 2 N, N / 2, 0, 1), a wait depth
changed (wgmma_wait, tma_store_wait), a synchronisation op deleted
(mbarrier wait or arrive, fence, barrier, commit, wait), or an index operand
of a ring op (mbarrier wait / arrive / expect_tx, stage, tma_load) replaced
by another index value named before it in the same role. Mutants that do
not parse are left for the test to skip. Files: OUT/<example>@<n>.mlir.

    python3 test/fuzz/mutate_sm90a.py --out /tmp/mutants --per-file 12 --seed 1
    ARGUS_MUTANTS=/tmp/mutants build/bin/ArgusVerifyTests "[.mutants]"
"""

import argparse
import os
import random
import re

EXAMPLES = ["gemm_tma_ws", "gemm_tma_store_ws", "gemm_tma_cluster_ws",
            "moe_grouped_gemm_ws", "flash_attention_ws"]
SYNC_OPS = ("argus.mbarrier.wait", "argus.mbarrier.arrive ", "argus.fence_proxy_async",
            "argus.barrier", "argus.wgmma_commit", "argus.tma_store_wait")
RING_OPS = ("argus.mbarrier.wait", "argus.mbarrier.arrive", "argus.stage", "argus.tma_load")
CONST = re.compile(r"^(\s*%\w+ = arith\.constant )(\d+)( : index)")
DEPTH = re.compile(r"(argus\.(?:wgmma_wait|tma_store_wait) )(\d+)")
DEF = re.compile(r"^\s*(%\w+) = arith\.\w+ .*: index$")


def mutants(lines, rng):
    """Yields (description, new lines) for one random edit at a time."""
    consts = [i for i, l in enumerate(lines) if CONST.match(l)]
    depths = [i for i, l in enumerate(lines) if DEPTH.search(l)]
    syncs = [i for i, l in enumerate(lines)
             if any(op in l for op in SYNC_OPS) and "=" not in l.split("argus.")[0]]
    rings = [i for i, l in enumerate(lines) if any(op in l for op in RING_OPS)]
    kinds = [k for k, pool in (("const", consts), ("depth", depths), ("delete", syncs),
                               ("operand", rings)) if pool]
    while True:
        kind = rng.choice(kinds)
        new = list(lines)
        if kind == "const":
            i = rng.choice(consts)
            m = CONST.match(lines[i])
            n = int(m.group(2))
            v = rng.choice([n - 1, n + 1, 2 * n, n // 2, 0, 1])
            if v == n or v < 0:
                continue
            new[i] = CONST.sub(lambda m: f"{m.group(1)}{v}{m.group(3)}", lines[i])
            yield f"line {i + 1}: constant {n} -> {v}", new
        elif kind == "depth":
            i = rng.choice(depths)
            n = int(DEPTH.search(lines[i]).group(2))
            v = rng.choice([n + 1, max(n - 1, 0)])
            if v == n:
                continue
            new[i] = DEPTH.sub(lambda m: f"{m.group(1)}{v}", lines[i], count=1)
            yield f"line {i + 1}: depth {n} -> {v}", new
        elif kind == "delete":
            i = rng.choice(syncs)
            new[i] = "// deleted: " + lines[i].strip()
            yield f"line {i + 1}: deleted {lines[i].strip()[:40]}", new
        else:
            i = rng.choice(rings)
            used = re.findall(r"%\w+", lines[i])
            # index values defined before the line, inside the same region
            names = []
            for j in range(i - 1, -1, -1):
                if "argus.role" in lines[j] or lines[j].startswith("func.func"):
                    break
                m = DEF.match(lines[j])
                if m:
                    names.append(m.group(1))
            cands = [u for u in used[1:] if u in names or re.match(r"%(c\d+|s|i|kt)$", u)]
            if not cands or not names:
                continue
            old, to = rng.choice(cands), rng.choice(names)
            if old == to:
                continue
            new[i] = re.sub(re.escape(old) + r"\b", to, lines[i], count=1)
            yield f"line {i + 1}: {old} -> {to}", new


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-file", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    root = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "sm90a")
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    for name in EXAMPLES:
        with open(os.path.join(root, name + ".mlir")) as f:
            lines = f.read().split("\n")
        seen = set()
        gen = mutants(lines, rng)
        n = 0
        while n < args.per_file:
            desc, new = next(gen)
            text = "\n".join(new)
            if text in seen:
                continue
            seen.add(text)
            with open(os.path.join(args.out, f"{name}@{n}.mlir"), "w") as f:
                f.write(f"// mutant: {desc}\n" + text)
            n += 1
    print(f"{len(EXAMPLES) * args.per_file} mutants in {args.out}")


if __name__ == "__main__":
    main()
