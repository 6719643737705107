#!/usr/bin/env python3
"""Mutation fuzzing of argus-run's spec reader (``argus-run --validate``).

Each mutant is one of the given JSON specs with a few random edits, either
structural (a value replaced by one of another type or an extreme number, a
key deleted or renamed, an array emptied or nested) or textual (a character
deleted, inserted or swapped, the text cut short). ``argus-run --validate``
must exit 0 (valid) or 2 (bad spec, with a message): a signal, another
status, no message on stderr for status 2, or a timeout is a failure, and
the mutant is kept for reproduction. Prints one summary line.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time

EXTREMES = [0, -1, 1, 2**31 - 1, 2**31, 2**32, 2**63 - 1, -2**63, 2**64, 10**30,
            1e300, -1e300, 0.5, float("nan"), "", "x", None, True, [], {}]


def paths(v, prefix=()):
    yield prefix
    if isinstance(v, dict):
        for k, x in v.items():
            yield from paths(x, prefix + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from paths(x, prefix + (i,))


def get(v, p):
    for k in p:
        v = v[k]
    return v


def structural(spec, rng):
    spec = json.loads(json.dumps(spec))
    for _ in range(rng.randint(1, 3)):
        ps = [p for p in paths(spec) if p]
        if not ps:
            break
        p = rng.choice(ps)
        parent = get(spec, p[:-1])
        op = rng.randrange(4)
        if op == 0:
            parent[p[-1]] = rng.choice(EXTREMES)
        elif op == 1 and isinstance(parent, dict):
            del parent[p[-1]]
        elif op == 1:
            parent.pop(p[-1])
        elif op == 2 and isinstance(parent, dict):
            parent[p[-1] + "_"] = parent.pop(p[-1])
        else:
            parent[p[-1]] = [parent[p[-1]]] if rng.random() < 0.5 else []
    return json.dumps(spec, allow_nan=True)


def textual(text, rng):
    for _ in range(rng.randint(1, 3)):
        if not text:
            break
        i = rng.randrange(len(text))
        op = rng.randrange(4)
        if op == 0:
            text = text[:i] + text[i + 1:]
        elif op == 1:
            text = text[:i] + rng.choice('{}[]",:0-9e.x\\') + text[i:]
        elif op == 2 and i + 1 < len(text):
            text = text[:i] + text[i + 1] + text[i] + text[i + 2:]
        else:
            text = text[:i]
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", default="argus-run")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", default="1",
                    help="an integer, or 'date' for today's (a rotating seed)")
    ap.add_argument("--work-dir", required=True, help="where mutants are written")
    ap.add_argument("--crash-dir", default=None)
    ap.add_argument("specs", nargs="+")
    args = ap.parse_args()
    seed = int(time.strftime("%Y%m%d")) if args.seed == "date" else int(args.seed)
    print(f"seed {seed}")
    rng = random.Random(seed)
    os.makedirs(args.work_dir, exist_ok=True)
    originals = []
    for p in args.specs:
        spec = json.load(open(p))
        # Module paths made absolute: the mutants live in the work dir.
        if isinstance(spec, dict) and isinstance(spec.get("module"), str):
            spec["module"] = os.path.join(os.path.dirname(os.path.abspath(p)), spec["module"])
        originals.append((p, json.dumps(spec, indent=1)))
    failures = valid = 0
    for n in range(args.count):
        path, text = rng.choice(originals)
        if rng.random() < 0.6:
            mutant = structural(json.loads(text), rng)
        else:
            mutant = textual(text, rng)
        mpath = os.path.join(args.work_dir, f"mutant-{n}.json")
        with open(mpath, "w") as f:
            f.write(mutant)
        try:
            r = subprocess.run([args.tool, mpath, "--validate", "--quiet"],
                               capture_output=True, text=True, timeout=30)
            bad = (r.returncode not in (0, 2) or
                   (r.returncode == 2 and not r.stderr.strip()))
            why = f"exit {r.returncode}"
            valid += r.returncode == 0
        except subprocess.TimeoutExpired:
            bad, why = True, "timeout"
        finally:
            os.unlink(mpath)
        if bad:
            failures += 1
            print(f"FAIL ({why}) on a mutant of {path}", file=sys.stderr)
            if args.crash_dir:
                os.makedirs(args.crash_dir, exist_ok=True)
                with open(os.path.join(args.crash_dir, f"spec-{n}.json"), "w") as f:
                    f.write(mutant)
    print(f"spec mutants: {args.count}, valid: {valid}, failures: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
