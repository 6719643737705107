"""setuptools driving CMake (as pybind11's cmake_example does).

    pip install --no-build-isolation .           # into a venv, --user, or
                                                 # --break-system-packages

build_ext configures and builds the CMake project (the `_argus` extension and
argus-opt, argus-layout, argus-run, argus-bench-verify), installs the
argus-python and argus-tools components into a staging prefix, copies the
package and the extension into the wheel, lists the tools as data files for
<environment>/bin, and writes argus/_paths.py pointing there. argus-agent is a
console script (pyproject.toml).

The CMake build tree, in order: $ARGUS_BUILD_DIR (as scripts/build.sh uses
it); else ./build when it is a configured tree for this interpreter (what
scripts/build.sh made: only changed files rebuild); else its own tree
./build-pip. setuptools' own build files go to a directory outside the
source tree (SETUPTOOLS_BUILD_BASE, under the temporary directory). Extra configure
options: $CMAKE_ARGS; parallel jobs: $ARGUS_JOBS.
"""

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
TOOLS = ["argus-opt", "argus-layout", "argus-run", "argus-bench-verify"]
MLIR_DIR = "/usr/lib/llvm-22/lib/cmake/mlir"
# setuptools' build and egg-info directory: per user, outside the source tree.
SETUPTOOLS_BUILD_BASE = os.path.join(tempfile.gettempdir(), f"argus-setuptools-{os.getuid()}")
os.makedirs(SETUPTOOLS_BUILD_BASE, exist_ok=True)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


def _cached(build, var):
    """A CMakeCache.txt entry, or None."""
    cache = Path(build) / "CMakeCache.txt"
    if not cache.is_file():
        return None
    m = re.search(rf"^{re.escape(var)}:[A-Z]+=(.*)$", cache.read_text(), re.M)
    return m.group(1) if m else None


def _same_python(exe):
    return exe is not None and os.path.realpath(exe) == os.path.realpath(sys.executable)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if self.inplace:
            raise RuntimeError(
                "argus: editable / in-place builds are not supported; from the source "
                "tree use PYTHONPATH=build/python:python (docs/Python.md)")
        ext_path = Path(self.get_ext_fullpath(ext.name)).resolve()
        site = ext_path.parent
        build = self._build_dir()
        if not (build / "CMakeCache.txt").is_file():
            self._configure(build)
        jobs = os.environ.get("ARGUS_JOBS", str(os.cpu_count() or 1))
        self._run(["cmake", "--build", str(build), "-j", jobs,
                   "--target", "_argus", *TOOLS])

        stage = Path(self.build_temp).resolve() / "argus-stage"
        shutil.rmtree(stage, ignore_errors=True)
        for component in ("argus-python", "argus-tools"):
            self._run(["cmake", "--install", str(build), "--prefix", str(stage),
                       "--component", component])

        # The installed package: <stage>/<ARGUS_PYTHON_INSTALL_DIR>/argus.
        found = sorted(stage.rglob("argus/_paths.py"))
        if len(found) != 1:
            raise RuntimeError(f"argus: expected one installed argus package under {stage}")
        staged_site = found[0].parent.parent
        if not (staged_site / ext_path.name).is_file():
            raise RuntimeError(
                f"argus: {build} built no {ext_path.name} (is it configured for "
                f"{sys.executable}? set ARGUS_BUILD_DIR to another tree)")
        shutil.copytree(staged_site, site, dirs_exist_ok=True)

        # The tools go to <scheme data>/bin (the environment's bin); record
        # that relative to the installed package.
        data_bin = os.path.join(sysconfig.get_path("data"), "bin")
        pkg = os.path.join(sysconfig.get_path("platlib"), "argus")
        (site / "argus" / "_paths.py").write_text(
            '"""Written by setup.py: where this installation\'s tools are."""\n'
            "# BIN_DIR is relative to this file's directory (or absolute).\n"
            f"BIN_DIR = {os.path.relpath(data_bin, pkg)!r}\n")
        tools = [str(stage / "bin" / t) for t in TOOLS if (stage / "bin" / t).is_file()]
        self.distribution.data_files = [("bin", tools)]

    def _build_dir(self):
        env = os.environ.get("ARGUS_BUILD_DIR")
        if env:
            return Path(env).resolve()
        default = ROOT / "build"
        if _same_python(_cached(default, "Python3_EXECUTABLE")):
            return default
        return ROOT / "build-pip"

    def _configure(self, build):
        args = ["cmake", "-S", str(ROOT), "-B", str(build),
                "-DCMAKE_BUILD_TYPE=Release",
                f"-DMLIR_DIR={MLIR_DIR}",
                f"-DPython3_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja"):
            args[1:1] = ["-G", "Ninja"]
        args += os.environ.get("CMAKE_ARGS", "").split()
        self._run(args)

    @staticmethod
    def _run(cmd):
        print("argus setup.py:", " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)


setup(
    ext_modules=[CMakeExtension("_argus")],
    cmdclass={"build_ext": CMakeBuild},
    # Keep setuptools' own build directories out of the CMake tree ./build
    # and out of the source tree (issue 54: pip left ./build-py behind).
    options={"build": {"build_base": SETUPTOOLS_BUILD_BASE},
             "egg_info": {"egg_base": SETUPTOOLS_BUILD_BASE}},
    zip_safe=False,
)
