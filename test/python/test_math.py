"""Math ops of the DSL (issue 15): unary functions, min/max with scalars,
arithmetic with Python numbers and scalar parameters, masks (comparisons,
where, iota), an RMSNorm row kernel that is proved and compiles for both
targets, and errors at the user's line."""

import inspect

import pytest

import argus

ROW = "(64,64):(1,64)"   # thread t holds row t (64 slots): row reductions stay in a thread
ROWS = "(64,1):(1,1)"
TARGETS = ["sm_90a", "gfx942"]


def _line_of(fn, needle):
    src, start = inspect.getsourcelines(fn)
    for i, l in enumerate(src):
        if needle in l:
            return start + i
    raise AssertionError(needle)


def _rowwise(target, body, dtype="f32"):
    """A kernel loading a 64x64 tile of X, applying ``body`` and storing to Y."""
    @argus.kernel(target=target, block=64)
    def k(X: argus.Tensor[(64, 64), dtype], Y: argus.Tensor[(64, 64), dtype], eps: float,
          n: argus.index):
        x = argus.load(argus.view(X, (0, 0), (64, 64)), layout=ROW)
        argus.store(body(x, eps, n), argus.view(Y, (0, 0), (64, 64)))
    return k


UNARY = ["sqrt", "rsqrt", "log", "log2", "tanh", "sigmoid", "gelu", "relu", "abs", "exp"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", UNARY)
def test_unary_builds_and_compiles(op, target):
    k = _rowwise(target, lambda x, eps, n: getattr(argus, op)(x))
    text = k.ir()
    assert f"argus.{op} " in text
    asm = k.compile().asm
    assert "__nv_" not in asm and "__ocml_" not in asm


@pytest.mark.parametrize("target", TARGETS)
def test_bf16_functions_compile(target):
    k = _rowwise(target, lambda x, eps, n: argus.gelu(argus.rsqrt(x) + argus.tanh(x)), "bf16")
    asm = k.compile().asm
    assert "__nv_" not in asm and "__ocml_" not in asm


@pytest.mark.parametrize("target", TARGETS)
def test_scalar_operands(target):
    def body(x, eps, n):
        y = x * 0.5 + eps          # scale, then a splat of the f32 parameter
        y = 1.0 / y - 2            # fills
        y = argus.maximum(y, 0.0)
        y = argus.minimum(6.0, y)
        return eps * y + (1 - y)
    k = _rowwise(target, body)
    text = k.source()
    assert "argus.splat %eps" in text and "argus.scale" in text
    assert "argus.fill 1.0" in text and "argus.min" in text and "argus.max" in text
    k.compile()


@pytest.mark.parametrize("target", TARGETS)
def test_masks(target):
    def body(x, eps, n):
        col = argus.iota((64, 64), 1, ROW)
        row = argus.iota((64, 64), 0, ROW)
        inside = (col < n) & (col <= row) & ~argus.eq(col, 7)
        y = argus.where(inside, x, float("-inf"))
        return argus.where(x > 0, y, -y) + argus.where(col + 3 >= n, eps, 0.0)
    k = _rowwise(target, body)
    text = k.source()
    for s in ("argus.iota dim 1", "argus.cmp lt", "argus.cmp le", "argus.cmp eq",
              "argus.cmp gt", "argus.cmp ge", "argus.select", "argus.splat %n : index"):
        assert s in text, s
    k.compile()


def _rmsnorm(target, masked=False):
    @argus.kernel(target=target, block=64)
    def rmsnorm(X: argus.Tensor[("M", 64), "f32"], Y: argus.Tensor[("M", 64), "f32"],
                eps: argus.Scalar["f32"], N: argus.index):
        argus.assume(X.dim("M").eq(argus.grid_dim("x") * 64), "one 64-row tile per block")
        m0 = argus.block_id("x") * 64
        gx = argus.tag(argus.view(X, (m0, 0), (64, 64)), lambda m, n: (m0 + m, n))
        x = argus.load(gx, layout=ROW)
        if masked:  # LayerNorm-shaped: a column mask and mean subtraction
            col = argus.iota((64, 64), 1, ROW)
            x = argus.where(col < N, x, 0.0)
            mean = argus.reduce(x, "sum", 1, layout=ROWS) * (1.0 / 64)
            x = x - argus.broadcast(mean, 1, like=x)
        ms = argus.reduce(x * x, "sum", 1, layout=ROWS) * (1.0 / 64)
        r = argus.broadcast(argus.rsqrt(ms + eps), 1, like=x)
        y = x * r
        argus.tag_assert(y, "result.m == lhs.m && result.n == lhs.n")
        gy = argus.tag(argus.view(Y, (m0, 0), (64, 64)), lambda m, n: (m0 + m, n))
        argus.store(y, gy)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")
    return rmsnorm


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("target", TARGETS)
def test_rmsnorm_row_kernel(target, masked, need_verifier):
    k = _rmsnorm(target, masked)
    text = k.ir()
    assert "argus.rsqrt" in text and "argus.reduce sum" in text and "argus.broadcast" in text
    r = k.verify()
    assert r.proved, r.summary()
    asm = k.compile().asm
    assert ("rsqrt.approx.f32" in asm) if target == "sm_90a" else ("v_rsq_f32" in asm)


def test_scalar_param_in_signature():
    k = _rmsnorm("sm_90a")
    assert "%eps: f32" in k.source() and ": f32" in k.ir()
    assert [p for p, _ in k.params] == ["X", "Y", "eps", "N"]


def test_error_float_function_on_int_tile():
    @argus.kernel(target="sm_90a", block=64)
    def k(X: argus.Tensor[(64, 64), "f32"]):
        col = argus.iota((64, 64), 1, ROW)
        argus.sqrt(col)  # BAD
    with pytest.raises(argus.DTypeError) as ei:
        k.ir()
    assert ei.value.line == _line_of(k.fn, "# BAD") and ei.value.file.endswith("test_math.py")


def test_error_where_needs_mask():
    @argus.kernel(target="sm_90a", block=64)
    def k(X: argus.Tensor[(64, 64), "f32"]):
        x = argus.load(argus.view(X, (0, 0), (64, 64)), layout=ROW)
        argus.where(x, x, 0.0)  # BAD
    with pytest.raises(argus.DTypeError) as ei:
        k.ir()
    assert ei.value.line == _line_of(k.fn, "# BAD")
    assert "mask must be an i1 tile" in str(ei.value)


def test_error_mask_shape_mismatch():
    @argus.kernel(target="sm_90a", block=64)
    def k(X: argus.Tensor[(64, 64), "f32"]):
        x = argus.load(argus.view(X, (0, 0), (64, 64)), layout=ROW)
        m = argus.iota((64,), 0, ROWS) > 3
        argus.where(m, x, 0.0)  # BAD
    with pytest.raises(argus.ShapeError) as ei:
        k.ir()
    assert ei.value.line == _line_of(k.fn, "# BAD")


def test_error_mask_layout_mismatch():
    @argus.kernel(target="sm_90a", block=64)
    def k(X: argus.Tensor[(64, 64), "f32"]):
        x = argus.load(argus.view(X, (0, 0), (64, 64)), layout=ROW)
        m = argus.iota((64, 64), 0, "(64,64):(64,1)") > 3
        argus.where(m, x, 0.0)  # BAD
    with pytest.raises(argus.LayoutError) as ei:
        k.ir()
    assert ei.value.line == _line_of(k.fn, "# BAD")


def test_error_cmp_dtypes():
    @argus.kernel(target="sm_90a", block=64)
    def k(X: argus.Tensor[(64, 64), "f32"], n: argus.index):
        x = argus.load(argus.view(X, (0, 0), (64, 64)), layout=ROW)
        x < n  # BAD: an index meets a float tile
    with pytest.raises(argus.DTypeError) as ei:
        k.ir()
    assert ei.value.line == _line_of(k.fn, "# BAD")

    @argus.kernel(target="sm_90a", block=64)
    def k2(X: argus.Tensor[(64, 64), "f32"]):
        x = argus.load(argus.view(X, (0, 0), (64, 64)), layout=ROW)
        col = argus.iota((64, 64), 1, ROW)
        x < col  # BAD
    with pytest.raises(argus.DTypeError) as ei:
        k2.ir()
    assert ei.value.line == _line_of(k2.fn, "# BAD")

    @argus.kernel(target="sm_90a", block=64)
    def k3(X: argus.Tensor[(64, 64), "f32"]):
        x = argus.load(argus.view(X, (0, 0), (64, 64)), layout=ROW)
        (x > 0) < (x > 1)  # BAD
    with pytest.raises(argus.DTypeError) as ei:
        k3.ir()
    assert ei.value.line == _line_of(k3.fn, "# BAD")


def test_error_f64_function_located():
    @argus.kernel(target="sm_90a", block=64)
    def k(X: argus.Tensor[(64, 64), "f64"], Y: argus.Tensor[(64, 64), "f64"]):
        x = argus.load(argus.view(X, (0, 0), (64, 64)), layout=ROW)
        y = argus.tanh(x)  # BAD
        argus.store(y, argus.view(Y, (0, 0), (64, 64)))
    with pytest.raises(argus.CompileError) as ei:
        k.compile()
    assert "libdevice" in str(ei.value)


def test_select_tags_in_python():
    @argus.kernel(target="sm_90a", block=64)
    def k(X: argus.Tensor[(64, 64), "f32"]):
        gx = argus.tag(argus.view(X, (0, 0), (64, 64)), lambda m, n: (m, n))
        x = argus.load(gx, layout=ROW)
        y = argus.where(x > 0, x, 0.0)
        argus.tag_assert(y, "mask.q == 0")  # BAD: the mask has no field q
    with pytest.raises(argus.TagFieldError):
        k.ir()


def _causal_softmax(target, dtype="f32"):
    @argus.kernel(target=target, block=64)
    def softmax(S: argus.Tensor[("M", 64), dtype], P: argus.Tensor[("M", 64), dtype],
                scale: argus.Scalar["f32"]):
        argus.assume(S.dim("M").eq(argus.grid_dim("x") * 64), "one 64-row tile per block")
        m0 = argus.block_id("x") * 64
        gs = argus.tag(argus.view(S, (m0, 0), (64, 64)), lambda m, n: (m0 + m, n))
        s = argus.convert(argus.load(gs, layout=ROW), "f32") * scale
        row = argus.iota((64, 64), 0, ROW) + m0
        col = argus.iota((64, 64), 1, ROW)
        s = argus.where(col <= row, s, float("-inf"))
        mx = argus.broadcast(argus.reduce(s, "max", 1, layout=ROWS), 1, like=s)
        e = argus.exp(s - mx)
        den = argus.broadcast(argus.reduce(e, "sum", 1, layout=ROWS), 1, like=e)
        p = argus.convert(e / den, dtype)
        gp = argus.tag(argus.view(P, (m0, 0), (64, 64)), lambda m, n: (m0 + m, n))
        argus.store(p, gp)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")
    return softmax


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
@pytest.mark.parametrize("target", TARGETS)
def test_causal_softmax_row_kernel(target, dtype, need_verifier):
    k = _causal_softmax(target, dtype)
    src = k.source()
    assert "argus.splat %scale" in src and "argus.cmp le" in src and "argus.select" in src
    r = k.verify()
    assert r.proved, r.summary()
    asm = k.compile().asm
    assert "__nv_" not in asm and "__ocml_" not in asm


@pytest.mark.parametrize("target", TARGETS)
def test_bf16_masks_and_scalars(target):
    def body(x, eps, n):
        y = argus.where(x > 0.5, x + eps, argus.minimum(x, eps))  # f32 eps meets bf16 tiles
        return argus.where(x > 0, y, eps)
    k = _rowwise(target, body, "bf16")
    assert "arith.truncf %eps : f32 to bf16" in k.source()
    k.compile()
