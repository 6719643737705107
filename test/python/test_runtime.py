"""The typed path from a traced kernel to a run, in process: the lowering
returns the object and the launch ABI (no files, no text scanning), and
argus.runtime runs the object through the runtime's C API with the buffers in
memory. Without a GPU, the runtime runs against the fake CUDA driver of the
Catch2 tests (test/unit/Runtime/FakeCuda.cpp), which loads any module with an
.entry and runs no code for kernels it does not know."""

import os
import tempfile

import numpy as np
import pytest

import argus
import argus.compile as acomp
import argus.runtime as art
import gemm
from argus import ir as _ir


def _build_lib(name):
    ext = _ir.extension()
    build = os.path.dirname(os.path.dirname(os.path.abspath(ext.__file__)))
    p = os.path.join(build, "lib", name)
    return p if os.path.isfile(p) else None


FAKE_CUDA = _build_lib("libArgusFakeCuda.so")
needs_runtime = pytest.mark.skipif(not art.available() or FAKE_CUDA is None,
                                   reason="the runtime library or the fake driver is not built")


@argus.kernel(target="sm_90a", block=128)
def axpy(X: argus.Tensor[("N",), "f32"], Y: argus.Tensor[("N",), "f32"],
         O: argus.Tensor[("N",), "f32"], a: argus.Scalar["f32"]):
    i = argus.block_id("x") * 128
    x = argus.load(argus.view(X, (i,), (128,)), layout="(128,1):(1,0)")
    y = argus.load(argus.view(Y, (i,), (128,)), layout="(128,1):(1,0)")
    argus.store(x * a + y, argus.view(O, (i,), (128,)))


def test_lowering_returns_the_object_and_the_abi():
    ck = acomp.compile_kernel(axpy)
    assert ck.binary.startswith(b"//") and b".entry axpy(" in ck.binary
    assert ck.asm == ck.binary.decode()
    abi = ck.abi
    assert abi.name == "axpy" and abi.chip == "sm_90a" and list(abi.block) == [128, 1, 1]
    assert abi.dynamic_smem == 0 and list(abi.tensor_maps) == []
    got = [(p.kind, p.arg, p.dim, p.dtype, p.written) for p in abi.params]
    assert got == [("buffer", 0, -1, "f32", False), ("size", 0, 0, "i64", False),
                   ("buffer", 1, -1, "f32", False), ("size", 1, 0, "i64", False),
                   ("buffer", 2, -1, "f32", True), ("size", 2, 0, "i64", False),
                   ("scalar", 3, -1, "f32", False)]
    assert ck.written == ["O"]
    # Probes add the probe buffer last and carry the plan.
    cp = acomp.compile_kernel(gemm.gemm_mfma, probes=True)
    assert cp.abi.params[-1].kind == "probe_buffer"
    assert cp.abi.probes["warp_size"] == 64 and cp.abi.probes["regions"]


def test_the_abi_carries_the_grid_rule():
    # gemm_mfma assumes M = 128 * grid_dim.y and N = 128 * grid_dim.x: the
    # lowering solves that for the grid, and the host evaluates it.
    ck = acomp.compile_kernel(gemm.gemm_mfma)
    x, y, z = ck.abi.grid
    assert x["extent"] == {"div": [{"size": [1, 1]}, 128]} and x["exact"]
    assert y["extent"] == {"div": [{"size": [0, 0]}, 128]} and y["exact"]
    assert x["assume"] == y["assume"] == "the grid covers M x N with 128 x 128 tiles"
    assert z == {"extent": 1}
    assert ck.grid((512, 64), (64, 384), (512, 384), 64) == (3, 4, 1)
    with pytest.raises(argus.ArgusError) as ei:
        ck.grid((500, 64), (64, 384), (500, 384), 64)
    assert "500 is not a multiple of 128" in str(ei.value)
    assert "128 x 128 tiles" in str(ei.value)
    # axpy reads block_id.x but assumes nothing of the grid: the caller's.
    assert acomp.compile_kernel(axpy).abi.grid[0] == {"extent": "free"}
    with pytest.raises(argus.ArgusError) as ei:
        acomp.compile_kernel(axpy).grid(np.ones(256), np.ones(256), np.ones(256), 1.0)
    assert "grid.x" in str(ei.value) and ei.value.hint


def test_launch_grid_evaluates_every_rule_form():
    from argus.grid import launch_grid
    free, one = {"extent": "free"}, {"extent": 1}
    ceil = {"extent": {"ceildiv": [{"size": [0, 1]}, 64]}, "assume": "N tiles"}
    heads = {"extent": {"div": [{"size": [0, 0]}, {"arg": 1}]}, "exact": True,
             "assume": "X is (grid_dim.y * S) rows"}
    strict = {"extent": {"max": [{"add": [{"div": [{"arg": 1}, 16]}, 1]},
                                 {"sub": [{"mul": [{"arg": 1}, 2]}, 3]}]}}
    x = np.zeros((600, 130))
    assert launch_grid([ceil, heads, one], [x, 100]) == (3, 6, 1)
    assert launch_grid([strict, one, one], [x, 32]) == (61, 1, 1)
    assert launch_grid([ceil, one, one], [(10, 129), 0]) == (3, 1, 1)
    with pytest.raises(argus.ArgusError, match="600 is not a multiple of 7"):
        launch_grid([ceil, heads, one], [x, 7])
    with pytest.raises(argus.ArgusError, match="divides by 0"):
        launch_grid([ceil, heads, one], [x, 0])
    with pytest.raises(argus.ArgusError, match="would be 0 blocks"):
        launch_grid([ceil, one, one], [(10, 0), 1])
    with pytest.raises(argus.ArgusError, match="determines grid.y") as ei:
        launch_grid([one, free, one], [x, 1])
    assert "kernel[" in ei.value.hint
    with pytest.raises(argus.ArgusError, match="no grid rule"):
        launch_grid(None, [x])


