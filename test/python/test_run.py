"""kernel.run(*arrays) without a GPU: the spec (init files, save paths,
roles), the numpy <-> raw-bytes conversions and the copy back, tested with
a stand-in argus-run (a Python script found through $ARGUS_RUN) and, where
built, with the real argus-run over the fake CUDA driver."""

import json
import os
import sys

import numpy as np
import pytest
from conftest import install_stand_in

import argus
import argus.compile as acomp
import flash_attention
import gemm

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The stand-in argus-run: checks the init files against the spec, applies a
# known transform (C = A @ B when the spec has buffers A, B and a saved C;
# otherwise saved = 2 * initial + 1), writes the save files and a minimal
# report, and logs the spec and the init file sizes to $ARGUS_FAKE_LOG.
FAKE_ARGUS_RUN = r'''#!%(python)s
import json, os, sys
import numpy as np
NP = {"f32": "<f4", "f16": "<f2", "f64": "<f8", "bf16": "<u2", "i8": "i1", "u8": "u1",
      "i32": "<i4", "u32": "<u4", "i64": "<i8", "u64": "<u8"}
code = int(os.environ.get("ARGUS_FAKE_EXIT", "0"))
if code:
    sys.stderr.write("argus-run: fake failure %%d\n" %% code)
    sys.exit(code)
spec_path = sys.argv[1]
report_path = sys.argv[sys.argv.index("--report") + 1]
base = os.path.dirname(spec_path)
spec = json.load(open(spec_path))
log = {"spec": spec, "init_sizes": {}}
vals = {}
for a in spec["args"]:
    if a["kind"] != "buffer":
        continue
    shape = tuple(a["shape"])
    n = int(np.prod(shape))
    init = a.get("init")
    if isinstance(init, dict):
        data = open(os.path.join(base, init["file"]), "rb").read()
        log["init_sizes"][a["name"]] = len(data)
        if len(data) != n * np.dtype(NP[a["dtype"]]).itemsize:
            sys.stderr.write("argus-run: error (spec): size mismatch\n")
            sys.exit(2)
        x = np.frombuffer(data, NP[a["dtype"]]).reshape(shape)
        if a["dtype"] == "bf16":
            x = (x.astype("<u4") << 16).view("<f4")
        vals[a["name"]] = x.astype(np.float64)
    else:
        vals[a["name"]] = np.zeros(shape)
for a in spec["args"]:
    if "save" not in a:
        continue
    if a["name"] == "C" and "A" in vals and "B" in vals:
        out = vals["A"] @ vals["B"]
    else:
        out = vals[a["name"]] * 2 + 1
    if a["dtype"] == "bf16":
        raw = (out.astype("<f4").view("<u4") >> 16).astype("<u2")
    else:
        raw = out.astype(NP[a["dtype"]])
    open(os.path.join(base, a["save"]), "wb").write(raw.tobytes())
if os.environ.get("ARGUS_FAKE_LOG"):
    json.dump(log, open(os.environ["ARGUS_FAKE_LOG"], "w"))
json.dump({"schema": "argus.run_report/1", "name": spec["name"],
           "timing": {"median": {"value": 0.5, "provenance": "derived"}},
           "check": None, "probes": None, "saved": []}, open(report_path, "w"))
'''


@pytest.fixture
def fake_run(tmp_path, monkeypatch):
    """$ARGUS_RUN = the stand-in, $ARGUS_GPU=1, the compiled text stubbed
    (the lowering runs: its launch ABI shapes the spec); returns the path of
    the log."""
    log = install_stand_in(tmp_path, monkeypatch, FAKE_ARGUS_RUN % {"python": sys.executable},
                           "log.json")
    monkeypatch.delenv("ARGUS_FAKE_EXIT", raising=False)

    real_compile = acomp.compile_kernel

    def fake_compile(kernel, target=None, probes=False, fmt="isa"):
        ck = real_compile(kernel, target=target, probes=probes, fmt=fmt)
        ck.asm, ck.binary = "// fake\n", b"// fake\n"
        return ck
    monkeypatch.setattr(acomp, "compile_kernel", fake_compile)
    return log


@argus.kernel(target="gfx942", block=64)
def scale_copy(X: argus.Tensor[("N",), "bf16"], Y: argus.Tensor[("N",), "bf16"],
               Z: argus.Tensor[("N",), "f16"]):
    gx = argus.view(X, (0,), (64,))
    gy = argus.view(Y, (0,), (64,))
    argus.copy(gx, gy, threads="(64,1):(1,0)")
    argus.load(argus.view(Z, (0,), (64,)), layout="(64,1):(1,0)")


