"""The Slurm backend against a real single-node Slurm (slurm_cluster.py:
Debian's slurmctld, slurmd and munged as this user in a temp dir, one node
with Gres=gpu:1, no accounting). Skipped, with the reason, only when the
binaries are missing (scripts/deps.sh installs slurm-wlm and munge).

The GPU stand-in is a shell script in place of argus-run that logs each
start and end, sleeps, then runs the real argus-run against the fake CUDA
driver of the runtime tests (test/unit/Runtime, libArgusFakeCuda.so) when
both are built, else copies a canned report."""

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time

import pytest

from argus.execution import ArtifactStore, HandlerRef, LocalExecutor
from argus.execution.slurm import SlurmConfig, SlurmExecutor

import slurm_cluster

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from test_measure import fake_report, query  # noqa: E402
from argus.measure import Planner  # noqa: E402
# These tests count the collections of a plan: the refinement that measures
# short boundary regions again alone (test_measure covers it) is off here.


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    why = slurm_cluster.available()
    if why:
        pytest.skip(why)
    c = slurm_cluster.LocalSlurm(str(tmp_path_factory.mktemp("slurm")))
    try:
        c.start()
    except slurm_cluster.ClusterError as e:
        c.stop()
        pytest.fail(f"the test Slurm cluster did not start: {e}")
    os.environ["SLURM_CONF"] = c.conf     # sbatch / squeue / scancel of this process
    yield c
    os.environ.pop("SLURM_CONF", None)
    subprocess.run(["scancel", f"--user={os.getuid()}"], env=c.env, capture_output=True)
    c.stop()


def real_argus_run():
    import argus
    run = argus.find_tool("argus-run")
    if not run:
        return None, None
    lib = os.path.join(os.path.dirname(os.path.dirname(run)), "lib", "libArgusFakeCuda.so")
    return (run, lib) if os.path.exists(lib) else (None, None)


def stand_in(tmp_path, sleep=0.0, canned=None, real=True, hold=False):
    """An argus-run stand-in: appends "start DIR" / "end DIR CODE" to
    log.txt, sleeps, then runs argus-run on the fake driver (or copies
    ``canned`` to --report). Killed (its sleep killed), it exits with the
    sleep's status and writes no "end", as a real tool would not finish.
    ``hold``: the first run that ends creates the file ``hold``, which keeps
    the runs that start after it waiting (running) until the test removes it."""
    log = tmp_path / "log.txt"
    run, lib = real_argus_run() if real else (None, None)
    if run:
        body = f'"{run}" "$@" --cuda-lib "{lib}"; r=$?'
    else:
        body = ('rep=""; while [ $# -gt 0 ]; do [ "$1" = --report ] && rep=$2; shift; done\n'
                f'cp "{canned}" "$rep"; r=$?')
    wait = arm = ""
    if hold:
        (tmp_path / "arm").write_text("")
        h, a = shlex.quote(str(tmp_path / "hold")), shlex.quote(str(tmp_path / "arm"))
        wait = f"while [ -f {h} ]; do sleep 0.05 || exit $?; done\n"
        arm = f"if [ -f {a} ]; then rm -f {a}; touch {h}; fi\n"
    p = tmp_path / "argus-run"
    p.write_text(f"#!/bin/sh\necho \"start $PWD\" >> {log}\n{wait}sleep {sleep} || exit $?\n"
                 f"{body}\necho \"end $PWD $r\" >> {log}\n{arm}exit $r\n")
    p.chmod(0o755)
    return str(p), log


def lines(log, kind):
    if not os.path.exists(log):
        return []
    return [l.split()[1] for l in open(log).read().splitlines() if l.startswith(kind + " ")]


def config(**kw):
    env = {"PYTHONPATH": ":".join([HERE, os.path.join(ROOT, "python")] +
                                  [p for p in os.environ.get("PYTHONPATH", "").split(":") if p])}
    kw.setdefault("poll_interval", 0.25)
    kw.setdefault("batch_wait", 2.0)
    kw.setdefault("time_limit", "00:05:00")
    kw.setdefault("cpu_time_limit", "00:05:00")
    kw.setdefault("collect_timeout", 60)
    return SlurmConfig(env=env, **kw)


def measure_ref(run):
    return HandlerRef("slurm_fakes:measure_handlers", {"argus_run": run})


