"""Warp-specialized flash-attention forward for Hopper (sm_90a): the Python
twin of examples/sm90a/flash_attention_ws.mlir (FlashAttention-3 structure).

One producer warpgroup (40 registers) loads the query tile once and streams
the key and value tiles through 2-stage TMA rings completing on mbarriers;
two consumer warpgroups (232 registers, 64 query rows each) compute
S = Q K^T with asynchronous wgmma (both operands in shared memory, K^T read
in place through ``argus.transpose`` of the K stage), the online softmax in
registers (row max and row sum with ``reduce``/``broadcast``, ``exp2`` with
log2(e) / sqrt(D) folded into one ``scale``), convert P in registers to
wgmma's A fragment and compute P V with A from registers. Within a
warpgroup, S_j is issued, then P_{j-1} V_{j-1}; ``wgmma_wait(1)`` retires
S_j, its softmax runs while P V is in flight, and ``wgmma_wait(0)`` retires
P V before O is rescaled. O is normalised and the log-sum-exp of each row
stored.

    O = softmax(Q K^T / sqrt(D)) V,  LSE = log(sum(exp(Q K^T / sqrt(D))))

Q, K, V, O: [B * H * S, D] bf16 row-major (heads stacked along the rows);
LSE: [B * H * S] f32. Block (x, y) computes query tile x (128 rows) of head y.

The protocol: key tile j uses stage s = j % 2 of the K and V rings. The
producer waits until the consumers released the stage (parity
1 - (j // 2) % 2 of kempty[s] / vempty[s]), announces 128 * D * 2 bytes on
kfull[s] / vfull[s] and issues the copy. The consumers wait for kfull[s]
with parity (j // 2) % 2, compute S and retire it, release the K stage, and
later do the same with V for P V.

``make_flash_attention_ws`` builds the kernel; its defaults give the twin
of the .mlir kernel (``head_dim=128``); ``causal=True`` the twin of
examples/sm90a/flash_attention_causal_ws.mlir: query tile x visits key
tiles x, x - 1, .. 0, the diagonal one first, so its mask (key > query gets
-inf) is applied once before the key loop, which has no branch; blocks walk
heads along x and query tiles along y, the heaviest (last) first;
``ragged=True`` the twin of examples/sm90a/flash_attention_ragged_ws.mlir,
for any sequence length: the partial last key tile is visited first and its
keys past the head's end masked before the key loop, and O and LSE are
stored through views clipped to the head's end; both, the twin of
examples/sm90a/flash_attention_causal_ragged_ws.mlir (the causal key order
and mask, views cut at the head's end). Knobs that plant protocol and tag
mistakes (the tests check that the verifier finds each one at its Python
line): ``flip_parity=False`` (the consumers wait parity 0 on kfull in the
main loop), ``expect_bytes`` (bytes announced per K stage, 32768 when
right), ``kempty_arrivals`` (256 when right), ``early_k_release=True`` (the
K stage is released before S_j has retired), ``kv_tile_shift`` (the
producer loads key tile j + shift into the slot of tile j; 0 when right),
``skip_last_pv=True`` (O is normalised from the key loop's accumulator, so
the last key tile's P V never reaches it).

Schedule knobs (the same proof): ``stages`` (K and V ring depth, 2 by
default), ``regs`` (the producer's and consumers' register budgets) and
``pingpong=True``: the two consumer warpgroups take turns issuing their
wgmma through named barriers 0 and 1 (warpgroup 1 lets warpgroup 0 go
first; each issue point syncs on its own slot and arrives on the other's),
so one warpgroup's softmax runs while the other's S and P V keep the
tensor cores busy (FlashAttention-3's inter-warpgroup ping-pong).

``head_by_head=True`` (causal only): query tiles along x and heads along y,
so the blocks in flight share a head's keys and values in L2 (a head's
heaviest tile still first); by default the causal grid puts heads along
x, so that every head's heaviest tile comes first.

``paired=True`` (causal only, S a multiple of 256): the grid has S / 256
blocks per head along y, and block y computes two query tiles of its head
one after the other, the heavy tile x = T - 1 - y (T = S / 128; key tiles
x .. 0) and then tile y (key tiles y .. 0): T + 1 key tiles in every block.
Each item has its own Q tile and barrier (sQ0 / qfull0, sQ1 / qfull1, both
loaded up front), its own statistics, O and LSE rows, tags, tag
assertions and ``argus.reduced`` range, exactly as the single-tile kernel.
The K and V rings run on one counter across both items: item 0's key tile
j is counter c = j, item 1's c = x + 1 + j (stage c % stages, parity
(c // stages) % 2), and the producer's single loop over c = 0 .. T loads
item 0's key tile x - c, then item 1's T - c (written with index minimum
and maximum: see kv_row), so it streams item 1's tiles while the
consumers finish item 0 and write its O and LSE. Only the block's last
P V passes the last ping-pong turn. (The verifier names a bulk copy's
writer by its one ``tma_load`` op in one producer loop, hence one loop
over both items' key tiles and one Q buffer per item rather than a 2-stage
one.) Planted mistakes: ``item1_ring_bug="parity"`` (item 1's waits take
their parity from j, without the offset x + 1) or ``"counter"`` (its whole
ring counter without the offset).
"""

