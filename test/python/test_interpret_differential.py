"""Differential checks (argus.interpret.differential, kernel.verify(
differential=N, reference=fn)): random small launches inside the kernels'
preconditions against numpy references. Each correct kernel passes; each of
ten planted value bugs (online-softmax rescaling and the carried maximum, a
scale factor, a dropped epilogue term, an accumulator's initial value, fp8
dequantisation, fp8 scaling before quantisation, LayerNorm's eps outside the
square root, RMSNorm's dropped weight, the wrong activation), which the tag
verifier cannot see (the right elements meet, with the wrong numbers), comes
back as a counterexample naming the tensor, the element, and the block and
op that wrote it."""

import numpy as np
import pytest

import argus
from argus import ir

pytestmark = pytest.mark.skipif(ir._argus is None or not hasattr(ir._argus, "interpret_run"),
                                reason="_argus built without lib/Interpret")

import argus.interpret as ai  # noqa: E402

MFMA = "v_mfma_f32_32x32x8_f16"

# --- flash attention (the example's, with planted bugs) ---------------------------

FQ = argus.frag(MFMA, "a", warps=(4, 1))
FKT = argus.frag(MFMA, "b", warps=(4, 1))
FC = argus.frag(MFMA, "c", warps=(4, 1))
ROWS = "((64,4),32):((0,32),1)"
COPY64 = "((8,32),(8,2)):((512,1),(64,32))"
COPY128 = "((8,32),(8,4)):((1024,1),(128,32))"