def canned_report(tmp_path):
    p = tmp_path / "canned.json"
    p.write_text(json.dumps(fake_report("x", ["wait", "mainloop", "prologue", "epilogue"])))
    return str(p)


def events(ex, kind):
    return [e for e in ex.info["events"] if e["event"] == kind]


# --- a measurement plan: job arrays, one batched GPU job, kill, resubmit, resume -----

# BASH_ENV of the jobs' shells in the "late" runs: the GPU job's script takes
# Slurm's SIGTERM only once it has recorded the status (143) of the command
# that the same scancel killed, then dies of it. Slurm signals a job's
# processes one by one, children first, so a real job's script can do that
# too when it gets the CPU between the two signals (it did under load: the
# killed collection then counted as failed and was retried in a job of its
# own besides the resubmitted rest). Here it happens every time.
LATE_SHELL = """\
trap 'late=1' TERM
mv() {
  command mv "$@"
  if [ -n "$late" ]; then
    echo "$PWD $(cat exit)" >> %s
    trap - TERM
    kill -TERM $$
  fi
}
"""


@pytest.mark.parametrize("shell", ["plain", "late"])
def test_plan_on_slurm_kill_resubmit_and_resume(cluster, tmp_path, shell):
    late = shell == "late"
    run, log = stand_in(tmp_path, sleep=1.0, canned=canned_report(tmp_path), real=False,
                        hold=True)
    store = ArtifactStore(str(tmp_path / "art"))
    plan = Planner(isolate_below_ns=None).plan(query())
    collects = [t.id for t in plan.tasks.values() if t.device]
    assert len(collects) == 4
    # A generous batch_wait: the four collections become ready as the CPU
    # array's elements finish, which under load can be seconds apart; the
    # executor submits as soon as no planned collection is left, so this
    # costs nothing when they are quick.
    cfg = config(batch_wait=60.0)
    if late:
        (tmp_path / "late.bash").write_text(LATE_SHELL % shlex.quote(str(tmp_path / "late.txt")))
        cfg.env["BASH_ENV"] = str(tmp_path / "late.bash")
    ex_ = SlurmExecutor(store, cfg, progress_stream=open(tmp_path / "progress.txt", "w"))

    killed = {}

    def gpu_jobs():
        return [j for j in list(ex_.jobs.values()) if j.kind == "gpu"]

    def killer():
        # scancel the GPU job while its second collection runs (held: the
        # first one's end created the hold, so its result is in), then let
        # the collections run once the executor has resubmitted the rest
        end = time.time() + 60
        try:
            while time.time() < end and not killed:
                gpu = gpu_jobs()
                if gpu and len(lines(log, "start")) >= 2:
                    subprocess.run(["scancel", gpu[0].id], env=cluster.env, check=True)
                    killed["job"] = gpu[0].id
                time.sleep(0.05)
            while time.time() < end and len(gpu_jobs()) < 2:
                time.sleep(0.05)
        finally:
            (tmp_path / "hold").unlink(missing_ok=True)
    th = threading.Thread(target=killer)
    th.start()
    ex = ex_.execute(plan, measure_ref(run))
    th.join()
    assert killed, "the GPU job was never seen running"
    assert ex.ok(), ex.to_json()
    assert ex.status("t004-synthesize-report") == "done"
    rep = ex.outcomes["t004-synthesize-report"].result
    assert rep["schema"] == "argus.measure_report/1" and not rep["missing_inputs"]
    # CPU tasks went out as job arrays; the four collections as one GPU job
    subs = events(ex, "submitted")
    gpu = [e for e in subs if e["kind"] == "gpu"]
    assert sorted(gpu[0]["tasks"]) == sorted(collects)
    assert all(e["kind"] == "cpu" for e in subs if e not in gpu)
    assert [e for e in subs if e["kind"] == "cpu" and len(e["tasks"]) == 4]  # one array of 4
    # the killed job: its unfinished collections resubmitted in one job, each result once
    ended = [e for e in events(ex, "ended") if e["job"] == killed["job"]]
    assert ended and ended[0]["state"] == "CANCELLED" and ended[0]["missing"]
    assert len(gpu) == 2 and sorted(gpu[1]["tasks"]) == ended[0]["missing"]
    resub = [t for t in collects if any("resubmitted (1/3)" in e for e in ex.outcomes[t].errors)]
    assert sorted(resub) == ended[0]["missing"]
    # a collection killed with its job is resubmitted, not counted as a failed attempt
    assert all(ex.outcomes[t].attempts == 1 for t in collects), ex.to_json()
    if late:
        # the killed collection's 143 was recorded before its job's script died
        rec = [l.split() for l in open(tmp_path / "late.txt").read().splitlines()]
        assert [code for _, code in rec] == ["143"], rec
        assert os.path.realpath(rec[0][0]) in {
            os.path.realpath(store.staging(ex.outcomes[t].key)) for t in ended[0]["missing"]}
    ends = lines(log, "end")
    assert len(ends) == len(set(ends)) == 4        # every collection finished exactly once
    starts = lines(log, "start")
    assert len(starts) == 5                        # + the one killed mid-run
    for t in collects:
        assert store.has(ex.outcomes[t].key)
    # the job scripts: GPU jobs call the tool directly, no Python
    gscript = open(os.path.join(store.root, "slurm", ex.info["episode"], "gpu2", "job.sh")).read() \
        if os.path.exists(os.path.join(store.root, "slurm", ex.info["episode"], "gpu2")) else \
        open([os.path.join(d, "job.sh") for d, _, f in os.walk(store.root) if "job.sh" in f
              and "gpu" in os.path.basename(d)][0]).read()
    assert run in gscript and "python" not in gscript
    progress = open(tmp_path / "progress.txt").read()
    assert "queued" in progress and "running" in progress and "resubmitted" in progress
    # resume: the same plan over the same artifact directory submits nothing
    n = len(lines(log, "start"))
    ex2 = SlurmExecutor(store, config(), progress_stream=open(os.devnull, "w")).execute(
        Planner(isolate_below_ns=None).plan(query()), measure_ref(run))
    assert ex2.ok() and ex2.info["jobs"] == 0
    assert ex2.count("cached") == len(plan.tasks)
    assert len(lines(log, "start")) == n


