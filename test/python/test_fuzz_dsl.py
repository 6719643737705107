"""Random DSL programs with out-of-range scalars and odd dtypes (issue 54,
test/fuzz/fuzz_dsl.py): each traces to IR or raises an ArgusError, never a
raw TypeError / KeyError / OverflowError / _argus.BuildError, and never
ends the interpreter. A fixed seed, then today's (a rotating one)."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUZZ = os.path.join(ROOT, "test", "fuzz", "fuzz_dsl.py")


@pytest.mark.parametrize("seed,count", [("54", 300), ("date", 100)])
def test_dsl_programs_raise_only_argus_errors(tmp_path, seed, count):
    r = subprocess.run([sys.executable, FUZZ, "--count", str(count), "--seed", seed,
                        "--jobs", "2", "--work-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert f"dsl programs: {count}, interpreter deaths: 0, unexpected exceptions: 0" \
        in r.stdout
