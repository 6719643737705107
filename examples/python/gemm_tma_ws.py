"""Warp-specialized persistent GEMM for Hopper (sm_90a): the Python twin of
examples/sm90a/gemm_tma_ws.mlir.

TMA copies complete on mbarriers of a 4-stage ring; one producer warpgroup
(40 registers) and two consumer warpgroups (232 registers) issue
asynchronous wgmma with both operands in shared memory, keeping one k-slab's
wgmma in flight while the next is issued. A: M x K, B: K x N, C: M x N bf16
(f32 accumulation). Each block walks the 128 x 256 tiles of C persistently
(tiles b, b + G, b + 2G, ... for a grid of G blocks); the views are clipped,
so M, N, K need not be multiples of the tile (TMA needs 16-byte rows: K and N
are multiples of 8).

The protocol: slab i of a block (counted across its tiles) uses stage
s = i % 4 of both rings. The producer waits until the consumers released the
stage (parity (i / 4 + 1) % 2 of empty[s]; a fresh barrier counts as having
completed the phase before its first), announces 48 KiB on full[s] and issues
the copies. The consumers wait for full[s] with parity (i / 4) % 2, issue
slab i's wgmma, retire slab i - 1's (wgmma_wait 1) and then release stage
(i - 1) % 4.

``epilogue="tma_store"`` builds the twin of gemm_tma_store_ws.mlir: a
3-stage ring, and C leaves through shared memory: the consumers write the
tile into sC, fence it for the async proxy (``fence_proxy_async``), pass
their named barrier, and one thread issues the bulk tensor store, which runs
while the next tile's mainloop does; before sC is rewritten the issuing
thread waits for the previous store to have read it (``tma_store_wait``)
and the barrier passes that on.

``dtype="tf32"`` builds the fp32 GEMM on the tensor cores: A (M x K), B
given as N x K (both K-contiguous: wgmma reads 32-bit operands only
K-major, so this is C = A B^T, the layout of ``torch.nn.Linear`` weights)
and C f32; ``wgmma.m64n256k8.f32.tf32.ss`` reads the f32 words of shared
memory at tf32 precision. 128 x 256 x 32 tiles keep a stage at 48 KiB.
Shared tiles are laid out by ``argus.tma_layout`` from their tensor maps.

``make_gemm_tma_ws`` takes knobs that plant protocol mistakes (the tests
check that the verifier finds each one at its Python line):
``flip_parity=False`` (consumers always wait parity 0), ``expect_bytes``
(bytes announced per stage, 49152 when right), ``wgmma_pending`` (the main
loop's wgmma_wait depth, 1 when right), ``b_stage_shift`` (B lands in stage
(i + shift) % 4, 0 when right), ``empty_arrivals`` (256 when right); with
the bulk-store epilogue ``fence=False`` (no proxy fence before the store)
and ``store_wait`` (the wait depth before sC is rewritten, 0 when right).
"""

import contextlib

import argus

WGMMA = "wgmma.m64n256k16.f32.bf16.ss"
BM, BN, BK = 128, 256, 64
EPILOGUES = ("registers", "tma_store")
DTYPES = ("bf16", "f16", "tf32")


