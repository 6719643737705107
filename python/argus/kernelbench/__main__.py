"""``python3 -m argus.kernelbench`` (``argus-kernelbench``): evaluate Argus
solutions of KernelBench-format tasks.

    argus-kernelbench eval TASK.py SOLUTION.py [--seeds 5] [--allow-unknown]
                           [--allow-torch-op aten.relu] [--json OUT]
    argus-kernelbench suite DIR [--solutions SOLDIR] [--timeout 1800] [--log L.jsonl]
    argus-kernelbench prepare DIR --out BATCH        (here, with argus built)
    argus-kernelbench suite DIR --prepared BATCH     (on a GPU host without the extension)

Exit status of ``eval``: 0 accepted, 1 rejected, 2 bad usage.
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seeds", type=int, default=5, help="trials with fresh inputs (default 5)")
    p.add_argument("--seed", type=int, default=42, help="the first seed (default 42)")
    p.add_argument("--atol", type=float, default=1e-2)
    p.add_argument("--rtol", type=float, default=1e-2)
    p.add_argument("--allow-unknown", action="store_true",
                   help="accept kernels with unknown checks (reported)")
    p.add_argument("--allow-torch-op", action="append", default=[], metavar="OP",
                   help="an ATen op allowed as glue (aten.relu), reported separately")
    p.add_argument("--executor", default=None,
                   help="gpu, capture, or MODULE:FUNCTION (a CPU executor: the interpreter "
                   "hook); default: gpu when CUDA is available, else $ARGUS_KB_EXECUTOR, "
                   "else capture (correctness not checked)")
    p.add_argument("--no-timing", action="store_true")
    p.add_argument("--no-compile", action="store_true", help="do not time torch.compile")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--repetitions", type=int, default=100)
    p.add_argument("--no-flush-l2", action="store_true")
    p.add_argument("--worker-timeout", type=float, default=300.0,
                   help="seconds the solution's process may take per request (default 300)")
    p.add_argument("--export-to", default=None, metavar="BATCH",
                   help="also write the proofs and argus.aot exports of what the solution "
                   "launches into BATCH (for a GPU host without the extension)")
    p.add_argument("--prepared", default=None, metavar="BATCH",
                   help="take the proofs and kernels from BATCH (written by prepare / "
                   "--export-to) instead of verifying and compiling here")
    p.add_argument("--json", default=None, metavar="PATH", help="write the JSON record(s) ('-': stdout)")
    p.add_argument("--quiet", action="store_true", help="no table")


def _options(a):
    from .harness import Options
    return Options(seeds=a.seeds, seed=a.seed, atol=a.atol, rtol=a.rtol,
                   allow_unknown=a.allow_unknown, allow_torch_ops=a.allow_torch_op,
                   executor=a.executor, timeout_s=a.worker_timeout, timing=not a.no_timing,
                   warmup=a.warmup, repetitions=a.repetitions, flush_l2=not a.no_flush_l2,
                   torch_compile=not a.no_compile,
                   export_to=os.path.abspath(a.export_to) if a.export_to else None,
                   prepared=os.path.abspath(a.prepared) if a.prepared else None)


def _forward_args(a) -> list:
    out = ["--seeds", str(a.seeds), "--seed", str(a.seed), "--atol", str(a.atol),
           "--rtol", str(a.rtol), "--warmup", str(a.warmup), "--repetitions", str(a.repetitions),
           "--worker-timeout", str(a.worker_timeout)]
    for flag, on in (("--allow-unknown", a.allow_unknown), ("--no-timing", a.no_timing),
                     ("--no-compile", a.no_compile), ("--no-flush-l2", a.no_flush_l2)):
        if on:
            out.append(flag)
    for op in a.allow_torch_op:
        out += ["--allow-torch-op", op]
    if a.executor:
        out += ["--executor", a.executor]
    for flag, v in (("--export-to", a.export_to), ("--prepared", a.prepared)):
        if v:
            out += [flag, os.path.abspath(v)]
    return out


def _write_json(path, obj) -> None:
    text = json.dumps(obj, indent=1, default=str)
    if path == "-":
        print(text)
    else:
        with open(path, "w") as f:
            f.write(text + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="argus-kernelbench", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("eval", help="evaluate one solution of one task")
    e.add_argument("task")
    e.add_argument("solution")
    _common(e)
    s = sub.add_parser("suite", help="evaluate every task of a directory, each in a child process")
    s.add_argument("dir")
    s.add_argument("--solutions", default=None, help="solutions directory (default DIR/solutions)")
    s.add_argument("--timeout", type=float, default=1800.0, help="seconds per task (default 1800)")
    s.add_argument("--log", default=None, help="JSON-lines log of records (appended)")
    s.add_argument("--resume", action="store_true", help="skip the tasks already in --log")
    s.add_argument("--only", action="append", default=None, help="run only this task (repeatable)")
    _common(s)
    pr = sub.add_parser("prepare", help="on a machine with argus built: prove every task's "
                        "solution and write a batch (proofs + argus.aot exports) that "
                        "'suite --prepared BATCH' runs on a GPU host without the extension")
    pr.add_argument("dir")
    pr.add_argument("--out", required=True, metavar="BATCH")
    pr.add_argument("--solutions", default=None)
    pr.add_argument("--timeout", type=float, default=1800.0)
    pr.add_argument("--only", action="append", default=None)
    _common(pr)
    a = ap.parse_args(argv)
    try:
        import torch  # noqa: F401  (KernelBench tasks are PyTorch modules)
    except ImportError:
        print("argus-kernelbench: PyTorch is not installed (KernelBench tasks are PyTorch "
              "modules; Debian: apt-get install python3-torch)", file=sys.stderr)
        return 2
    from .report import summary, summary_text, table
    from .timing import FAST_P, fast_p
    if a.cmd == "eval":
        from ..errors import ArgusError
        from .harness import evaluate
        try:
            rec = evaluate(a.task, a.solution, _options(a))
        except ArgusError as err:
            print(f"argus-kernelbench: {err}", file=sys.stderr)
            return 2
        rec["fast_p"] = {f"{p:g}": fast_p([rec], p) for p in FAST_P}
        if not a.quiet:
            print(table([rec]))
            for r in rec["reasons"]:
                print("  rejected: " + r)
            for n in rec["notes"]:
                print("  note: " + n)
        if a.json:
            _write_json(a.json, rec)
        return 0 if rec["accepted"] else 1
    from .suite import run_suite
    if a.cmd == "prepare":  # capture mode: proofs, envelope, honesty; exports
        a.export_to, a.executor, a.no_timing = a.out, "capture", True
        a.log, a.resume = os.path.join(a.out, "prepare.jsonl"), False
        os.makedirs(a.out, exist_ok=True)
        if os.path.exists(a.log):
            os.unlink(a.log)
    progress = None if a.quiet else (lambda r: print(f"{r.get('task')}: {r.get('status')}"
                                                     + (f" ({r['reasons'][0]})" if r.get('reasons') else ""),
                                                     flush=True))
    records = run_suite(a.dir, a.solutions, _forward_args(a), a.timeout, a.log, a.resume,
                        a.only, progress)
    s = summary(records)
    if not a.quiet:
        print(table(records))
        print(summary_text(s))
    if a.json:
        _write_json(a.json, {"summary": s, "records": records})
    return 0


if __name__ == "__main__":
    sys.exit(main())
