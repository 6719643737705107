"""Every reference solution of bench/kernelbench is accepted by the evaluator
(no GPU here): each kernel it launches at the task's own shapes is proved
(output-once and output-coverage included), its assumptions hold at those
shapes, its glue is within the allow-list and it keeps no state; and its
plumbing (reshapes, weight transposes, argument order, scalars) matches the
task's reference when each kernel is replaced by a torch fake of what it is
meant to compute. The kernels' own arithmetic needs the GPU
(bench/kernelbench/run_gpu.sh) or the CPU interpreter."""

import glob
import os

import pytest

torch = pytest.importorskip("torch", reason="PyTorch (Debian python3-torch) is needed to load "
                            "KernelBench tasks")

from argus.kernelbench import Options, evaluate  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITE = os.path.join(ROOT, "bench", "kernelbench")
TASKS = sorted(glob.glob(os.path.join(SUITE, "tasks", "*.py")))


def test_the_suite_has_tasks_with_solutions():
    assert len(TASKS) >= 26
    for t in TASKS:
        assert os.path.exists(os.path.join(SUITE, "solutions", os.path.basename(t))), t


# What each suite kernel computes, in torch: a stand-in for the GPU (or the
# interpreter) that checks each solution's glue, argument order and
# parameters against the task's reference. It checks the plumbing, not the
# kernels' arithmetic (that needs bench/kernelbench/run_gpu.sh).
def _gemm(a, b):
    return a @ b