def make_gemm_tma_ws(flip_parity: bool = True, expect_bytes: int = None,
                     wgmma_pending: int = 1, b_stage_shift: int = 0,
                     empty_arrivals: int = 256, name: str = "gemm_tma_ws",
                     epilogue: str = "registers", fence: bool = True, store_wait: int = 0,
                     bias: bool = False, activation: str = None, regions: bool = False,
                     dtype: str = "bf16", cluster: int = 1, group_m: int = 1):
    """``bias`` adds a per-column bias (a length-N tensor after C) to the
    f32 accumulator and ``activation`` (``"relu"``, ``"gelu"``, ... any
    elementwise DSL function, or a callable on the f32 tile) is applied
    before the conversion to the output type.
    ``regions`` marks each tile's epilogue as a region ("epilogue", besides
    the roles' "produce" and "consume"), for probes.
    ``cluster`` > 1: thread-block clusters of that many blocks computing
    vertically adjacent tiles; they share B's slab through TMA multicast
    (each block issues a share of its boxes) and release each stage on every
    block's empty barrier (examples/sm90a/gemm_tma_cluster_ws.mlir).
    ``group_m`` > 1: the persistent blocks walk the tiles in groups of
    ``group_m`` tile rows, column by column inside a group (Triton's grouped
    order: consecutive tiles share B's columns and a few of A's rows, for
    L2 reuse); a last, partial group has the rows that are left. The tile
    count is written per group (full groups, then the last group's rows),
    the form whose coverage the verifier proves (with ``cluster`` > 1 the
    groups are of cluster-tall tile rows; that proof takes 3-4 s)."""
    region = argus.region if regions else (lambda name: contextlib.nullcontext())
    act = getattr(argus, activation) if isinstance(activation, str) else activation
    if epilogue not in EPILOGUES:
        raise ValueError(f"epilogue is one of {EPILOGUES}, got {epilogue!r}")
    if dtype not in DTYPES:
        raise ValueError(f"dtype is one of {DTYPES}, got {dtype!r}")
    bulk = epilogue == "tma_store"
    tf32 = dtype == "tf32"
    if cluster < 1 or (cluster > 1 and tf32):
        raise ValueError(f"cluster is a positive number of blocks (16-bit GEMMs), got {cluster!r}")
    if not isinstance(group_m, int) or group_m < 1:
        raise ValueError(f"group_m is a positive number of tile rows, got {group_m!r}")
    if tf32 and bulk:
        raise ValueError("the tf32 GEMM stores C (f32) from registers: a 128 x 256 f32 sC "
                         "does not fit beside the ring")
    # tf32: f32 in memory, 32 of them per 128-byte row, k8 per instruction.
    elem, out_t = ("f32", "f32") if tf32 else (dtype, dtype)
    wgmma = "wgmma.m64n256k8.f32.tf32.ss" if tf32 else WGMMA.replace("bf16", dtype)
    bk = 32 if tf32 else BK
    eb = 4 if tf32 else 2
    # sC takes 64 KiB of shared memory: one stage fewer.
    S = 3 if bulk else 4
    FC = argus.frag(wgmma, "c", warps=(2, 1))
    if expect_bytes is None:
        expect_bytes = (BM * bk + bk * BN) * eb  # one stage of A and B

    def body(A, B, C, Bias, M, N, K):
        if tf32:
            argus.assume((K % 4).eq(0), "K is a multiple of 4 (16-byte rows of A and B for TMA)")
            argus.assume(K >= 4, "K >= 4")
            argus.assume((N % 2).eq(0), "N is even (C's rows leave in 8-byte pairs)")
        else:
            argus.assume((N % 8).eq(0), "N is a multiple of 8 (16-byte rows of B for TMA)")
            argus.assume((K % 8).eq(0), "K is a multiple of 8 (16-byte rows of A for TMA)")
            argus.assume(K >= 8, "K >= 8")
        tiles_n = argus.cdiv(N, BN)
        # With clusters, a tile row is `cluster` tiles tall, one per block.
        tiles_m = argus.cdiv(M, BM * cluster)
        if group_m > 1:
            group_tiles = tiles_n * group_m
            tiles = (tiles_m // group_m) * group_tiles + (tiles_m % group_m) * tiles_n
        else:
            tiles = tiles_m * tiles_n
        ktiles = argus.cdiv(K, bk)
        # The slab counter runs up to tiles * ktiles on one block.
        argus.assume(tiles < (1 << 22) // ktiles,
                     f"ceil(M / 128) * ceil(N / 256) * ceil(K / {bk}) < 2^22")
        if cluster > 1:
            # Clusters walk the tile rows; a block takes its rank's tile.
            first, step, rank = argus.cluster_id("x"), argus.num_clusters("x"), \
                argus.cluster_rank("x")
        else:
            first, step, rank = argus.block_id("x"), argus.grid_dim("x"), 0

        def tile_origin(t):
            """(m0, n0) of the block's tile of tile index t."""
            if group_m > 1:
                group, p = t // group_tiles, t % group_tiles
                top = group * group_m
                rows = argus.minimum(tiles_m - top, group_m)
                tm, tn = top + p % rows, p // rows
            else:
                tm, tn = t // tiles_n, t % tiles_n
            return ((tm * cluster + rank) * BM if cluster > 1 else tm * BM), tn * BN

        tmA = argus.tensor_map(A, (BM, bk), swizzle=128)
        # tf32: B is N x K, one (256, 32) box; 16-bit: B is K x N, 64-column boxes.
        tmB = argus.tensor_map(B, (BN, bk) if tf32 else (bk, 64), swizzle=128)
        if bulk:
            tmC = argus.tensor_map(C, (BM, 64), swizzle=128)
        sa = argus.alloc((BM, bk), elem, argus.tma_layout(tmA, (BM, bk)), stages=S, name="sA")
        sb_shape = (BN, bk) if tf32 else (bk, BN)
        sb = argus.alloc(sb_shape, elem, argus.tma_layout(tmB, sb_shape), stages=S, name="sB")
        full = argus.mbarrier("full", stages=S, arrivals=1)
        if bulk:
            sc = argus.alloc((BM, BN), out_t, argus.tma_layout(tmC, (BM, BN)), name="sC")
        empty = argus.mbarrier("empty", stages=S, arrivals=empty_arrivals * cluster)

        with argus.role("producer", warps=(0, 4), regs=40):
            with argus.region("produce"):
                tile_loop = argus.range(first, tiles, step=step, carry=0, name="t")
                for t, i0 in tile_loop:
                    m0, n0 = tile_origin(t)
                    k_loop = argus.range(0, ktiles, carry=i0, name="kt")
                    for kt, i in k_loop:
                        k0 = kt * bk
                        s = i % S
                        free = 1 - (i // S) % 2
                        argus.mbarrier_wait(empty[s], free)
                        argus.mbarrier_arrive_expect_tx(full[s], expect_bytes)
                        ga = argus.tag(argus.view(A, (m0, k0), (BM, bk), clipped=True),
                                       lambda m, k: (m0 + m, k0 + k))
                        if tf32:
                            gb = argus.tag(argus.view(B, (n0, k0), (BN, bk), clipped=True),
                                           lambda n, k: (n0 + n, k0 + k))
                        else:
                            gb = argus.tag(argus.view(B, (k0, n0), (bk, BN), clipped=True),
                                           lambda k, n: (k0 + k, n0 + n))
                        argus.tma_load(ga, sa[s], tmA, full[s])
                        sb_s = (i + b_stage_shift) % S if b_stage_shift else s
                        argus.tma_load(gb, sb[sb_s], tmB, full[s], multicast=cluster > 1)
                        k_loop.carry(i + 1)
                    tile_loop.carry(k_loop.results)

        with argus.role("consumer", warps=(4, 12), regs=232):
            with argus.region("consume"):
                tile_loop = argus.range(first, tiles, step=step, carry=0, name="t")
                for t, i0 in tile_loop:
                    m0, n0 = tile_origin(t)
                    acc0 = argus.tag(argus.zeros((BM, BN), "f32", FC),
                                     lambda m, n: (m0 + m, n0 + n))
                    k_loop = argus.range(0, ktiles, carry=(acc0, i0), name="kt")
                    for kt, (acc, i) in k_loop:
                        s = i % S
                        phase = (i // S) % 2 if flip_parity else 0
                        argus.mbarrier_wait(full[s], phase)
                        # tf32: the N x K stage read as K x N (K-major B).
                        acc = argus.mma_async(wgmma, sa[s],
                                              argus.transpose(sb[s]) if tf32 else sb[s], acc)
                        argus.tag_assert(acc, "a.k == b.k && a.m == acc.m && b.n == acc.n")
                        argus.wgmma_commit()
                        argus.wgmma_wait(wgmma_pending)
                        # Slab i - 1's wgmma has retired: hand its stage back.
                        with argus.when(kt.ne(0)):
                            argus.mbarrier_arrive(empty[(i + (S - 1)) % S], cluster=cluster > 1)
                        k_loop.carry(acc, i + 1)
                    with region("epilogue"):
                        acc, i_end = k_loop.results
                        acc = argus.wgmma_wait(0, acc)
                        argus.mbarrier_arrive(empty[(i_end + (S - 1)) % S], cluster=cluster > 1)
                        if Bias is not None:
                            # The bias in the layout of the accumulator's columns,
                            # broadcast over the rows: no exchange between threads.
                            gbias = argus.tag(argus.view(Bias, (n0,), (BN,), clipped=True),
                                              lambda n: (n0 + n,))
                            bv = argus.load(gbias, layout=argus.reduce_layout(FC, (BM, BN), 0))
                            if not tf32:
                                bv = argus.convert(bv, "f32")
                            acc = acc + argus.broadcast(bv, 0, like=acc)
                            argus.tag_assert(acc, "lhs.n == rhs.n")
                        if act is not None:
                            acc = act(acc)
                        out = acc if tf32 else argus.convert(acc, out_t)
                        gc = argus.tag(argus.view(C, (m0, n0), (BM, BN), clipped=True),
                                       lambda m, n: (m0 + m, n0 + n))
                        if not bulk:
                            argus.store(out, gc)
                            argus.tag_assert("value.m == dest.m && value.n == dest.n")
                        else:
                            # The previous tile's bulk store has finished reading sC.
                            argus.tma_store_wait(store_wait)
                            argus.barrier()
                            argus.store(out, sc[0])
                            if fence:
                                argus.fence_proxy_async()
                            argus.barrier()
                            argus.tma_store(sc[0], gc, tmC)
                            argus.tag_assert("source.m == dest.m && source.n == dest.n")
                    tile_loop.carry(i_end)
                if bulk:
                    argus.tma_store_wait(0)

    # tf32: B is N x K (K-major); 16-bit: K x N.
    b_dims = ("N", "K") if tf32 else ("K", "N")
    if bias:
        @argus.kernel(target="sm_90a", block=384, name=name,
                      cluster=cluster if cluster > 1 else None)
        def gemm_tma_ws(A: argus.Tensor[("M", "K"), elem], B: argus.Tensor[b_dims, elem],
                        C: argus.Tensor[("M", "N"), out_t], Bias: argus.Tensor[("N",), out_t],
                        M: argus.index, N: argus.index, K: argus.index):
            body(A, B, C, Bias, M, N, K)
    else:
        @argus.kernel(target="sm_90a", block=384, name=name,
                      cluster=cluster if cluster > 1 else None)
        def gemm_tma_ws(A: argus.Tensor[("M", "K"), elem], B: argus.Tensor[b_dims, elem],
                        C: argus.Tensor[("M", "N"), out_t], M: argus.index, N: argus.index,
                        K: argus.index):
            body(A, B, C, None, M, N, K)
    return gemm_tma_ws


gemm_tma_ws = make_gemm_tma_ws()
gemm_tma_store_ws = make_gemm_tma_ws(epilogue="tma_store", name="gemm_tma_store_ws")
gemm_tma_store_ws_bias_gelu = make_gemm_tma_ws(epilogue="tma_store", bias=True,
                                               activation="gelu",
                                               name="gemm_tma_store_ws_bias_gelu")
gemm_tma_store_ws_grouped = make_gemm_tma_ws(epilogue="tma_store", group_m=8,
                                             name="gemm_tma_store_ws_grouped")
gemm_tf32_tma_ws = make_gemm_tma_ws(dtype="tf32", name="gemm_tf32_tma_ws")
gemm_tma_cluster_ws = make_gemm_tma_ws(epilogue="tma_store", cluster=2,
                                       name="gemm_tma_cluster_ws")


if __name__ == "__main__":
    print(gemm_tma_ws.ir())
    result = gemm_tma_ws.verify()
    print(result.summary())
    ptx = gemm_tma_ws.compile().asm
    print(f"PTX: {len(ptx)} bytes")
