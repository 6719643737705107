"""Argus DSL kernels shared by the reference solutions of bench/kernelbench.

Every kernel here is f32 in and out (the tasks are fp32, as KernelBench's),
for sm_90a / sm_90 (H100, H200), with clipped boundary tiles where a size
need not be a multiple of the tile, and states what its proof assumes with
``argus.assume`` (the evaluator checks those at the task's shapes). Sizes a
kernel is specialised for (row lengths) are ``argus.constexpr`` parameters,
so a solution builds no kernel objects in ``forward``.

The GEMM, convolution, cumsum and norm kernels follow examples/python
(gemm_epilogue.py, conv2d.py, cumsum.py, softmax.py). Layouts are derived
when a kernel is traced, never when this module is imported, so the
solutions import on a GPU host without the _argus extension, where
``kernel[grid]`` launches the ``argus.aot`` exports of a prepared batch.
"""

import argus

TARGET = "sm_90a"
VEC = 4  # f32 elements in a 16-byte vector

#===------------------------------------------------------------------------===#
# Elementwise: an M x C matrix (any tensor seen as rows), any M, C % 4 == 0
#===------------------------------------------------------------------------===#

# The verifier's index range is below 2^23: a flat index of a large tensor
# would leave it, so elementwise kernels index rows and columns.
EW_ROWS, EW_COLS = 16, 256


def _ew_assumptions(X):
    M, C = X.dim("M"), X.dim("C")
    argus.assume((M < 2 ** 22) & (C < 2 ** 22), "M, C < 2^22 (the verifier's index range)")
    argus.assume((C % VEC).eq(0), "rows are whole 16-byte vectors (C a multiple of 4)")
    argus.assume(argus.grid_dim("y").eq(argus.cdiv(M, EW_ROWS)) &
                 argus.grid_dim("x").eq(argus.cdiv(C, EW_COLS)),
                 "one tile per block, boundary tiles clipped")
    return argus.block_id("y") * EW_ROWS, argus.block_id("x") * EW_COLS


def _ew_view(T, m0, n0):
    return argus.tag(argus.view(T, (m0, n0), (EW_ROWS, EW_COLS), clipped=True),
                     lambda m, n: (m0 + m, n0 + n))


def unary(name, fn, threads=256):
    """Y = fn(X) elementwise over an M x C f32 matrix."""

    @argus.kernel(target=TARGET, block=threads, name=name)
    def k(X: argus.Tensor[("M", "C"), "f32"], Y: argus.Tensor[("M", "C"), "f32"]):
        m0, n0 = _ew_assumptions(X)
        argus.store(fn(argus.load(_ew_view(X, m0, n0))), _ew_view(Y, m0, n0))
        argus.tag_assert("value.m == dest.m && value.n == dest.n")
    return k


def binary(name, fn, threads=256):
    """Y = fn(A, B) elementwise over two M x C f32 matrices."""

    @argus.kernel(target=TARGET, block=threads, name=name)
    def k(A: argus.Tensor[("M", "C"), "f32"], B: argus.Tensor[("M", "C"), "f32"],
          Y: argus.Tensor[("M", "C"), "f32"]):
        m0, n0 = _ew_assumptions(A)
        a = argus.load(_ew_view(A, m0, n0))
        b = argus.load(_ew_view(B, m0, n0), layout=a.layout)
        y = fn(a, b)
        argus.tag_assert(y, "lhs.m == rhs.m && lhs.n == rhs.n")
        argus.store(y, _ew_view(Y, m0, n0))
        argus.tag_assert("value.m == dest.m && value.n == dest.n")
    return k


#===------------------------------------------------------------------------===#
# Row-wise: an M x COLS tensor, whole rows in a block (COLS a constexpr)
#===------------------------------------------------------------------------===#


def _rows_for(cols):
    """Rows per block for a row of ``cols`` f32: the largest power of two
    with at most 8 K elements a block (so that 256 threads share the tile
    evenly)."""
    r = 1
    while r * 2 * cols <= 8192 and r < 64:
        r *= 2
    return r


