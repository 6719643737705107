#!/usr/bin/env python3
"""Random DSL programs with out-of-range scalars and odd dtypes (issue 54).

Each program is a small kernel of the argus DSL (``@argus.kernel``) built
from random pieces: launches (block sizes of 0, negative, 2^31; unknown
targets), tensor shapes (negative, zero, 2^40), element types (every dtype,
f8, i1, and names that are none), register layouts (some with billions of
slots per thread), and ops meeting Python numbers far outside their tile's
range (2^64, 10^400, infinities, NaN, strings, None): fills, arithmetic,
maximum / minimum, where, iota, convert, and region IDs. Tracing it
(``kernel.ir()``) must give IR or raise an ``argus.ArgusError``; any other
exception (TypeError, KeyError, OverflowError, ``_argus.BuildError``, ...)
or a dead interpreter is a failure, and the program is kept as a Python
file under the work directory. One summary line.

    PYTHONPATH=build/python:python fuzz_dsl.py --count 300 --seed 54
"""

import argparse
import os
import random
import subprocess
import sys
import threading
import time

TARGETS = ["sm_90a"] * 6 + ["gfx942"] * 3 + ["sm_80", ""]
BLOCKS = ["64"] * 4 + ["128", "256", "0", "-1", "2048", "2**31", "(32, 2)", "(64, 1, 1)"]
SHAPES = ["(64, 64)"] * 6 + ["(-1, 64)", "(0, 64)", "(2**40, 64)", "('M', 'K')", "(64,)"]
DTYPES = (['"f32"'] * 4 + ['"f16"', '"bf16"', '"f64"', '"i8"', '"i32"', '"i64"', '"i1"',
          '"f8E4M3FN"', '"f8E4M3FNUZ"', '"f7"', '"int4"', "None", "3"])
LAYOUTS = (['"(64,64):(1,64)"'] * 6 +
           ['"(64,4294967295):(1,0)"', '"(64,65536):(1,0)"', '"(1,4096):(0,1)"',
            '"(128,32):(1,128)"', '"(64,64):(64,1)"', '"bad"', "None"])
SCALARS = ["0", "1", "-1", "0.5", "2**31", "2**63", "2**64", "-2**70", "10**400",
           "float('inf')", "float('-inf')", "float('nan')", "1e308", "True", "'1'",
           "None", "1e-320", "-0.0", "255", "256", "-129"]
BINOPS = ["add", "sub", "mul", "div", "maximum", "minimum"]
PYOPS = ["+", "-", "*", "/"]


def program(rng):
    """The source of one random kernel and its trace. Each choice is the
    first (valid) one of its list most of the time, so that most programs
    get as far as their odd op."""
    def c(options):
        return options[0] if rng.random() < 0.7 else rng.choice(options)
    tile_dt = c(DTYPES)
    lay = c(LAYOUTS)
    lines = [
        "import argus",
        f"@argus.kernel(target={c(TARGETS)!r}, block={c(BLOCKS)})",
        f"def k(X: argus.Tensor[{c(SHAPES)}, {tile_dt}], eps: argus.Scalar[{c(DTYPES)}]):",
        f"    x = argus.load(argus.view(X, (0, 0), (64, 64)), layout={lay})",
    ]
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(9)
        if kind == 0:
            lines.append(f"    x = argus.{c(BINOPS)}(x, {c(SCALARS)})")
        elif kind == 1:
            lines.append(f"    x = x {c(PYOPS)} {c(SCALARS)}")
        elif kind == 2:
            lines.append(f"    x = argus.{c(BINOPS)}(x, eps)")
        elif kind == 3:
            lines.append(f"    i = argus.iota((64, 64), {c(['0', '1', '2', '-1', '2**64'])}, "
                         f"{lay}, dtype={c(DTYPES)})")
            lines.append(f"    argus.where(i < {c(SCALARS)}, i, {c(SCALARS)})")
        elif kind == 4:
            lines.append(f"    argus.fill({c(SCALARS)}, (64, 64), {c(DTYPES)}, {c(LAYOUTS)})")
        elif kind == 5:
            lines.append(f"    with argus.region('r', id={c(SCALARS)}):")
            lines.append("        pass")
        elif kind == 6:
            lines.append(f"    x = argus.convert(x, {c(DTYPES)})")
        elif kind == 7:
            lines.append(f"    argus.where(x > {c(SCALARS)}, x, {c(SCALARS)})")
        else:
            lines.append(f"    x = argus.zeros((64, 64), {c(DTYPES)}, {c(LAYOUTS)})")
    lines.append("k.ir()")
    return "\n".join(lines) + "\n"


