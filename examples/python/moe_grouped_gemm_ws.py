"""MoE grouped GEMM for Hopper (sm_90a): the Python twin of
examples/sm90a/moe_grouped_gemm_ws.mlir.

    Y[ids[r], :] = weights[r] * (X[rows[r], :] @ W[e])   for sorted position r

X: [T, hidden] bf16 tokens; W: [E * hidden, N] bf16 (expert e's hidden x N
matrix at rows e * hidden); Y: one bf16 row per token slot. The routing
(sorted positions grouped by expert, each expert padded to 128 rows,
``block_expert`` the expert of each 128-row block) is what a MoE layer's
align step produces (bench/moe/moe_bench.py builds it). The block with ids
(x, y) computes the 128 x 256 tile of positions x * 128.. and columns
y * 256.. .

A producer warpgroup brings the expert's weights by TMA on a 4-stage
mbarrier ring; the two consumer warpgroups gather their token rows with
16-byte cp.async two slabs ahead into a 4-stage buffer of their own, and
before slab kt's wgmma each thread waits for its group of slab kt, fences it
for the async proxy and meets the others at the consumers' named barrier.
The stage slab kt + 2 overwrites held slab kt - 2, whose wgmma every thread
retired in iteration kt - 1.

``make_moe_grouped_gemm_ws`` takes the hidden size and knobs that plant
mistakes (the tests check that the verifier finds each at its Python line):
``fence=False`` (no proxy fence), ``gather_wait`` (the wait_group depth, 1
when right), ``barrier=False`` (no consumers' barrier), ``prefetch_stage_shift``
(slab kt + 2 lands in stage (kt + 2 + shift) % 4, 0 when right).
"""

import argus

WGMMA = "wgmma.m64n256k16.f32.bf16.ss"
BM, BN, BK = 128, 256, 64
S = 4       # stages of both rings
AHEAD = 2   # slabs of X gathered ahead of the wgmma