def rowwise(name, fn, threads=256, out_cols=None):
    """Y (M x COLS) = fn(x) row by row, x the f32 tile of whole rows
    (``fn(x)`` may reduce and broadcast along dim 1); ``out_cols=1`` stores
    one value per row into Y (M,) instead (fn returns the reduced tile)."""

    @argus.kernel(target=TARGET, block=threads, name=name)
    def k(X: argus.Tensor[("M", "C"), "f32"], Y: argus.Tensor[("M", "?"), "f32"]
          if out_cols is None else argus.Tensor[("M",), "f32"], COLS: argus.constexpr):
        R = _rows_for(COLS)
        M = X.dim("M")
        argus.assume(X.dim("C").eq(COLS), f"rows of {COLS} elements")
        if out_cols is None:
            argus.assume(Y.dim(1).eq(COLS), f"Y has rows of {COLS} elements")
        argus.assume(argus.grid_dim("x").eq(argus.cdiv(M, R)),
                     "one strip of rows per block, the last one clipped")
        m0 = argus.block_id("x") * R
        gx = argus.tag(argus.view(X, (m0, 0), (R, COLS), clipped=True), lambda m, n: (m0 + m, n))
        y = fn(argus.load(gx))
        if out_cols is None:
            gy = argus.tag(argus.view(Y, (m0, 0), (R, COLS), clipped=True),
                           lambda m, n: (m0 + m, n))
            argus.store(y, gy)
            argus.tag_assert("value.m == dest.m && value.n == dest.n")
        else:
            gy = argus.tag(argus.view(Y, (m0,), (R,), clipped=True), lambda m: (m0 + m,))
            argus.store(y, gy)
            argus.tag_assert("value.m == dest.m")
    return k


def softmax_rows(x):
    d = x - argus.broadcast(argus.reduce(x, "max", 1), 1)
    argus.tag_assert(d, "lhs.m == rhs.m")
    e = argus.exp(d)
    y = e / argus.broadcast(argus.reduce(e, "sum", 1), 1)
    argus.tag_assert(y, "lhs.m == rhs.m")
    return y


def log_softmax_rows(x):
    d = x - argus.broadcast(argus.reduce(x, "max", 1), 1)
    argus.tag_assert(d, "lhs.m == rhs.m")
    y = d - argus.log(argus.broadcast(argus.reduce(argus.exp(d), "sum", 1), 1))
    argus.tag_assert(y, "lhs.m == rhs.m")
    return y


def layernorm_rows(x, eps=1e-5):
    cols = x.shape[1]
    mean = argus.reduce(x, "sum", 1) * (1.0 / cols)
    d = x - argus.broadcast(mean, 1)
    argus.tag_assert(d, "lhs.m == rhs.m")
    var = argus.reduce(d * d, "sum", 1) * (1.0 / cols)
    y = d * argus.broadcast(argus.rsqrt(var + eps), 1)
    argus.tag_assert(y, "lhs.m == rhs.m")
    return y