def worker(work_dir, start, end, progress, memory_gb):
    """Runs programs start..end-1 here, writing the index of each to
    `progress` before it (so the parent knows which one killed it)."""
    if memory_gb:
        import resource
        limit = int(memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import argus
    unexpected = 0
    built = 0
    for i in range(start, end):
        with open(progress, "w") as f:
            f.write(f"{i} {built}")
        path = os.path.join(work_dir, f"{i}.py")
        src = open(path).read()
        try:
            exec(compile(src, path, "exec"), {"__name__": f"fuzz_dsl_{i}"})
            built += 1
        except argus.ArgusError:
            pass
        except Exception as e:  # a raw exception from the DSL or the bindings
            unexpected += 1
            print(f"UNEXPECTED {type(e).__module__}.{type(e).__name__} on {path}: "
                  f"{str(e)[:300]}", flush=True)
            open(os.path.join(work_dir, f"unexpected-{i}"), "w").close()
    with open(progress, "w") as f:
        f.write(f"done {end} {built}")
    return 0


def run_shard(args, start, end, deaths, totals, lock):
    progress = os.path.join(args.work_dir, f"progress-{start}")
    while start < end:
        if os.path.exists(progress):
            os.remove(progress)
        cmd = [sys.executable, os.path.abspath(__file__), "--work-dir", args.work_dir,
               "--progress", progress, "--worker", str(start), str(end)]
        if args.memory_gb:
            cmd += ["--memory-gb", repr(args.memory_gb)]
        r = subprocess.run(cmd)
        fields = open(progress).read().split() if os.path.exists(progress) else []
        finished = fields[:1] == ["done"]
        at, built = map(int, fields[finished:]) if fields else (start, 0)
        with lock:
            totals[0] += built
        if finished:
            break
        with lock:
            deaths.append(at)
            print(f"FAIL: the interpreter died (status {r.returncode}) on "
                  f"{os.path.join(args.work_dir, f'{at}.py')}", flush=True)
        start = at + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", default="1",
                    help="an integer, or 'date' for today's (a rotating seed)")
    ap.add_argument("--work-dir", default="fuzz-dsl")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--memory-gb", type=float, default=4.0,
                    help="each worker's address space (a program that needs more "
                    "kills its worker: a failure)")
    ap.add_argument("--worker", nargs=2, type=int, help=argparse.SUPPRESS)
    ap.add_argument("--progress", help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    if args.worker:
        return worker(args.work_dir, args.worker[0], args.worker[1], args.progress,
                      args.memory_gb)
    seed = int(time.strftime("%Y%m%d")) if args.seed == "date" else int(args.seed)
    print(f"seed {seed}", flush=True)
    rng = random.Random(seed)
    for i in range(args.count):
        with open(os.path.join(args.work_dir, f"{i}.py"), "w") as f:
            f.write(program(rng))
    t0 = time.monotonic()
    deaths, totals, lock = [], [0], threading.Lock()
    jobs = max(1, min(args.jobs, args.count))
    bounds = [args.count * k // jobs for k in range(jobs + 1)]
    threads = [threading.Thread(target=run_shard, args=(args, bounds[k], bounds[k + 1],
                                                        deaths, totals, lock))
               for k in range(jobs) if bounds[k] < bounds[k + 1]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    unexpected = [n for n in os.listdir(args.work_dir) if n.startswith("unexpected-")]
    print(f"built: {totals[0]}; {elapsed:.0f} s, {args.count / max(elapsed, 1e-9):.1f} "
          "programs/s")
    print(f"dsl programs: {args.count}, interpreter deaths: {len(deaths)}, "
          f"unexpected exceptions: {len(unexpected)}")
    return 1 if deaths or unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
