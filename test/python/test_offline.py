"""The offline backend (argus.execution.offline, argus-measure run --offline)
without a GPU: CPU tasks run here, GPU collections go into a script that
the test runs with bash, as a person would on the GPU host.

argus-run is test_slurm's stand-in (logs each start and end, copies a
canned report); the command-line tests put a stand-in argus-opt on PATH
(the probed IR is the input, the PTX a placeholder), the executor tests
use slurm_fakes' handlers (no argus-opt at all)."""

import glob
import json
import os
import subprocess
import sys

import pytest

from argus.execution import TERMINAL, ArtifactStore
from argus.execution.offline import OfflineExecutor
from argus.execution.slurm import SlurmConfig
from argus.measure import Planner
from argus.measure.cli import main as measure_main

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from test_measure import GEMM2, LAUNCH, query  # noqa: E402
from test_slurm import canned_report, lines, measure_ref, stand_in  # noqa: E402

FAKE_ARGUS_OPT = """#!%(python)s
import shutil, sys
args = sys.argv[1:]
for a in args:
    if "dump=" in a:
        with open(a.split("dump=", 1)[1].split()[0], "w") as f:
            f.write("// fake PTX\\n")
out = args[args.index("-o") + 1]
if out != "/dev/null":
    shutil.copy(args[0], out)
"""

ASKS = ["mainloop:timeline", "wait:duration", "prologue:duration", "epilogue:duration"]