def row_norm_kernel(name, kind="rms", threads=256, residual=False, activation=None):
    """RMSNorm with a weight (``kind="rms"``: x * rsqrt(mean(x^2) + eps) * w)
    or LayerNorm with weight and bias (``kind="layer"``) over rows of COLS;
    ``residual``: normalises X + R; ``activation``: a DSL function after."""

    def body(X, R, W, B, Y, eps, COLS):
        Rr = _rows_for(COLS)
        M = X.dim("M")
        argus.assume(X.dim("C").eq(COLS), f"rows of {COLS} elements")
        argus.assume(argus.grid_dim("x").eq(argus.cdiv(M, Rr)),
                     "one strip of rows per block, the last one clipped")
        m0 = argus.block_id("x") * Rr
        gx = argus.tag(argus.view(X, (m0, 0), (Rr, COLS), clipped=True), lambda m, n: (m0 + m, n))
        x = argus.load(gx)
        if R is not None:
            gr = argus.tag(argus.view(R, (m0, 0), (Rr, COLS), clipped=True),
                           lambda m, n: (m0 + m, n))
            x = x + argus.load(gr, layout=x.layout)
            argus.tag_assert(x, "lhs.m == rhs.m && lhs.n == rhs.n")
        if kind == "rms":
            ms = argus.reduce(x * x, "sum", 1) * (1.0 / COLS)
            y = x * argus.broadcast(argus.rsqrt(ms + eps), 1)
        else:
            mean = argus.reduce(x, "sum", 1) * (1.0 / COLS)
            d = x - argus.broadcast(mean, 1)
            var = argus.reduce(d * d, "sum", 1) * (1.0 / COLS)
            y = d * argus.broadcast(argus.rsqrt(var + eps), 1)
        argus.tag_assert(y, "lhs.m == rhs.m")
        col_layout = argus.reduce_layout(x.layout, x.shape, 0)
        gw = argus.tag(argus.view(W, (0,), (COLS,)), lambda n: (n,))
        y = y * argus.broadcast(argus.load(gw, layout=col_layout), 0, like=y)
        argus.tag_assert(y, "lhs.n == rhs.n")
        if B is not None:
            gb = argus.tag(argus.view(B, (0,), (COLS,)), lambda n: (n,))
            y = y + argus.broadcast(argus.load(gb, layout=col_layout), 0, like=y)
            argus.tag_assert(y, "lhs.n == rhs.n")
        if activation is not None:
            y = activation(y)
        gy = argus.tag(argus.view(Y, (m0, 0), (Rr, COLS), clipped=True), lambda m, n: (m0 + m, n))
        argus.store(y, gy)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")

    if kind == "rms" and residual:
        @argus.kernel(target=TARGET, block=threads, name=name)
        def k(X: argus.Tensor[("M", "C"), "f32"], R: argus.Tensor[("M", "C"), "f32"],
              W: argus.Tensor[("C",), "f32"], Y: argus.Tensor[("M", "C"), "f32"],
              eps: argus.Scalar["f32"], COLS: argus.constexpr):
            body(X, R, W, None, Y, eps, COLS)
    elif kind == "rms":
        @argus.kernel(target=TARGET, block=threads, name=name)
        def k(X: argus.Tensor[("M", "C"), "f32"], W: argus.Tensor[("C",), "f32"],
              Y: argus.Tensor[("M", "C"), "f32"], eps: argus.Scalar["f32"],
              COLS: argus.constexpr):
            body(X, None, W, None, Y, eps, COLS)
    else:
        @argus.kernel(target=TARGET, block=threads, name=name)
        def k(X: argus.Tensor[("M", "C"), "f32"], W: argus.Tensor[("C",), "f32"],
              B: argus.Tensor[("C",), "f32"], Y: argus.Tensor[("M", "C"), "f32"],
              eps: argus.Scalar["f32"], COLS: argus.constexpr):
            body(X, None, W, B, Y, eps, COLS)
    return k


#===------------------------------------------------------------------------===#
# Row reductions of any length: a loop over column tiles
#===------------------------------------------------------------------------===#


def row_reduce(name, kind="sum", scaled=False, rows=16, cols=256, threads=256):
    """Y[m] = reduce_kind(X[m, :]) (``scaled``: times a Scalar parameter s,
    1 / N for a mean) for an M x N tensor, any M, N (N a multiple of 4)."""
    init = {"sum": 0.0, "max": float("-inf")}[kind]

    def body(X, Y, s):
        lay = argus.copy_layout((rows, cols), "f32", threads)
        red = argus.reduce_layout(lay, (rows, cols), 1)
        M, N = X.dim("M"), X.dim("N")
        argus.assume(argus.grid_dim("x").eq(argus.cdiv(M, rows)),
                     "one strip of rows per block, the last one clipped")
        argus.assume((N % VEC).eq(0), "N is a multiple of 4 (16-byte vectors)")
        m0 = argus.block_id("x") * rows
        acc0 = argus.tag(argus.fill(init, (rows,), "f32", red), lambda m: (m0 + m,))
        loop = argus.range(0, argus.cdiv(N, cols), carry=acc0, name="j")
        for j, acc in loop:
            n0 = j * cols
            gx = argus.tag(argus.view(X, (m0, n0), (rows, cols), clipped=True),
                           lambda m, n: (m0 + m, n0 + n))
            x = argus.load(gx, layout=lay, other=init)
            part = argus.reduce(x, kind, 1)
            nxt = acc + part if kind == "sum" else argus.maximum(acc, part)
            argus.tag_assert(nxt, "lhs.m == rhs.m")
            loop.carry(nxt)
        y = loop.results
        if s is not None:
            y = y * s
        gy = argus.tag(argus.view(Y, (m0,), (rows,), clipped=True), lambda m: (m0 + m,))
        argus.store(y, gy)
        argus.tag_assert("value.m == dest.m")

    if scaled:
        @argus.kernel(target=TARGET, block=threads, name=name)
        def k(X: argus.Tensor[("M", "N"), "f32"], Y: argus.Tensor[("M",), "f32"],
              s: argus.Scalar["f32"]):
            body(X, Y, s)
    else:
        @argus.kernel(target=TARGET, block=threads, name=name)
        def k(X: argus.Tensor[("M", "N"), "f32"], Y: argus.Tensor[("M",), "f32"]):
            body(X, Y, None)
    return k


