#!/usr/bin/env python3
"""Mutation fuzzing of the Python bindings, in process.

Mutants of the example kernels (the edits of mutate_argus_opt.py) go
through what a Python user calls: ``argus.parse``, ``Module.verify_tags``
and the lowering pipelines through ``Module.run_pipeline``, all inside one
worker interpreter. An argus exception (a diagnosed input) is fine; any
other exception, or the worker dying (a crash, an abort, an LLVM fatal
error calling exit), is a failure and the mutant is kept. The worker is
restarted after a death and goes on with the next mutant. Prints one
summary line.

    PYTHONPATH=build/python:python fuzz_bindings.py --count 200 examples/*.mlir
"""

import argparse
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mutate_argus_opt import mutate  # noqa: E402

PIPELINES = ["argus-insert-probes", "argus-to-nvptx", "argus-to-gfx942"]


def worker(mutant_dir, start, count, progress):
    """Runs mutants start.. in this process, writing the index of each to
    `progress` before touching it (so the parent knows which one killed it)."""
    import argus
    from argus.errors import ArgusError
    unexpected = 0
    for i in range(start, count):
        with open(progress, "w") as f:
            f.write(str(i))
        text = open(os.path.join(mutant_dir, f"{i}.mlir")).read()
        try:
            m = argus.parse(text, f"mutant-{i}.mlir")
        except ArgusError:
            continue
        steps = [lambda: m.verify_tags(timeout_ms=2000)]
        steps += [lambda p=p: m.clone().run_pipeline(p, check=False) for p in PIPELINES]
        for step in steps:
            try:
                step()
            except (ArgusError, ValueError):
                pass
            except Exception as e:  # a C++ exception or a Python bug
                unexpected += 1
                print(f"UNEXPECTED {type(e).__name__} on mutant {i}: {e}", flush=True)
                with open(os.path.join(mutant_dir, f"unexpected-{i}"), "w"):
                    pass
    with open(progress, "w") as f:
        f.write(str(count))
    return 1 if unexpected else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", default="1",
                    help="an integer, or 'date' for today's (a rotating seed)")
    ap.add_argument("--work-dir", default="fuzz-bindings")
    ap.add_argument("--worker", nargs=2, type=int, help=argparse.SUPPRESS)
    ap.add_argument("inputs", nargs="*")
    args = ap.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    progress = os.path.join(args.work_dir, "progress")
    if args.worker:
        return worker(args.work_dir, args.worker[0], args.worker[1], progress)
    seed = int(time.strftime("%Y%m%d")) if args.seed == "date" else int(args.seed)
    print(f"seed {seed}", flush=True)
    rng = random.Random(seed)
    seeds = [open(p).read() for p in args.inputs]
    for i in range(args.count):
        with open(os.path.join(args.work_dir, f"{i}.mlir"), "w") as f:
            f.write(mutate(rng.choice(seeds), rng, 1))
    deaths = []
    start = 0
    while start < args.count:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--work-dir",
                            args.work_dir, "--worker", str(start), str(args.count)])
        done = int(open(progress).read())
        if done >= args.count:
            break
        deaths.append((done, r.returncode))
        print(f"FAIL: the interpreter died (status {r.returncode}) on "
              f"{os.path.join(args.work_dir, f'{done}.mlir')}", flush=True)
        start = done + 1
    unexpected = [n for n in os.listdir(args.work_dir) if n.startswith("unexpected-")]
    print(f"binding mutants: {args.count}, interpreter deaths: {len(deaths)}, "
          f"unexpected exceptions: {len(unexpected)}")
    return 1 if deaths or unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
