"""GEMM C = A * B on MI300X (gfx942) matrix cores, written in the argus DSL.

The Python twin of examples/gemm_mfma.mlir: a 256-thread block (2x2 waves)
computes a 128x128 tile of C with v_mfma_f32_32x32x8_f16, staging 128x32 /
32x128 slabs of A and B through shared memory.

No layout is written by hand: ``argus.tiled_mma`` gives the instruction's
fragments over the 2x2 wave grid (and checks the tile against it), and the
copies derive their thread layouts from the tiles (16-byte vectors along
the rows, coalesced: the same layouts the .mlir spells out).

    PYTHONPATH=build/python:python python3 examples/python/gemm.py
"""

import argus

MFMA = "v_mfma_f32_32x32x8_f16"
MMA = argus.tiled_mma(MFMA, warps=(2, 2), tile=(128, 128, 32))
FA, FB, FC = MMA.a, MMA.b, MMA.c


@argus.kernel(target="gfx942", block=MMA.threads)
def gemm_mfma(A: argus.Tensor[("M", "K"), "f16"], B: argus.Tensor[("K", "N"), "f16"],
              C: argus.Tensor[("M", "N"), "f32"], K: argus.index):
    # Shape preconditions beyond the annotations (whose shared dim names
    # the DSL turns into assumptions itself): the grid covers M x N exactly.
    argus.assume(A.dim("M").eq(argus.grid_dim("y") * 128) &
                 B.dim("N").eq(argus.grid_dim("x") * 128),
                 "the grid covers M x N with 128 x 128 tiles")
    # The k loop runs K / 32 slabs: K is A's width and a multiple of 32 (the
    # verifier checks that the loop reaches the end of A's columns).
    argus.assume(A.dim("K").eq(K) & (K % 32).eq(0), "A is M x K, K a multiple of 32")
    m0 = argus.block_id("y") * 128
    n0 = argus.block_id("x") * 128
    ktiles = K // 32
    sa = argus.alloc((128, 32), "f16", name="sA")
    sb = argus.alloc((32, 128), "f16", name="sB")
    sa0, sb0 = sa[0], sb[0]

    acc = argus.tag(argus.zeros((128, 128), "f32", FC), lambda m, n: (m0 + m, n0 + n))

    with argus.region("mainloop"):
        loop = argus.range(0, ktiles, carry=acc, name="kt")
        for kt, acc in loop:
            k0 = kt * 32
            with argus.region("load_tiles"):
                ga = argus.tag(argus.view(A, (m0, k0), (128, 32)), lambda m, k: (m0 + m, k0 + k))
                gb = argus.tag(argus.view(B, (k0, n0), (32, 128)), lambda k, n: (k0 + k, n0 + n))
                argus.copy(ga, sa0)          # thread layouts derived from the tiles
                argus.copy(gb, sb0)
                argus.barrier()
            with argus.region("mfma"):
                af = argus.load(sa0, layout=FA)
                bf = argus.load(sb0, layout=FB)
                acc = argus.mma(MFMA, af, bf, acc)
                argus.tag_assert(acc, "a.k == b.k && a.m == acc.m && b.n == acc.n")
            argus.barrier()
            loop.carry(acc)
        acc = loop.results

    with argus.region("epilogue"):
        gc = argus.tag(argus.view(C, (m0, n0), (128, 128)), lambda m, n: (m0 + m, n0 + n))
        argus.store(acc, gc)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")


if __name__ == "__main__":
    print(gemm_mfma.ir())
    if argus.verifier_available():
        print(gemm_mfma.verify().summary())
    print(len(gemm_mfma.compile().asm), "bytes of gfx942 assembly")