def make_cumsum(name="cumsum_rows", rows=16, cols=128, threads=128):
    """Y[m, n] = sum over k <= n of X[m, k], any M, N (examples/python/cumsum.py)."""
    @argus.kernel(target=TARGET, block=threads, name=name)
    def cumsum_rows(X: argus.Tensor[("M", "N"), "f32"], Y: argus.Tensor[("M", "N"), "f32"]):
        lay = argus.copy_layout((rows, cols), "f32", threads, vector=1)
        carry_layout = argus.reduce_layout(lay, (rows, cols), 1)
        covered = argus.grid_dim("x") * rows
        argus.assume((X.dim("M") <= covered) & (covered < X.dim("M") + rows),
                     "the grid rounds M up to whole strips of rows")
        m0 = argus.block_id("x") * rows
        run0 = argus.tag(argus.zeros((rows,), "f32", carry_layout), lambda m: (m0 + m,))
        loop = argus.range(0, argus.cdiv(X.dim("N"), cols), carry=run0, name="j")
        for j, run in loop:
            n0 = j * cols
            gx = argus.tag(argus.view(X, (m0, n0), (rows, cols), clipped=True),
                           lambda m, n: (m0 + m, n0 + n))
            x = argus.load(gx, layout=lay)
            y = argus.cumsum(x, 1) + argus.broadcast(run, 1, like=x)
            argus.tag_assert(y, "lhs.m == rhs.m")
            gy = argus.tag(argus.view(Y, (m0, n0), (rows, cols), clipped=True),
                           lambda m, n: (m0 + m, n0 + n))
            argus.store(y, gy)
            argus.tag_assert("value.m == dest.m")
            loop.carry(run + argus.reduce(x, "sum", 1))
    return cumsum_rows


#===------------------------------------------------------------------------===#
# GEMM with an epilogue (examples/python/gemm_epilogue.py), tf32 on sm_90
#===------------------------------------------------------------------------===#

GEMM_INSTR, GEMM_WARPS, GEMM_TILE = "mma.m16n8k8.f32.tf32", (2, 2), (64, 64, 32)
# a warp per instruction tile of the 2 x 2 warp grid (what tiled_mma(...).threads
# gives; written out so that the module imports without the _argus extension)
GEMM_THREADS = 32 * GEMM_WARPS[0] * GEMM_WARPS[1]


