"""Out-of-range scalars, odd dtypes and inputs the builder cannot make
(issue 54, "Raw non-Argus exceptions from the DSL"): each is an ArgusError
with a message and a hint at the user's line, never a TypeError, KeyError,
OverflowError or a bare ``_argus.BuildError`` whose str() is a tuple; a
register tile over the register budget fails at once."""

import inspect
import time

import pytest

import argus
from argus import ir as _ir

ROW = "(64,64):(1,64)"


def _line_of(fn, needle="# BAD"):
    src, start = inspect.getsourcelines(fn)
    hits = [start + i for i, l in enumerate(src) if needle in l]
    assert len(hits) == 1, hits
    return hits[0]


def _kernel(body, dtype="f32", block=64):
    @argus.kernel(target="sm_90a", block=block)
    def k(X: argus.Tensor[(64, 64), dtype], eps: argus.Scalar["f32"]):
        body(X, eps)
    return k


def _raises_at(body, cls, hint_part, **kw):
    with pytest.raises(argus.ArgusError) as ei:
        _kernel(body, **kw).ir()
    e = ei.value
    assert isinstance(e, cls), (type(e), str(e))
    assert e.line == _line_of(body), (e.line, str(e))
    assert e.hint and hint_part in e.hint, e.hint
    return e


def test_region_id_beyond_64_bits():
    def body(X, eps):
        with argus.region("r", id=2**64):  # BAD
            pass
    e = _raises_at(body, argus.TraceError, "below 2**32")
    assert "18446744073709551616" in str(e)


def test_region_id_beyond_32_bits():
    def body(X, eps):
        with argus.region("r", id=2**32):  # BAD
            pass
    _raises_at(body, argus.TraceError, "below 2**32")


def test_f8_tile_meets_f32_scalar():
    # Was KeyError 'f8E4M3FN' (the scalar's width lookup knew no f8).
    def body(X, eps):
        x = argus.load(argus.view(X, (0, 0), (64, 64)), layout=ROW)
        argus.maximum(x, eps)
    text = _kernel(body, dtype="f8E4M3FN").ir()
    assert "arith.truncf" in text and "f8E4M3FN" in text


def test_f8_tile_meets_python_float():
    def body(X, eps):
        x = argus.load(argus.view(X, (0, 0), (64, 64)), layout=ROW)
        argus.maximum(x, 0.5)
    assert "argus.max" in _kernel(body, dtype="f8E4M3FN").ir()


def test_where_int_tile_minus_infinity():
    # Was OverflowError (int(float("-inf"))).
    def body(X, eps):
        col = argus.iota((64, 64), 1, ROW)
        argus.where(col < 5, col, float("-inf"))  # BAD
    e = _raises_at(body, argus.DTypeError, "argus.convert")
    assert "-inf" in str(e)


def test_where_int_tile_nan():
    def body(X, eps):
        col = argus.iota((64, 64), 1, ROW)
        argus.where(col < 5, col, float("nan"))  # BAD
    _raises_at(body, argus.DTypeError, "")


def test_int_tile_number_beyond_its_width():
    def body(X, eps):
        col = argus.iota((64, 64), 1, ROW)
        col + 2**40  # BAD
    e = _raises_at(body, argus.DTypeError, "[-2147483648, 4294967295]")
    assert "32-bit" in str(e)


def test_float_tile_number_beyond_f64():
    # Was OverflowError (float(10**400)).
    def body(X, eps):
        x = argus.load(argus.view(X, (0, 0), (64, 64)), layout=ROW)
        x * 10**400  # BAD
    _raises_at(body, argus.DTypeError, "f32")


def test_fill_value_not_a_number():
    def body(X, eps):
        argus.fill("1", (64, 64), "f32", ROW)  # BAD
    with pytest.raises(argus.TraceError) as ei:
        _kernel(body).ir()
    assert ei.value.line == _line_of(body)


