"""`cmake --install build --prefix P`: the installed argus package imports from
P alone (no source tree, no build tree), verifies a kernel through the
installed _argus, and finds the installed tools, also after P is moved."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("ARGUS_BUILD_DIR", os.path.join(ROOT, "build"))
TOOLS = ("argus-opt", "argus-layout", "argus-run", "argus-bench-verify", "argus-agent")

# Runs in the installed environment only: a one-tile MFMA GEMM, traced,
# verified (every check proved) and parsed back by the installed argus-opt.
SCRIPT = textwrap.dedent('''
    import json, os, subprocess, sys
    import argus, _argus

    MFMA = "v_mfma_f32_32x32x8_f16"
    FA = argus.frag(MFMA, "a", warps=(2, 2))
    FB = argus.frag(MFMA, "b", warps=(2, 2))
    FC = argus.frag(MFMA, "c", warps=(2, 2))

    @argus.kernel(target="gfx942", block=256)
    def tile(A: argus.Tensor[("M", "K"), "f16"], B: argus.Tensor[("K", "N"), "f16"]):
        argus.assume(A.dim("M").eq(128) & A.dim("K").eq(32) & B.dim("N").eq(128),
                     "one 128x128 tile")
        sa = argus.alloc((128, 32), "f16", name="sA")[0]
        sb = argus.alloc((32, 128), "f16", name="sB")[0]
        ga = argus.tag(argus.view(A, (0, 0), (128, 32)), lambda m, k: (m, k))
        gb = argus.tag(argus.view(B, (0, 0), (32, 128)), lambda k, n: (k, n))
        argus.copy(ga, sa, threads="((4,64),(8,2)):((1024,1),(128,64))")
        argus.copy(gb, sb, threads="((16,16),(8,2)):((256,1),(32,16))")
        argus.barrier()
        acc = argus.tag(argus.zeros((128, 128), "f32", FC), lambda m, n: (m, n))
        acc = argus.mma(MFMA, argus.load(sa, layout=FA), argus.load(sb, layout=FB), acc)
        argus.tag_assert(acc, "a.k == b.k && a.m == acc.m && b.n == acc.n")

    out = {"argus": argus.__file__, "_argus": _argus.__file__,
           "tools": {t: argus.find_tool(t) for t in sys.argv[1:]}}
    if os.environ.get("ARGUS_INSTALL_TEST_FULL"):
        r = tile.verify()
        out["proved"] = r.proved
        out["checks"] = len(r.checks)
        p = subprocess.run(["argus-opt", "--verify-each", "-o", "-"], input=tile.ir(),
                           capture_output=True, text=True)
        out["opt_rc"], out["opt_err"] = p.returncode, p.stderr
        out["opt_has_mma"] = "argus.mma" in p.stdout
    print(json.dumps(out))
''')


def _site_dir(prefix):
    hits = [d for d, _, files in os.walk(prefix) if "_paths.py" in files
            and os.path.basename(d) == "argus"]
    assert len(hits) == 1, hits
    return os.path.dirname(hits[0])


def _run_installed(prefix, workdir, full, on_path=True):
    path = ([os.path.join(prefix, "bin")] if on_path else []) + ["/usr/bin", "/bin"]
    env = {"HOME": str(workdir), "LANG": "C.UTF-8", "PATH": os.pathsep.join(path),
           # The prefix is a temporary directory, not on the interpreter's
           # path: name its site directory (nothing else).
           "PYTHONPATH": _site_dir(prefix)}
    if full:
        env["ARGUS_INSTALL_TEST_FULL"] = "1"
    script = os.path.join(workdir, "installed_check.py")
    with open(script, "w") as f:
        f.write(SCRIPT)
    p = subprocess.run([sys.executable, "-B", script, *TOOLS],
                       cwd=workdir, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_cmake_install_prefix(tmp_path):
    if not os.path.isfile(os.path.join(BUILD, "cmake_install.cmake")):
        pytest.skip(f"no configured build tree at {BUILD} (scripts/build.sh makes one)")
    missing = [t for t in ("bin/argus-opt", "bin/argus-run") if not os.path.isfile(os.path.join(BUILD, t))]
    if missing or not any(f.startswith("_argus") for f in os.listdir(os.path.join(BUILD, "python"))):
        pytest.skip(f"the build tree {BUILD} is not built (missing {missing or '_argus'})")
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("cmake is not on PATH")

    prefix = tmp_path / "prefix"
    # cmake --install rewrites <build>/install_manifest.txt; keep the one of the
    # user's own install (README: it is how to uninstall).
    manifest = os.path.join(BUILD, "install_manifest.txt")
    saved = open(manifest, "rb").read() if os.path.exists(manifest) else None
    try:
        p = subprocess.run([cmake, "--install", BUILD, "--prefix", str(prefix)],
                           capture_output=True, text=True, timeout=120)
    finally:
        if saved is None:
            if os.path.exists(manifest):
                os.remove(manifest)
        else:
            with open(manifest, "wb") as f:
                f.write(saved)
    assert p.returncode == 0, p.stdout + p.stderr
    for t in TOOLS:
        assert os.access(prefix / "bin" / t, os.X_OK), t

    work = tmp_path / "work"
    work.mkdir()
    out = _run_installed(str(prefix), work, full=True)
    site = _site_dir(str(prefix))
    # Imported from the install, not from the source or build tree.
    assert out["argus"] == os.path.join(site, "argus", "__init__.py")
    assert os.path.dirname(out["_argus"]) == site
    assert out["tools"] == {t: str(prefix / "bin" / t) for t in TOOLS}
    assert out["proved"] and out["checks"] > 0
    assert out["opt_rc"] == 0 and out["opt_has_mma"], out["opt_err"]

    # The installed argus-agent wrapper finds the installed package.
    p = subprocess.run([str(prefix / "bin" / "argus-agent"), "--help"], cwd=work,
                       env={"HOME": str(work), "PATH": "/usr/bin:/bin"},
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "usage: argus-agent" in p.stdout, p.stdout + p.stderr

    # argus-measure is installed too, and runs from the installed package
    # (issue 54: it was not in P/bin).
    p = subprocess.run([str(prefix / "bin" / "argus-measure"), "--help"], cwd=work,
                       env={"HOME": str(work), "PATH": "/usr/bin:/bin"},
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "usage: argus-measure" in p.stdout, p.stdout + p.stderr
    # P/lib holds the runtime library only, not the compiler's internal
    # static libraries (issue 54: 7 libArgus*.a were copied there).
    libs = sorted(f for _, _, files in os.walk(prefix / "lib") for f in files
                  if f.endswith(".a"))
    assert libs == ["libArgusRuntime.a"], libs

    # _paths.py is relative: a moved prefix, off PATH, still finds its own tools.
    moved = tmp_path / "moved"
    os.rename(prefix, moved)
    out = _run_installed(str(moved), work, full=False, on_path=False)
    assert out["tools"] == {t: str(moved / "bin" / t) for t in TOOLS}


def test_demo_builds_what_the_install_needs():
    # Issue 54: scripts/demo.sh built only argus-opt, so the README's next
    # step, `cmake --install build`, stopped at the missing _argus. Its
    # build.sh call must build the default target (everything) or at least
    # every installed target.
    import re
    import shlex
    text = open(os.path.join(ROOT, "scripts", "demo.sh")).read()
    calls = [shlex.split(m.group(1)) for m in
             re.finditer(r'^\s*"\$root/scripts/build\.sh"(.*)$', text, re.M)]
    assert calls, "demo.sh does not call scripts/build.sh"
    installed = {"_argus", "argus-opt", "argus-layout", "argus-run", "argus-bench-verify",
                 "ArgusRuntime"}
    for targets in calls:
        assert not targets or installed <= set(targets), targets


def test_pip_writes_nothing_into_the_source_tree(tmp_path):
    # Issue 54: `pip install .` left setuptools' build directory build-py/
    # (and an egg-info) in the source tree. A wheel from the configured
    # build tree (nothing to rebuild) must leave the tree as it was.
    if not os.path.isfile(os.path.join(BUILD, "CMakeCache.txt")) or \
            os.environ.get("ARGUS_BUILD_DIR"):
        pytest.skip(f"needs the default build tree {BUILD}")
    for mod in ("pip", "wheel", "setuptools"):
        if subprocess.run([sys.executable, "-c", f"import {mod}"]).returncode:
            pytest.skip(f"needs {mod}")
    before = set(os.listdir(ROOT)) | set(os.listdir(os.path.join(ROOT, "python")))
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
                        ROOT, "-w", str(tmp_path)], capture_output=True, text=True, timeout=1200,
                       env=dict(os.environ, ARGUS_JOBS="2"))
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    after = set(os.listdir(ROOT)) | set(os.listdir(os.path.join(ROOT, "python")))
    assert after - before == set(), after - before