def gemm(name, bias=False, epilogue=None, stages=2, scalar=False, row_scale=False):
    """C (M x N) = epilogue(A (M x K) @ B (K x N) [+ bias (N)]), any M; N and
    K multiples of 4 (16-byte vectors). ``epilogue(y)`` takes the f32
    accumulator tile (``scalar``: and a Scalar parameter ``s``);
    ``row_scale``: C = (A @ B) * G[:, None] for a G of M values (no bias)."""
    instr, warps, (TM, TN, TK) = GEMM_INSTR, GEMM_WARPS, GEMM_TILE

    def body(A, B, C, Bias, s, G=None):
        mma = argus.tiled_mma(instr, warps=warps, tile=(TM, TN, TK))
        M, N, K = A.dim("M"), B.dim("N"), A.dim("K")
        argus.assume(argus.grid_dim("y").eq(argus.cdiv(M, TM)) &
                     argus.grid_dim("x").eq(argus.cdiv(N, TN)),
                     "one block per C tile, boundary tiles included")
        argus.assume((N % VEC).eq(0) & (K % VEC).eq(0),
                     "rows of A, B and C are whole 16-byte vectors (N, K multiples of 4)")
        argus.assume(K < 2 ** 22, "K < 2^22")
        m0 = argus.block_id("y") * TM
        n0 = argus.block_id("x") * TN
        sa = argus.alloc((TM, TK), "f32", argus.swizzled_rows((TM, TK), "f32"), name="sA",
                         stages=stages)
        sb = argus.alloc((TK, TN), "f32", argus.swizzled_rows((TK, TN), "f32"), name="sB",
                         stages=stages)

        def load(kt, st):
            k0 = kt * TK
            ga = argus.tag(argus.view(A, (m0, k0), (TM, TK), clipped=True),
                           lambda m, k: (m0 + m, k0 + k))
            gb = argus.tag(argus.view(B, (k0, n0), (TK, TN), clipped=True),
                           lambda k, n: (k0 + k, n0 + n))
            argus.copy_async(ga, sa[st])
            argus.copy_async(gb, sb[st])

        def compute(kt, st, acc):
            acc = argus.mma(instr, argus.load(sa[st], layout=mma.a),
                            argus.load(sb[st], layout=mma.b), acc)
            argus.tag_assert(acc, "a.k == b.k && a.m == acc.m && b.n == acc.n")
            return acc

        acc = argus.tag(argus.zeros((TM, TN), "f32", mma.c), lambda m, n: (m0 + m, n0 + n))
        y = argus.pipeline(argus.cdiv(K, TK), load, compute, carry=acc, stages=stages)
        if Bias is not None:
            gbias = argus.tag(argus.view(Bias, (n0,), (TN,), clipped=True), lambda n: (n0 + n,))
            bv = argus.load(gbias, layout=argus.reduce_layout(mma.c, (TM, TN), 0))
            y = y + argus.broadcast(bv, 0, like=y)
            argus.tag_assert(y, "lhs.n == rhs.n")
        if G is not None:
            gg = argus.tag(argus.view(G, (m0,), (TM,), clipped=True), lambda m: (m0 + m,))
            gv = argus.load(gg, layout=argus.reduce_layout(mma.c, (TM, TN), 1))
            y = y * argus.broadcast(gv, 1, like=y)
            argus.tag_assert(y, "lhs.m == rhs.m")
        if epilogue is not None:
            y = epilogue(y, s) if scalar else epilogue(y)
        gc = argus.tag(argus.view(C, (m0, n0), (TM, TN), clipped=True),
                       lambda m, n: (m0 + m, n0 + n))
        argus.store(y, gc)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")

    if row_scale:
        @argus.kernel(target=TARGET, block=GEMM_THREADS, name=name)
        def k(A: argus.Tensor[("M", "K"), "f32"], B: argus.Tensor[("K", "N"), "f32"],
              C: argus.Tensor[("M", "N"), "f32"], G: argus.Tensor[("M",), "f32"]):
            body(A, B, C, None, None, G)
    elif bias and scalar:
        @argus.kernel(target=TARGET, block=GEMM_THREADS, name=name)
        def k(A: argus.Tensor[("M", "K"), "f32"], B: argus.Tensor[("K", "N"), "f32"],
              C: argus.Tensor[("M", "N"), "f32"], Bias: argus.Tensor[("N",), "f32"],
              s: argus.Scalar["f32"]):
            body(A, B, C, Bias, s)
    elif bias:
        @argus.kernel(target=TARGET, block=GEMM_THREADS, name=name)
        def k(A: argus.Tensor[("M", "K"), "f32"], B: argus.Tensor[("K", "N"), "f32"],
              C: argus.Tensor[("M", "N"), "f32"], Bias: argus.Tensor[("N",), "f32"]):
            body(A, B, C, Bias, None)
    elif scalar:
        @argus.kernel(target=TARGET, block=GEMM_THREADS, name=name)
        def k(A: argus.Tensor[("M", "K"), "f32"], B: argus.Tensor[("K", "N"), "f32"],
              C: argus.Tensor[("M", "N"), "f32"], s: argus.Scalar["f32"]):
            body(A, B, C, None, s)
    else:
        @argus.kernel(target=TARGET, block=GEMM_THREADS, name=name)
        def k(A: argus.Tensor[("M", "K"), "f32"], B: argus.Tensor[("K", "N"), "f32"],
              C: argus.Tensor[("M", "N"), "f32"]):
            body(A, B, C, None, None)
    return k


#===------------------------------------------------------------------------===#
# 2-D convolution as an implicit GEMM (examples/python/conv2d.py), tf32
#===------------------------------------------------------------------------===#


