"""Python mistakes in kernels (issue 15, item 5): each is an ArgusError
subclass at the user's line with a hint, never a bare TypeError."""

import inspect
import math

import numpy as np
import pytest

import argus

ROW = "(64,64):(1,64)"


def _line_of(fn, needle="# BAD"):
    src, start = inspect.getsourcelines(fn)
    hits = [start + i for i, l in enumerate(src) if needle in l]
    assert len(hits) == 1, hits
    return hits[0]


def _kernel(body):
    """A kernel over X (64x64 f32), Y, K (index), eps (f32) running ``body``."""
    @argus.kernel(target="sm_90a", block=64)
    def k(X: argus.Tensor[(64, 64), "f32"], Y: argus.Tensor[(64, 64), "f32"], K: argus.index,
          eps: argus.Scalar["f32"]):
        body(X, Y, K, eps)
    return k


def _expect(body, cls, hint_part, needle="# BAD"):
    k = _kernel(body)
    with pytest.raises(cls) as ei:
        k.ir()
    e = ei.value
    assert isinstance(e, argus.ArgusError) and not isinstance(e, TypeError)
    assert e.file == __file__ or e.file.endswith("test_dsl_errors.py")
    assert e.line == _line_of(body, needle), (e.line, str(e))
    assert e.hint and hint_part in e.hint, e.hint
    assert hint_part in str(e) and str(e).startswith(f"{e.file}:{e.line}:")
    return e


def _x(X):
    return argus.load(argus.view(X, (0, 0), (64, 64)), layout=ROW)


def test_if_on_traced_index():
    def body(X, Y, K, eps):
        if K > 4:  # BAD
            pass
    e = _expect(body, argus.TraceError, "argus.when")
    assert "constexpr" in e.hint


def test_if_on_traced_index_truthiness():
    def body(X, Y, K, eps):
        if K:  # BAD
            pass
    _expect(body, argus.TraceError, "argus.constexpr")


def test_and_of_conditions():
    def body(X, Y, K, eps):
        c = (K > 4) and (K < 8)  # BAD
    _expect(body, argus.TraceError, "& and |")


def test_condition_with_python_bool():
    def body(X, Y, K, eps):
        c = (K > 4) & True  # BAD
    _expect(body, argus.TraceError, "Python `if`")


def test_index_times_float():
    def body(X, Y, K, eps):
        n = K * 1.5  # BAD
    e = _expect(body, argus.DTypeError, "K * 3 // 2")
    assert "1.5" in str(e)


def test_float_times_index_and_comparison():
    def body(X, Y, K, eps):
        n = 0.5 * K  # BAD
    _expect(body, argus.DTypeError, "K * 3 // 2")

    def body2(X, Y, K, eps):
        c = K < 2.5  # BAD
    _expect(body2, argus.DTypeError, "constexpr")


def test_index_true_division():
    def body(X, Y, K, eps):
        n = K / 2  # BAD
    _expect(body, argus.TraceError, "argus.cdiv")


def test_index_negation_and_power():
    def body(X, Y, K, eps):
        n = -K  # BAD
    _expect(body, argus.TraceError, "+ - * // %")

    def body2(X, Y, K, eps):
        n = K ** 2  # BAD
    _expect(body2, argus.TraceError, "+ - * // %")


def test_tag_lambda_with_float():
    def body(X, Y, K, eps):
        argus.tag(argus.view(X, (0, 0), (64, 64)), lambda m, n: (m * 0.5, n))  # BAD
    e = _expect(body, argus.TraceError, "m // 2")
    assert "0.5" in str(e)


def test_tag_lambda_with_true_division():
    def body(X, Y, K, eps):
        argus.tag(argus.view(X, (0, 0), (64, 64)), lambda m, n: (m / 2, n))  # BAD
    _expect(body, argus.TraceError, "m // 2")


def test_tag_lambda_with_condition():
    def body(X, Y, K, eps):
        argus.tag(argus.view(X, (0, 0), (64, 64)), lambda m, n: (m if n > 3 else 0, n))  # BAD
    _expect(body, argus.TraceError, "argus.where")


def test_python_range_over_traced_index():
    def body(X, Y, K, eps):
        for i in range(K):  # BAD
            pass
    _expect(body, argus.TraceError, "argus.range")


def test_argus_range_over_a_float():
    def body(X, Y, K, eps):
        for i in argus.range(0, 2.5):  # BAD
            pass
    _expect(body, argus.DTypeError, "indices are integers")


def test_len_and_iteration_of_index():
    def body(X, Y, K, eps):
        n = len(K)  # BAD
    _expect(body, argus.TraceError, "argus.range")

    def body2(X, Y, K, eps):
        for k in K:  # BAD
            pass
    _expect(body2, argus.TraceError, "argus.range")


def test_int_of_index():
    def body(X, Y, K, eps):
        n = int(K)  # BAD
    _expect(body, argus.TraceError, "constexpr")


def test_tile_equality_in_control_flow():
    def body(X, Y, K, eps):
        x = _x(X)
        y = _x(Y)
        if x == y:  # BAD
            pass
    _expect(body, argus.TraceError, "argus.eq")


def test_index_equality_in_control_flow():
    def body(X, Y, K, eps):
        if K == 4:  # BAD
            pass
    _expect(body, argus.TraceError, "i.eq(j)")


def test_tile_truth_value():
    def body(X, Y, K, eps):
        x = _x(X)
        if x > 0:  # BAD
            pass
    _expect(body, argus.TraceError, "argus.where")


