"""argus-measure's command line (issue 54): plan --offline as the README
lists it; scope options that name themselves and stay within a launch;
every failed task's own error on the terminal; argus-opt found next to the
install before PATH; an offline collection script that fails loudly on a
host without a GPU."""

import json
import os
import re
import subprocess
import sys

import pytest

from argus.measure.cli import main as measure_main

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from test_measure import GEMM2, LAUNCH  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("ARGUS_BUILD_DIR", os.path.join(ROOT, "build"))
OPT = os.path.join(BUILD, "bin", "argus-opt")


def plan(capsys, *extra):
    code = measure_main(["plan", GEMM2, "--ask", "wait:duration", *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_plan_accepts_offline(capsys):
    code, out, err = plan(capsys, "--offline")
    assert code == 0, err
    assert "offline: " in out and "GPU collection(s) go into the script" in out
    code, out, err = plan(capsys, "--offline", "--json")
    assert code == 0 and json.loads(out)["offline_collections"]


@pytest.mark.parametrize("option,value,message", [
    ("--blocks", "-3", "--blocks: '-3' is not a block index or range"),
    ("--warps", "x", "--warps: 'x' is not a warp index or range"),
    ("--warps", "7-2", "--warps: the range '7-2' ends before it starts"),
    ("--warps", "999999", "--warps: warp 999999 is beyond the most a launch has"),
    ("--blocks", "0-99999999", "--blocks: block 99999999 is beyond"),
    # GEMM2's block is 128 threads: warps 0-3.
    ("--warps", "4", "--warps: warp 4 is beyond the kernel's block (4 warps: indices 0-3)"),
    ("--iterations", "a:b", "--iterations: 'a:b' is not a window lo:hi"),
])
def test_scope_errors_name_the_option(capsys, option, value, message):
    code, out, err = plan(capsys, option, value)
    assert code == 2, out
    assert message in err, err
    assert "invalid literal" not in err


def test_scope_within_the_block_is_accepted(capsys):
    code, out, err = plan(capsys, "--warps", "0,2-3", "--blocks", "0-7")
    assert code == 0, err


def test_run_finds_argus_opt_next_to_its_install_and_prints_each_failure(
        tmp_path, monkeypatch, capsys):
    # PATH has no argus-opt (was: every transform failed with
    # FileNotFoundError 'argus-opt', and the terminal only said "mainloop
    # duration missing"); the collections fail because argus-run is not
    # there, and each failed task says so on stderr.
    if not os.path.exists(OPT):
        pytest.skip("argus-opt not built")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.delenv("ARGUS_OPT", raising=False)
    monkeypatch.setenv("ARGUS_BUILD", BUILD)
    launch = tmp_path / "launch.json"
    launch.write_text(json.dumps(LAUNCH))
    code = measure_main(["run", GEMM2, "--ask", "mainloop:duration", "--launch", str(launch),
                         "--artifacts", str(tmp_path / "art"), "--argus-run",
                         str(tmp_path / "no-such-argus-run"), "--timeout", "60"])
    err = capsys.readouterr().err
    assert code == 1
    failed = [l for l in err.splitlines() if l.startswith("argus-measure: task ")]
    assert failed, err
    assert all("no-such-argus-run" in l for l in failed), failed
    assert "'argus-opt'" not in err, err


def test_offline_script_fails_loudly_without_a_gpu(tmp_path, monkeypatch, capsys):
    # Was: the collect script on a host without a GPU exited 0 and printed
    # nothing. A stand-in argus-run that fails as it does there.
    if not os.path.exists(OPT):
        pytest.skip("argus-opt not built")
    run = tmp_path / "argus-run"
    run.write_text("#!/bin/sh\necho 'argus-run: no CUDA driver (libcuda.so.1: cannot open "
                   "shared object file)' >&2\nexit 4\n")
    run.chmod(0o755)
    launch = tmp_path / "launch.json"
    launch.write_text(json.dumps(LAUNCH))
    art = tmp_path / "art"
    code = measure_main(["run", GEMM2, "--ask", "mainloop:duration", "--launch", str(launch),
                         "--artifacts", str(art), "--argus-opt", OPT, "--argus-run", str(run),
                         "--timeout", "60", "--offline"])
    capsys.readouterr()
    assert code == 3
    p = subprocess.run(["bash", str(art / "offline" / "collect.sh")], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    assert "failed (exit 4)" in p.stderr and "no CUDA driver" in p.stderr, p.stderr
    assert re.search(r"^argus: 0 collection\(s\) done, [1-9]\d* failed$", p.stderr, re.M), \
        p.stderr
