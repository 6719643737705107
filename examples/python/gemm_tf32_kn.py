"""The fp32 GEMM on Hopper's tensor cores with B as K x N (row-major, as
``torch.matmul`` takes it): C = A B, A: M x K, B: K x N, C: M x N, all f32,
tf32 multiplies, f32 accumulation; no host-side transpose.

wgmma reads 32-bit operands from shared memory K-major only, and B (K x N,
N contiguous) is MN-major. So the kernel computes the transposed product

    C^T = B^T A^T

with wgmma's A operand from registers: the instruction's "A" is B^T (an
N x K slab), whose tf32 register fragment (a0..a3 at (g, t), (g + 8, t),
(g, t + 4), (g + 8, t + 4) of each warp's 16 rows) is read with ordinary
shared-memory loads from the K x N stage of B that TMA wrote (any layout
will do for ld.shared); the instruction's "B" is A^T, the K x M slab of A,
which is K-major (A is row-major), read by descriptor through
``argus.transpose`` of A's stage, as the N x K B of ``gemm_tma_ws``'s tf32
kernel. The accumulator is C^T's fragment (rows along N, columns along M),
stored into ``argus.transpose`` of C's view: each thread writes 4-byte
elements, 8 consecutive ones per row of C for each group of 8 lanes.

Everything else is ``examples/python/gemm_tma_ws.py``'s warp-specialized
persistent kernel: a 4-stage TMA ring on mbarriers, one producer warpgroup
(40 registers), two consumer warpgroups (232 registers). Unlike the
shared-memory operands of ``gemm_tma_ws``, the registers holding B^T's
fragment are read by the wgmma until it retires, so each warpgroup retires
a slab's wgmma (``wgmma_wait(0)``) before it loads the next slab's fragment
into registers (keeping one in flight, as ``gemm_tma_ws`` does, let the next
load overwrite the registers of the wgmma still running: wrong results on
the H200) and releases the stage at once; the other warpgroup's wgmma keeps
the tensor cores busy meanwhile. A block tile is 256 (M) x 128 (N) x 32 (K): each
consumer warpgroup owns 64 columns of C (64 rows of C^T) against the whole
256-row slab of A, ``wgmma.m64n256k8.f32.tf32`` (a stage: 32 KiB of A, 16
KiB of B). The views are clipped and TMA fills what lies outside A and B
with zeros, so M, N, K need not be multiples of the tile (TMA needs 16-byte
rows: K and N multiples of 4).

``any_shape=False`` drops the boundary tiles (M, N, K multiples of 256, 128
and 32, assumed): the stores of C need no bounds checks, whose per-thread
row coordinates (64 per thread, C^T's fragment spans 64 rows of C) the
compiler keeps live across the main loop and spills in the clipped kernel.

Layouts are derived: A's and B's stages from their tensor maps
(``argus.tma_layout``), B's stage read as N x K through ``argus.transpose``
into the instruction's A fragment (``argus.frag``).

``b_swizzle`` picks B's TMA box: 128 (32 x 32 boxes, 128-byte swizzle;
the fragment loads meet 2-way bank conflicts) or 0 (32 x 8 boxes, no
swizzle: the four k-rows a warp reads per load are 32 bytes apart, so no
bank conflicts, at 16 boxes per stage).

Knobs that plant mistakes (the tests check that the verifier finds each at
its Python line): ``b_slab_shift`` (the producer copies B's k slab
kt + shift, not kt, beside A's slab kt: A(m, k) meets B(k + 32 shift, n)),
``c_offsets_swapped=True`` (the epilogue's view of C starts at (n0, m0),
the offsets of C^T's tile, instead of (m0, n0)).

``in_flight=True`` keeps one slab's wgmma in flight, as ``gemm_tma_ws``
does (retiring slab i - 1's after issuing slab i's): the wgmma reads its A
registers until its group retires, the next slab's fragment load may take
them (it did on the H200: errors of 0.14-1.3, bench/tutorial/RESULTS.md),
and the verifier's ``wgmma-register-operand`` check says violated at the
mma_async (no wait in its iteration retires its group).
"""

import argus

BM, BN, BK = 256, 128, 32   # M (wgmma's N), N (two warpgroups of 64), K per slab
S = 4                       # ring stages
WGMMA = "wgmma.m64n256k8.f32.tf32"  # A from registers, B from shared memory


