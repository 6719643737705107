"""Row softmax (also for rows of any length), log-softmax, LayerNorm and RMSNorm in
the argus DSL.

Each block owns ROWS x COLS of X. ``argus.load`` of a global tile without a
layout takes the coalesced blocked layout of the tile over the block's
threads (16-byte vectors along the rows, consecutive threads along a row);
``argus.reduce(x, kind, 1)`` derives its result layout from x's (every
thread holds the results of the rows it held elements of: the lanes that
shared a row all hold its maximum), and ``argus.broadcast(m, 1)`` gives the
result back in x's layout, so ``x - broadcast(m, 1)`` needs no exchange.

    PYTHONPATH=build/python:python python3 examples/python/softmax.py
"""

import argus


def make_softmax(target: str = "sm_90a", rows: int = 64, cols: int = 128, threads: int = 128,
                 dtype: str = "f32", log: bool = False, any_rows: bool = True):
    """softmax (``log=False``) or log-softmax along the rows of an M x cols
    tensor, one row tile per block. ``any_rows``: M need not be a multiple
    of ``rows`` (the last block's views are clipped: its missing rows read
    as zeros and are never stored); ``any_rows=False`` requires the multiple
    (the same speed since the inner tiles of a clipped view load without
    checks: log-softmax 262144 x 128 on the H200 0.073 ms either way)."""

    @argus.kernel(target=target, block=threads, name="log_softmax" if log else "softmax")
    def softmax(X: argus.Tensor[("M", cols), dtype], Y: argus.Tensor[("M", cols), dtype]):
        if any_rows:
            argus.assume(argus.grid_dim("x").eq(argus.cdiv(X.dim("M"), rows)),
                         "one row tile per block, the last one clipped")
        else:
            argus.assume(X.dim("M").eq(argus.grid_dim("x") * rows), "one row tile per block")
        m0 = argus.block_id("x") * rows
        gx = argus.tag(argus.view(X, (m0, 0), (rows, cols), clipped=any_rows),
                       lambda m, n: (m0 + m, n))
        x = argus.convert(argus.load(gx), "f32")            # derived blocked layout
        mx = argus.broadcast(argus.reduce(x, "max", 1), 1)  # derived reduce / broadcast
        d = x - mx
        argus.tag_assert(d, "lhs.m == rhs.m")
        e = argus.exp(d)
        s = argus.broadcast(argus.reduce(e, "sum", 1), 1)
        y = d - argus.log(s) if log else e / s
        argus.tag_assert(y, "lhs.m == rhs.m")
        gy = argus.tag(argus.view(Y, (m0, 0), (rows, cols), clipped=any_rows),
                       lambda m, n: (m0 + m, n))
        argus.store(argus.convert(y, dtype), gy)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")

    return softmax


def make_softmax_any(target: str = "sm_90a", rows: int = 2, cols: int = 1024,
                     threads: int = 128, dtype: str = "f32"):
    """Row softmax of an M x N tensor for any M and any N up to ``cols``
    (Triton's tutorial softmax): the views are clipped in both dimensions,
    and the elements past the end of a row load as -inf (``other=``), so
    they add nothing to the maximum and exp(-inf) = 0 adds nothing to the
    sum; the store skips them. Rows of any length start anywhere, so the
    accesses go element by element (a vector of one). Two rows per block
    of 128 threads measured fastest on the H200 (bench/tutorial)."""
    lay = argus.copy_layout((rows, cols), dtype, threads, vector=1)

    @argus.kernel(target=target, block=threads, name="softmax_any")
    def softmax_any(X: argus.Tensor[("M", "N"), dtype], Y: argus.Tensor[("M", "N"), dtype]):
        M, N = X.dim("M"), X.dim("N")
        argus.assume(N <= cols, f"a row fits one tile (N <= {cols})")
        argus.assume(argus.grid_dim("x").eq(argus.cdiv(M, rows)),
                     "one row tile per block, the last one clipped")
        m0 = argus.block_id("x") * rows
        gx = argus.tag(argus.view(X, (m0, 0), (rows, cols), clipped=True),
                       lambda m, n: (m0 + m, n))
        x = argus.convert(argus.load(gx, layout=lay, other=float("-inf")), "f32")
        d = x - argus.broadcast(argus.reduce(x, "max", 1), 1)
        argus.tag_assert(d, "lhs.m == rhs.m")
        e = argus.exp(d)
        y = e / argus.broadcast(argus.reduce(e, "sum", 1), 1)
        argus.tag_assert(y, "lhs.m == rhs.m")
        gy = argus.tag(argus.view(Y, (m0, 0), (rows, cols), clipped=True),
                       lambda m, n: (m0 + m, n))
        argus.store(argus.convert(y, dtype), gy)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")

    return softmax_any


