"""Who executes the kernels a solution launches.

* ``gpu``: the worker exports each variant (``argus.aot``) and launches it
  on CUDA tensors. Chosen when torch sees a GPU.
* a CPU executor, named ``"module:function"``: ``function(variant, grid,
  bound)`` computes the launch's written tensors in place on CPU tensors
  (``bound`` is ``argus.launch.BoundLaunch``: ``bound.values`` holds
  ``(name, annotation, value)`` per parameter; ``grid`` is the launch's
  grid, or None for the kernel's grid rule). This is the hook for the CPU
  interpreter of the dialect, which is being written separately: once it can
  run a kernel variant on host arrays, a function of that signature goes
  here (``--executor argus.interpret:kernelbench_execute``, or
  ``$ARGUS_KB_EXECUTOR``), and ``eval`` checks correctness without a GPU.
  The tests use Python fakes through the same hook.
* ``capture``: nothing executes; the launches are recorded and every check
  that does not need values runs (proofs, envelope, glue, state, aliasing,
  provenance). Correctness is *not* checked, and the record says so.
"""

from __future__ import annotations

import importlib
import os
from typing import Optional

NOT_CHECKED = ("correctness not checked: no GPU and no CPU executor (the interpreter hook: "
               "--executor MODULE:FUNCTION or $ARGUS_KB_EXECUTOR); proofs, envelope, glue, "
               "state and provenance were checked on the recorded launches")


def cpu_executor_spec() -> Optional[str]:
    """``$ARGUS_KB_EXECUTOR``, else the interpreter's entry point if a module
    ``argus.interpret`` providing ``kernelbench_execute`` is importable,
    else None (correctness cannot be checked here)."""
    env = os.environ.get("ARGUS_KB_EXECUTOR", "").strip()
    if env:
        return env
    try:
        mod = importlib.import_module("argus.interpret")
    except ImportError:
        return None
    return "argus.interpret:kernelbench_execute" if hasattr(mod, "kernelbench_execute") else None
