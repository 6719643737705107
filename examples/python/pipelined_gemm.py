"""Software-pipelined GEMM on Hopper (sm_90a) with mma.sync m16n8k16, S
shared-memory stages filled by cp.async and swizzled layouts: the Python twin
of examples/gemm_pipelined_2stage.mlir / _3stage.mlir.

Iteration kt waits until slab kt has landed (wait_group S-2 + barrier),
issues slab kt+S-1 into stage (kt+S-1) mod S and computes on stage kt mod S;
the epilogue drains the last S-1 slabs.
"""

import argus

MMA = "mma.m16n8k16.f32.f16"


def make_pipelined_gemm(stages: int = 2, wait: int = None):
    """``wait`` overrides the main loop's wait_group count (default S-2)."""
    S = stages
    wait = S - 2 if wait is None else wait
    # No layout strings: the tiled MMA gives the fragments over the 2x2 warp
    # grid, and the cp.async copies derive 16-byte, coalesced thread layouts
    # that stay contiguous in the swizzled stages (Sw<B,3,S>: runs of 8 f16).
    tiled = argus.tiled_mma(MMA, warps=(2, 2), tile=(64, 64, 32))
    FA, FB, FC = tiled.a, tiled.b, tiled.c

    @argus.kernel(target="sm_90a", block=tiled.threads, name=f"gemm_pipelined_{S}stage")
    def gemm(A: argus.Tensor[("M", "K"), "f16"], B: argus.Tensor[("K", "N"), "f16"],
             C: argus.Tensor[("M", "N"), "f32"], K: argus.index):
        argus.assume(A.dim("M").eq(argus.grid_dim("y") * 64) &
                     B.dim("N").eq(argus.grid_dim("x") * 64),
                     "the grid covers M x N with 64 x 64 tiles")
        m0 = argus.block_id("y") * 64
        n0 = argus.block_id("x") * 64
        # The prologue fills S - 1 stages: a precondition of every launch.
        argus.assume(K >= 32 * (S - 1), "K >= 32 (S - 1)")
        # Whole k-slabs, which also keeps A's 16-byte row vectors aligned.
        argus.assume((K % 32).eq(0), "K is a multiple of 32")
        ktiles = K // 32
        kmain = ktiles - (S - 1)
        sa = argus.alloc((64, 32), "f16", argus.swizzle(2, 3, 2, argus.row_major(64, 32)),
                         stages=S, name="sA")
        sb = argus.alloc((32, 64), "f16", argus.swizzle(3, 3, 3, argus.row_major(32, 64)),
                         stages=S, name="sB")

        def issue(kidx, st):
            k0 = kidx * 32
            ga = argus.tag(argus.view(A, (m0, k0), (64, 32)), lambda m, k: (m0 + m, k0 + k))
            gb = argus.tag(argus.view(B, (k0, n0), (32, 64)), lambda k, n: (k0 + k, n0 + n))
            argus.copy_async(ga, sa[st])
            argus.copy_async(gb, sb[st])
            argus.commit_group()

        def compute(kt, acc):
            rs = kt % S
            af = argus.load(sa[rs], layout=FA)
            bf = argus.load(sb[rs], layout=FB)
            acc = argus.mma(MMA, af, bf, acc)
            argus.tag_assert(acc, "a.k == b.k && a.m == acc.m && b.n == acc.n")
            return acc

        with argus.region("prologue"):
            for p in argus.range(0, S - 1, name="p"):
                issue(p, p)

        acc = argus.tag(argus.zeros((64, 64), "f32", FC), lambda m, n: (m0 + m, n0 + n))
        with argus.region("mainloop"):
            loop = argus.range(0, kmain, carry=acc, name="kt")
            for kt, acc in loop:
                with argus.region("wait"):
                    argus.wait_group(wait)
                    argus.barrier()
                with argus.region("issue"):
                    kn = kt + (S - 1)
                    issue(kn, kn % S)
                with argus.region("mma"):
                    acc = compute(kt, acc)
                loop.carry(acc)
            acc = loop.results

        with argus.region("drain"):
            argus.wait_group(0)
            argus.barrier()
            loop = argus.range(kmain, ktiles, carry=acc, name="kt")
            for kt, acc in loop:
                loop.carry(compute(kt, acc))
            acc = loop.results

        with argus.region("epilogue"):
            gc = argus.tag(argus.view(C, (m0, n0), (64, 64)), lambda m, n: (m0 + m, n0 + n))
            argus.store(acc, gc)
            argus.tag_assert("value.m == dest.m && value.n == dest.n")

    return gemm


gemm_pipelined_2stage = make_pipelined_gemm(2)
gemm_pipelined_3stage = make_pipelined_gemm(3)

if __name__ == "__main__":
    print(gemm_pipelined_2stage.ir())
    if argus.verifier_available():
        print(gemm_pipelined_2stage.verify().summary())