def make_layernorm(target: str = "sm_90a", rows: int = 32, cols: int = 256, threads: int = 256,
                   dtype: str = "f32"):
    """LayerNorm over the rows (no affine part): (x - mean) / sqrt(var + eps);
    M any size (clipped views, as make_softmax)."""

    @argus.kernel(target=target, block=threads, name="layernorm")
    def layernorm(X: argus.Tensor[("M", cols), dtype], Y: argus.Tensor[("M", cols), dtype],
                  eps: argus.Scalar["f32"]):
        argus.assume(argus.grid_dim("x").eq(argus.cdiv(X.dim("M"), rows)),
                     "one row tile per block, the last one clipped")
        m0 = argus.block_id("x") * rows
        gx = argus.tag(argus.view(X, (m0, 0), (rows, cols), clipped=True),
                       lambda m, n: (m0 + m, n))
        x = argus.convert(argus.load(gx), "f32")
        mean = argus.reduce(x, "sum", 1) * (1.0 / cols)
        d = x - argus.broadcast(mean, 1)
        var = argus.reduce(d * d, "sum", 1) * (1.0 / cols)
        y = d * argus.broadcast(argus.rsqrt(var + eps), 1)
        argus.tag_assert(y, "lhs.m == rhs.m")
        gy = argus.tag(argus.view(Y, (m0, 0), (rows, cols), clipped=True),
                       lambda m, n: (m0 + m, n))
        argus.store(argus.convert(y, dtype), gy)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")

    return layernorm


def make_rmsnorm(target: str = "sm_90a", rows: int = 32, cols: int = 256, threads: int = 256,
                 dtype: str = "f32"):
    """RMSNorm over the rows with a weight: x * rsqrt(mean(x^2) + eps) * w.
    M need not be a multiple of ``rows``: the last block's views are
    clipped (its missing rows read as zeros and are never stored)."""

    @argus.kernel(target=target, block=threads, name="rmsnorm")
    def rmsnorm(X: argus.Tensor[("M", cols), dtype], W: argus.Tensor[(cols,), dtype],
                Y: argus.Tensor[("M", cols), dtype], eps: argus.Scalar["f32"]):
        argus.assume(argus.grid_dim("x").eq(argus.cdiv(X.dim("M"), rows)),
                     "one row tile per block, the last one clipped")
        m0 = argus.block_id("x") * rows
        gx = argus.tag(argus.view(X, (m0, 0), (rows, cols), clipped=True),
                       lambda m, n: (m0 + m, n))
        x = argus.convert(argus.load(gx), "f32")
        ms = argus.reduce(x * x, "sum", 1) * (1.0 / cols)
        y = x * argus.broadcast(argus.rsqrt(ms + eps), 1)
        argus.tag_assert(y, "lhs.m == rhs.m")
        # The weight in the layout of x's column coordinates, broadcast over
        # the rows (no exchange).
        gw = argus.tag(argus.view(W, (0,), (cols,)), lambda n: (n,))
        w = argus.convert(argus.load(gw, layout=argus.reduce_layout(x.layout, x.shape, 0)),
                          "f32")
        y = y * argus.broadcast(w, 0, like=y)
        argus.tag_assert(y, "lhs.n == rhs.n")
        gy = argus.tag(argus.view(Y, (m0, 0), (rows, cols), clipped=True),
                       lambda m, n: (m0 + m, n))
        argus.store(argus.convert(y, dtype), gy)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")

    return rmsnorm


softmax = make_softmax()
log_softmax = make_softmax(log=True)
softmax_any = make_softmax_any()
layernorm = make_layernorm()
rmsnorm = make_rmsnorm()

if __name__ == "__main__":
    for k in (softmax, log_softmax, softmax_any, layernorm, rmsnorm):
        print(k.name, k.verify().summary() if argus.verifier_available() else "")
        for target in ("sm_90a", "gfx942"):
            print(" ", target, len(k.compile(target=target).asm), "bytes")
