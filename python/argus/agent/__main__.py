"""argus-agent: run the agent loop on the bundled GEMM task and print a
table of attempts.

    argus-agent [--steps N] [--start default|buggy] [--batch-dir DIR]
                [--resume DIR] [--log LOG.jsonl] [--M M --N N --K K]
                [--slurm-config slurm.json --artifacts DIR [--per-round N]]

Without a GPU, variants are verified and compiled (and measured in-process
when a GPU and argus-run are present). With --batch-dir DIR, each round's
compiled variants (PTX + an argus-run spec each) go to DIR/round<k> for
``argus-run --batch DIR/round<k>`` on a GPU host, and the log to
DIR/log.jsonl; --resume DIR reads every round's results.json, feeds the
measurements to the policy and runs the next round. With --slurm-config,
the episode runs on a Slurm cluster (docs/Slurm.md): each round's builds as
one job array, its measurements batched into --gres=gpu:1 jobs, every
result kept in --artifacts DIR, so a rerun recomputes nothing.
"""

import argparse
import json
import os
import sys

from . import AgentLoop, Budget, GemmTask, KnowledgeBasePolicy, Variant, format_table

PLANTED = Variant(stages=3, wait=2, a_stage_offset=1)


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {v}")
    return v


def _nonnegative_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {v}")
    return v


def _writable_file(path: str) -> str:
    """Why ``path`` cannot be created or appended to, or None."""
    if os.path.isdir(path):
        return f"{path} is a directory"
    if os.path.exists(path):
        return None if os.access(path, os.W_OK) else f"{path} is not writable"
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        return f"directory {d} does not exist"
    return None if os.access(d, os.W_OK | os.X_OK) else f"directory {d} is not writable"


def _writable_dir(path: str) -> str:
    """Why ``path`` cannot be used (created if missing) as a directory to
    write into, or None."""
    if os.path.exists(path):
        if not os.path.isdir(path):
            return f"{path} is not a directory"
        return None if os.access(path, os.W_OK | os.X_OK) else f"{path} is not writable"
    parent = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot create {path}: {parent} is not a writable directory"
    return None


def main(argv=None) -> int:
    try:
        return _main(argv)
    except OSError as e:  # a file that went away or filled up mid-run
        print(f"argus-agent: error: {e}", file=sys.stderr)
        return 1