def test_iterating_a_tile():
    def body(X, Y, K, eps):
        x = _x(X)
        for row in x:  # BAD
            pass
    _expect(body, argus.TraceError, "T.view")


def test_indexing_a_tile():
    def body(X, Y, K, eps):
        x = _x(X)
        v = x[0]  # BAD
    _expect(body, argus.TraceError, "T.view")


def test_len_of_tile():
    def body(X, Y, K, eps):
        n = len(_x(X))  # BAD
    _expect(body, argus.TraceError, "x.shape")


def test_python_list_where_a_tile_is_expected():
    def body(X, Y, K, eps):
        argus.exp([1.0, 2.0])  # BAD
    _expect(body, argus.TraceError, "Python lists")

    def body2(X, Y, K, eps):
        argus.store([0.0] * 64, argus.view(Y, (0, 0), (64, 64)))  # BAD
    _expect(body2, argus.TraceError, "Python lists")

    def body3(X, Y, K, eps):
        argus.maximum([1.0], 2.0)  # BAD
    _expect(body3, argus.TraceError, "Python lists")


def test_tile_plus_list():
    def body(X, Y, K, eps):
        y = _x(X) + [1, 2]  # BAD
    _expect(body, argus.TraceError, "Python lists")


def test_math_and_numpy_functions_on_tiles():
    def body(X, Y, K, eps):
        math.exp(_x(X))  # BAD
    _expect(body, argus.TraceError, "argus.exp")

    def body2(X, Y, K, eps):
        np.exp(_x(X))  # BAD
    _expect(body2, argus.TraceError, "argus.exp")


def test_tile_power_and_matmul():
    def body(X, Y, K, eps):
        y = _x(X) ** 2  # BAD
    _expect(body, argus.TraceError, "x * x")

    def body2(X, Y, K, eps):
        y = _x(X) @ _x(Y)  # BAD
    _expect(body2, argus.TraceError, "argus.mma")


def test_slicing_a_tensor():
    def body(X, Y, K, eps):
        t = X[0:64, 0:64]  # BAD
    _expect(body, argus.TraceError, "A.view((m0, k0), (128, 32))")


def test_tensor_arithmetic_and_len():
    def body(X, Y, K, eps):
        t = X + 1  # BAD
    _expect(body, argus.TraceError, "argus.load")

    def body2(X, Y, K, eps):
        n = len(X)  # BAD
    _expect(body2, argus.TraceError, "T.dim(k)")


def test_scalar_parameter_arithmetic():
    def body(X, Y, K, eps):
        e2 = eps * 2.0  # BAD
    _expect(body, argus.TraceError, "x * eps * 2.0")

    def body2(X, Y, K, eps):
        if eps:  # BAD
            pass
    _expect(body2, argus.TraceError, "constexpr")


def test_scalar_meets_tile_still_works():
    def body(X, Y, K, eps):
        x = _x(X)
        argus.store(eps * x + 2.0 * x, argus.view(Y, (0, 0), (64, 64)))
    _kernel(body).ir()


def test_buffer_iteration():
    def body(X, Y, K, eps):
        buf = argus.alloc((64, 64), "f32", stages=2)
        for s in buf:  # BAD
            pass
    _expect(body, argus.TraceError, "range(buf.stages)")


def test_bad_tensor_annotation():
    with pytest.raises(argus.TraceError) as ei:
        @argus.kernel(target="sm_90a", block=64)
        def k(X: argus.Tensor["f32"]):  # BAD
            pass
    assert ei.value.hint and "argus.Tensor[(dims...), dtype]" in ei.value.hint
    assert ei.value.line == _line_of(test_bad_tensor_annotation)


def test_bad_scalar_annotation():
    with pytest.raises(argus.DTypeError) as ei:
        @argus.kernel(target="sm_90a", block=64)
        def k(X: argus.Scalar["i8"]):  # BAD
            pass
    assert ei.value.line == _line_of(test_bad_scalar_annotation) and ei.value.hint


def test_identity_equality_still_works():
    """`x == x` is True and values stay hashable (dicts, sets)."""
    seen = {}

    def body(X, Y, K, eps):
        x = _x(X)
        assert x == x and not (x != x)
        seen[x] = 1
        seen[K] = 2
        assert x in [x] and K in {K}
    _kernel(body).ir()
    assert len(seen) == 2


def test_derived_layout_errors_point_at_the_user_line():
    def body(X, Y, K, eps):
        sbuf = argus.alloc((64, 64), "f32", name="s")
        argus.copy(argus.view(X, (0, 0), (64, 64)), sbuf[0], threads=None)
        x = _x(X)
        r = argus.reduce(x, "sum", 1)
        argus.broadcast(r, 1, like=x)
        argus.broadcast(x, 1)  # BAD
    _expect(body, argus.ShapeError, "like=")


def test_reduced_on_a_memory_tile():
    def body(X, Y, K, eps):
        argus.reduced(argus.view(X, (0, 0), (64, 64)), "k", 0, K)  # BAD
    _expect(body, argus.TraceError, "register value")


def test_reduced_with_a_predicate_for_a_field():
    def body(X, Y, K, eps):
        argus.reduced(_x(X), "a.k", 0, K)  # BAD
    _expect(body, argus.TagFieldError, "reduced field")


def test_reduced_with_a_float_bound():
    def body(X, Y, K, eps):
        argus.reduced(_x(X), "k", 0, K * 0.5)  # BAD
    _expect(body, argus.ArgusError, "")