def test_written_tensors_follow_views_tags_and_loops():
    # A tile stored through a tagged view inside a loop is still a write.
    @argus.kernel(target="sm_90a", block=128)
    def tagged(X: argus.Tensor[("N",), "f32"], Y: argus.Tensor[("N",), "f32"]):
        for k in argus.range(0, 2):
            gy = argus.tag(argus.view(Y, (k * 128,), (128,)), lambda e: (k * 128 + e,), ["pos"])
            x = argus.load(argus.view(X, (k * 128,), (128,)), layout="(128,1):(1,0)")
            argus.store(x, gy)

    assert acomp.written_tensors(tagged) == ["Y"]


def test_compiling_writes_no_files(monkeypatch):
    def no_files(*a, **k):
        raise AssertionError("the compile path made a temporary file")
    monkeypatch.setattr(tempfile, "mkstemp", no_files)
    monkeypatch.setattr(tempfile, "TemporaryDirectory", no_files)
    monkeypatch.setattr(tempfile, "NamedTemporaryFile", no_files)
    ck = acomp.compile_kernel(gemm.gemm_mfma)
    assert ck.written == ["C"] and ck.asm


@pytest.fixture
def fake_gpu(monkeypatch):
    monkeypatch.setenv("ARGUS_GPU", "1")
    monkeypatch.setenv("ARGUS_CUDA_LIB", FAKE_CUDA or "")
    monkeypatch.setenv("ARGUS_HIP_LIB", "libargus-no-such-hip.so")
    monkeypatch.delenv("ARGUS_RUN", raising=False)


@needs_runtime
def test_run_kernel_in_process(fake_gpu, monkeypatch):
    def no_files(*a, **k):
        raise AssertionError("the run path made a temporary file")
    monkeypatch.setattr(tempfile, "mkstemp", no_files)
    monkeypatch.setattr(tempfile, "TemporaryDirectory", no_files)
    n = 256
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 3.0, np.float32)
    o = np.full(n, 7.0, np.float32)
    r = axpy.run(x, y, o, 2.0, grid=(2, 1, 1), repetitions=3, warmup=1)
    # The fake driver runs no code for axpy: O comes back as the runtime
    # restored it (an "inout" keeps the caller's values), the inputs as given.
    assert r.report["schema"] == "argus.run_report/1"
    assert r.report["kernel"]["name"] == "axpy"
    assert r.report["device"]["name"] == "Fake GPU (sm_90)"
    assert r.time_ms is not None and r.time_ms >= 0
    assert list(r.outputs) == ["O"] and (o == 7.0).all()
    # As an "output" it is poisoned with NaN before the checked run: the
    # bytes that come back are the device's.
    r = axpy.run(x, y, o, 2.0, grid=(2, 1, 1), outputs=["O"], repetitions=1, warmup=0)
    assert np.isnan(o).all()


@needs_runtime
def test_runtime_run_spec_errors(fake_gpu):
    ck = acomp.compile_kernel(axpy)
    spec = ck.launch_spec("<memory>", {"N": 256, "a": 1.0}, (2, 1, 1), repetitions=1,
                          outputs=["O"])
    # The wrong number of bytes for X: a spec error naming the argument.
    with pytest.raises(art.RuntimeFailure) as e:
        art.run(spec, ck.binary, inputs={0: b"\0" * 12})
    assert e.value.kind == "spec" and e.value.error["path"] == "$.args[0].init"
    # No driver.
    with pytest.raises(art.RuntimeFailure) as e:
        art.run(spec, ck.binary, cuda_lib="libargus-no-such-cuda.so")
    assert e.value.code == 3 and e.value.kind == "no_driver"
    # A module the driver refuses.
    with pytest.raises(art.RuntimeFailure) as e:
        art.run(spec, b"// fake-bad-ptx\n")
    assert e.value.kind == "module"
    run = art.run(spec, ck.binary, outputs={4: 256 * 4})
    assert run.code == 0 and len(run.outputs[4]) == 1024


def test_no_runtime_library_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(art, "_lib", None)
    monkeypatch.setattr(art, "library_candidates", lambda: ["/nonexistent/libargus_runtime.so"])
    assert not art.available()
    with pytest.raises(art.RuntimeFailure, match="libargus_runtime.so not found"):
        art.run({}, b"")


@needs_runtime
def test_agent_measures_in_process(fake_gpu, monkeypatch, need_verifier):
    """The agent loop's local measurement runs through the runtime library,
    as CompiledKernel.run does: no argus-run process, no temporary files."""
    import subprocess
    from argus.agent import AgentLoop, Budget, GemmTask, KnowledgeBasePolicy, Variant

    def refuse(*a, **k):
        raise AssertionError("the local measurement left the process")
    monkeypatch.setattr(tempfile, "TemporaryDirectory", refuse)
    monkeypatch.setattr(subprocess, "run", refuse)
    loop = AgentLoop(GemmTask(M=256, N=256, K=256), KnowledgeBasePolicy(start=Variant()),
                     Budget(steps=1), measure="auto")
    rec = loop.run()[0]
    assert not rec["errors"], rec["errors"]
    # The fake driver runs no code: the check against the reference fails,
    # so the variant is measured (a time) and marked incorrect.
    assert rec["time_ms"] is not None and rec["status"] == "incorrect"