@pytest.mark.parametrize("fail, why", [("exit 3", "exited 3"), ("kill -TERM $$", "exited 143")])
def test_failed_collection_retried_then_reported(cluster, tmp_path, fail, why):
    """A collection whose tool exits non-zero (or dies of SIGTERM while its
    job runs on: a failure of its own, not its job's end) runs once more
    (retries=1) and is then reported failed; the report names it as missing."""
    store = ArtifactStore(str(tmp_path / "art"))
    bad = tmp_path / "argus-run"
    bad.write_text(f"#!/bin/sh\necho \"start $PWD\" >> {tmp_path}/log.txt\n"
                   f"echo 'no GPU driver found' >&2\n{fail}\n")
    bad.chmod(0o755)
    plan = Planner(isolate_below_ns=None).plan(query(asks=[("wait", "duration")]))
    ex = SlurmExecutor(store, config(), progress_stream=open(os.devnull, "w")).execute(
        plan, measure_ref(str(bad)))
    cols = [t.id for t in plan.tasks.values() if t.device]
    for c in cols:
        o = ex.outcomes[c]
        assert o.status == "failed" and o.attempts == 2
        assert why in o.errors[0] and "no GPU driver" in o.errors[0], o.errors
        assert not any("resubmitted" in e for e in o.errors)
    assert ex.status(plan.by_op("report")[0].id) == "done"
    assert len(lines(tmp_path / "log.txt", "start")) == 2 * len(cols)


# --- an agent episode on Slurm, compared with the local backend ------------------

