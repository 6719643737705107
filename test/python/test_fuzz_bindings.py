"""Mutation fuzzing of the bindings in process (issue 13): mutated example
kernels through argus.parse, Module.verify_tags and the lowering pipelines in
one interpreter; a dead interpreter or a non-argus exception fails. A fixed
seed, then today's (a rotating one)."""

import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUZZ = os.path.join(ROOT, "test", "fuzz", "fuzz_bindings.py")


@pytest.mark.parametrize("seed,count", [("7", 60), ("date", 30)])
def test_bindings_survive_mutants(tmp_path, seed, count, need_verifier):
    examples = sorted(glob.glob(os.path.join(ROOT, "examples", "*.mlir")))
    r = subprocess.run([sys.executable, FUZZ, "--count", str(count), "--seed", seed,
                        "--work-dir", str(tmp_path)] + examples,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"binding mutants: {count}, interpreter deaths: 0, unexpected exceptions: 0" \
        in r.stdout