import math

import argus

BM = BN = 128  # query rows per block, keys per tile
ROWS = "((4,8,4,2),2):((0,1,16,64),8)"  # one f32 per row, as the rows of a wgmma C fragment


def _qk_layout(d: int) -> str:
    """The shared layout of a 128 x d bf16 tile: 64-column (128-byte) slabs,
    each 128B-swizzled, as a TMA box of 128 x 64 writes them."""
    if d == 64:
        return "(128,64):(64,1)"
    return f"(128,(64,{d // 64})):(64,(1,8192))"


def make_flash_attention_ws(head_dim: int = 128, flip_parity: bool = True,
                            expect_bytes: int = None, kempty_arrivals: int = 256,
                            early_k_release: bool = False, kv_tile_shift: int = 0,
                            causal: bool = False, ragged: bool = False,
                            skip_last_pv: bool = False, name: str = None,
                            stages: int = 2, pingpong: bool = False,
                            regs: tuple = (40, 232), paired: bool = False,
                            item1_ring_bug: str = None, head_by_head: bool = False):
    if head_by_head and not causal:
        raise ValueError("head_by_head=True is a causal launch order (causal=True)")
    if paired and (not causal or ragged):
        raise ValueError("paired=True needs causal=True and ragged=False")
    if item1_ring_bug not in (None, "parity", "counter") or (item1_ring_bug and not paired):
        raise ValueError(f"item1_ring_bug is None, 'parity' or 'counter' (paired only), "
                         f"got {item1_ring_bug!r}")
    if name is None:
        name = ("flash_attention_causal_paired_ws" if paired else
                "flash_attention_causal_ragged_ws" if causal and ragged else
                "flash_attention_causal_ws" if causal else
                "flash_attention_ragged_ws" if ragged else "flash_attention_ws")
    # A ragged non-causal kernel visits the partial key tile first and masks
    # its keys past the head's end; a causal one visits the diagonal tile
    # first, whose mask (key <= query < the head's end for every stored row)
    # also keeps the keys inside the head.
    partial_first = ragged and not causal
    S2 = stages  # K and V ring stages
    if not isinstance(stages, int) or stages < 2:
        raise ValueError(f"stages is an int >= 2, got {stages!r}")
    D = head_dim
    if D not in (64, 128):
        raise ValueError(f"head_dim is 64 or 128, got {head_dim!r}")
    WS = f"wgmma.m64n{BN}k16.f32.bf16.ss"  # S = Q K^T, both operands in shared memory
    WO = f"wgmma.m64n{D}k16.f32.bf16"     # O += P V, P from registers
    FS = argus.frag(WS, "c", warps=(2, 1))
    FP = argus.frag(WO, "a", warps=(2, 1))     # P as the A operand of P V
    FO = argus.frag(WO, "c", warps=(2, 1))
    SQK = argus.swizzle(3, 3, 3, _qk_layout(D))
    tile_bytes = BM * D * 2  # one 128 x D bf16 tile
    if expect_bytes is None:
        expect_bytes = tile_bytes
    # Scores in log2 units: exp(x / sqrt(D)) = exp2(x * log2(e) / sqrt(D)).
    # For D = 128 the constant of the .mlir twin (the same f32 as the exact
    # 0.1275174308...).
    scale = 0.12751743074 if D == 128 else round(math.log2(math.e) / math.sqrt(D), 11)
    ln2 = round(math.log(2.0), 11)

    @argus.kernel(target="sm_90a", block=384, name=name)
    def flash_attention_ws(Q: argus.Tensor[("?", "?"), "bf16"],
                           K: argus.Tensor[("?", "?"), "bf16"],
                           V: argus.Tensor[("?", "?"), "bf16"],
                           O: argus.Tensor[("?", "?"), "bf16"],
                           LSE: argus.Tensor[("?",), "f32"], S: argus.index):
        # Shape preconditions (assumed by the verifier, checked at launch).
        # gx counts query tiles, gy heads (causal: heads along x, tiles y).
        tiles_dim, heads_dim = ("y", "x") if causal and not head_by_head else ("x", "y")
        gx = argus.grid_dim(tiles_dim)
        gy = argus.grid_dim(heads_dim)
        if paired:
            # gx counts pairs of query tiles: block y takes query tiles
            # T - 1 - y and y of its head (T = S / 128 = 2 * gx).
            argus.assume((S % (2 * BM)).eq(0), "S is a multiple of 256")
            argus.assume((gx * (2 * BM)).eq(S),
                         f"grid_dim.{tiles_dim} * 256 == S (one block per pair of query tiles)")
        elif ragged:
            argus.assume(S >= 1, "S >= 1")
            s127 = S + (BN - 1)
            argus.assume(gx.eq(s127 // BN),
                         f"grid_dim.{tiles_dim} == ceil(S / 128) (one block per query tile)")
        else:
            argus.assume((S % BN).eq(0), "S is a multiple of 128")
            argus.assume((gx * BM).eq(S),
                         f"grid_dim.{tiles_dim} * 128 == S (one block per query tile)")
        argus.assume(gy < (1 << 22) // S, f"grid_dim.{heads_dim} * S < 2^22 rows")
        rows = gy * S
        for T in (Q, K, V, O):
            argus.assume(T.dim(0).eq(rows) & T.dim(1).eq(D),
                         f"{T.pyname} is (grid_dim.{heads_dim} * S) x {D}")
        argus.assume(LSE.dim(0).eq(rows), f"LSE has grid_dim.{heads_dim} * S rows")

        if paired:
            by = argus.block_id(heads_dim)
            pair = argus.block_id(tiles_dim)
            bx = (gx * 2 - 1) - pair  # item 0: the heavy query tile T - 1 - y
        elif causal:
            by = argus.block_id(heads_dim)
            bx = (gx - 1) - argus.block_id(tiles_dim)  # the heaviest query tile first
        else:
            bx = argus.block_id("x")
            by = argus.block_id("y")
        head0 = by * S          # the head's first row
        q0 = head0 + bx * BM    # the block's first query row
        if ragged and causal:
            hend = head0 + S  # the head's end: O and LSE are cut there
            ntiles = bx + 1   # key tiles 0 .. x
        elif ragged:
            # The head's end, its t = ceil(S / 128) key tiles, the last
            # one's first row (visited first) and how many of its keys are
            # the head's.
            hend = head0 + S
            ntiles = s127 // BN
            tlast = ntiles - 1
            toff = tlast * BN
            ntop = head0 + toff
            nkeep = S - toff
        else:
            ntiles = bx + 1 if causal else S // BN  # causal: key tiles 0 .. x
        # The block's work items, one query tile each: (first query row,
        # query tile, key tiles, ring counter of its first key tile; None:
        # 0). Paired: the heavy tile x = T - 1 - y (x + 1 key tiles), then
        # tile y (y + 1), which continues the K / V rings at counter x + 1:
        # T + 1 key tiles per block.
        if paired:
            items = [(q0, bx, ntiles, None),
                     (head0 + pair * BM, pair, pair + 1, ntiles)]
        else:
            items = [(q0, bx, ntiles, None)]

        def key_row(j, qt=bx):
            """The first key row of the j-th key tile visited: tile x - j
            (causal, the diagonal first; x the item's query tile), t - 1 - j
            (ragged, the partial tile first) or tile j."""
            if causal:
                return head0 + (qt - j) * BN
            if ragged:
                return head0 + (tlast - j) * BN
            return head0 + j * BN

        def kv_row(c):
            """The first key row of the tile the producer loads at ring
            counter c. Paired: item 0's tile x - c while c <= x, then item
            1's y - (c - x - 1) = T - c. With t = max(x, c): (t - c) +
            min(T - c, min(t - x, 1) * 2^15), where t - c is item 0's tile
            (0 past x) and min(t - x, 1) is 1 for item 1's tiles only (2^15
            > T: the head's rows are fewer than 2^22)."""
            if not paired:
                return key_row(c)
            top = argus.maximum(bx, c)
            later = argus.minimum(top - bx, 1)  # 0: item 0's tile, 1: item 1's
            return head0 + (top - c + argus.minimum(gx * 2 - c, later * (1 << 15))) * BN
        c0 = argus.index_const(0)

        tmQ = argus.tensor_map(Q, (BM, 64), swizzle=128)
        tmK = argus.tensor_map(K, (BN, 64), swizzle=128)
        tmV = argus.tensor_map(V, (BN, 64), swizzle=128)
        if paired:  # one Q tile per item, each with its own barrier
            sqs = [argus.alloc((BM, D), "bf16", SQK, stages=1, name=f"sQ{i}") for i in (0, 1)]
        else:
            sqs = [argus.alloc((BM, D), "bf16", SQK, stages=1, name="sQ")]
        sk = argus.alloc((BN, D), "bf16", SQK, stages=S2, name="sK")
        sv = argus.alloc((BN, D), "bf16", SQK, stages=S2, name="sV")
        if paired:
            qfulls = [argus.mbarrier(f"qfull{i}", stages=1, arrivals=1) for i in (0, 1)]
        else:
            qfulls = [argus.mbarrier("qfull", stages=1, arrivals=1)]
        kfull = argus.mbarrier("kfull", stages=S2, arrivals=1)
        vfull = argus.mbarrier("vfull", stages=S2, arrivals=1)
        kempty = argus.mbarrier("kempty", stages=S2, arrivals=kempty_arrivals)
        vempty = argus.mbarrier("vempty", stages=S2, arrivals=256)  # the consumers' threads
        # Key tiles per block, all items: the length of the producer's loop.
        nkv = gx * 2 + 1 if paired else ntiles

        with argus.role("producer", warps=(0, 4), regs=regs[0]):
            with argus.region("produce"):
                for (qr, _, _, _), sq, qfull in zip(items, sqs, qfulls):
                    argus.mbarrier_arrive_expect_tx(qfull[0], tile_bytes)
                    gq = argus.tag(argus.view(Q, (qr, 0), (BM, D), clipped=ragged),
                                   lambda m, d: (qr + m, c0 + d))
                    argus.tma_load(gq, sq[0], tmQ, qfull[0])
                for j in argus.range(0, nkv, name="j"):
                    s = j % S2
                    free = 1 - (j // S2) % 2
                    n0 = kv_row(j + kv_tile_shift if kv_tile_shift else j)
                    argus.mbarrier_wait(kempty[s], free)
                    argus.mbarrier_arrive_expect_tx(kfull[s], expect_bytes)
                    gk = argus.tag(argus.view(K, (n0, 0), (BN, D), clipped=ragged),
                                   lambda n, d: (n0 + n, c0 + d))
                    argus.tma_load(gk, sk[s], tmK, kfull[s])
                    argus.mbarrier_wait(vempty[s], free)
                    argus.mbarrier_arrive_expect_tx(vfull[s], tile_bytes)
                    gv = argus.tag(argus.view(V, (n0, 0), (BN, D), clipped=ragged),
                                   lambda n, d: (n0 + n, c0 + d))
                    argus.tma_load(gv, sv[s], tmV, vfull[s])

        with argus.role("consumer", warps=(4, 12), regs=regs[1]):
            with argus.region("consume"):
                if pingpong:
                    # Ping-pong: the two warpgroups take turns issuing their
                    # wgmma (turn barriers 0 and 1), so one's softmax runs
                    # while the other's S and P V keep the tensor cores busy.
                    # Scheduling only: the proof does not use these barriers.
                    wg = argus.thread_id("x") // 128 - 1
                    with argus.when(wg.eq(1)):
                        argus.named_barrier_arrive(0, 256)  # warpgroup 0 goes first

                def my_turn():
                    if pingpong:
                        argus.named_barrier_sync(wg, 256)

                def their_turn(last=False):
                    if pingpong and not last:
                        argus.named_barrier_arrive(1 - wg, 256)
                    elif pingpong:  # only warpgroup 1 still issues after this
                        with argus.when(wg.eq(0)):
                            argus.named_barrier_arrive(1, 256)

                # The items one after the other (traced once each): their
                # statistics start afresh, their key tiles continue the
                # rings, and only the block's last P V passes the last turn.
                for item, (q0, qt, ntiles, off) in enumerate(items):
                    last_item = item == len(items) - 1
                    sq, qfull = sqs[item], qfulls[item]
                    # The ring counter and parity of the item's key tile j
                    # (planted: item 1 forgets its offset in the parity, or
                    # in the whole counter).
                    bug = item1_ring_bug if item == 1 else None

                    def ring(j):
                        return j if off is None or bug == "counter" else off + j

                    def parity(c, j):
                        return ((j if bug == "parity" else c) // S2) % 2

                    argus.mbarrier_wait(qfull[0], 0)
                    sq0 = sq[0]
                    # The statistics' initial values (key tile 0 below starts them).
                    argus.tag(argus.fill(float("-inf"), (BM,), "f32", ROWS), lambda m: q0 + m)
                    argus.tag(argus.zeros((BM,), "f32", ROWS), lambda m: q0 + m)
                    # n: where the keys P V accumulates start: this head's first
                    # row of K, or (causal) the diagonal tile's, q0, walking down.
                    first_key = q0 if causal else ntop if partial_first else head0
                    o_init = argus.tag(argus.zeros((BM, D), "f32", FO),
                                       lambda m, d: {"m": q0 + m, "d": c0 + d, "n": first_key})

                    # The first key tile: S_0 and its softmax (O is still zero:
                    # no rescale).
                    if off is None or bug == "counter":
                        s_0, phase_0 = 0, 0
                    else:
                        s_0, phase_0 = off % S2, parity(off, 0)
                    argus.mbarrier_wait(kfull[s_0], phase_0)
                    kt0 = argus.transpose(sk[s_0])
                    if partial_first:  # end: the head's end, for the key mask's check
                        s0 = argus.tag(argus.zeros((BM, BN), "f32", FS),
                                       lambda m, n: {"m": q0 + m, "n": first_key + n, "end": hend})
                    else:
                        s0 = argus.tag(argus.zeros((BM, BN), "f32", FS),
                                       lambda m, n: (q0 + m, first_key + n))
                    my_turn()
                    s0 = argus.mma_async(WS, sq0, kt0, s0)
                    argus.tag_assert(s0, "a.d == b.d && a.m == acc.m && b.n == acc.n")
                    argus.wgmma_commit()
                    their_turn()
                    s0 = argus.wgmma_wait(0, s0)
                    argus.mbarrier_arrive(kempty[s_0])
                    s0 = argus.scale(s0, scale)
                    if causal:
                        # The diagonal tile: key k > query q is masked. Both
                        # tiles start at row q0, so q - k = row - column.
                        keep = argus.cmp("ge", argus.iota((BM, BN), 0, FS),
                                         argus.iota((BM, BN), 1, FS))
                        s0 = argus.where(keep, s0, argus.fill(float("-inf"), (BM, BN), "f32", FS))
                        # The mask keeps exactly the keys at or before their
                        # query: checked against the rows S's tags pair.
                        argus.tag_assert(s0, "mask.value == 1 && lhs.n <= lhs.m || "
                                             "mask.value == 0 && lhs.n > lhs.m")
                    if partial_first:
                        # Column k of this tile is key ntop + k: the head's
                        # while k < nkeep.
                        ki = argus.iota((BM, BN), 1, FS)
                        keep = argus.cmp("lt", ki, argus.splat(nkeep, ki))
                        s0 = argus.where(keep, s0, argus.fill(float("-inf"), (BM, BN), "f32", FS))
                        # The mask keeps exactly the head's keys.
                        argus.tag_assert(s0, "mask.value == 1 && lhs.n < lhs.end || "
                                             "mask.value == 0 && lhs.n >= lhs.end")
                    m0 = argus.reduce(s0, "max", 1, layout=ROWS)
                    d0 = s0 - argus.broadcast(m0, 1, like=s0)
                    argus.tag_assert(d0, "lhs.m == rhs.m")
                    p0 = argus.exp2(d0)
                    l0 = argus.reduce(p0, "sum", 1, layout=ROWS)
                    p0 = argus.convert(argus.convert_layout(p0, FP), "bf16")

                    # Key tile j: S_j = Q K_j^T is issued, then P_{j-1} V_{j-1}; the
                    # softmax of S_j runs while P V is in flight (wait depth 1), and
                    # O is rescaled once P V retired.
                    loop = argus.range(1, ntiles, carry=(m0, l0, o_init, p0), name="j")
                    for j, (m_i, l_i, o_i, p_i) in loop:
                        c = ring(j)
                        s = c % S2
                        phase = parity(c, j) if flip_parity else 0
                        jp = c - 1
                        sp = jp % S2
                        phasep = parity(jp, j - 1 if bug == "parity" else None)
                        n0 = key_row(j, qt)

                        my_turn()
                        argus.mbarrier_wait(kfull[s], phase)
                        kt = argus.transpose(sk[s])
                        s_acc = argus.tag(argus.zeros((BM, BN), "f32", FS),
                                          lambda m, n: (q0 + m, n0 + n))
                        s_acc = argus.mma_async(WS, sq0, kt, s_acc)
                        argus.tag_assert(s_acc, "a.d == b.d && a.m == acc.m && b.n == acc.n")
                        argus.wgmma_commit()

                        argus.mbarrier_wait(vfull[sp], phasep)
                        o_acc = argus.mma_async(WO, p_i, sv[sp], o_i)
                        argus.tag_assert(o_acc, "a.n == b.n && a.m == acc.m && b.d == acc.d")
                        argus.wgmma_commit()
                        their_turn()

                        if early_k_release:
                            argus.mbarrier_arrive(kempty[s])
                        sc = argus.wgmma_wait(1, s_acc)     # S_j retired, P V in flight
                        if not early_k_release:
                            argus.mbarrier_arrive(kempty[s])
                        sc = argus.scale(sc, scale)
                        mt = argus.reduce(sc, "max", 1, layout=ROWS)
                        m_new = argus.maximum(m_i, mt)
                        argus.tag_assert(m_new, "lhs.m == rhs.m")
                        d = sc - argus.broadcast(m_new, 1, like=sc)
                        argus.tag_assert(d, "lhs.m == rhs.m")
                        p = argus.exp2(d)
                        alpha = argus.exp2(m_i - m_new)
                        ps = argus.reduce(p, "sum", 1, layout=ROWS)
                        l_new = l_i * alpha + ps
                        argus.tag_assert(l_new, "lhs.m == rhs.m")
                        ph = argus.convert(argus.convert_layout(p, FP), "bf16")

                        o_done = argus.wgmma_wait(0, o_acc)  # P_{j-1} V_{j-1} retired
                        argus.mbarrier_arrive(vempty[sp])
                        o_s = o_done * argus.broadcast(alpha, 1, like=o_done)
                        argus.tag_assert(o_s, "lhs.m == rhs.m")
                        loop.carry(m_new, l_new, o_s, ph)
                    m_f, l_f, o_f, p_f = loop.results

                    # The item's last key tile's P V.
                    jl = ntiles - 1
                    cl = ring(jl)
                    sl = cl % S2
                    my_turn()
                    argus.mbarrier_wait(vfull[sl], parity(cl, jl))
                    o_acc = argus.mma_async(WO, p_f, sv[sl], o_f)
                    argus.tag_assert(o_acc, "a.n == b.n && a.m == acc.m && b.d == acc.d")
                    argus.wgmma_commit()
                    their_turn(last=last_item)
                    o_fin = argus.wgmma_wait(0, o_acc)
                    argus.mbarrier_arrive(vempty[sl])

                    # O / l, and LSE = (m + log2 l) * ln 2 (the scores were in log2 units).
                    on = (o_f if skip_last_pv else o_fin) / argus.broadcast(l_f, 1, like=o_fin)
                    argus.tag_assert(on, "lhs.m == rhs.m")
                    # Ragged: rows past the head's end are the next head's.
                    cut = dict(clipped=True, bounds=(hend, D)) if ragged else {}
                    go = argus.tag(argus.view(O, (q0, 0), (BM, D), **cut),
                                   lambda m, d: (q0 + m, c0 + d))
                    o16 = argus.convert(on, "bf16")
                    # The keys P V accumulated, checked: the head's [head0,
                    # head0 + S); causal: down from the diagonal, [head0, q0 +
                    # 128); ragged: in whole tiles down from the last, [head0,
                    # ntop + 128) (the mask zeroes the keys past the head's end).
                    kend = q0 + BM if causal else ntop + BN if ragged else head0 + S
                    argus.reduced(o16, "n", head0, kend)
                    argus.store(o16, go)
                    argus.tag_assert("value.m == dest.m && value.d == dest.d")
                    lse2 = m_f + argus.log2(l_f)
                    argus.tag_assert(lse2, "lhs.m == rhs.m")
                    lse = argus.scale(lse2, ln2)
                    cut = dict(clipped=True, bounds=(hend,)) if ragged else {}
                    gl = argus.tag(argus.view(LSE, (q0,), (BM,), **cut), lambda m: q0 + m)
                    argus.store(lse, gl)
                    argus.tag_assert("value.m == dest.m")

    return flash_attention_ws


flash_attention_ws = make_flash_attention_ws()


if __name__ == "__main__":
    print(flash_attention_ws.ir())
    result = flash_attention_ws.verify(timeout_ms=3000)
    print(result.summary())
    ptx = flash_attention_ws.compile().asm
    print(f"PTX: {len(ptx)} bytes")