def test_agent_episode_on_slurm_and_resume(cluster, tmp_path, need_verifier):
    import argus
    from argus.agent import AgentLoop, Budget, GemmTask, KnowledgeBasePolicy, Variant
    from argus.agent.episode import Episode, handlers_ref
    if not argus.has_pass("argus-to-nvptx"):
        pytest.skip("argus-to-nvptx not built into the _argus extension")
    run, log = stand_in(tmp_path, sleep=0.0, canned=canned_report(tmp_path))
    task = GemmTask(256, 256, 256)
    store = ArtifactStore(str(tmp_path / "art"))

    def episode(executor):
        loop = AgentLoop(task, KnowledgeBasePolicy(start=Variant(stages=3, wait=2), seed=1),
                         Budget(steps=4))
        ep = Episode(loop, executor, handlers_ref(task, argus_run=run), per_round=2)
        return ep, ep.run()

    ep, hist = episode(SlurmExecutor(store, config(), progress_stream=open(os.devnull, "w")))
    assert len(hist) == 4
    assert hist[0]["status"] == "violated"          # the planted bug, caught by the verifier
    assert hist[2]["note"].startswith("repair: ")  # next round: repaired from the counterexample
    measured = [r for r in hist if r["execution"]["measure"] == "done" and r.get("time_ms")]
    assert measured and all(r["status"] in ("measured", "incorrect") for r in measured)
    for ex in ep.executions:
        kinds = [e["kind"] for e in events(ex, "submitted")]
        assert kinds.count("cpu") == 1               # one array for the round's builds
        assert kinds.count("gpu") <= 1               # the round's collections in one job
    n_runs = len(lines(log, "start"))
    assert n_runs == len(measured)
    # the same episode again over the same artifacts: nothing is submitted or rerun
    ep2, hist2 = episode(SlurmExecutor(store, config(), progress_stream=open(os.devnull, "w")))
    assert [r["status"] for r in hist2] == [r["status"] for r in hist]
    assert all(ex.info["jobs"] == 0 for ex in ep2.executions)
    assert len(lines(log, "start")) == n_runs
    # the local backend resumes the same artifacts: same records, nothing rerun
    ep3, hist3 = episode(LocalExecutor(store, workers=2))
    assert [(r["summary"], r["status"], r["time_ms"]) for r in hist3] == \
        [(r["summary"], r["status"], r["time_ms"]) for r in hist]
    assert all(ex.count("cached") == len(ex.outcomes) for ex in ep3.executions)
    assert len(lines(log, "start")) == n_runs


# --- Ctrl-C cancels the episode's jobs; the rerun resumes -------------------------

DRIVER = r"""
import sys, json, signal
# A shell that starts the suite in the background (nohup ... &) hands its
# children SIGINT ignored, and Python then installs no KeyboardInterrupt
# handler: the Ctrl-C this test sends would be lost.
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.path[:0] = json.loads(sys.argv[1])
from test_slurm import config, measure_ref
from test_measure import query
from argus.measure import Planner
from argus.execution import ArtifactStore
from argus.execution.slurm import SlurmExecutor
ex = SlurmExecutor(ArtifactStore(sys.argv[2]), config(gpu_batch=2), episode="ctrlc")
try:
    ex.execute(Planner(isolate_below_ns=None).plan(query()), measure_ref(sys.argv[3]))
except KeyboardInterrupt:
    print("INTERRUPTED", flush=True)
    sys.exit(130)
"""


