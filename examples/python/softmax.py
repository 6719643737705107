"""Row softmax, log-softmax and LayerNorm in the argus DSL without a single
layout string.

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
                 dtype: str = "f32", log: bool = False):
    """softmax (``log=False``) or log-softmax along the rows of an M x cols
    tensor; M a multiple of ``rows``, one row tile per block."""

    @argus.kernel(target=target, block=threads, name="log_softmax" if log else "softmax")
    def softmax(X: argus.Tensor[("M", cols), dtype], Y: argus.Tensor[("M", cols), dtype]):
        argus.assume(X.dim("M").eq(argus.grid_dim("x") * rows), "one row tile per block")
        m0 = argus.block_id("x") * rows
        gx = argus.tag(argus.view(X, (m0, 0), (rows, cols)), lambda m, n: (m0 + m, n))
        x = argus.convert(argus.load(gx), "f32")            # derived blocked layout
        mx = argus.broadcast(argus.reduce(x, "max", 1), 1)  # derived reduce / broadcast
        d = x - mx
        argus.tag_assert(d, "lhs.m == rhs.m")
        e = argus.exp(d)
        s = argus.broadcast(argus.reduce(e, "sum", 1), 1)
        y = d - argus.log(s) if log else e / s
        argus.tag_assert(y, "lhs.m == rhs.m")
        gy = argus.tag(argus.view(Y, (m0, 0), (rows, cols)), lambda m, n: (m0 + m, n))
        argus.store(argus.convert(y, dtype), gy)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")

    return softmax


def make_layernorm(target: str = "sm_90a", rows: int = 32, cols: int = 256, threads: int = 256,
                   dtype: str = "f32"):
    """LayerNorm over the rows (no affine part): (x - mean) / sqrt(var + eps)."""

    @argus.kernel(target=target, block=threads, name="layernorm")
    def layernorm(X: argus.Tensor[("M", cols), dtype], Y: argus.Tensor[("M", cols), dtype],
                  eps: argus.Scalar["f32"]):
        argus.assume(X.dim("M").eq(argus.grid_dim("x") * rows), "one row tile per block")
        m0 = argus.block_id("x") * rows
        gx = argus.tag(argus.view(X, (m0, 0), (rows, cols)), lambda m, n: (m0 + m, n))
        x = argus.convert(argus.load(gx), "f32")
        mean = argus.reduce(x, "sum", 1) * (1.0 / cols)
        d = x - argus.broadcast(mean, 1)
        var = argus.reduce(d * d, "sum", 1) * (1.0 / cols)
        y = d * argus.broadcast(argus.rsqrt(var + eps), 1)
        argus.tag_assert(y, "lhs.m == rhs.m")
        gy = argus.tag(argus.view(Y, (m0, 0), (rows, cols)), lambda m, n: (m0 + m, n))
        argus.store(argus.convert(y, dtype), gy)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")

    return layernorm


softmax = make_softmax()
log_softmax = make_softmax(log=True)
layernorm = make_layernorm()

if __name__ == "__main__":
    for k in (softmax, log_softmax, layernorm):
        print(k.name, k.verify().summary() if argus.verifier_available() else "")
        for target in ("sm_90a", "gfx942"):
            print(" ", target, len(k.compile(target=target).asm), "bytes")
