"""The DSL tutorial kernels (docs/Python.md, "Tutorial"): fp32 / tf32 GEMM,
GEMM + bias + GELU, RMSNorm; no layout string, proved, lowered; and the
misaligned-vector check that ragged rows need."""

import re

import pytest

import argus
import gemm_epilogue
import softmax


@pytest.mark.parametrize("make", [
    lambda: gemm_epilogue.make_gemm("sm_90", "f32", name="gemm_fp32"),
    lambda: gemm_epilogue.make_gemm("sm_90", "f32", name="gemm_fp32_any", any_shape=True),
    lambda: gemm_epilogue.make_gemm("sm_90", "f16", bias=True, activation="gelu",
                                    name="gemm_bias_gelu"),
    lambda: softmax.make_rmsnorm(),
])
def test_tutorial_kernels_prove(make, need_verifier):
    r = make().verify()
    assert r.checks and r.proved, r.summary()


def test_gemm_fp32_sm90_uses_rounded_tf32(need_verifier):
    ptx = gemm_epilogue.make_gemm("sm_90", "f32", name="g").compile().asm
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in ptx
    assert "cvt.rna.tf32.f32" in ptx
    assert not re.search(r"mma\.sync[^\n]*f16", ptx)  # never computed in fp16


def test_gemm_fp32_gfx942_is_full_fp32(need_verifier):
    asm = gemm_epilogue.make_gemm("gfx942", "f32", name="g").compile().asm
    asm = asm.decode() if isinstance(asm, bytes) else asm
    assert "v_mfma_f32_32x32x2_f32" in asm or "v_mfma_f32_32x32x2f32" in asm


def test_bias_meets_its_column(need_verifier):
    """The bias epilogue asserts lhs.n == rhs.n; it is among the proved checks."""
    r = gemm_epilogue.make_gemm("sm_90", "f16", bias=True, activation="gelu",
                                name="g").verify()
    asserts = [c for c in r.checks if c.kind == "assert"]
    assert any("lhs.n == rhs.n" in (c.predicate or "") for c in asserts), \
        [c.predicate for c in asserts]


def _copy_kernel(vector, assume_k4):
    @argus.kernel(target="sm_90", block=128, name="copy_rows")
    def k(A: argus.Tensor[("M", "K"), "f32"]):
        K = A.dim("K")
        if assume_k4:
            argus.assume((K % 4).eq(0), "K is a multiple of 4")
        s = argus.alloc((64, 32), "f32", name="sA")[0]
        loop = argus.range(0, argus.cdiv(K, 32), name="kt")
        for kt in loop:
            g = argus.view(A, (0, kt * 32), (64, 32), clipped=True)
            argus.copy(g, s, threads=argus.copy_layout((64, 32), "f32", 128, vector=vector)
                       if vector else None)
            argus.barrier()
    return k


def test_misaligned_vector_found_for_ragged_rows(need_verifier):
    r = _copy_kernel(None, False).verify(raise_on_violation=False)
    bad = [c for c in r.checks if c.kind == "misaligned-vector"]
    assert bad and bad[0].status == "violated", r.summary()
    notes = " ".join(bad[0].counterexamples[0].notes)
    assert "4-element (16-byte) vector" in notes and "argus.assume" in notes
    # K, the row length, is not a multiple of 4 in the witness.
    k = re.search(r"arg0\.dim1[\"':= ]+(\d+)", str(bad[0].counterexamples[0].raw))
    assert k and int(k.group(1)) % 4, bad[0].counterexamples[0].raw


@pytest.mark.parametrize("vector,assume_k4", [(None, True), (1, False)])
def test_misaligned_vector_proved_with_precondition_or_scalars(vector, assume_k4,
                                                               need_verifier):
    r = _copy_kernel(vector, assume_k4).verify(raise_on_violation=False)
    assert r.proved, r.summary()
    kinds = {c.kind for c in r.checks}
    assert ("misaligned-vector" in kinds) == (vector is None)


def test_gelu_tanh_is_pytorchs_approximation_from_elementwise_ops(need_verifier):
    @argus.kernel(target="sm_90a", block=64, name="gelu_tanh")
    def k(X: argus.Tensor[(16, 16), "f32"], Y: argus.Tensor[(16, 16), "f32"]):
        x = argus.load(argus.view(X, (0, 0), (16, 16)))
        argus.store(argus.gelu(x, approximate="tanh"), argus.view(Y, (0, 0), (16, 16)))
    src = k.source()
    assert "argus.tanh" in src and "argus.gelu" not in src
    # The constants as MLIR prints them (0.044715 and sqrt(2 / pi)).
    assert "4.471500e-02" in src and "0.79788456080286541" in src
    r = k.verify()
    assert r.proved, r.summary()
    ptx = k.compile().asm
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    assert "tanh.approx.f32" in ptx


def test_gelu_approximate_must_be_none_or_tanh():
    @argus.kernel(target="sm_90a", block=64, name="gelu_bad")
    def k(X: argus.Tensor[(16, 16), "f32"], Y: argus.Tensor[(16, 16), "f32"]):
        x = argus.load(argus.view(X, (0, 0), (16, 16)))
        argus.store(argus.gelu(x, approximate="erf"), argus.view(Y, (0, 0), (16, 16)))
    with pytest.raises(argus.TraceError) as ei:
        k.module()
    assert "gelu's approximate is 'none' or 'tanh', got 'erf'" in str(ei.value)
    assert ei.value.file.endswith("test_tutorial.py")


@pytest.mark.parametrize("make,rows,extra", [
    (lambda: softmax.make_softmax(log=True), 64, []),
    (lambda: softmax.make_layernorm(), 32, [1e-5]),
])
def test_row_kernels_take_any_number_of_rows(make, rows, extra, need_verifier):
    """log-softmax and LayerNorm clip their last row tile: proved, and the
    launch ABI's grid covers an M that is no multiple of the tile."""
    from argus.grid import launch_grid
    k = make()
    assert "clipped" in k.source()
    r = k.verify()
    assert r.checks and r.proved, r.summary()
    if not argus.has_pass("argus-to-nvptx"):
        return
    rule = k.compile().abi.grid
    cols = 256 if extra else 128
    for m in (100001, rows * 5):
        assert launch_grid(rule, [(m, cols), (m, cols)] + extra) == (-(-m // rows), 1, 1)


def test_softmax_without_clipping_requires_whole_tiles(need_verifier):
    from argus.grid import launch_grid
    k = softmax.make_softmax(log=True, any_rows=False)
    assert "clipped" not in k.source()
    assert k.verify().proved
    if argus.has_pass("argus-to-nvptx"):
        rule = k.compile().abi.grid
        assert launch_grid(rule, [(64 * 7, 128)] * 2) == (7, 1, 1)
        with pytest.raises(argus.ArgusError):
            launch_grid(rule, [(100001, 128)] * 2)