def _main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="argus-agent", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=_nonnegative_int, default=8)
    ap.add_argument("--start", choices=["default", "buggy"], default="buggy",
                    help="start from the default variant or one with planted pipeline bugs")
    ap.add_argument("--target", default="sm_90a", choices=["sm_90a"])
    ap.add_argument("--M", type=_positive_int, default=1024)
    ap.add_argument("--N", type=_positive_int, default=1024)
    ap.add_argument("--K", type=_positive_int, default=1024)
    ap.add_argument("--batch-dir", help="write compiled variants here for argus-run --batch")
    ap.add_argument("--resume", metavar="DIR", help="read DIR/results.json, then continue")
    ap.add_argument("--log", help="JSON-lines log of every record (needed to resume)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print the records as JSON")
    ap.add_argument("--slurm-config", metavar="JSON",
                    help="run the episode on Slurm (docs/Slurm.md): builds as job arrays, "
                         "measurements as --gres=gpu:1 jobs; needs --artifacts")
    ap.add_argument("--artifacts", metavar="DIR",
                    help="content-addressed artifact directory on a shared file system "
                         "(with --slurm-config; a rerun resumes from it)")
    ap.add_argument("--per-round", type=_positive_int, default=4,
                    help="variants proposed per round on Slurm (default 4)")
    ap.add_argument("--argus-run", default="argus-run",
                    help="argus-run on the GPU nodes (with --slurm-config)")
    a = ap.parse_args(argv)
    if a.slurm_config:
        if a.batch_dir or a.resume:
            ap.error("--slurm-config runs the measurements itself: drop --batch-dir/--resume "
                     "(a rerun with the same --artifacts resumes)")
        if not a.artifacts:
            ap.error("--slurm-config needs --artifacts DIR (a directory the nodes share)")
        why = _writable_dir(a.artifacts)
        if why:
            ap.error(f"--artifacts: {why}")
        return _run_on_slurm(a, ap)
    if a.artifacts:
        ap.error("--artifacts is for --slurm-config")

    # Everything that will be written is checked before any work is done.
    root = a.batch_dir or a.resume
    log = a.log or (os.path.join(root, "log.jsonl") if root else None)
    if a.batch_dir:
        why = _writable_dir(a.batch_dir)
        if why:
            ap.error(f"--batch-dir: {why}")
    if a.resume and not a.batch_dir:
        if not os.path.isdir(a.resume):
            ap.error(f"--resume: {a.resume} is not a directory")
        why = _writable_dir(a.resume)
        if why:
            ap.error(f"--resume: {why}")
    if log:
        # The log's directory may be the batch directory created below.
        why = (None if root and os.path.dirname(os.path.abspath(log)) ==
               os.path.abspath(root) and not os.path.exists(log) else _writable_file(log))
        if why:
            ap.error(f"--log: {why}")

    task = GemmTask(a.M, a.N, a.K, target=a.target)
    start = PLANTED if a.start == "buggy" else Variant()
    policy = KnowledgeBasePolicy(start=start, seed=a.seed)
    loop = AgentLoop(task, policy, Budget(steps=a.steps), log_path=None,
                     measure="batch" if root else "auto")
    if a.resume:
        if not log or not os.path.exists(log):
            ap.error(f"--resume needs the log of the earlier rounds ({log} not found)")
        try:
            loop.load_history(log)
        except ValueError as e:
            ap.error(f"--resume: {e}")
        for d in sorted({r["batch_dir"] for r in loop.history
                         if r["status"] == "pending" and r.get("batch_dir")}):
            if os.path.exists(os.path.join(d, "results.json")):
                loop.log_path = log
                try:
                    n = loop.resume(d)
                except ValueError as e:
                    ap.error(f"--resume: {e}")
                loop.log_path = None
                print(f"resumed {n} measurement(s) from {d}/results.json")
            else:
                print(f"no results yet in {d} (run argus-run --batch {d})")
    loop.log_path = log
    if root:
        os.makedirs(root, exist_ok=True)
        k = 0
        while os.path.exists(os.path.join(root, f"round{k}")):
            k += 1
        loop.batch_dir = os.path.join(root, f"round{k}")
    loop.budget = Budget(steps=len(loop.history) + a.steps)
    loop.run()
    if a.json:
        print(json.dumps(loop.history, indent=1, default=str))
        return 0
    print(format_table(loop.history))
    rounds = {}
    for r in loop.history:
        if r.get("time_ms") and r.get("correct") is not False and r.get("batch_dir") and \
                (r.get("verification") or {}).get("proved", True):
            rnd = os.path.basename(r["batch_dir"])
            if rnd not in rounds or r["time_ms"] < rounds[rnd]["time_ms"]:
                rounds[rnd] = r
    best_so_far = None
    for rnd in sorted(rounds, key=lambda x: int(x[5:]) if x[5:].isdigit() else 0):
        r = rounds[rnd]
        if best_so_far is None or r["time_ms"] < best_so_far["time_ms"]:
            best_so_far = r
        print(f"{rnd}: best step {r['step']} {r['summary']} {r['time_ms'] * 1e3:.1f} us "
              f"({r['tflops']:.1f} TFLOP/s); best so far step {best_so_far['step']} "
              f"{best_so_far['time_ms'] * 1e3:.1f} us")
    b = loop.best()
    if b:
        t = f"{b['time_ms']:.4f} ms" if b.get("time_ms") else "not measured"
        print(f"best: step {b['step']} {b['summary']} ({t})")
    if loop.batch_dir and any(r["status"] == "pending" for r in loop.history):
        print(f"pending measurements in {loop.batch_dir}: run `argus-run --batch "
              f"{loop.batch_dir}` on a GPU host, copy its results.json back into that "
              f"folder, then `argus-agent --resume {root}`")
    return 0


def _run_on_slurm(a, ap) -> int:
    """The episode on Slurm through argus.execution (argus/agent/episode.py)."""
    from ..execution import ArtifactStore
    from ..execution.slurm import SlurmConfig, SlurmExecutor
    from .episode import Episode, handlers_ref
    try:
        with open(a.slurm_config) as f:
            cfg = SlurmConfig.from_json(json.load(f))
    except (ValueError, OSError, TypeError) as e:
        ap.error(f"--slurm-config: {e}")
    task = GemmTask(a.M, a.N, a.K, target=a.target)
    start = PLANTED if a.start == "buggy" else Variant()
    loop = AgentLoop(task, KnowledgeBasePolicy(start=start, seed=a.seed),
                     Budget(steps=a.steps), log_path=a.log)
    ex = SlurmExecutor(ArtifactStore(a.artifacts), cfg)
    history = Episode(loop, ex, handlers_ref(task, argus_run=a.argus_run),
                      per_round=a.per_round).run()
    if a.json:
        print(json.dumps(history, indent=1, default=str))
    else:
        print(format_table(history))
    return 0


if __name__ == "__main__":
    sys.exit(main())