def make_flash(bug=None):
    scale = 0.25 if bug == "scale" else 0.125

    @argus.kernel(target="gfx942", block=256, name=f"flash_{bug or 'ok'}")
    def flash(Q: argus.Tensor[("S", 64), "f16"], K: argus.Tensor[("S", 64), "f16"],
              V: argus.Tensor[("S", 64), "f16"], O: argus.Tensor[("S", 64), "f16"],
              S: argus.index):
        argus.assume(S.eq(argus.grid_dim("x") * 128), "S = 128 * grid_dim.x")
        q0 = argus.block_id("x") * 128
        sq = argus.alloc((128, 64), "f16", name="sQ")[0]
        sk = argus.alloc((64, 64), "f16", name="sK")[0]
        sv = argus.alloc((64, 64), "f16", name="sV")[0]
        argus.copy(argus.view(Q, (q0, 0), (128, 64)), sq, threads=COPY128)
        argus.barrier()
        qf = argus.load(sq, layout=FQ)
        m_i = argus.fill(float("-inf"), (128,), "f32", ROWS)
        l_i = argus.fill(1.0 if bug == "l_init" else 0.0, (128,), "f32", ROWS)
        o_i = argus.zeros((128, 64), "f32", FC)
        loop = argus.range(0, S // 64, carry=(m_i, l_i, o_i), name="j")
        for j, (m_i, l_i, o_i) in loop:
            n0 = j * 64
            argus.copy(argus.view(K, (n0, 0), (64, 64)), sk, threads=COPY64)
            argus.copy(argus.view(V, (n0, 0), (64, 64)), sv, threads=COPY64)
            argus.barrier()
            ktf = argus.load(argus.transpose(sk), layout=FKT)
            s = argus.mma(MFMA, qf, ktf, argus.zeros((128, 64), "f32", FC)) * scale
            mt = argus.reduce(s, "max", 1, layout=ROWS)
            m_new = argus.maximum(m_i, mt)
            p = argus.exp(s - argus.broadcast(m_new, 1, like=s))
            # The running sums and outputs are rescaled by exp(m_old - m_new);
            # the planted bug rescales with this tile's maximum instead.
            alpha = argus.exp(m_i - (mt if bug == "rescale" else m_new))
            l_new = l_i * alpha + argus.reduce(p, "sum", 1, layout=ROWS)
            os_ = o_i * argus.broadcast(alpha, 1, like=o_i)
            p16 = argus.convert(argus.convert_layout(p, FQ), "f16")
            o_new = argus.mma(MFMA, p16, argus.load(sv, layout=FKT), os_)
            argus.barrier()
            # The planted bug carries the old running maximum.
            loop.carry(m_i if bug == "carry_max" else m_new, l_new, o_new)
        m_i, l_i, o_i = loop.results
        on = o_i / argus.broadcast(l_i, 1, like=o_i)
        argus.store(argus.convert(on, "f16"), argus.view(O, (q0, 0), (128, 64)))

    return flash


def flash_reference(Q, K, V, O, S):
    s = Q @ K.T * 0.125
    p = np.exp(s - s.max(1, keepdims=True))
    return (p / p.sum(1, keepdims=True)) @ V


FLASH_DIMS = {"S": [128, 256, 384]}

# --- GEMM with an epilogue C = 0.5 A B + 2 C0 ---------------------------------------

MMA = argus.tiled_mma(MFMA, warps=(2, 2), tile=(128, 128, 32))


def make_gemm(bug=None):
    @argus.kernel(target="gfx942", block=MMA.threads, name=f"gemm_axpby_{bug or 'ok'}")
    def gemm(A: argus.Tensor[("M", "K"), "f16"], B: argus.Tensor[("K", "N"), "f16"],
             C: argus.Tensor[("M", "N"), "f32"], K: argus.index):
        argus.assume(A.dim("M").eq(argus.grid_dim("y") * 128) &
                     B.dim("N").eq(argus.grid_dim("x") * 128), "the grid covers M x N")
        argus.assume(A.dim("K").eq(K) & (K % 32).eq(0), "K a multiple of 32")
        m0 = argus.block_id("y") * 128
        n0 = argus.block_id("x") * 128
        sa = argus.alloc((128, 32), "f16", name="sA")[0]
        sb = argus.alloc((32, 128), "f16", name="sB")[0]
        init = 1.0 if bug == "acc_init" else 0.0
        acc = argus.fill(init, (128, 128), "f32", MMA.c)
        loop = argus.range(0, K // 32, carry=acc, name="kt")
        for kt, acc in loop:
            k0 = kt * 32
            argus.copy(argus.view(A, (m0, k0), (128, 32)), sa)
            argus.copy(argus.view(B, (k0, n0), (32, 128)), sb)
            argus.barrier()
            acc = argus.mma(MFMA, argus.load(sa, layout=MMA.a), argus.load(sb, layout=MMA.b), acc)
            argus.barrier()
            loop.carry(acc)
        acc = loop.results
        gc = argus.view(C, (m0, n0), (128, 128))
        out = acc * 0.5
        if bug != "epilogue":  # the planted bug drops the C0 term
            out = out + argus.load(gc, layout=MMA.c) * 2.0
        argus.store(out, gc)

    return gemm


def gemm_reference(A, B, C, K):
    return {"C": 0.5 * (A @ B) + 2.0 * C}


GEMM_DIMS = {"M": [128, 256], "N": [128, 256], "K": [32, 64, 96]}

# --- fp8 fake quantisation Y = fp8(X / s) * s --------------------------------------


def make_fp8(bug=None):
    rows, cols = 16, 128

    @argus.kernel(target="sm_90a", block=128, name=f"fp8_fake_quant_{bug or 'ok'}")
    def fq(X: argus.Tensor[("M", cols), "f32"], Y: argus.Tensor[("M", cols), "f32"],
           s: argus.Scalar["f32"]):
        argus.assume(argus.grid_dim("x").eq(argus.cdiv(X.dim("M"), rows)),
                     "one row tile per block, the last one clipped")
        m0 = argus.block_id("x") * rows
        x = argus.load(argus.view(X, (m0, 0), (rows, cols), clipped=True))
        st = argus.splat(s, x)
        q = argus.convert(argus.convert(x / st, "f8E4M3FN"), "f32")
        y = q if bug == "fp8_scale" else q * st  # the planted bug forgets to dequantise
        argus.store(y, argus.view(Y, (m0, 0), (rows, cols), clipped=True))

    return fq


def round_e4m3(x):
    """x (float32 values) rounded to float8 e4m3fn, to nearest even (|x| < 448)."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    q = np.exp2(np.maximum(e, -6) - 3)
    return np.sign(x) * np.round(a / q) * q


def fp8_grid(sizes):  # the fp8 conversion does not lower yet: no grid rule from the ABI
    return (-(-sizes["M"] // 16),)


def fp8_reference(X, Y, s):
    t = (X.astype(np.float32) / np.float32(s)).astype(np.float32)
    return (round_e4m3(t).astype(np.float32) * np.float32(s)).astype(np.float32)


# --- row kernels: normalisations and activations -------------------------------------


def make_rows(kind, bug=None):
    """Y = f(X) row by row, 16 x 128 tiles, any number of rows (clipped):
    ``layernorm`` (no affine part), ``rmsnorm`` (times W), ``gelu``, and
    ``quant`` (fp8 fake quantisation with the scale applied first)."""
    rows, cols = 16, 128

    @argus.kernel(target="sm_90a", block=128, name=f"{kind}_{bug or 'ok'}")
    def rowk(X: argus.Tensor[("M", cols), "f32"], W: argus.Tensor[(cols,), "f32"],
             Y: argus.Tensor[("M", cols), "f32"], eps: argus.Scalar["f32"]):
        argus.assume(argus.grid_dim("x").eq(argus.cdiv(X.dim("M"), rows)),
                     "one row tile per block, the last one clipped")
        m0 = argus.block_id("x") * rows
        x = argus.load(argus.view(X, (m0, 0), (rows, cols), clipped=True))
        inv_n = 1.0 / cols
        if kind == "layernorm":
            mean = argus.broadcast(argus.reduce(x, "sum", 1), 1) * inv_n
            d = x - mean
            var = argus.broadcast(argus.reduce(d * d, "sum", 1), 1) * inv_n
            # The planted bug adds eps after the square root.
            y = d / (argus.sqrt(var) + argus.splat(eps, x)) if bug == "eps" else \
                d * argus.rsqrt(var + argus.splat(eps, x))
        elif kind == "rmsnorm":
            ms = argus.broadcast(argus.reduce(x * x, "sum", 1), 1) * inv_n
            y = x * argus.rsqrt(ms + argus.splat(eps, x))
            if bug != "weight":  # the planted bug drops the weight
                w = argus.load(argus.view(W, (0,), (cols,)), layout=argus.reduce(
                    x, "sum", 0).layout)
                y = y * argus.broadcast(w, 0, like=x)
        elif kind == "gelu":
            y = argus.relu(x) if bug == "act" else argus.gelu(x)
        else:  # quant: scale = eps
            st = argus.splat(eps, x)
            t = x * st if bug == "quant_scale" else x / st  # the bug multiplies by the scale
            y = argus.convert(argus.convert(t, "f8E4M3FN"), "f32") * st
        argus.store(y, argus.view(Y, (m0, 0), (rows, cols), clipped=True))

    return rowk


def rows_reference(kind):
    from scipy_free_gelu import gelu

    def ref(X, W, Y, eps):
        x = X.astype(np.float64)
        if kind == "layernorm":
            return (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + eps)
        if kind == "rmsnorm":
            return x / np.sqrt((x * x).mean(1, keepdims=True) + eps) * W
        if kind == "gelu":
            return gelu(x)
        return fp8_reference(X, Y, eps)
    return ref


def rows_grid(sizes):  # the fp8 conversion does not lower: no grid rule from the ABI
    return (-(-sizes["M"] // 16),)


ROW_KW = dict(dims={"M": [1, 15, 16, 17, 40]}, outputs=("Y",), grid=rows_grid, rtol=1e-4,
              atol=1e-4)


# --- the checks ---------------------------------------------------------------------


def test_correct_kernels_pass():
    assert ai.differential(make_flash(), flash_reference, n=2, dims=FLASH_DIMS,
                           outputs=("O",)).ok
    assert ai.differential(make_gemm(), gemm_reference, n=3, dims=GEMM_DIMS).ok
    r = make_fp8().verify(differential=4, reference=fp8_reference, scalars={"s": 0.02},
                          dims={"M": [1, 15, 16, 17, 40]}, outputs=("Y",), grid=fp8_grid)
    assert r.ok and r.launches == 4


@pytest.mark.parametrize("bug,make,ref,kw", [
    ("rescale", make_flash, flash_reference, dict(dims=FLASH_DIMS, outputs=("O",))),
    ("scale", make_flash, flash_reference, dict(dims=FLASH_DIMS, outputs=("O",))),
    ("carry_max", make_flash, flash_reference, dict(dims=FLASH_DIMS, outputs=("O",))),
    ("epilogue", make_gemm, gemm_reference, dict(dims=GEMM_DIMS)),
    ("acc_init", make_gemm, gemm_reference, dict(dims=GEMM_DIMS)),
    ("fp8_scale", make_fp8, fp8_reference, dict(dims={"M": [1, 17, 40]}, outputs=("Y",),
                                                scalars={"s": 0.02}, grid=fp8_grid)),
])
def test_planted_bug_is_caught(bug, make, ref, kw):
    k = make(bug)
    with pytest.raises(ai.DifferentialMismatch) as info:
        k.verify(differential=3, reference=ref, **kw)
    ce = info.value.counterexample
    out = "C" if make is make_gemm else ("O" if make is make_flash else "Y")
    assert ce.tensor == out
    assert len(ce.index) == 2
    assert not np.isclose(ce.expected, ce.got, rtol=1e-3, atol=1e-3)
    assert f"{out}[{ce.index[0]}, {ce.index[1]}]" in str(info.value)
    # The block that wrote the element and the store's Python line.
    assert ce.block is not None and ce.program_point.startswith("'argus.store' at ")
    assert "test_interpret_differential.py" in ce.program_point
    assert all(0 <= b < g for b, g in zip(ce.block, ce.grid))
    assert 0 <= ce.thread < k.block[0] and f"thread {ce.thread} at" in str(info.value)


@pytest.mark.parametrize("kind,eps", [("layernorm", 1e-5), ("rmsnorm", 1e-5), ("gelu", 0.0),
                                      ("quant", 0.02)])
def test_row_kernels_pass(kind, eps):
    assert make_rows(kind).verify(differential=3, reference=rows_reference(kind),
                                  scalars={"eps": eps}, **ROW_KW).ok


@pytest.mark.parametrize("kind,bug,eps", [("layernorm", "eps", 0.5), ("rmsnorm", "weight", 1e-5),
                                          ("gelu", "act", 0.0), ("quant", "quant_scale", 0.02)])
def test_planted_row_bug_is_caught(kind, bug, eps):
    with pytest.raises(ai.DifferentialMismatch) as info:
        make_rows(kind, bug).verify(differential=3, reference=rows_reference(kind),
                                    scalars={"eps": eps}, **ROW_KW)
    ce = info.value.counterexample
    assert ce.tensor == "Y" and len(ce.index) == 2 and ce.block is not None
    assert 0 <= ce.thread < 128
    assert abs(ce.got - ce.expected) > 1e-4 + 1e-4 * abs(ce.expected)


def test_harmless_initial_sum_is_not_a_bug():
    """l = 1 instead of 0 at the start is multiplied by exp(-inf - m) = 0 at
    the first tile: the values agree, and the check says so (no false alarm)."""
    assert make_flash("l_init").verify(differential=2, reference=flash_reference,
                                       dims=FLASH_DIMS, outputs=("O",)).ok


def test_reference_mismatch_names_element_and_launch():
    res = ai.differential(make_gemm(), lambda A, B, C, K: {"C": 0.5 * (A @ B) + 2.0 * C + (
        np.arange(C.size).reshape(C.shape) == 77)}, n=1, dims=GEMM_DIMS)
    ce = res.counterexample
    assert ce is not None and ce.index == (0, 77) and ce.launch == 0 and ce.mismatches == 1
    assert ce.sizes["K"] in (32, 64, 96) and ce.grid[2] == 1
    assert ce.block == (0, 0, 0)  # element (0, 77) is in block (0, 0)
    # The thread: the first (thread, slot) of the accumulator's fragment
    # layout over 128 x 128 that holds element (0, 77) (colexicographic 128 * 77).
    from argus.dsl.types import TileType
    lay = ir.extension().register_layout(
        ir.context(), TileType((128, 128), "f32", "register", MMA.c).mlir())
    values = [lay(i) for i in range(128 * 128)]
    assert ce.thread == values.index(128 * 77) % MMA.threads
    assert f"written by block (0, 0, 0) thread {ce.thread} at 'argus.store'" in str(ce)


def test_unsatisfiable_dims_are_reported():
    with pytest.raises(argus.ArgusError, match="size draws"):
        ai.differential(make_gemm(), gemm_reference, n=1, max_draws=5,
                        dims={"M": [100], "N": [128], "K": [32]})


def test_example_kernels_with_default_size_draws():
    """No dims given: sizes drawn from the defaults, the grid from each
    kernel's grid rule, draws outside the assumptions redrawn."""
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"))
    from column_sum import column_sum
    from cumsum import cumsum_rows
    from softmax import softmax

    def softmax_ref(X, Y):
        e = np.exp(X - X.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)
    r = softmax.verify(differential=4, reference=softmax_ref, seed=3)
    assert r.ok and r.launches == 4
    assert cumsum_rows.verify(differential=4, reference=lambda X, Y: np.cumsum(X, 1),
                              rtol=1e-4, atol=1e-4).ok
    # Atomic accumulation: S keeps its initial (random) contents plus the sums.
    assert column_sum.verify(differential=4, reference=lambda X, S: S + X.sum(0),
                             rtol=1e-4, atol=1e-4).ok
    with pytest.raises(ai.DifferentialMismatch):  # a reference that forgets S's contents
        column_sum.verify(differential=4, reference=lambda X, S: X.sum(0), rtol=1e-4,
                          atol=1e-4)
