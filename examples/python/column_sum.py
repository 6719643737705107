"""Column sums of an M x N f32 tensor over many blocks, with atomic
accumulation, in the argus DSL without a layout string.

The grid is (column tiles, row strips); M and N need not be multiples of
anything. Each block reduces a strip of ``rows * steps`` rows of its
``cols`` columns in registers (a loop over clipped tiles: zeros past the
edge), then adds its partial column sums into S with one atomic add per
column (``argus.atomic_add``; the reduce result is replicated over the
threads that shared a column and is added once, from its first holder).
S must hold zeros (or the value to add to) before the launch.

The verifier proves the accumulation: the atomic adds of different blocks
to one S element do not race with each other (no plain store or load of S
races with them), the clipped views keep every access inside the tensors,
every element of S receives a contribution, and each partial sum is added
to its own column (``value.n == dest.n``).

    PYTHONPATH=build/python:python python3 examples/python/column_sum.py
"""

import argus


def make_column_sum(target: str = "sm_90a", rows: int = 32, cols: int = 128, steps: int = 4,
                    threads: int = 128, vector: int = 1):
    """S[n] += sum over m of X[m, n] for X of M x N (any M, N).

    ``vector``: elements per load along the rows. 1 takes any N; 4 (16
    bytes) needs N to be a multiple of 4, which the kernel then assumes
    (the verifier's misaligned-vector check asks for it)."""
    lay = argus.copy_layout((rows, cols), "f32", threads, vector=vector)
    part_layout = argus.reduce_layout(lay, (rows, cols), 0)
    strip = rows * steps

    @argus.kernel(target=target, block=threads, name="column_sum")
    def column_sum(X: argus.Tensor[("M", "N"), "f32"], S: argus.Tensor[("N",), "f32"]):
        argus.assume((X.dim("M") < 2 ** 22) & (X.dim("N") < 2 ** 22),
                     "sizes inside the verifier's index range")
        gx_cols = argus.grid_dim("x") * cols
        gy_rows = argus.grid_dim("y") * strip
        argus.assume((X.dim("N") <= gx_cols) & (gx_cols < X.dim("N") + cols) &
                     (X.dim("M") <= gy_rows) & (gy_rows < X.dim("M") + strip),
                     "the grid rounds N up to column tiles and M up to strips of rows")
        if vector > 1:
            argus.assume((X.dim("N") % vector).eq(0), f"rows are whole {vector}-element vectors")
        n0 = argus.block_id("x") * cols
        base = argus.block_id("y") * strip
        acc0 = argus.tag(argus.zeros((cols,), "f32", part_layout), lambda n: (n0 + n,))
        loop = argus.range(0, steps, carry=acc0, name="i")
        for i, acc in loop:
            m0 = base + i * rows
            gx = argus.tag(argus.view(X, (m0, n0), (rows, cols), clipped=True),
                           lambda m, n: (m0 + m, n0 + n))
            part = argus.reduce(argus.load(gx, layout=lay), "sum", 0)
            acc = acc + part
            argus.tag_assert(acc, "lhs.n == rhs.n")
            loop.carry(acc)
        gs = argus.tag(argus.view(S, (n0,), (cols,), clipped=True), lambda n: (n0 + n,))
        argus.atomic_add(loop.results, gs)
        argus.tag_assert("value.n == dest.n")

    return column_sum


def reference(x):
    """The semantics in numpy (S zero before the launch)."""
    import numpy as np
    return np.asarray(x, dtype=np.float64).sum(axis=0).astype(np.float32)


column_sum = make_column_sum()

if __name__ == "__main__":
    print(column_sum.verify().summary() if argus.verifier_available() else "")
    for target in ("sm_90a", "gfx942"):
        print(target, len(column_sum.compile(target=target).asm), "bytes")
