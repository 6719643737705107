"""argus.kernelbench: the evaluator and the planted cheats.

Without a GPU the kernels cannot run; the harness logic that needs values
(correctness, the in-place trial) is exercised through the CPU executor hook
with a Python fake of each kernel's semantics (``fake_execute`` below, the
stand-in for the interpreter). Everything else (proofs, the envelope,
glue, state, aliasing, provenance, the worker process, timeouts) is real."""

import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch", reason="PyTorch (Debian python3-torch) is needed to load "
                            "KernelBench tasks")

from argus.kernelbench import Options, evaluate  # noqa: E402
from argus.kernelbench import glue, timing  # noqa: E402

pytestmark = pytest.mark.verifier

TASK = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    """y = x + 1 over a vector of N elements."""
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return x + 1.0

N = {N}

def get_inputs():
    return [torch.randn(N)]

def get_init_inputs():
    return []
'''

# The kernel every solution below launches (or a variant of it).
KERNEL = '''
import torch
import argus

@argus.kernel(target="sm_90a", block=128)
def add1(X: argus.Tensor[("N",), "f32"], Y: argus.Tensor[("N",), "f32"]):
    N = X.dim("N")
    argus.assume(N < 2 ** 22, "N < 2^22 (the verifier's index range)")
    argus.assume((N % 1024).eq(0), "one 1024-element tile per block")
    argus.assume(argus.grid_dim("x").eq(argus.cdiv(N, 1024)), "the grid covers N")
    n0 = argus.block_id("x") * 1024
    gx = argus.tag(argus.view(X, (n0,), (1024,)), lambda i: (n0 + i,))
    gy = argus.tag(argus.view(Y, (n0,), (1024,)), lambda i: (n0 + i,))
    argus.store(argus.load(gx) + 1.0, gy)
    argus.tag_assert("value.i == dest.i")