def conv2d(name, window=(3, 3), stride=1, padding=1, bias=False, activation=None, stages=2):
    """Y (N * OH * OW x CO) = activation(conv2d(X, W) [+ bias (CO)]) for a
    channels-last X (N, H, W, C) and weights (CO, KH * KW * C); C and CO
    multiples of 4."""
    instr, warps, (TM, TN, TK) = GEMM_INSTR, GEMM_WARPS, GEMM_TILE
    KH, KW = window
    dilation = 1

    def body(X, Wt, Y, Bias):
        mma = argus.tiled_mma(instr, warps=warps, tile=(TM, TN, TK))
        N, H, W, C = X.dim("N"), X.dim("H"), X.dim("W"), X.dim("C")
        CO, K = Wt.dim("CO"), Wt.dim("K")
        argus.assume((H < 2 ** 22) & (W < 2 ** 22) & (C < 2 ** 22 // (KH * KW)),
                     "sizes in the index range")
        argus.assume((H + 2 * padding >= dilation * (KH - 1) + 1) &
                     (W + 2 * padding >= dilation * (KW - 1) + 1),
                     "the dilated window fits in the padded input")
        OH = argus.conv_output_size(H, KH, stride, padding, dilation)
        OW = argus.conv_output_size(W, KW, stride, padding, dilation)
        argus.assume(N <= 2 ** 22 // OH // OW, "N * OH * OW output positions in the index range")
        P = Y.dim("P")
        argus.assume(P.eq(N * OH * OW) & Y.dim("CO").eq(CO) & K.eq(KH * KW * C),
                     "Y is the (N * OH * OW, CO) output; W is (CO, KH * KW * C)")
        argus.assume(argus.grid_dim("y").eq(argus.cdiv(P, TM)) &
                     argus.grid_dim("x").eq(argus.cdiv(CO, TN)),
                     "one block per output tile, boundary tiles included")
        argus.assume((C % VEC).eq(0) & (CO % VEC).eq(0),
                     "rows of W and Y are whole 16-byte vectors (C, CO multiples of 4)")
        p0 = argus.block_id("y") * TM
        n0 = argus.block_id("x") * TN
        sa = argus.alloc((TM, TK), "f32", argus.swizzled_rows((TM, TK), "f32"), name="sA",
                         stages=stages)
        sb = argus.alloc((TN, TK), "f32", argus.swizzled_rows((TN, TK), "f32"), name="sB",
                         stages=stages)

        def load(kidx, st):
            k0 = kidx * TK
            ga = argus.tag(argus.im2col(X, (p0, k0), (TM, TK), window=window, stride=stride,
                                        padding=padding, dilation=dilation),
                           lambda m, k: (p0 + m, k0 + k))
            gb = argus.tag(argus.view(Wt, (n0, k0), (TN, TK), clipped=True),
                           lambda n, k: (n0 + n, k0 + k))
            argus.copy_async(ga, sa[st])
            argus.copy_async(gb, sb[st])

        def compute(kidx, st, acc):
            acc = argus.mma(instr, argus.load(sa[st], layout=mma.a),
                            argus.load(argus.transpose(sb[st]), layout=mma.b), acc)
            argus.tag_assert(acc, "a.k == b.k && a.m == acc.m && b.n == acc.n")
            return acc

        acc = argus.tag(argus.zeros((TM, TN), "f32", mma.c), lambda m, n: (p0 + m, n0 + n))
        y = argus.pipeline(argus.cdiv(K, TK), load, compute, carry=acc, stages=stages)
        if Bias is not None:
            gbias = argus.tag(argus.view(Bias, (n0,), (TN,), clipped=True), lambda n: (n0 + n,))
            bv = argus.load(gbias, layout=argus.reduce_layout(mma.c, (TM, TN), 0))
            y = y + argus.broadcast(bv, 0, like=y)
            argus.tag_assert(y, "lhs.n == rhs.n")
        if activation is not None:
            y = activation(y)
        gy = argus.tag(argus.view(Y, (p0, n0), (TM, TN), clipped=True),
                       lambda m, n: (p0 + m, n0 + n))
        argus.store(y, gy)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")

    if bias:
        @argus.kernel(target=TARGET, block=GEMM_THREADS, name=name)
        def k(X: argus.Tensor[("N", "H", "W", "C"), "f32"], Wt: argus.Tensor[("CO", "K"), "f32"],
              Y: argus.Tensor[("P", "CO"), "f32"], Bias: argus.Tensor[("CO",), "f32"]):
            body(X, Wt, Y, Bias)
    else:
        @argus.kernel(target=TARGET, block=GEMM_THREADS, name=name)
        def k(X: argus.Tensor[("N", "H", "W", "C"), "f32"], Wt: argus.Tensor[("CO", "K"), "f32"],
              Y: argus.Tensor[("P", "CO"), "f32"]):
            body(X, Wt, Y, None)
    return k
