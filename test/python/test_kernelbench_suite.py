"""Every reference solution of bench/kernelbench is accepted by the evaluator
in capture mode (no GPU here): each kernel it launches at the task's own
shapes is proved (output-once and output-coverage included), its
assumptions hold at those shapes, its glue is within the allow-list and it
keeps no state. Correctness needs the GPU (bench/kernelbench/run_gpu.sh) or
the CPU interpreter."""

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


@pytest.mark.verifier
@pytest.mark.parametrize("task", TASKS, ids=[os.path.basename(t)[:-3] for t in TASKS])
def test_reference_solution_is_proved_and_honest(task, need_verifier):
    sol = os.path.join(SUITE, "solutions", os.path.basename(task))
    rec = evaluate(task, sol, Options(seeds=1, executor="capture", timeout_s=300))
    assert rec["accepted"], "\n".join(rec["reasons"])
    assert rec["kernels"] and all(k["status"] == "proved" for k in rec["kernels"])
    assert rec["correct"] is None  # not run here: said so, never assumed