def make_gemm_tf32_kn(name: str = "gemm_tf32_kn", b_swizzle: int = 128, any_shape: bool = True,
                      b_slab_shift: int = 0, c_offsets_swapped: bool = False,
                      in_flight: bool = False):
    if b_swizzle not in (0, 128):
        raise ValueError(f"b_swizzle is 0 or 128, got {b_swizzle!r}")
    FA = argus.frag(WGMMA, "a", warps=(2, 1))  # B^T's fragment: 128 x 32
    FC = argus.frag(WGMMA, "c", warps=(2, 1))  # C^T's fragment: 128 x 256
    expect_bytes = (BM * BK + BK * BN) * 4      # one stage of A and B
    b_box = (BK, 32) if b_swizzle else (BK, 8)

    @argus.kernel(target="sm_90a", block=384, name=name)
    def gemm_tf32_kn(A: argus.Tensor[("M", "K"), "f32"], B: argus.Tensor[("K", "N"), "f32"],
                     C: argus.Tensor[("M", "N"), "f32"], M: argus.index, N: argus.index,
                     K: argus.index):
        if any_shape:
            argus.assume((K % 4).eq(0), "K is a multiple of 4 (16-byte rows of A for TMA)")
            argus.assume((N % 4).eq(0), "N is a multiple of 4 (16-byte rows of B for TMA)")
            argus.assume(K >= 4, "K >= 4")
        else:
            argus.assume((M % BM).eq(0), f"M is a multiple of {BM}")
            argus.assume((N % BN).eq(0), f"N is a multiple of {BN}")
            argus.assume((K % BK).eq(0) & (K >= BK), f"K is a positive multiple of {BK}")
        tiles_n = argus.cdiv(N, BN)
        tiles = argus.cdiv(M, BM) * tiles_n
        ktiles = argus.cdiv(K, BK)
        # The slab counter runs up to tiles * ktiles on one block.
        argus.assume(tiles < (1 << 22) // ktiles,
                     f"ceil(M / {BM}) * ceil(N / {BN}) * ceil(K / {BK}) < 2^22")
        first, step = argus.block_id("x"), argus.grid_dim("x")

        tmA = argus.tensor_map(A, (BM, BK), swizzle=128)
        tmB = argus.tensor_map(B, b_box, swizzle=b_swizzle)
        sa = argus.alloc((BM, BK), "f32", argus.tma_layout(tmA, (BM, BK)), stages=S, name="sA")
        sb = argus.alloc((BK, BN), "f32", argus.tma_layout(tmB, (BK, BN)), stages=S, name="sB")
        full = argus.mbarrier("full", stages=S, arrivals=1)
        empty = argus.mbarrier("empty", stages=S, arrivals=256)

        with argus.role("producer", warps=(0, 4), regs=40):
            tile_loop = argus.range(first, tiles, step=step, carry=0, name="t")
            for t, i0 in tile_loop:
                m0 = (t // tiles_n) * BM
                n0 = (t % tiles_n) * BN
                k_loop = argus.range(0, ktiles, carry=i0, name="kt")
                for kt, i in k_loop:
                    k0 = kt * BK
                    s = i % S
                    argus.mbarrier_wait(empty[s], 1 - (i // S) % 2)
                    argus.mbarrier_arrive_expect_tx(full[s], expect_bytes)
                    ga = argus.tag(argus.view(A, (m0, k0), (BM, BK), clipped=any_shape),
                                   lambda m, k: (m0 + m, k0 + k))
                    kb = k0 + b_slab_shift * BK if b_slab_shift else k0
                    gb = argus.tag(argus.view(B, (kb, n0), (BK, BN), clipped=any_shape),
                                   lambda k, n: (kb + k, n0 + n))
                    argus.tma_load(ga, sa[s], tmA, full[s])
                    argus.tma_load(gb, sb[s], tmB, full[s])
                    k_loop.carry(i + 1)
                tile_loop.carry(k_loop.results)

        with argus.role("consumer", warps=(4, 12), regs=232):
            tile_loop = argus.range(first, tiles, step=step, carry=0, name="t")
            for t, i0 in tile_loop:
                m0 = (t // tiles_n) * BM
                n0 = (t % tiles_n) * BN
                # C^T's accumulator: row n, column m.
                acc0 = argus.tag(argus.zeros((BN, BM), "f32", FC),
                                 lambda n, m: (n0 + n, m0 + m))
                k_loop = argus.range(0, ktiles, carry=(acc0, i0), name="kt")
                for kt, (acc, i) in k_loop:
                    s = i % S
                    argus.mbarrier_wait(full[s], (i // S) % 2)
                    # B^T's N x K slab in the instruction's A fragment, read
                    # from B's K x N stage with ordinary shared loads.
                    bt = argus.load(argus.transpose(sb[s]), layout=FA)
                    # A^T: A's M x K stage read as K x M (K-major).
                    acc = argus.mma_async(WGMMA, bt, argus.transpose(sa[s]), acc)
                    argus.tag_assert(acc, "a.k == b.k && a.n == acc.n && b.m == acc.m")
                    argus.wgmma_commit()
                    # Retire it before the next slab's fragment is loaded:
                    # the wgmma reads B^T's fragment registers until then
                    # (the two consumer warpgroups keep the tensor cores
                    # busy in turn), then hand the stage back.
                    if not in_flight:
                        acc = argus.wgmma_wait(0, acc)
                        argus.mbarrier_arrive(empty[s])
                    else:
                        argus.wgmma_wait(1)
                        with argus.when(kt.ne(0)):
                            argus.mbarrier_arrive(empty[(i + (S - 1)) % S])
                    k_loop.carry(acc, i + 1)
                acc, i_end = k_loop.results
                if in_flight:
                    acc = argus.wgmma_wait(0, acc)
                    argus.mbarrier_arrive(empty[(i_end + (S - 1)) % S])
                c0 = (n0, m0) if c_offsets_swapped else (m0, n0)
                gc = argus.tag(argus.view(C, c0, (BM, BN), clipped=any_shape),
                               lambda m, n: (c0[0] + m, c0[1] + n))
                # C from C^T's fragment: the store goes through C's view
                # read as N x M.
                argus.store(acc, argus.transpose(gc))
                argus.tag_assert("value.m == dest.m && value.n == dest.n")
                tile_loop.carry(i_end)

    return gemm_tf32_kn


gemm_tf32_kn = make_gemm_tf32_kn()


if __name__ == "__main__":
    result = gemm_tf32_kn.verify()
    print(result.summary())
    ptx = gemm_tf32_kn.compile().asm
    print(f"PTX: {len(ptx)} bytes, register-A tf32 wgmma: "
          f"{ptx.count('wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32')}")