'''

HONEST = KERNEL + '''
class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        add1[(x.shape[0] // 1024,)](x, y)
        return y.view(-1)
'''

# Cheats -------------------------------------------------------------------

MEMO = KERNEL + '''
_memo = {}

class ModelNew(torch.nn.Module):
    def forward(self, x):
        key = tuple(x.shape)
        if key not in _memo:
            y = torch.empty_like(x)
            add1[(x.shape[0] // 1024,)](x, y)
            _memo[key] = y
        return _memo[key]
'''

REFERENCE_RESULT = KERNEL + '''
class ModelNew(torch.nn.Module):
    def forward(self, x):
        scratch = torch.empty_like(x)
        add1[(x.shape[0] // 1024,)](x, scratch)   # a kernel for show
        return torch.add(x, 1.0)                   # the reference's own computation
'''

SKIP_UNCHANGED = KERNEL + '''
class ModelNew(torch.nn.Module):
    def forward(self, x, _seen={}):
        if _seen.get("x") is x:                    # the same tensor object: reuse
            return _seen["y"]
        y = torch.empty_like(x)
        add1[(x.shape[0] // 1024,)](x, y)
        _seen["x"], _seen["y"] = x, y
        return y
'''

DISGUISED = KERNEL + '''
def as_output_view(t):
    """'just a reshape'"""
    return t.clamp(min=-1e30).view(-1)

class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        add1[(x.shape[0] // 1024,)](x, y)
        return as_output_view(y)
'''

HARNESS_BUFFERS = KERNEL + '''
class ModelNew(torch.nn.Module):
    def forward(self, x):
        add1[(x.shape[0] // 1024,)](x, x)          # into the harness's tensor
        return x
'''

# Proved under "N is a multiple of 1024"; the task's N is not.
FALSE_ASSUMPTION = HONEST

WRONG = KERNEL.replace("+ 1.0, gy", "+ 2.0, gy").replace("def add1", "def add2") + '''
class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        add2[(x.shape[0] // 1024,)](x, y)
        return y
'''

UNPROVED = KERNEL.replace("lambda i: (n0 + i,))\n    argus.store",
                          "lambda i: (n0 + i + 1,))\n    argus.store") + '''
class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        add1[(x.shape[0] // 1024,)](x, y)
        return y
'''

# Covering N as grid * 1024 with no bound on N: the product may wrap in the
# verifier's index range, so that check is unknown.
UNBOUNDED = KERNEL.replace('''    argus.assume(N < 2 ** 22, "N < 2^22 (the verifier's index range)")
    argus.assume((N % 1024).eq(0), "one 1024-element tile per block")
    argus.assume(argus.grid_dim("x").eq(argus.cdiv(N, 1024)), "the grid covers N")
''', '''    argus.assume(N.eq(argus.grid_dim("x") * 1024), "one 1024-element tile per block")
''').replace("def add1", "def add1u") + '''
class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        add1u[(x.shape[0] // 1024,)](x, y)
        return y
'''

CRASH = KERNEL + '''
import os
class ModelNew(torch.nn.Module):
    def forward(self, x):
        os._exit(3)
'''

HANG = KERNEL + '''
class ModelNew(torch.nn.Module):
    def forward(self, x):
        while True:
            pass
'''

FAKES = '''
def fake_execute(variant, grid, bound):
    """The kernels' semantics in torch: the stand-in for the interpreter."""
    args = {name: val for name, _, val in bound.values}
    if variant.name == "add1":
        args["Y"].copy_(args["X"] + 1.0)
    elif variant.name == "add2":
        args["Y"].copy_(args["X"] + 2.0)
    else:
        raise NotImplementedError(variant.name)
'''


@pytest.fixture
def env(tmp_path, monkeypatch, need_verifier):
    (tmp_path / "kb_fakes.py").write_text(FAKES)
    monkeypatch.syspath_prepend(str(tmp_path))

    def make(solution, n=4096):
        t = tmp_path / f"task_{n}.py"
        t.write_text(TASK.format(N=n))
        s = tmp_path / f"sol_{abs(hash(solution))}.py"
        s.write_text(solution)
        return str(t), str(s)
    return make


def run(env, solution, n=4096, executor="kb_fakes:fake_execute", **kw):
    task, sol = env(solution, n)
    o = Options(seeds=2, executor=executor, timeout_s=kw.pop("timeout_s", 120), **kw)
    return evaluate(task, sol, o)


def reasons(rec):
    return "\n".join(rec["reasons"])


def test_honest_solution_is_accepted_and_checked_with_the_cpu_executor(env):
    rec = run(env, HONEST)
    assert rec["accepted"] and rec["correct"] is True, reasons(rec)
    assert rec["status"] == "accepted"
    [k] = rec["kernels"]
    assert k["status"] == "proved" and k["written_args"] == [1]
    kinds = {c["kind"] for c in k["checks"]}
    assert {"output-once", "output-coverage"} <= kinds
    assert [t["kind"] for t in rec["trials"]] == ["fresh", "fresh", "inplace"]
    assert all(t["correct"] for t in rec["trials"])
    assert rec["glue"].get("rejected", 0) == 0 and rec["glue"]["alloc"] >= 3


def test_without_gpu_or_executor_correctness_is_not_checked(env):
    rec = run(env, HONEST, executor="capture")
    assert rec["correct"] is None and rec["accepted"]
    assert rec["status"] == "proved, not run (correctness not checked)"
    assert any("correctness not checked" in n for n in rec["notes"])
    assert timing.fast_p([rec], 1.0) is None  # no number without a verdict


def test_cheat_memoized_outputs(env):
    rec = run(env, MEMO)
    assert not rec["accepted"]
    r = reasons(rec)
    assert "state survives across calls: _memo (changed by the call)" in r
    assert "is the tensor returned by call 0" in r          # a tensor kept across calls
    assert "incorrect on the fresh trial" in r               # the fresh inputs expose it
    # no executor: the state and aliasing checks still reject it
    rec = run(env, MEMO, executor="capture")
    assert not rec["accepted"] and "_memo" in reasons(rec)


def test_cheat_returning_the_references_result(env):
    rec = run(env, REFERENCE_RESULT)
    r = reasons(rec)
    assert not rec["accepted"]
    assert "glue: aten.add (compute) runs in forward outside an Argus kernel" in r
    assert "output 0 was not written by any kernel launched in this call" in r


def test_cheat_skipping_work_when_the_input_is_unchanged(env):
    rec = run(env, SKIP_UNCHANGED)
    r = reasons(rec)
    assert not rec["accepted"]
    assert "incorrect on the inplace trial" in r             # same tensor, new contents
    assert "ModelNew.forward (changed by the call)" in r     # the mutable default kept state


def test_cheat_torch_op_disguised_as_glue(env):
    rec = run(env, DISGUISED)
    assert not rec["accepted"]
    assert "glue: aten.clamp (compute) runs in forward outside an Argus kernel" in reasons(rec)
    # allowed by name, it is reported separately and accepted
    rec = run(env, DISGUISED, allow_torch_ops=["aten.clamp"])
    assert rec["accepted"], reasons(rec)
    assert rec["allowed_torch_ops"] == {"aten.clamp": 3}


def test_cheat_writing_into_the_harness_buffers(env):
    rec = run(env, HARNESS_BUFFERS)
    r = reasons(rec)
    assert not rec["accepted"]
    assert "forward wrote into input 0 (the harness's tensor)" in r
    assert "output 0 shares memory with input 0" in r


def test_cheat_proof_resting_on_an_assumption_false_at_the_tasks_shapes(env):
    rec = run(env, FALSE_ASSUMPTION, n=4000)
    assert not rec["accepted"]
    assert rec["kernels"][0]["status"] == "proved"   # the proof itself holds ...
    r = reasons(rec)
    assert "one 1024-element tile per block" in r and "false" in r   # ... not at N = 4000
    assert "N" in r and "4000" in r


def test_wrong_values_are_reported_where_and_by_how_much(env):
    rec = run(env, WRONG)
    assert not rec["accepted"] and rec["correct"] is False
    t = rec["trials"][0]
    assert t["correct"] is False and abs(t["max_abs_diff"] - 1.0) < 1e-5
    assert "4096 of 4096 elements differ" in t["why"] and "first at [0]" in t["why"]


def test_violated_kernel_is_rejected_with_its_counterexample(env):
    rec = run(env, UNPROVED)
    assert not rec["accepted"]
    [k] = rec["kernels"]
    assert k["status"] == "violated"
    bad = [c for c in k["checks"] if c["status"] == "violated"]
    assert any(c["kind"] == "assert" and c.get("counterexample") for c in bad)
    assert "assert violated 'value.i == dest.i'" in reasons(rec)


def test_unknown_checks_fail_unless_allowed(env):
    rec = run(env, UNBOUNDED, executor="capture")
    assert not rec["accepted"] and rec["kernels"][0]["status"] == "unknown"
    assert "index-range unknown" in reasons(rec) and "--allow-unknown accepts it" in reasons(rec)
    rec = run(env, UNBOUNDED, executor="capture", allow_unknown=True)
    assert rec["accepted"], reasons(rec)
    assert any("unknown check(s) accepted (--allow-unknown)" in n for n in rec["notes"])


def test_crash_and_hang_are_reported(env):
    rec = run(env, CRASH)
    assert rec["failure"] == "fault" and "exit code 3" in reasons(rec)
    rec = run(env, HANG, timeout_s=3)
    assert rec["failure"] == "timeout" and "within 3 s" in reasons(rec)


def test_glue_classification_without_kernels():
    x = torch.randn(8, 8)
    with glue.GlueMonitor() as g:
        y = x.view(64).reshape(8, 8).t()
        z = torch.empty_like(x)
        z.zero_()
        w = torch.zeros(4)
        w.fill_(2.0)
        x.contiguous()
    assert g.report.ok, g.report
    with glue.GlueMonitor() as g:
        x.add_(0)                 # into a tensor not allocated here
        x.half()                  # a conversion
        float(x[0, 0])            # a host read
        torch.nn.functional.linear(x, x)
    r = "\n".join(g.report.rejected)
    assert "aten.add_" in r and "a dtype conversion" in r and "reads tensor data on the host" in r
    assert "aten.mm" in r or "aten.addmm" in r or "aten.linear" in r
    assert y.shape == (8, 8)


def test_fast_p_and_summary():
    recs = [{"accepted": True, "correct": True, "speedup": 1.2},
            {"accepted": True, "correct": True, "speedup": 0.9},
            {"accepted": False, "correct": True, "speedup": 3.0},   # rejected: never counts
            {"accepted": True, "correct": False, "speedup": 2.5}]
    assert timing.fast_p(recs, 0) == 0.5
    assert timing.fast_p(recs, 0.8) == 0.5
    assert timing.fast_p(recs, 1.0) == 0.25
    assert timing.fast_p(recs, 2.0) == 0.0
    from argus.kernelbench.report import summary, table
    s = summary(recs)
    assert s["fast_1"] == 0.25 and abs(s["geomean_speedup"] - (1.2 * 0.9) ** 0.5) < 1e-9
    assert "speedup" in table(recs)


def test_cli_eval_writes_json_and_exit_status(env, tmp_path):
    task, sol = env(HONEST)
    out = tmp_path / "r.json"
    envv = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    p = subprocess.run([sys.executable, "-m", "argus.kernelbench", "eval", task, sol, "--seeds",
                        "1", "--executor", "capture", "--json", str(out)], capture_output=True,
                       text=True, env=envv, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "not checked" in p.stdout and "add1" not in p.stderr
    rec = json.loads(out.read_text())
    assert rec["fast_p"] == {"0": None, "0.8": None, "1": None, "1.5": None, "2": None}
    _, bad = env(HARNESS_BUFFERS)
    p = subprocess.run([sys.executable, "-m", "argus.kernelbench", "eval", task, bad, "--seeds",
                        "1", "--executor", "capture"], capture_output=True, text=True, env=envv,
                       timeout=300)
    assert p.returncode == 1 and "rejected: " in p.stdout


def test_suite_goes_on_after_a_fault_and_a_hang(env, tmp_path):
    d = tmp_path / "suite"
    (d / "tasks").mkdir(parents=True)
    (d / "solutions").mkdir()
    for name, sol in (("a_ok", HONEST), ("b_crash", CRASH), ("c_hang", HANG), ("d_nosol", None)):
        (d / "tasks" / f"{name}.py").write_text(TASK.format(N=4096))
        if sol:
            (d / "solutions" / f"{name}.py").write_text(sol)
    from argus.kernelbench.suite import run_suite
    log = tmp_path / "suite.jsonl"
    recs = run_suite(str(d), args=["--seeds", "1", "--executor", "capture", "--worker-timeout",
                                   "3"], timeout_s=200, log=str(log))
    by = {r["task"]: r for r in recs}
    assert by["a_ok"]["accepted"]
    assert by["b_crash"]["failure"] == "fault"
    assert by["c_hang"]["failure"] == "timeout"
    assert by["d_nosol"]["status"] == "no solution"
    assert len(log.read_text().splitlines()) == 4
    again = run_suite(str(d), args=[], log=str(log), resume=True)   # nothing re-run
    assert [r["task"] for r in again] == ["a_ok", "b_crash", "c_hang", "d_nosol"]


# Unmodified KernelBench files (kept out of git): set ARGUS_KERNELBENCH_DIR to
# a checkout's KernelBench/ directory (the one holding level1/ and level2/).
KB_DIR = os.environ.get("ARGUS_KERNELBENCH_DIR")
needs_kb = pytest.mark.skipif(not KB_DIR, reason="ARGUS_KERNELBENCH_DIR (KernelBench's "
                              "KernelBench/ directory) is not set")


@needs_kb
def test_unmodified_kernelbench_level1_and_level2_tasks_load():
    import glob
    from argus.kernelbench.task import load_task
    files = sorted(glob.glob(os.path.join(KB_DIR, "level1", "*.py")) +
                   glob.glob(os.path.join(KB_DIR, "level2", "*.py")))
    assert len(files) >= 200
    for f in files:
        t = load_task(f)
        assert isinstance(t.get_init_inputs(), (list, tuple)), f


KB_L2_12_SOLUTION = '''
import sys
sys.path.insert(0, {soldir!r})
import torch
import argus
import _kernels as K


class ModelNew(torch.nn.Module):
    def __init__(self, in_features, out_features, multiplier, negative_slope):
        super().__init__()
        self.gemm = torch.nn.Linear(in_features, out_features)
        m, s = float(multiplier), float(negative_slope)
        self.kernel = K.gemm("gemm_mul_leaky", bias=True,
                             epilogue=lambda y: argus.where(y > 0, y * m, y * (m * s)))

    def forward(self, x):
        w_t = self.gemm.weight.t().contiguous()
        y = torch.empty(x.shape[0], w_t.shape[1], dtype=x.dtype, device=x.device)
        self.kernel[None](x, w_t, y, self.gemm.bias)
        return y
'''


@needs_kb
def test_unmodified_kernelbench_level2_task_evaluates(tmp_path, need_verifier):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sol = tmp_path / "sol.py"
    sol.write_text(KB_L2_12_SOLUTION.format(
        soldir=os.path.join(root, "bench", "kernelbench", "solutions")))
    rec = evaluate(os.path.join(KB_DIR, "level2", "12_Gemm_Multiply_LeakyReLU.py"), str(sol),
                   Options(seeds=1, executor="capture", timeout_s=600))
    assert rec["accepted"], reasons(rec)
    assert rec["loaded_reference_state"] and rec["kernels"][0]["status"] == "proved"
