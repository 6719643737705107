import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in (os.path.join(ROOT, "python"), os.path.join(ROOT, "examples", "python")):
    if p not in sys.path:
        sys.path.insert(0, p)

import pytest  # noqa: E402

try:
    import _argus  # noqa: F401
    _MISSING = None
except ImportError as e:  # the extension is not built: every test needs it
    _MISSING = str(e)
    collect_ignore = [os.path.join(os.path.dirname(__file__), f)
                      for f in os.listdir(os.path.dirname(__file__))
                      if f.startswith("test_") and f.endswith(".py") and f != "test_extension.py"]


def pytest_configure(config):
    config.addinivalue_line("markers", "verifier: needs the argus-verify-tags pass")


def install_stand_in(tmp_path, monkeypatch, script: str, log_name: str):
    """An executable stand-in for argus-run (``script``, a Python program)
    as $ARGUS_RUN, with $ARGUS_GPU=1 (a GPU is assumed) and $ARGUS_FAKE_LOG
    pointing at ``tmp_path/log_name``; returns the log's path."""
    import stat
    exe = tmp_path / "argus-run"
    exe.write_text(script)
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / log_name
    monkeypatch.setenv("ARGUS_RUN", str(exe))
    monkeypatch.setenv("ARGUS_GPU", "1")
    monkeypatch.setenv("ARGUS_FAKE_LOG", str(log))
    return log


def violated_at(kernel, kind, path, line, **verify):
    """Verifies ``kernel``, which must raise InvariantViolation with a
    violated check of ``kind`` reported at ``path:line`` (a planted mistake
    found at the user's line); returns that check and the exception."""
    import argus
    with pytest.raises(argus.InvariantViolation) as ei:
        kernel.verify(**verify)
    e = ei.value
    hits = [c for c in e.violations if c.kind == kind]
    assert hits, e.result.summary() + "\n" + "\n".join(map(str, e.violations))
    at = [c for c in hits
          if os.path.abspath(c.py_file) == os.path.abspath(path) and c.py_line == line]
    assert at, [str(c) for c in hits]
    return at[0], e


@pytest.fixture
def need_verifier():
    import argus
    if not argus.verifier_available():
        pytest.skip("argus-verify-tags not built into the _argus extension")


@pytest.fixture
def examples_dir():
    return os.path.join(ROOT, "examples")