def fake_execute(variant, grid, bound):
    import torch.nn.functional as F
    v = {n: val for n, _, val in bound.values}
    name = variant.name.split("-")[0]
    t = [val for _, _, val in bound.values]
    rowwise = {"softmax_rows": lambda x: torch.softmax(x, -1),
               "attn_softmax": lambda x: torch.softmax(x, -1),
               "head_softmax": lambda x: torch.softmax(x, -1),
               "scaled_softmax": lambda x: torch.softmax(x * 0.125, -1),
               "log_softmax_rows": lambda x: torch.log_softmax(x, -1),
               "layernorm_plain": lambda x: F.layer_norm(x, x.shape[-1:], eps=1e-5)}
    unary = {"leaky_relu": lambda x: F.leaky_relu(x, 0.05), "gelu_exact": F.gelu,
             "swish": lambda x: x * torch.sigmoid(x), "elu": F.elu,
             "hardsigmoid": F.hardsigmoid}
    gemm_epi = {"matmul_tf32": None, "bmm_slice_tf32": None, "attn_pv": None,
                "moe_up_gelu": F.gelu, "linear_tf32": None, "head_linear": None,
                "linear_bias_relu": torch.relu, "linear_gelu": F.gelu,
                "matmul_bias_swish": lambda y: y * torch.sigmoid(y),
                "linear_sigmoid_scale": "scale", "attn_scores": "scale",
                "moe_down_gate": "gate"}
    if name in unary:
        t[1].copy_(unary[name](t[0]))
    elif name == "gated_product":
        t[2].copy_((t[0] + t[1]) * torch.sigmoid(t[1]))
    elif name in rowwise:
        t[1].copy_(rowwise[name](t[0]))
    elif name in ("layernorm_affine", "layernorm_gelu"):
        y = F.layer_norm(v["X"], v["X"].shape[-1:], v["W"], v["B"], float(v["eps"]))
        v["Y"].copy_(F.gelu(y) if name == "layernorm_gelu" else y)
    elif name in ("rmsnorm", "residual_rmsnorm"):
        x = v["X"] + v["R"] if "R" in v else v["X"]
        v["Y"].copy_(x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + float(v["eps"])) * v["W"])
    elif name in ("row_sum", "row_max", "row_mean"):
        r = v["X"].amax(-1) if name == "row_max" else v["X"].sum(-1)
        v["Y"].copy_(r * float(v["s"]) if "s" in v else r)
    elif name == "cumsum_rows":
        v["Y"].copy_(torch.cumsum(v["X"], 1))
    elif name in gemm_epi:
        y = _gemm(v["A"], v["B"])
        if "Bias" in v:
            y = y + v["Bias"]
        e = gemm_epi[name]
        if e == "scale":
            y = (torch.sigmoid(y) if name == "linear_sigmoid_scale" else y) * float(v["s"])
        elif e == "gate":
            y = y * v["G"][:, None]
        elif e is not None:
            y = e(y)
        v["C"].copy_(y)
    elif name.startswith("conv3x3"):
        x = v["X"].permute(0, 3, 1, 2)
        co, k = v["Wt"].shape
        w = v["Wt"].view(co, 3, 3, k // 9).permute(0, 3, 1, 2)
        y = F.conv2d(x, w, v.get("Bias"), padding=1)
        if name.endswith("relu"):
            y = torch.relu(y)
        v["Y"].copy_(y.permute(0, 2, 3, 1).reshape(v["Y"].shape))
    else:
        raise NotImplementedError(name)


@pytest.mark.verifier
@pytest.mark.parametrize("task", TASKS, ids=[os.path.basename(t)[:-3] for t in TASKS])
def test_reference_solution_is_proved_honest_and_plumbed_right(task, need_verifier):
    """At the task's own shapes: every kernel launched is proved (output-once
    and output-coverage included), its assumptions hold, the glue is within
    the allow-list, no state is kept; and with every kernel replaced by its
    intended semantics (fake_execute) the outputs match the task's reference
    at KernelBench's tolerances on fresh inputs and on the in-place trial."""
    name = os.path.basename(task)[:-3]
    sol = os.path.join(SUITE, "solutions", name + ".py")
    executor = "capture" if name in HEAVY else "test_kernelbench_suite:fake_execute"
    rec = evaluate(task, sol, Options(seeds=1, executor=executor, timeout_s=600))
    assert rec["accepted"], "\n".join(rec["reasons"])
    assert rec["kernels"] and all(k["status"] == "proved" for k in rec["kernels"])
    assert rec["correct"] is (None if name in HEAVY else True)


# Tasks whose CPU reference (a GEMM of 10+ GFLOP) takes tens of seconds on
# two cores: proved and checked for honesty only; the same glue (the weight
# transpose, the bias) is checked with fakes by 20_linear_gelu,
# 21_linear_sigmoid_scale and 29_linear_softmax.
HEAVY = {"15_matmul", "16_linear", "19_linear_bias_relu"}


@pytest.mark.verifier
def test_prepared_batch_runs_where_the_extension_is_missing(tmp_path, need_verifier):
    """prepare (here, with argus built) writes proofs and argus.aot exports;
    suite --prepared runs the same solutions in a process that cannot import
    _argus (a GPU host without MLIR; the kernels' execution is faked here),
    taking the proofs from the batch."""
    import json
    import subprocess
    import sys
    import _argus
    ext_dir = os.path.dirname(os.path.abspath(_argus.__file__))
    here = os.path.dirname(os.path.abspath(__file__))
    full = os.pathsep.join(p for p in sys.path if p)
    bare = os.pathsep.join(p for p in sys.path if p and os.path.abspath(p) != ext_dir)
    batch = tmp_path / "batch"
    only = ["--only", "06_gated_product", "--only", "28_moe_experts"]
    p = subprocess.run([sys.executable, "-m", "argus.kernelbench", "prepare", SUITE, "--out",
                        str(batch), "--seeds", "1", "--quiet", *only], capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=full), timeout=600)
    assert p.returncode == 0, p.stderr
    assert sorted(os.listdir(batch / "prepared")) == ["06_gated_product.json",
                                                      "28_moe_experts.json"]
    assert (batch / "aot" / "moe_up_gelu.ptx").exists()
    out = tmp_path / "r.json"
    p = subprocess.run([sys.executable, "-m", "argus.kernelbench", "suite", SUITE, "--prepared",
                        str(batch), "--seeds", "1", "--quiet", "--executor",
                        "test_kernelbench_suite:fake_execute", "--json", str(out), *only],
                       capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, PYTHONPATH=bare + os.pathsep + here))
    assert p.returncode == 0, p.stderr
    recs = json.loads(out.read_text())["records"]
    assert [r["status"] for r in recs] == ["accepted", "accepted"], [r["reasons"] for r in recs]
    assert all(k["proved_in"].startswith("prepared batch") for r in recs for k in r["kernels"])
    # a kernel the batch does not hold is not proved
    os.unlink(batch / "prepared" / "06_gated_product.json")
    p = subprocess.run([sys.executable, "-m", "argus.kernelbench", "eval",
                        os.path.join(SUITE, "tasks", "06_gated_product.py"),
                        os.path.join(SUITE, "solutions", "06_gated_product.py"), "--prepared",
                        str(batch), "--seeds", "1", "--executor",
                        "test_kernelbench_suite:fake_execute"], capture_output=True, text=True,
                       timeout=600, env=dict(os.environ, PYTHONPATH=bare + os.pathsep + here))
    assert p.returncode == 1 and "no record of this task" in p.stdout
