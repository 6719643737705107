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

``--jobs N`` splits the mutants into N contiguous shards, each with its own
worker (restarted the same way). ``--dedup`` (the long run, long_run.sh):
a mutant that parses into IR (as printed, without locations) its worker has
already sent through verify_tags and the pipelines is parsed but not sent
again; one-edit mutants that stay valid mostly differ only in comments or
spacing.

    PYTHONPATH=build/python:python fuzz_bindings.py --count 200 examples/*.mlir
"""

import argparse
import hashlib
import os
import random
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mutate_argus_opt import mutate  # noqa: E402

PIPELINES = ["argus-insert-probes", "argus-to-nvptx", "argus-to-gfx942"]


def worker(mutant_dir, start, count, progress, dedup, deadline, memory_gb=None):
    """Runs mutants start..count-1 in this process, writing the index of
    each to `progress` before touching it (so the parent knows which one
    killed it), with the number of those before it that parsed and, of
    those, the ones sent through the steps; then "done", where it stopped
    (count, or earlier past the `deadline`) and the same two numbers."""
    if memory_gb:  # a runaway input kills this worker, not the machine
        import resource
        limit = int(memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import argus
    from argus.errors import ArgusError
    unexpected = 0
    parsed = sent = 0
    seen_path = os.path.join(mutant_dir, "seen-ir")
    seen = set()
    if dedup and os.path.exists(seen_path):
        seen = set(open(seen_path).read().split())

    def mark(i, done=""):
        with open(progress, "w") as f:
            f.write(f"{done}{i} {parsed} {sent}")

    i = start
    for i in range(start, count):
        if deadline and time.time() > deadline:
            break
        mark(i)
        text = open(os.path.join(mutant_dir, f"{i}.mlir")).read()
        try:
            m = argus.parse(text, f"mutant-{i}.mlir")
        except ArgusError:
            continue
        parsed += 1
        if dedup:
            digest = hashlib.sha1(m.text().encode()).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            with open(seen_path, "a") as f:
                f.write(digest + "\n")
        sent += 1
        steps = [lambda: m.verify_tags(timeout_ms=2000)]
        # Every fourth mutant dumps to a full disk (issue 54: an LLVM fatal
        # error ended the interpreter); the pipeline must fail with a message.
        pipes = [p + "{dump=/dev/full}" if i % 4 == 0 and p.startswith("argus-to-") else p
                 for p in PIPELINES]
        steps += [lambda p=p: m.clone().run_pipeline(p, check=False) for p in pipes]
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
    else:
        i = count
    mark(i, "done ")
    return 1 if unexpected else 0


def run_shard(args, start, end, deaths, totals, lock):
    """Runs mutants start..end-1 in workers, restarting after each death;
    adds how many ran, parsed and were sent through the steps to `totals`."""
    progress = os.path.join(args.work_dir, f"progress-{start}")
    first = start
    parsed = sent = 0
    while start < end:
        cmd = [sys.executable, os.path.abspath(__file__), "--work-dir", args.work_dir,
               "--progress", progress, "--worker", str(start), str(end)]
        if args.dedup:
            cmd.append("--dedup")
        if args.deadline:
            cmd += ["--deadline", repr(args.deadline)]
        if args.memory_gb:
            cmd += ["--memory-gb", repr(args.memory_gb)]
        if os.path.exists(progress):
            os.remove(progress)
        r = subprocess.run(cmd)
        fields = open(progress).read().split() if os.path.exists(progress) else []
        finished = fields[:1] == ["done"]
        at, p, s = map(int, fields[finished:]) if fields else (start, 0, 0)
        parsed, sent = parsed + p, sent + s
        if finished:
            start = at
            break
        with lock:
            deaths.append((at, r.returncode))
            print(f"FAIL: the interpreter died (status {r.returncode}) on "
                  f"{os.path.join(args.work_dir, f'{at}.mlir')}", flush=True)
        start = at + 1
    with lock:
        totals[0] += start - first
        totals[1] += parsed
        totals[2] += sent


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", default="1",
                    help="an integer, or 'date' for today's (a rotating seed)")
    ap.add_argument("--work-dir", default="fuzz-bindings")
    ap.add_argument("--jobs", type=int, default=1,
                    help="worker interpreters at a time, each on its own shard")
    ap.add_argument("--dedup", action="store_true",
                    help="send parsed IR through the steps only once")
    ap.add_argument("--batch", type=int, default=0, metavar="N",
                    help="write and run N mutants at a time (fresh workers for "
                    "each N; the mutant files of a batch are removed after it "
                    "unless they failed); 0: all at once, all kept")
    ap.add_argument("--time-budget", type=float, default=None, metavar="S",
                    help="start no new mutant after S seconds")
    ap.add_argument("--memory-gb", type=float, default=None, metavar="G",
                    help="limit each worker's address space to G GiB (a mutant "
                    "that needs more kills its worker: a failure)")
    ap.add_argument("--worker", nargs=2, type=int, help=argparse.SUPPRESS)
    ap.add_argument("--progress", help=argparse.SUPPRESS)
    ap.add_argument("--deadline", type=float, help=argparse.SUPPRESS)
    ap.add_argument("inputs", nargs="*")
    args = ap.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    if args.worker:
        return worker(args.work_dir, args.worker[0], args.worker[1],
                      args.progress, args.dedup, args.deadline, args.memory_gb)
    seed = int(time.strftime("%Y%m%d")) if args.seed == "date" else int(args.seed)
    print(f"seed {seed}", flush=True)
    t0 = time.monotonic()
    args.deadline = (time.time() + args.time_budget
                     if args.time_budget is not None else None)
    rng = random.Random(seed)
    seeds = [open(p).read() for p in args.inputs]
    deaths = []
    totals = [0, 0, 0]  # mutants run, parsed, sent through the steps
    lock = threading.Lock()
    size = args.batch or args.count
    for pos in range(0, args.count, size):
        if args.deadline and time.time() > args.deadline:
            break
        end = min(args.count, pos + size)
        for i in range(pos, end):
            with open(os.path.join(args.work_dir, f"{i}.mlir"), "w") as f:
                f.write(mutate(rng.choice(seeds), rng, 1))
        jobs = max(1, min(args.jobs, end - pos))
        bounds = [pos + (end - pos) * k // jobs for k in range(jobs + 1)]
        threads = [threading.Thread(target=run_shard,
                                    args=(args, bounds[k], bounds[k + 1], deaths,
                                          totals, lock))
                   for k in range(jobs) if bounds[k] < bounds[k + 1]]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if args.batch:
            keep = {d for d, _ in deaths}
            keep |= {int(n.split("-")[1]) for n in os.listdir(args.work_dir)
                     if n.startswith("unexpected-")}
            for i in range(pos, end):
                if i not in keep and os.path.exists(os.path.join(args.work_dir, f"{i}.mlir")):
                    os.remove(os.path.join(args.work_dir, f"{i}.mlir"))
    elapsed = time.monotonic() - t0
    unexpected = [n for n in os.listdir(args.work_dir) if n.startswith("unexpected-")]
    if args.time_budget is not None:
        print(f"mutants run: {totals[0]} of {args.count} (time budget {args.time_budget:g}s)")
    print(f"parsed and verified: {totals[1]}, sent through verify_tags and the "
          f"pipelines: {totals[2]}; {elapsed:.0f} s, {totals[0] / max(elapsed, 1e-9):.1f} "
          f"mutants/s")
    print(f"binding mutants: {args.count}, interpreter deaths: {len(deaths)}, "
          f"unexpected exceptions: {len(unexpected)}")
    return 1 if deaths or unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
