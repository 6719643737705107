"""Where the argus command-line tools are (argus-opt, argus-layout, argus-run,
argus-bench-verify, argus-agent), for an installed package and for the source
tree alike.

``find_tool(name)`` looks, in order:

1. ``$ARGUS_<NAME>`` (``ARGUS_OPT``, ``ARGUS_RUN``, ``ARGUS_BENCH_VERIFY``, ...)
   when it names an existing file;
2. the bin directory recorded at install time in ``argus/_paths.py``
   (written by ``cmake --install`` and by ``setup.py``; absent in the source
   tree);
3. the build tree the loaded ``_argus`` extension came from (``<build>/bin``),
   or ``$ARGUS_BUILD/bin``: the tools that match a development checkout used
   with ``PYTHONPATH=build/python:python``;
4. ``PATH``.
"""

from __future__ import annotations

import os
import shutil
from typing import List, Optional

_HERE = os.path.dirname(os.path.abspath(__file__))

TOOLS = ("argus-opt", "argus-layout", "argus-run", "argus-bench-verify", "argus-agent")


def env_var(name: str) -> str:
    """The environment variable that overrides where ``name`` is
    (``argus-run`` -> ``ARGUS_RUN``)."""
    base = name[len("argus-"):] if name.startswith("argus-") else name
    return "ARGUS_" + base.upper().replace("-", "_")


def install_bin_dir() -> Optional[str]:
    """The bin directory this package was installed with, or None (source
    tree)."""
    try:
        from . import _paths  # type: ignore[attr-defined]
    except ImportError:
        return None
    d = getattr(_paths, "BIN_DIR", None)
    if not d:
        return None
    return os.path.normpath(os.path.join(_HERE, d))


def build_bin_dirs() -> List[str]:
    """Build-tree bin directories: that of the loaded ``_argus`` extension and
    ``$ARGUS_BUILD/bin``."""
    dirs: List[str] = []
    from . import ir
    ext = getattr(ir, "_argus", None)
    if ext is not None:
        # The extension records its build tree's argus-run (<build>/bin).
        run = getattr(ext, "argus_run_path", None)
        if run:
            dirs.append(os.path.dirname(run))
        # <build>/python/_argus*.so -> <build>/bin, when that is a build tree.
        f = getattr(ext, "__file__", None)
        if f:
            build = os.path.dirname(os.path.dirname(os.path.abspath(f)))
            if os.path.isfile(os.path.join(build, "CMakeCache.txt")):
                dirs.append(os.path.join(build, "bin"))
    env = os.environ.get("ARGUS_BUILD")
    if env:
        dirs.append(os.path.join(env, "bin"))
    out: List[str] = []
    for d in dirs:
        d = os.path.normpath(d)
        if d not in out:
            out.append(d)
    return out


def _executable(p: str) -> bool:
    return os.path.isfile(p) and os.access(p, os.X_OK)


def find_tool(name: str) -> Optional[str]:
    """The path of the argus tool ``name`` (e.g. ``"argus-opt"``), or None
    when it is nowhere (see the module docstring for the order)."""
    env = os.environ.get(env_var(name))
    if env and os.path.exists(env):
        return env
    d = install_bin_dir()
    if d and _executable(os.path.join(d, name)):
        return os.path.join(d, name)
    for d in build_bin_dirs():
        if _executable(os.path.join(d, name)):
            return os.path.join(d, name)
    return shutil.which(name)