def cli(tmp_path, monkeypatch, run):
    """``argus-measure run ... --offline`` over ``tmp_path/art`` as a
    function: (exit code, stdout, stderr)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    opt = bin_dir / "argus-opt"
    opt.write_text(FAKE_ARGUS_OPT % {"python": sys.executable})
    opt.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    # argus-measure prefers the argus-opt of its own install or build tree
    # to PATH's (argus.find_tool); ARGUS_OPT picks the stand-in before both.
    monkeypatch.setenv("ARGUS_OPT", str(opt))
    launch = tmp_path / "launch.json"
    launch.write_text(json.dumps(LAUNCH))
    argv = ["run", GEMM2, "--iterations", "0:16", "--launch", str(launch),
            "--artifacts", str(tmp_path / "art"), "--argus-run", run, "--timeout", "60",
            "--offline", "--json"]
    for ask in ASKS:
        argv += ["--ask", ask]

    def invoke(capsys, *extra):
        code = measure_main(argv + list(extra))
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return invoke


def waiting_line(err):
    line = [l for l in err.splitlines() if l.startswith("offline: ")]
    assert len(line) == 1, err
    return line[0]


def bash(script):
    return subprocess.run(["bash", script], capture_output=True, text=True)


def scripts(art):
    return sorted(glob.glob(os.path.join(art, "offline", "collect-*.sh")))


# --- argus-measure run --offline ------------------------------------------------------

def test_cli_script_then_report_then_cache_hits(tmp_path, monkeypatch, capsys):
    run, log = stand_in(tmp_path, canned=canned_report(tmp_path), real=False)
    art = str(tmp_path / "art")
    invoke = cli(tmp_path, monkeypatch, run)
    # 1: CPU tasks here, the four collections into one script, no report
    code, out, err = invoke(capsys, "--isolate-below-ns", "0")
    assert code == 3 and out == ""
    line = waiting_line(err)
    [script] = scripts(art)
    assert line == (f"offline: 4 collection(s) waiting: run 'bash {script}' on the GPU host "
                    "(artifact directory at the same path), then run this command again")
    assert os.path.realpath(os.path.join(art, "offline", "collect.sh")) == script
    text = open(script).read()
    assert text.count("timeout -k 10 60 " + run) == 4 and "python" not in text
    assert lines(log, "start") == []
    # on the "GPU host": the directory must be at the same path, a symlink will do
    gpu_copy = str(tmp_path / "gpu-host-copy")
    os.rename(art, gpu_copy)
    p = bash(os.path.join(gpu_copy, "offline", "collect.sh"))
    assert p.returncode == 2 and "at the same path" in p.stderr
    os.symlink(gpu_copy, art)
    p = bash(script)
    assert p.returncode == 0, p.stderr
    ends = lines(log, "end")
    assert len(ends) == len(set(ends)) == 4           # one after another, each once
    assert bash(script).returncode == 0 and len(lines(log, "start")) == 4   # done: skipped
    # 2: the collections are taken, the synthesis runs
    code, out, err = invoke(capsys, "--isolate-below-ns", "0")
    assert code == 0, err
    res = json.loads(out)
    assert res["report"]["schema"] == "argus.measure_report/1"
    assert not res["report"]["missing_inputs"]
    statuses = {t: e["status"] for t, e in res["execution"].items()}
    assert set(statuses.values()) <= {"done", "cached"}
    assert list(statuses.values()).count("done") == 4 + 1      # the collections + the report
    # 3: all cache hits, no script, nothing run
    code, out, err = invoke(capsys, "--isolate-below-ns", "0")
    assert code == 0 and "offline:" not in err
    assert {e["status"] for e in json.loads(out)["execution"].values()} == {"cached"}
    assert scripts(art) == [script] and len(lines(log, "start")) == 4


def test_cli_collections_made_ready_later_go_into_a_new_script(tmp_path, monkeypatch, capsys):
    """The canned report's prologue and epilogue are short: after the
    batched run is taken, the refine task adds a run for each alone, and
    those go into a second script (collect.sh then names it)."""
    run, log = stand_in(tmp_path, canned=canned_report(tmp_path), real=False)
    art = str(tmp_path / "art")
    invoke = cli(tmp_path, monkeypatch, run)
    code, _, err = invoke(capsys)
    assert code == 3 and waiting_line(err).startswith("offline: 4 collection(s) waiting")
    [first] = scripts(art)
    assert bash(os.path.join(art, "offline", "collect.sh")).returncode == 0
    code, out, err = invoke(capsys)
    assert code == 3 and out == ""
    [second] = [s for s in scripts(art) if s != first]
    assert waiting_line(err).startswith(f"offline: 2 collection(s) waiting: run 'bash {second}'")
    assert os.path.realpath(os.path.join(art, "offline", "collect.sh")) == second
    assert bash(os.path.join(art, "offline", "collect.sh")).returncode == 0
    assert len(lines(log, "end")) == 6
    code, out, err = invoke(capsys)
    assert code == 0, err
    res = json.loads(out)
    alone = [rid for rid, r in res["plan"]["runs"].items() if len(r["items"]) == 1
             and r["items"][0].startswith("boundary:")]
    assert len(alone) == 2 and not res["report"]["missing_inputs"]


def test_cli_offline_and_slurm_config_exclusive(tmp_path, capsys):
    conf = tmp_path / "slurm.json"
    conf.write_text("{}")
    with pytest.raises(SystemExit) as e:
        measure_main(["run", GEMM2, "--ask", "wait:duration", "--launch", "l.json",
                      "--artifacts", str(tmp_path), "--offline", "--slurm-config", str(conf)])
    assert e.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


# --- the executor: waiting state and retries across executions ------------------------

def test_waiting_is_not_failed_and_a_failing_collection_is_retried_once(tmp_path):
    canned = tmp_path / "report.json"          # absent: the stand-in's cp fails (exit 1)
    run, log = stand_in(tmp_path, canned=str(canned), real=False)
    store = ArtifactStore(str(tmp_path / "art"))

    def execute():
        plan = Planner(isolate_below_ns=None).plan(query(asks=[("wait", "duration")]))
        return plan, OfflineExecutor(store, SlurmConfig(collect_timeout=60)).execute(
            plan, measure_ref(run))

    plan, ex = execute()
    cols = sorted(t.id for t in plan.tasks.values() if t.device)
    report = plan.by_op("report")[0].id
    assert len(cols) == 2
    assert ex.info["backend"] == "offline" and sorted(ex.info["waiting"]) == cols
    for c in cols:
        assert ex.status(c) == "waiting" and ex.status(c) not in TERMINAL
        assert ex.outcomes[c].attempts == 0 and not ex.outcomes[c].errors
    assert ex.ok() and ex.status(report) == "planned" and ex.outcomes[report].result is None
    # the script runs every block, says which failed and why, and exits 1
    # (issue 54: it exited 0 and printed nothing)
    p = bash(ex.info["script"])
    assert p.returncode == 1, p.stderr
    assert p.stderr.count("failed (exit 1); the end of its stderr") == 2, p.stderr
    assert "cp:" in p.stderr and p.stderr.rstrip().endswith(
        "argus: 0 collection(s) done, 2 failed"), p.stderr
    assert len(lines(log, "end")) == 2
    # the failed attempt is taken and the collection prepared afresh into a new script
    _, ex2 = execute()
    assert sorted(ex2.info["waiting"]) == cols and ex2.info["script"] != ex.info["script"]
    for c in cols:
        o = ex2.outcomes[c]
        assert o.status == "waiting" and o.attempts == 1
        assert len(o.errors) == 1 and "attempt 1: argus-run exited 1" in o.errors[0]
        assert "cp:" in o.errors[0]                         # the tool's stderr
    assert ex2.status(report) == "planned"
    assert bash(ex2.info["script"]).returncode == 1
    assert len(lines(log, "end")) == 4
    # past the retry: failed, and the report says what is missing
    _, ex3 = execute()
    assert ex3.info["waiting"] == [] and ex3.info["script"] is None
    for c in cols:
        o = ex3.outcomes[c]
        assert o.status == "failed" and o.attempts == 2 and len(o.errors) == 2
        assert o.errors[1].startswith("attempt 2: argus-run exited 1")
        assert store.failure(o.key)
    assert not ex3.ok() and ex3.status(report) == "done"
    assert {m["task"] for m in ex3.outcomes[report].result["missing_inputs"]} == set(cols)
    # once the tool works, a rerun starts the failed collections afresh
    canned.write_text(open(canned_report(tmp_path)).read())
    _, ex4 = execute()
    assert sorted(ex4.info["waiting"]) == cols
    assert all(ex4.outcomes[c].attempts == 0 for c in cols)
    assert bash(ex4.info["script"]).returncode == 0
    _, ex5 = execute()
    assert ex5.ok() and ex5.info["waiting"] == []
    assert all(ex5.outcomes[c].status == "done" and ex5.outcomes[c].attempts == 1
               for c in cols)
    assert not ex5.outcomes[report].result["missing_inputs"]
