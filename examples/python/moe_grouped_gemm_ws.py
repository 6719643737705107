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

With ``persistent=True`` it is the twin of
examples/sm90a/moe_grouped_gemm_persistent_ws.mlir: about one block per SM
walks a work list of (expert, tile) pairs, item t the position block
t % blocks and column slab t / blocks with the expert block_expert[b]
(clamped to W's last), and the W ring's slab counter runs on across items.

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
                             persistent: bool = False, name: str = None):
    if hidden % BK or hidden <= AHEAD * BK:
        raise ValueError(f"hidden must be a multiple of {BK} above {AHEAD * BK}, got {hidden}")
    ktiles = hidden // BK
    FC = argus.frag(WGMMA, "c", warps=(2, 1))
    ROWS = argus.reduce_layout(FC, (BM, BN), 1)
    # 256 consumer threads, 16 bytes per row chunk: thread t takes chunk
    # t % 8 of rows t / 8 + 32 p; each holds the indices of just those rows.
    COPY_X = argus.layout("((8,32),(8,4)):((1024,1),(128,32))")
    IDS_COPY = argus.layout("((8,32),4):((0,1),32)")
    name = name or ("moe_grouped_gemm_persistent_ws" if persistent else "moe_grouped_gemm_ws")

    @argus.kernel(target="sm_90a", block=384, name=name)
    def moe(X: argus.Tensor[("T", hidden), "bf16"], W: argus.Tensor[("EK", "N"), "bf16"],
            Y: argus.Tensor[("SLOTS", "N"), "bf16"], sorted_rows: argus.Tensor[("P",), "i32"],
            sorted_ids: argus.Tensor[("P",), "i32"], weights: argus.Tensor[("P",), "f32"],
            block_expert: argus.Tensor[("B",), "i32"]):
        if persistent:
            # Shape preconditions of the work list (checked at launch).
            P, N = sorted_rows.dim(0), W.dim(1)
            argus.assume(sorted_ids.dim(0).eq(P) & weights.dim(0).eq(P),
                         "sorted_ids and weights have an entry per sorted position")
            argus.assume((P % BM).eq(0), "the sorted positions are whole blocks of 128")
            blocks = P // BM
            argus.assume(block_expert.dim(0).eq(blocks),
                         "block_expert has an entry per block of 128 positions")
            argus.assume((N % BN).eq(0) & Y.dim(1).eq(N),
                         "W and Y have N columns, a multiple of 256")
            argus.assume((W.dim(0) % hidden).eq(0) & (W.dim(0) >= hidden),
                         f"W holds whole experts of {hidden} rows, at least one")
            e_last = W.dim(0) // hidden - 1
            argus.assume((P <= 1 << 20) & (N <= 1 << 16),
                         "at most 2^20 sorted positions and 65536 columns")
            tiles = blocks * (N // BN)
            argus.assume(tiles < 1 << 16, "fewer than 65536 work items (128 x 256 tiles)")
        else:
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

        def work_item(t):
            """(r0, n0, e) of work item t: position block t % blocks, column
            slab t / blocks, the block's expert clamped to W's last."""
            b = t % blocks
            e = argus.minimum(block_expert.index_at(b), e_last)
            return b * BM, (t // blocks) * BN, e

        if not persistent:
            # One item per block: the expert of this block of positions.
            by = argus.block_id("x")
            e = block_expert.index_at(by)
            argus.assume(e < 1024, "expert ids are below 1024")
            argus.assume((e + 1) * hidden <= W.dim(0), "the expert's rows are inside W")
            block_item = (by * BM, argus.block_id("y") * BN, e)

        tmW = argus.tensor_map(W, (BK, 64), swizzle=128)
        sa = argus.alloc((BM, BK), "bf16", argus.swizzle(3, 3, 3, "(128,64):(64,1)"),
                         stages=S, name="sA")
        sb = argus.alloc((BK, BN), "bf16", argus.swizzle(3, 3, 3, "(64,(64,4)):(64,(1,4096))"),
                         stages=S, name="sB")
        full = argus.mbarrier("full", stages=S, arrivals=1)
        empty = argus.mbarrier("empty", stages=S, arrivals=256)

        def run_items(step):
            """step(r0, n0, e, i0) for each work item of this block, i0 the
            W ring's slab counter, which runs on across items; step returns
            it after the item."""
            if not persistent:
                step(*block_item, 0)
                return
            loop = argus.range(argus.block_id("x"), tiles, step=argus.grid_dim("x"),
                               carry=0, name="t")
            for t, i0 in loop:
                loop.carry(step(*work_item(t), i0))

        def produce(r0, n0, e, i0):
            wbase = e * hidden
            k_loop = argus.range(0, ktiles, carry=i0, name="kt")
            for kt, i in k_loop:
                k0 = kt * BK
                s = i % S
                argus.mbarrier_wait(empty[s], 1 - (i // S) % 2)
                argus.mbarrier_arrive_expect_tx(full[s], BK * BN * 2)
                wrow = wbase + k0
                gw = argus.tag(argus.view(W, (wrow, n0), (BK, BN)),
                               lambda k, n: {"e": (wrow + k) // hidden,
                                             "k": (wrow + k) % hidden, "n": n0 + n})
                argus.tma_load(gw, sb[s], tmW, full[s])
                k_loop.carry(i + 1)
            return k_loop.results

        with argus.role("producer", warps=(0, 4), regs=40):
            with argus.region("produce"):
                run_items(produce)

        def gather(rows, r0, e, slab, stage):
            k0 = slab * BK
            gx = argus.tag(argus.gather_view(X, rows, k0, (BM, BK)),
                           lambda r, k: {"r": r0 + r, "k": k0 + k, "e": e})
            argus.copy_async(gx, sa[stage], threads=COPY_X)

        def consume(r0, n0, e, i0):
            with argus.region("consume"):
                rows = argus.load(argus.view(sorted_rows, (r0,), (BM,)), layout=IDS_COPY)
                for p in argus.range(0, AHEAD, name="p"):
                    gather(rows, r0, e, p, p)
                    argus.commit_group()
                acc0 = argus.tag(argus.zeros((BM, BN), "f32", FC),
                                 lambda m, n: {"r": r0 + m, "n": n0 + n})
                # The slab counter is carried so that the last release below
                # names its slot (a traced `slot % 4`, not a constant stage);
                # it runs on across work items, like the producer's.
                k_loop = argus.range(0, ktiles, carry=(acc0, i0), name="kt")
                for kt, (acc, i) in k_loop:
                    s, ws = kt % S, i % S  # stages of X and of W
                    # Slab kt of X: this thread's copies, then everyone's.
                    argus.wait_group(gather_wait)
                    if fence:
                        argus.fence_proxy_async()
                    if barrier:
                        argus.barrier()
                    argus.mbarrier_wait(full[ws], (i // S) % 2)
                    acc = argus.mma_async(WGMMA, sa[s], sb[ws], acc)
                    argus.tag_assert(acc, "a.k == b.k && a.e == b.e && a.r == acc.r && b.n == acc.n")
                    argus.wgmma_commit()
                    argus.wgmma_wait(1)
                    # Slab kt - 1's wgmma has retired: hand its W stage back.
                    with argus.when(kt.ne(0)):
                        argus.mbarrier_arrive(empty[(i + S - 1) % S])
                    # Gather slab kt + 2 (an empty group past the end keeps the count).
                    with argus.when((kt + AHEAD) < ktiles):
                        gather(rows, r0, e, kt + AHEAD, (kt + AHEAD + prefetch_stage_shift) % S)
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
            return i_end

        with argus.role("consumer", warps=(4, 12), regs=232):
            run_items(consume)

    return moe


moe_grouped_gemm_ws = make_moe_grouped_gemm_ws()

if __name__ == "__main__":
    print(moe_grouped_gemm_ws.source())