def make_moe_grouped_gemm_ws(hidden: int = 4096, fence: bool = True, gather_wait: int = 1,
                             barrier: bool = True, prefetch_stage_shift: int = 0,
                             name: str = "moe_grouped_gemm_ws"):
    if hidden % BK or hidden <= AHEAD * BK:
        raise ValueError(f"hidden must be a multiple of {BK} above {AHEAD * BK}, got {hidden}")
    ktiles = hidden // BK
    FC = argus.frag(WGMMA, "c", warps=(2, 1))
    ROWS = argus.reduce_layout(FC, (BM, BN), 1)
    # 256 consumer threads, 16 bytes per row chunk: thread t takes chunk
    # t % 8 of rows t / 8 + 32 p; each holds the indices of just those rows.
    COPY_X = argus.layout("((8,32),(8,4)):((1024,1),(128,32))")
    IDS_COPY = argus.layout("((8,32),4):((0,1),32)")

    @argus.kernel(target="sm_90a", block=384, name=name)
    def moe(X: argus.Tensor[("T", hidden), "bf16"], W: argus.Tensor[("EK", "N"), "bf16"],
            Y: argus.Tensor[("SLOTS", "N"), "bf16"], sorted_rows: argus.Tensor[("P",), "i32"],
            sorted_ids: argus.Tensor[("P",), "i32"], weights: argus.Tensor[("P",), "f32"],
            block_expert: argus.Tensor[("B",), "i32"]):
        by = argus.block_id("x")
        bx = argus.block_id("y")
        r0 = by * BM
        n0 = bx * BN
        P = argus.grid_dim("x") * BM
        N = argus.grid_dim("y") * BN
        argus.assume(sorted_rows.dim(0).eq(P), "sorted_rows has 128 * grid_dim.x entries")
        argus.assume(sorted_ids.dim(0).eq(P), "sorted_ids has 128 * grid_dim.x entries")
        argus.assume(weights.dim(0).eq(P), "weights has 128 * grid_dim.x entries")
        argus.assume(W.dim(1).eq(N), "W has N = 256 * grid_dim.y columns")
        argus.assume(Y.dim(1).eq(N), "Y has N = 256 * grid_dim.y columns")
        # The routing's data, checked by kernel[grid](...) before a launch:
        # token rows are rows of X, slot ids distinct rows of Y.
        argus.assume_indices(sorted_rows, below=X.dim(0), message="sorted_rows are rows of X")
        argus.assume_indices(sorted_ids, below=Y.dim(0), distinct=True,
                             message="sorted_ids are distinct rows of Y")
        # The expert of this block.
        e = block_expert.index_at(by)
        argus.assume(e < 1024, "expert ids are below 1024")
        argus.assume((e + 1) * hidden <= W.dim(0), "the expert's rows are inside W")
        wbase = e * hidden

        tmW = argus.tensor_map(W, (BK, 64), swizzle=128)
        sa = argus.alloc((BM, BK), "bf16", argus.swizzle(3, 3, 3, "(128,64):(64,1)"),
                         stages=S, name="sA")
        sb = argus.alloc((BK, BN), "bf16", argus.swizzle(3, 3, 3, "(64,(64,4)):(64,(1,4096))"),
                         stages=S, name="sB")
        full = argus.mbarrier("full", stages=S, arrivals=1)
        empty = argus.mbarrier("empty", stages=S, arrivals=256)

        with argus.role("producer", warps=(0, 4), regs=40):
            with argus.region("produce"):
                for kt in argus.range(0, ktiles, name="kt"):
                    k0 = kt * BK
                    s = kt % S
                    argus.mbarrier_wait(empty[s], 1 - (kt // S) % 2)
                    argus.mbarrier_arrive_expect_tx(full[s], BK * BN * 2)
                    wrow = wbase + k0
                    gw = argus.tag(argus.view(W, (wrow, n0), (BK, BN)),
                                   lambda k, n: {"e": (wrow + k) // hidden,
                                                 "k": (wrow + k) % hidden, "n": n0 + n})
                    argus.tma_load(gw, sb[s], tmW, full[s])

        def gather(rows, slab, stage):
            k0 = slab * BK
            gx = argus.tag(argus.gather_view(X, rows, k0, (BM, BK)),
                           lambda r, k: {"r": r0 + r, "k": k0 + k, "e": e})
            argus.copy_async(gx, sa[stage], threads=COPY_X)

        with argus.role("consumer", warps=(4, 12), regs=232):
            with argus.region("consume"):
                rows = argus.load(argus.view(sorted_rows, (r0,), (BM,)), layout=IDS_COPY)
                for p in argus.range(0, AHEAD, name="p"):
                    gather(rows, p, p)
                    argus.commit_group()
                acc0 = argus.tag(argus.zeros((BM, BN), "f32", FC),
                                 lambda m, n: {"r": r0 + m, "n": n0 + n})
                # The slab counter is carried so that the last release below
                # names its slot (a traced `slot % 4`, not a constant stage).
                k_loop = argus.range(0, ktiles, carry=(acc0, 0), name="kt")
                for kt, (acc, i) in k_loop:
                    s = kt % S
                    # Slab kt of X: this thread's copies, then everyone's.
                    argus.wait_group(gather_wait)
                    if fence:
                        argus.fence_proxy_async()
                    if barrier:
                        argus.barrier()
                    argus.mbarrier_wait(full[s], (kt // S) % 2)
                    acc = argus.mma_async(WGMMA, sa[s], sb[s], acc)
                    argus.tag_assert(acc, "a.k == b.k && a.e == b.e && a.r == acc.r && b.n == acc.n")
                    argus.wgmma_commit()
                    argus.wgmma_wait(1)
                    # Slab kt - 1's wgmma has retired: hand its W stage back.
                    with argus.when(kt.ne(0)):
                        argus.mbarrier_arrive(empty[(kt + S - 1) % S])
                    # Gather slab kt + 2 (an empty group past the end keeps the count).
                    with argus.when((kt + AHEAD) < ktiles):
                        gather(rows, kt + AHEAD, (kt + AHEAD + prefetch_stage_shift) % S)
                    argus.commit_group()
                    k_loop.carry(acc, i + 1)
                acc, i_end = k_loop.results
                acc = argus.wgmma_wait(0, acc)
                argus.mbarrier_arrive(empty[(i_end + S - 1) % S])

            # Scale each row by its routing weight and scatter it to its slot.
            with argus.region("scatter"):
                gwt = argus.tag(argus.view(weights, (r0,), (BM,)), lambda r: {"r": r0 + r})
                w = argus.load(gwt, layout=ROWS)
                y = acc * argus.broadcast(w, 1, like=acc)
                argus.tag_assert(y, "lhs.r == rhs.r")
                ids = argus.load(argus.view(sorted_ids, (r0,), (BM,)), layout=ROWS)
                gy = argus.tag(argus.gather_view(Y, ids, n0, (BM, BN)),
                               lambda r, n: {"r": r0 + r, "n": n0 + n})
                argus.store(argus.convert(y, "bf16"), gy)
                argus.tag_assert("value.r == dest.r && value.n == dest.n")

    return moe


moe_grouped_gemm_ws = make_moe_grouped_gemm_ws()

if __name__ == "__main__":
    print(moe_grouped_gemm_ws.source())
