"""Row-wise cumulative sum of an M x N f32 tensor in the argus DSL, with no
layout string and no tile-multiple shapes.

Each block owns ``rows`` rows and walks their columns ``cols`` at a time:
``argus.load`` of a clipped view reads zeros past the tensor's edge (and the
store skips those elements), ``argus.cumsum(x, 1)`` scans each row of the
tile (its threads' own elements, then shuffles across the lanes that share
the row, then the shared scratch across warps when a row spans warps), and
the running total of the columns already done is carried to the next tile:
``argus.reduce`` derives its layout from the tile's, ``argus.broadcast``
gives it back in the tile's layout, so the carry needs no exchange.

    PYTHONPATH=build/python:python python3 examples/python/cumsum.py
"""

import argus


def make_cumsum(target: str = "sm_90a", rows: int = 16, cols: int = 128, threads: int = 128,
                vector: int = 1):
    """Y[m, n] = sum over k <= n of X[m, k] for X, Y of M x N (any M, N).

    ``vector``: elements per access along the rows. 1 takes any N; 4 (16
    bytes) needs N to be a multiple of 4, which the kernel then assumes
    (the verifier's misaligned-vector check asks for it)."""
    lay = argus.copy_layout((rows, cols), "f32", threads, vector=vector)
    carry_layout = argus.reduce_layout(lay, (rows, cols), 1)

    @argus.kernel(target=target, block=threads, name="cumsum_rows")
    def cumsum_rows(X: argus.Tensor[("M", "N"), "f32"], Y: argus.Tensor[("M", "N"), "f32"]):
        covered = argus.grid_dim("x") * rows
        argus.assume((X.dim("M") <= covered) & (covered < X.dim("M") + rows),
                     "the grid rounds M up to whole strips of rows")
        if vector > 1:
            argus.assume((X.dim("N") % vector).eq(0), f"rows are whole {vector}-element vectors")
        m0 = argus.block_id("x") * rows
        run0 = argus.tag(argus.zeros((rows,), "f32", carry_layout), lambda m: (m0 + m,))
        loop = argus.range(0, argus.cdiv(X.dim("N"), cols), carry=run0, name="j")
        for j, run in loop:
            n0 = j * cols
            gx = argus.tag(argus.view(X, (m0, n0), (rows, cols), clipped=True),
                           lambda m, n: (m0 + m, n0 + n))
            x = argus.load(gx, layout=lay)         # zeros past the edge
            y = argus.cumsum(x, 1) + argus.broadcast(run, 1, like=x)
            argus.tag_assert(y, "lhs.m == rhs.m")  # the carry is the row's own
            gy = argus.tag(argus.view(Y, (m0, n0), (rows, cols), clipped=True),
                           lambda m, n: (m0 + m, n0 + n))
            argus.store(y, gy)
            argus.tag_assert("value.m == dest.m")
            loop.carry(run + argus.reduce(x, "sum", 1))

    return cumsum_rows


def reference(x):
    """The semantics in numpy (float64 accumulation)."""
    import numpy as np
    return np.cumsum(np.asarray(x, dtype=np.float64), axis=1).astype(np.float32)


cumsum_rows = make_cumsum()

if __name__ == "__main__":
    print(cumsum_rows.verify().summary() if argus.verifier_available() else "")
    for target in ("sm_90a", "gfx942"):
        print(target, len(cumsum_rows.compile(target=target).asm), "bytes")
