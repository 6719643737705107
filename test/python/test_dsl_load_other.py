"""``load(..., other=)``: the value that elements of a clipped view outside
the tensor read as (Triton's ``other=``), the softmax over rows of any
length that needs it, and the mistakes reported at the user's line."""

import inspect

import pytest

import argus
import softmax


def _kernel(dtype="f32", other=float("-inf"), clipped=True):
    @argus.kernel(target="sm_90a", block=64, name="load_other")
    def k(X: argus.Tensor[("M", "N"), dtype], Y: argus.Tensor[("M", "N"), dtype]):
        gx = argus.view(X, (0, 0), (16, 16), clipped=clipped)
        x = argus.load(gx, other=other)
        argus.store(x, argus.view(Y, (0, 0), (16, 16), clipped=True))
    return k


@pytest.mark.parametrize("dtype,other,text", [
    ("f32", float("-inf"), "other 0xFF800000 : f32"),
    ("f16", float("-inf"), "other 0xFC00 : f16"),
    ("bf16", float("-inf"), "other 0xFF80 : bf16"),
    ("f32", 0.5, "other 5.000000e-01 : f32"),  # as MLIR prints it
    ("f32", float("inf"), "other 0x7F800000 : f32"),
    ("i32", -1, "other -1 : i32"),
])
def test_other_is_a_typed_constant_of_the_tile(dtype, other, text):
    k = _kernel(dtype, other)
    assert text in k.source()
    k.module()  # the op verifier accepts it


def test_other_reaches_the_lowering():
    if not argus.has_pass("argus-to-nvptx"):
        pytest.skip("argus-to-nvptx not built")
    ptx = _kernel("f32", float("-inf")).compile().asm
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    # -inf as the f32 bit pattern, selected for the elements outside.
    assert "0fFF800000" in ptx


def _line(fn, needle):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, l in enumerate(lines) if needle in l)


def test_other_on_an_unclipped_view_is_reported_at_its_line():
    k = _kernel(clipped=False)
    with pytest.raises(argus.IRVerificationError) as ei:
        k.module()
    assert "other fills the elements of a clipped view outside the tensor" in str(ei.value)
    assert ei.value.line == _line(_kernel, "argus.load(gx, other=other)")


@pytest.mark.parametrize("other,exc,message", [
    ("x", argus.TraceError, "other= takes a Python number"),
    (True, argus.TraceError, "other= takes a Python number"),
])
def test_other_must_be_a_number(other, exc, message):
    with pytest.raises(exc) as ei:
        _kernel("f32", other).module()
    assert message in str(ei.value)
    assert ei.value.line == _line(_kernel, "argus.load(gx, other=other)")


def test_other_float_for_an_integer_tile():
    with pytest.raises(argus.DTypeError) as ei:
        _kernel("i32", 0.5).module()
    assert "is not an integer, but the tile holds i32" in str(ei.value)


def test_softmax_any_proves_and_fills_minus_infinity(need_verifier):
    k = softmax.make_softmax_any()
    assert "other 0xFF800000 : f32" in k.source()
    r = k.verify()
    assert r.checks and r.proved, r.summary()
    for target in ("sm_90a", "gfx942"):
        assert k.compile(target=target).asm