def test_unsupported_block_size_is_an_argus_error():
    # Was _argus.BuildError (not an ArgusError, str() a tuple).
    def body(X, eps):
        pass
    with pytest.raises(argus.ArgusError) as ei:
        _kernel(body, block=4096).ir()
    msg = str(ei.value)
    assert not msg.startswith("("), msg
    assert "invalid kernel launch" in msg and "4096" in msg


def test_negative_tensor_dimension_is_an_argus_error():
    @argus.kernel(target="sm_90a", block=64)
    def k(X: argus.Tensor[(-1, 64), "f32"]):
        pass
    with pytest.raises(argus.ArgusError) as ei:
        k.ir()
    assert not str(ei.value).startswith("("), str(ei.value)


def test_build_error_str_is_its_message():
    BuildError = _ir.extension().BuildError
    e = BuildError("the message", [])
    assert str(e) == "the message"
    assert e.args[0] == "the message"


def test_register_tile_over_the_budget_fails_at_once():
    # A 4096x512 f16 register tile on 128 threads is 16384 slots (8192
    # registers) per thread: it took 286 s in compile() before failing.
    layout = "(128,16384):(1,128)"

    @argus.kernel(target="sm_90a", block=128)
    def k(X: argus.Tensor[(4096, 512), "f16"]):
        argus.load(argus.view(X, (0, 0), (4096, 512)), layout=layout)  # BAD
    t0 = time.monotonic()
    with pytest.raises(argus.ArgusError) as ei:
        k.ir()
    assert time.monotonic() - t0 < 20
    msg = str(ei.value)
    assert "16384 slots" in msg and "2048 32-bit registers" in msg, msg


def test_replicated_layout_with_2_32_slots():
    # 2^32-1 slots per thread of a 128x1 tile (a replicated slot mode):
    # passed the op verifiers, then the lowering ran out of memory.
    src = """
func.func @k() attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %f = argus.fill 0.0 : !argus.tile<128x1xf32, register, "(128,4294967295):(1,0)">
  return
}
"""
    t0 = time.monotonic()
    with pytest.raises(argus.ArgusError) as ei:
        argus.run_pipeline(src, "argus-to-nvptx")
    assert time.monotonic() - t0 < 20
    assert "4294967295 slots" in str(ei.value)


KERNEL = """
func.func @k(%X: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !argus.tile<128x4xf32, global>
  %r = argus.load %x : !argus.tile<128x4xf32, global> -> !argus.tile<128x4xf32, register, "(128,4):(1,128)">
  argus.store %r, %x : !argus.tile<128x4xf32, register, "(128,4):(1,128)">, !argus.tile<128x4xf32, global>
  return
}
"""


@pytest.mark.parametrize("pipeline", ["argus-to-nvptx{dump=/dev/full}",
                                      "argus-to-gfx942{dump=/dev/full}"])
def test_dump_to_a_full_disk_in_process(pipeline):
    # Was an LLVM fatal error that ended the interpreter: run in a child
    # so that a regression fails this test instead of ending pytest.
    import os
    import subprocess
    import sys
    code = ("import argus, sys\n"
            f"r = argus.run_pipeline(sys.stdin.read(), {pipeline!r})\n"
            "print('ok' if r.ok else 'failed')\n"
            "print('\\n'.join(str(d) for d in r.errors))\n")
    proc = subprocess.run([sys.executable, "-c", code], input=KERNEL, text=True,
                          capture_output=True, env=dict(os.environ), timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "LLVM ERROR" not in proc.stderr
    assert proc.stdout.startswith("failed"), proc.stdout
    assert "error writing '/dev/full'" in proc.stdout, proc.stdout


def test_float_tile_divided_by_a_number_beyond_f64():
    # Found by fuzz_dsl.py's long run: x / 10**400 raised OverflowError.
    def body(X, eps):
        x = argus.load(argus.view(X, (0, 0), (64, 64)), layout=ROW)
        x / 10**400  # BAD
    _raises_at(body, argus.DTypeError, "f64")
