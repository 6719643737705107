"""A parameterised GEMM kernel generator (C = A * B, f16 -> f32, row-major)
written in the argus DSL. The agent loop builds its variants with it.

Knobs (see :class:`Variant`): block tile, k-slab, warp grid, instruction,
pipeline depth (cp.async stages), shared-memory swizzle, copy vector width,
workgroup (block rasterisation) swizzle; plus knobs that model common
pipelining mistakes (a wrong wait_group count, a missing barrier, a stage
index off by one, reading a swizzled buffer through an unswizzled view), so
that planted bugs and their repairs are expressible.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Optional, Tuple

import argus

# Ops traced from this module get locations in this file.
__argus_user_code__ = True

_INSTRS = {
    "sm_90a": ("mma.m16n8k16.f32.f16",),
    "gfx942": ("v_mfma_f32_32x32x8_f16", "v_mfma_f32_16x16x16_f16"),
}


@dataclasses.dataclass(frozen=True)
class Variant:
    target: str = "sm_90a"
    instr: str = "mma.m16n8k16.f32.f16"
    tile_m: int = 64
    tile_n: int = 64
    tile_k: int = 32
    warps: Tuple[int, int] = (2, 2)
    stages: int = 2
    swizzle: bool = True
    vector: int = 8
    wg_swizzle: int = 1
    split_k: int = 1
    # Knobs that model pipelining mistakes (correct values by default).
    wait: Optional[int] = None          # main-loop wait_group count; None: stages - 2
    barrier_after_wait: bool = True
    a_stage_offset: int = 0             # A read from stage (kt + offset) mod S
    read_unswizzled: bool = False       # read the swizzled buffers unswizzled

    def replace(self, **kw) -> "Variant":
        if "warps" in kw:
            kw["warps"] = tuple(kw["warps"])
        return dataclasses.replace(self, **kw)

    @property
    def wait_count(self) -> int:
        return self.stages - 2 if self.wait is None else self.wait

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["warps"] = list(self.warps)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Variant":
        d = dict(d)
        if "warps" in d:
            d["warps"] = tuple(d["warps"])
        return cls(**d)

    def key(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    def short(self) -> str:
        s = (f"{self.tile_m}x{self.tile_n}x{self.tile_k} w{self.warps[0]}x{self.warps[1]} "
             f"S{self.stages}{' sw' if self.swizzle else ''} v{self.vector}")
        if self.wg_swizzle > 1:
            s += f" g{self.wg_swizzle}"
        bugs = []
        if self.wait is not None and self.wait != self.stages - 2:
            bugs.append(f"wait={self.wait}")
        if not self.barrier_after_wait:
            bugs.append("no-barrier")
        if self.a_stage_offset:
            bugs.append(f"a-stage+{self.a_stage_offset}")
        if self.read_unswizzled:
            bugs.append("unswizzled-read")
        return s + (" [" + ",".join(bugs) + "]" if bugs else "")

    @property
    def threads(self) -> int:
        return self.warps[0] * self.warps[1] * (64 if self.target.startswith("gfx") else 32)

    def grid(self, M: int, N: int) -> Tuple[int, int, int]:
        return (N // self.tile_n, M // self.tile_m, 1)


def copy_layout(rows: int, cols: int, threads: int, vector: int) -> str:
    """The thread layout of a collective copy of a row-major rows x cols
    tile: each thread moves ``vector`` contiguous elements of a row; the
    layout maps (thread, slot) to the column-major linear coordinate."""
    if cols % vector:
        raise argus.ShapeError(f"copy: {cols} columns are not a multiple of vector {vector}")
    cv = cols // vector
    if threads % cv:
        raise argus.ShapeError(f"copy: {threads} threads do not cover {cv} column groups")
    tr = threads // cv
    if rows % tr:
        raise argus.ShapeError(f"copy: {rows} rows do not split over {tr} thread rows")
    vr = rows // tr
    return f"(({cv},{tr}),({vector},{vr})):(({rows * vector},1),({rows},{tr}))"


def _swizzled(rows: int, cols: int, on: bool):
    base = argus.row_major(rows, cols)
    if not on:
        return base
    # XOR 3 bits of the 16-byte chunk index with bits of the row: a
    # bank-conflict-avoiding swizzle that fits the tile.
    bits = (rows * cols).bit_length() - 1
    b = min(3, bits - 6) if bits > 6 else 0
    if b <= 0:
        return base
    return argus.swizzle(b, 3, 3, base)


def build_gemm(v: Variant) -> "argus.Kernel":
    """The GEMM kernel of a variant (raises an ArgusError for an impossible
    variant)."""
    if v.split_k != 1:
        raise argus.FeatureUnavailable("split-K needs a cross-block reduction (atomics or a "
                                       "second kernel) that the DSL cannot express yet",
                                       missing="split-k")
    if v.instr not in _INSTRS.get(v.target, ()):
        argus.dsl.check_instruction(v.instr)
    S, TM, TN, TK = v.stages, v.tile_m, v.tile_n, v.tile_k
    threads = v.threads
    FA = argus.frag(v.instr, "a", warps=v.warps)
    FB = argus.frag(v.instr, "b", warps=v.warps)
    FC = argus.frag(v.instr, "c", warps=v.warps)
    copy_a = copy_layout(TM, TK, threads, v.vector)
    copy_b = copy_layout(TK, TN, threads, v.vector)
    lay_a = _swizzled(TM, TK, v.swizzle)
    lay_b = _swizzled(TK, TN, v.swizzle)
    plain_a, plain_b = argus.row_major(TM, TK), argus.row_major(TK, TN)
    G = v.wg_swizzle
    name = "gemm_" + "".join(c if c.isalnum() else "_" for c in v.short()).strip("_")

    @argus.kernel(target=v.target, block=threads, name=name)
    def gemm(A: argus.Tensor[("M", "K"), "f16"], B: argus.Tensor[("K", "N"), "f16"],
             C: argus.Tensor[("M", "N"), "f32"], K: argus.index):
        # The grid covers M x N exactly (the annotations relate the dims).
        argus.assume(A.dim("M").eq(argus.grid_dim("y") * TM) &
                     B.dim("N").eq(argus.grid_dim("x") * TN),
                     f"the grid covers M x N with {TM} x {TN} tiles")
        if G > 1:
            # Block rasterisation in groups of G block rows (L2 reuse).
            argus.assume((argus.grid_dim("x") <= 1024) & (argus.grid_dim("y") <= 1024),
                         "at most 1024 x 1024 blocks")
            # Whole groups of G block rows: no group reaches past M.
            argus.assume((argus.grid_dim("y") % G).eq(0), f"grid_dim.y is a multiple of {G}")
            pid = argus.block_id("y") * argus.grid_dim("x") + argus.block_id("x")
            width = argus.grid_dim("x") * G
            pid_m = (pid // width) * G + pid % G
            pid_n = (pid % width) // G
            m0, n0 = pid_m * TM, pid_n * TN
        else:
            m0 = argus.block_id("y") * TM
            n0 = argus.block_id("x") * TN
        if S > 1:
            # The prologue fills S - 1 stages: a precondition of every launch.
            argus.assume(K >= TK * (S - 1), f"K >= {TK} * (S - 1)")
        # Whole k-slabs (the loop runs K // TK of them), which also keeps
        # every 16-byte vector of A's rows aligned (misaligned-vector).
        argus.assume((K % TK).eq(0), f"K is a multiple of {TK}")
        ktiles = K // TK
        sa = argus.alloc((TM, TK), "f16", lay_a, stages=S, name="sA")
        sb = argus.alloc((TK, TN), "f16", lay_b, stages=S, name="sB")

        def issue(kidx, st, copy):
            k0 = kidx * TK
            ga = argus.tag(argus.view(A, (m0, k0), (TM, TK)), lambda m, k: (m0 + m, k0 + k))
            gb = argus.tag(argus.view(B, (k0, n0), (TK, TN)), lambda k, n: (k0 + k, n0 + n))
            copy(ga, sa[st], threads=copy_a)
            copy(gb, sb[st], threads=copy_b)

        def compute(kt, acc, a_off=0):
            ta = sa[(kt + a_off) % S if S > 1 else 0]
            tb = sb[kt % S if S > 1 else 0]
            if v.read_unswizzled:
                ta, tb = argus.reinterpret(ta, plain_a), argus.reinterpret(tb, plain_b)
            af = argus.load(ta, layout=FA)
            bf = argus.load(tb, layout=FB)
            acc = argus.mma(v.instr, af, bf, acc)
            argus.tag_assert(acc, "a.k == b.k && a.m == acc.m && b.n == acc.n")
            return acc

        acc = argus.tag(argus.zeros((TM, TN), "f32", FC), lambda m, n: (m0 + m, n0 + n))
        if S == 1:
            with argus.region("mainloop"):
                loop = argus.range(0, ktiles, carry=acc, name="kt")
                for kt, acc in loop:
                    with argus.region("load"):
                        issue(kt, 0, argus.copy)
                        if v.barrier_after_wait:
                            argus.barrier()
                    with argus.region("mma"):
                        acc = compute(kt, acc)
                    argus.barrier()
                    loop.carry(acc)
                acc = loop.results
        else:
            kmain = ktiles - (S - 1)
            with argus.region("prologue"):
                for p in argus.range(0, S - 1, name="p"):
                    issue(p, p, argus.copy_async)
                    argus.commit_group()
            with argus.region("mainloop"):
                loop = argus.range(0, kmain, carry=acc, name="kt")
                for kt, acc in loop:
                    with argus.region("wait"):
                        argus.wait_group(v.wait_count)
                        if v.barrier_after_wait:
                            argus.barrier()
                    with argus.region("issue"):
                        kn = kt + (S - 1)
                        issue(kn, kn % S, argus.copy_async)
                        argus.commit_group()
                    with argus.region("mma"):
                        acc = compute(kt, acc, v.a_stage_offset)
                    loop.carry(acc)
                acc = loop.results
            with argus.region("drain"):
                argus.wait_group(0)
                argus.barrier()
                loop = argus.range(kmain, ktiles, carry=acc, name="kd")
                for kt, acc in loop:
                    loop.carry(compute(kt, acc, v.a_stage_offset))
                acc = loop.results
        with argus.region("epilogue"):
            gc = argus.tag(argus.view(C, (m0, n0), (TM, TN)), lambda m, n: (m0 + m, n0 + n))
            argus.store(acc, gc)
            argus.tag_assert("value.m == dest.m && value.n == dest.n")

    return gemm