def test_written_tensors_from_the_trace():
    assert acomp.written_tensors(gemm.gemm_mfma) == ["C"]
    assert acomp.written_tensors(scale_copy) == ["Y"]
    assert acomp.written_tensors(flash_attention.flash_attention_fwd) == ["O"]


def test_raw_conversions():
    x = np.array([[1.0, -2.5], [0.0, 65504.0]])
    assert acomp.to_raw(x, "f16") == x.astype("<f2").tobytes()
    assert acomp.to_raw(x, "i32") == x.astype("<i4").tobytes()
    back = acomp.from_raw(acomp.to_raw(x, "f64"), "f64", x.shape)
    assert back.shape == (2, 2) and (back == x).all()
    # bf16: round to nearest even; exact values survive; NaN stays NaN.
    f = np.array([1.0, 1.0 + 2**-8, 1.0 + 3 * 2**-8, -3.5, np.nan, np.inf], np.float32)
    bits = acomp.float_to_bf16_bits(f)
    assert bits.dtype == np.uint16
    assert list(bits[:4]) == [0x3F80, 0x3F80, 0x3F82, 0xC060]
    assert bits[5] == 0x7F80
    g = acomp.bf16_bits_to_float(bits)
    assert g.dtype == np.float32 and np.isnan(g[4])
    assert list(g[:4]) == [1.0, 1.0, 1.0 + 2**-6, -3.5]
    # A uint16 array is taken as bf16 bit patterns, both ways.
    raw = acomp.to_raw(np.array([0x3F80, 0x4000], np.uint16), "bf16")
    assert raw == np.array([0x3F80, 0x4000], "<u2").tobytes()
    assert list(acomp.from_raw(raw, "bf16", (2,))) == [1.0, 2.0]
    assert list(acomp.from_raw(raw, "bf16", (2,), like=np.zeros(2, np.uint16))) == [
        0x3F80, 0x4000]
    with pytest.raises(ValueError):
        acomp.to_raw(x, "f8E4M3FN")