def test_ctrl_c_cancels_jobs_and_rerun_resumes(cluster, tmp_path):
    run, log = stand_in(tmp_path, sleep=3.0, canned=canned_report(tmp_path), real=False)
    art = str(tmp_path / "art")
    env = dict(cluster.env, PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-c", DRIVER, json.dumps([HERE] + sys.path), art, run],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        end = time.time() + 60
        while time.time() < end and len(lines(log, "end")) < 1:
            assert p.poll() is None, p.stdout.read()
            time.sleep(0.1)
        assert len(lines(log, "end")) >= 1
        p.send_signal(signal.SIGINT)
        outp, _ = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130 and "INTERRUPTED" in outp, outp
    assert "interrupted: cancelled job(s)" in outp
    journal = [json.loads(l) for l in open(os.path.join(art, "slurm", "ctrlc", "jobs.jsonl"))]
    live = {e["job"] for e in journal if e["event"] == "submitted"} - \
        {e["job"] for e in journal if e["event"] == "ended"}
    cancelled = {e["job"] for e in journal if e["event"] == "cancelled"}
    assert live and cancelled == live
    # the cancelled jobs leave the queue
    end = time.time() + 20
    while time.time() < end:
        q = subprocess.run(["squeue", "--noheader", "--states=all", "--format=%i|%T",
                            "--jobs=" + ",".join(sorted(live))], env=cluster.env,
                           capture_output=True, text=True).stdout
        states = {l.split("|")[1] for l in q.split()}
        if not states & {"PENDING", "RUNNING", "COMPLETING", "CONFIGURING"}:
            break
        time.sleep(0.2)
    assert not states & {"PENDING", "RUNNING", "COMPLETING", "CONFIGURING"}, q
    finished = set(lines(log, "end"))
    # rerun over the same artifacts: the finished collections are taken, not rerun
    ex = SlurmExecutor(ArtifactStore(art), config(), progress_stream=open(os.devnull, "w")) \
        .execute(Planner(isolate_below_ns=None).plan(query()), measure_ref(run))
    assert ex.ok(), ex.to_json()
    ends = lines(log, "end")
    assert len(ends) == len(set(ends)) == 4
    assert finished and finished <= set(ends)
    resumed = [e for e in ex.info["events"] if e["event"] == "resumed"]
    assert len(resumed) + ex.count("cached") >= len(finished)


# --- no cluster needed ----------------------------------------------------------------

def test_local_executor_process_pool_with_handler_ref(tmp_path):
    run, log = stand_in(tmp_path, canned=canned_report(tmp_path), real=False)
    store = ArtifactStore(str(tmp_path / "art"))
    plan = Planner(isolate_below_ns=None).plan(query())
    ex = LocalExecutor(store, workers=2).execute(plan, measure_ref(run))
    assert ex.ok(), ex.to_json()
    assert len(lines(log, "end")) == 4
    ex2 = LocalExecutor(store, workers=2).execute(Planner(isolate_below_ns=None).plan(query()), measure_ref(run))
    assert ex2.count("cached") == len(plan.tasks) and len(lines(log, "end")) == 4


def test_slurm_config_from_json_rejects_unknown_keys():
    c = SlurmConfig.from_json({"partition": "gpu", "account": "a", "sbatch_args": ["--x"]})
    assert c.partition == "gpu" and c.gres == "gpu:1"
    with pytest.raises(ValueError, match="unknown key"):
        SlurmConfig.from_json({"partiton": "gpu"})


# --- the argus-agent command line on Slurm ------------------------------------------

def test_argus_agent_cli_on_slurm(cluster, tmp_path, need_verifier, capsys):
    import argus
    from argus.agent.__main__ import main as agent_main
    if not argus.has_pass("argus-to-nvptx"):
        pytest.skip("argus-to-nvptx not built into the _argus extension")
    run, log = stand_in(tmp_path, sleep=0.0, canned=canned_report(tmp_path))
    cfg = config()
    conf = tmp_path / "slurm.json"
    conf.write_text(json.dumps({"env": cfg.env, "poll_interval": 0.25, "batch_wait": 2.0,
                                "time_limit": "00:05:00", "cpu_time_limit": "00:05:00",
                                "collect_timeout": 60}))
    argv = ["--slurm-config", str(conf), "--artifacts", str(tmp_path / "art"),
            "--steps", "2", "--per-round", "2", "--M", "256", "--N", "256", "--K", "256",
            "--argus-run", run, "--json"]
    assert agent_main(argv) == 0
    hist = json.loads(capsys.readouterr().out)
    assert len(hist) == 2 and hist[0]["status"] == "violated"   # the planted bug
    n_runs = len(lines(log, "start"))
    # rerun over the same artifacts: the same records, nothing measured again
    assert agent_main(argv) == 0
    assert [r["status"] for r in json.loads(capsys.readouterr().out)] == \
        [r["status"] for r in hist]
    assert len(lines(log, "start")) == n_runs


def test_argus_agent_cli_slurm_arguments(tmp_path, capsys):
    from argus.agent.__main__ import main as agent_main
    conf = tmp_path / "slurm.json"
    conf.write_text("{}")
    for argv, why in [(["--slurm-config", str(conf)], "needs --artifacts"),
                      (["--slurm-config", str(conf), "--artifacts", str(tmp_path / "a"),
                        "--batch-dir", str(tmp_path / "b")], "drop --batch-dir"),
                      (["--artifacts", str(tmp_path / "a")], "is for --slurm-config")]:
        with pytest.raises(SystemExit) as e:
            agent_main(argv)
        assert e.value.code == 2
        assert why in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"no_such_key": 1}')
    with pytest.raises(SystemExit):
        agent_main(["--slurm-config", str(bad), "--artifacts", str(tmp_path / "a")])
    assert "--slurm-config" in capsys.readouterr().err
