"""KernelBench tasks and solutions, loaded from their files.

A task is a Python file in KernelBench's format (levels 1 and 2 as
published): a ``torch.nn.Module`` subclass ``Model``, ``get_inputs()``
returning the forward's arguments and ``get_init_inputs()`` the
constructor's; module-level constants (batch sizes, shapes) are the file's
own. A solution is a Python file with a ``ModelNew`` taking the same
constructor arguments, whose ``forward`` launches Argus kernels
(``kernel[grid](...)``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import os
import sys
from typing import Any, Callable, List

from ..errors import ArgusError


def load_module(path: str, prefix: str):
    """Import the file ``path`` as a fresh module (a unique name, so a task
    and a solution of the same file name do not collide); its directory is
    on ``sys.path`` while it imports (a solution may import helpers beside
    it)."""
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise ArgusError(f"{path}: no such file")
    digest = hashlib.sha1(path.encode()).hexdigest()[:8]
    stem = "".join(c if c.isalnum() else "_" for c in os.path.splitext(os.path.basename(path))[0])
    name = f"_argus_kb_{prefix}_{stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    d = os.path.dirname(path)
    sys.path.insert(0, d)
    try:
        spec.loader.exec_module(mod)
    except Exception:
        sys.modules.pop(name, None)
        raise
    finally:
        try:
            sys.path.remove(d)
        except ValueError:
            pass
    return mod


@dataclasses.dataclass
class Task:
    path: str
    name: str
    module: Any
    Model: type
    get_inputs: Callable[[], List[Any]]
    get_init_inputs: Callable[[], List[Any]]

    @property
    def source(self) -> str:
        with open(self.path) as f:
            return f.read()


def load_task(path: str) -> Task:
    """The task in ``path``; ArgusError naming what is missing."""
    mod = load_module(path, "task")
    missing = [n for n in ("Model", "get_inputs", "get_init_inputs") if not hasattr(mod, n)]
    if missing:
        raise ArgusError(f"{path}: not a KernelBench task: no {', '.join(missing)}",
                         hint="a task defines class Model(nn.Module), get_inputs() and "
                         "get_init_inputs()")
    name = os.path.splitext(os.path.basename(path))[0]
    return Task(os.path.abspath(path), name, mod, mod.Model, mod.get_inputs, mod.get_init_inputs)


def load_solution(path: str):
    """The solution module in ``path`` (it must define ``ModelNew``)."""
    mod = load_module(path, "solution")
    if not hasattr(mod, "ModelNew"):
        raise ArgusError(f"{path}: a solution defines class ModelNew (the task's Model "
                         "with a forward that launches Argus kernels)")
    return mod