def test_run_uploads_arrays_and_copies_outputs_back(fake_run):
    rng = np.random.default_rng(0)
    M, N, K = 128, 256, 64
    A = rng.integers(-3, 4, (M, K)).astype(np.float32)  # converted to f16
    B = rng.integers(-3, 4, (K, N)).astype(np.float16)
    C = np.full((M, N), 7.0, np.float32)
    A0, B0 = A.copy(), B.copy()
    r = gemm.gemm_mfma.run(A, B, C, K, grid=(N // 128, M // 128, 1), repetitions=3)
    assert np.array_equal(C, A0.astype(np.float64) @ B0.astype(np.float64))
    assert r.outputs["C"] is C
    assert np.array_equal(A, A0) and np.array_equal(B, B0)
    assert r.time_ms == 0.5 and r.passed is None
    log = json.loads(fake_run.read_text())
    args = {a["name"]: a for a in log["spec"]["args"]}
    assert args["A"]["dtype"] == "f16" and args["A"]["role"] == "input"
    assert "save" not in args["A"] and "save" not in args["B"]
    assert args["C"]["role"] == "inout" and args["C"]["save"].endswith(".out")
    for n in "ABC":
        assert args[n]["init"]["file"].endswith(".in")
        assert not os.path.isabs(args[n]["init"]["file"])  # relative to the spec
    assert log["init_sizes"] == {"A": M * K * 2, "B": K * N * 2, "C": M * N * 4}
    assert args["K"]["value"] == K and args["A_size1"]["value"] == K
    assert log["spec"]["repetitions"] == 3


def test_run_bf16_and_explicit_outputs(fake_run):
    X = np.arange(64, dtype=np.float32) / 4
    Y = (np.arange(64, dtype=np.float32) - 32) / 8
    Z = np.ones(64, np.float64)
    r = scale_copy.run(X, Y, Z, grid=(1, 1, 1))
    assert np.array_equal(Y, ((np.arange(64) - 32) / 8) * 2 + 1)  # stand-in: 2y + 1
    assert set(r.outputs) == {"Y"}
    # Y as bf16 bit patterns (uint16) comes back as bit patterns.
    Yb = acomp.float_to_bf16_bits(np.full(64, 1.5, np.float32))
    scale_copy.run(X, Yb, Z, grid=(1, 1, 1))
    assert (acomp.bf16_bits_to_float(Yb) == 4.0).all()
    # outputs= adds a tensor (role output) even though the kernel only reads it.
    r = scale_copy.run(X, Y, Z, grid=(1, 1, 1), outputs=["Z"])
    args = {a["name"]: a for a in json.loads(fake_run.read_text())["spec"]["args"]}
    assert args["Z"]["role"] == "output" and "save" in args["Z"]
    assert args["Y"]["role"] == "inout"
    assert set(r.outputs) == {"Y", "Z"} and (Z == 3.0).all()


def test_run_errors(fake_run, monkeypatch):
    A = np.zeros((128, 64), np.float32)
    B = np.zeros((64, 128), np.float32)
    C = np.zeros((128, 128), np.float32)
    ro = C.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="writable numpy array"):
        gemm.gemm_mfma.run(A, B, ro, 64, grid=(1, 1, 1))
    with pytest.raises(ValueError, match="dim 'K'"):
        gemm.gemm_mfma.run(A, np.zeros((32, 128)), C, 64, grid=(1, 1, 1))
    monkeypatch.setenv("ARGUS_FAKE_EXIT", "2")
    with pytest.raises(RuntimeError, match="fake failure 2"):
        gemm.gemm_mfma.run(A, B, C, 64, grid=(1, 1, 1))
    monkeypatch.setenv("ARGUS_FAKE_EXIT", "3")
    with pytest.raises(argus.NoGPU):
        gemm.gemm_mfma.run(A, B, C, 64, grid=(1, 1, 1))
    monkeypatch.setenv("ARGUS_GPU", "0")
    assert not argus.gpu_available()
    with pytest.raises(argus.NoGPU):
        gemm.gemm_mfma.run(A, B, C, 64, grid=(1, 1, 1))


def _built(*parts):
    for build in sorted(os.listdir(ROOT)):
        p = os.path.join(ROOT, build, *parts)
        if build.startswith("build") and os.path.exists(p):
            return p
    return None


def test_run_through_real_argus_run_and_fake_driver(fake_run, tmp_path, monkeypatch):
    """The real argus-run over the fake libcuda: the fake does not run the
    (unknown) kernel, so the written tensor comes back as uploaded."""
    exe, lib = _built("bin", "argus-run"), _built("lib", "libArgusFakeCuda.so")
    if not exe or not lib:
        pytest.skip("argus-run / libArgusFakeCuda.so not built")
    wrapper = tmp_path / "argus-run-fake-driver"
    wrapper.write_text(f'#!/bin/sh\nexec "{exe}" --cuda-lib "{lib}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("ARGUS_RUN", str(wrapper))

    real_compile = acomp.compile_kernel

    def noop_compile(kernel, target=None, probes=False, fmt="isa"):
        # The real launch ABI (for sm_90a), the fake driver's module text.
        ck = real_compile(kernel, target="sm_90a", probes=False, fmt=fmt)
        ck.kernel_name = "noop"
        ck.asm = "// fake-ok\n.visible .entry noop()\n"
        ck.binary = ck.asm.encode()
        return ck
    monkeypatch.setattr(acomp, "compile_kernel", noop_compile)
    X = np.arange(64, dtype=np.float32)
    Y = np.linspace(-4, 4, 64).astype(np.float32)
    Yb = acomp.float_to_bf16_bits(Y)
    want = acomp.bf16_bits_to_float(Yb)
    Y[:] = want  # exactly representable in bf16
    Y0 = Y.copy()
    Z = np.ones(64, np.float16)
    r = scale_copy.run(X, Y, Z, grid=(1, 1, 1), repetitions=2)
    assert np.array_equal(Y, Y0)
    assert r.report["schema"] == "argus.run_report/1"
    assert [s["name"] for s in r.report["saved"]] == ["Y"]
    assert r.time_ms is not None and isinstance(r.time_ms, float)


def test_run_with_the_real_lowering(tmp_path, monkeypatch):
    """Same round trip with the real compile (no stub): the spec names the
    lowered module, and C comes back computed by the stand-in."""
    from argus import ir
    if not ir.has_pass("argus-to-gfx942"):
        pytest.skip("argus-to-gfx942 not built")
    log = install_stand_in(tmp_path, monkeypatch, FAKE_ARGUS_RUN % {"python": sys.executable},
                           "log.json")
    A = np.ones((128, 32), np.float16)
    B = np.full((32, 128), 2, np.float16)
    C = np.zeros((128, 128), np.float32)
    r = gemm.gemm_mfma.run(A, B, C, 32, grid=(1, 1, 1), repetitions=1)
    assert (C == 64).all() and r.outputs["C"] is C
    spec = json.loads(log.read_text())["spec"]
    assert spec["kernel"] == "gemm_mfma" and spec["format"] == "hsaco"
