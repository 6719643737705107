"""Derived layouts (issue 15, items 1-2): copy layouts, tiled MMA fragments,
reduce / broadcast layouts, checked over whole small domains against what
they must compute. Layouts are evaluated by the C++ layout algebra where it
is reachable (``argus-layout --table``, ``_argus.parse_layout`` for size and
cosize) and through the bindings (``_argus.Layout``, which the DSL's
builders evaluate with), checked against the CLI here."""

import itertools
import math
import subprocess

import pytest

import argus

from argus.dsl import layouts as L

ARGUS_LAYOUT = argus.find_tool("argus-layout")
need_cli = pytest.mark.skipif(ARGUS_LAYOUT is None, reason="argus-layout not built")


def cpp_table(text):
    """The C++ layout algebra's values of ``text`` at 1-D indices 0.. ."""
    out = subprocess.run([ARGUS_LAYOUT, "--table", text], capture_output=True, text=True,
                         check=True).stdout
    return [int(x) for x in out.split()]


def size_cosize(text):
    _, size, cosize = argus.ir.extension().parse_layout(text)
    return size, cosize


def tv_table(text, shape, threads):
    """thread -> [coordinates by slot] through the C++ evaluator."""
    vals = cpp_table(text)
    n_slots = len(vals) // threads
    out = []
    for t in range(threads):
        row = []
        for v in range(n_slots):
            lin = vals[t + threads * v]
            co = []
            for s in shape:
                co.append(lin % s)
                lin //= s
            row.append(tuple(co))
        out.append(row)
    return out


def threads_of(text):
    return L.layout_threads(text, (math.prod(L._size(m) for m in L._parsed(text).modes()),))


#===------------------------------------------------------------------------===#
# The evaluator and the instruction tables agree with the C++ algebra
#===------------------------------------------------------------------------===#

SAMPLES = ["8:1", "(8,64):(64,1)", "(4,(2,8)):(2,(1,8))", "(4,(2,8)):(1,(4,8))", "Sw<3,3,3> o (8,64):(64,1)",
           "Sw<2,3,2> o (64,32):(32,1)", "((4,8),(2,2,2)):((32,1),(16,8,128))",
           "((16,4),16):((0,1),4)", "(3,(5,2)):(10,(2,1))", "Sw<1,2,-3> o (16,16):(16,1)",
           "((32,2),(4,4)):((32,4),(1,8))", "(2,3,4):(12,4,1)"]


@need_cli
@pytest.mark.parametrize("text", SAMPLES)
def test_evaluator_matches_cpp(text):
    vals = cpp_table(text)
    assert [L.evaluate(text, i) for i in range(len(vals))] == vals


def test_evaluator_compact_strides():
    """A shape without strides is compact column-major (docs/Layout.md)."""
    assert [L.evaluate("(4,(2,8))", i) for i in range(64)] == list(range(64))
    assert L.evaluate("(4,(2,8))", (3, 5)) == 3 + 4 * 5


@need_cli
def test_instruction_tables_match_cpp():
    names = argus.ir.extension().known_mma_instructions()
    assert len(names) > 20
    for name in names:
        out = subprocess.run([ARGUS_LAYOUT, "--mma", name], capture_output=True, text=True,
                             check=True).stdout
        cpp = {l[0].lower(): l.split()[1] for l in out.splitlines() if l[:2] in ("A:", "B:", "C:")}
        py = L.instruction_tv(name)
        for op in "abc":
            assert cpp[op] == argus.ir.extension().parse_layout(py[op])[0], (name, op)


#===------------------------------------------------------------------------===#
# Copy layouts
#===------------------------------------------------------------------------===#

COPY_CASES = [(shape, dt, th)
              for shape in [(1,), (64,), (1000,), (2, 8), (3, 64), (8, 8), (16, 32), (32, 128),
                            (128, 32), (64, 64), (128, 128), (4, 16, 8), (2, 3, 64)]
              for dt in ["f16", "f32", "i8"]
              for th in [32, 64, 128, 256]]


def _check_copy_properties(text, shape, dtype, threads, memory=()):
    n = math.prod(shape)
    size, cosize = size_cosize(text)
    assert size == n and cosize == n, text          # the C++ algebra: one-to-one onto the tile
    t_used = threads_of(text)
    assert t_used <= threads
    tab = tv_table(text, shape, t_used) if ARGUS_LAYOUT else L.thread_values(text, shape)
    flat = [c for row in tab for c in row]
    assert len(flat) == n and len(set(flat)) == n   # distinct, all covered
    assert all(0 <= c[d] < shape[d] for c in flat for d in range(len(shape)))
    # vectors: the widest power of two <= 16 bytes dividing the last dim
    # (no memory layouts here: the last dim is the contiguous one)
    bits = {"f16": 16, "f32": 32, "i8": 8}[dtype]
    c_dim = len(shape) - 1
    v = min(128 // bits, shape[c_dim] & -shape[c_dim])
    for row in tab:
        for g in range(0, len(row), v):
            grp = row[g:g + v]
            assert grp[0][c_dim] % v == 0
            for a, b in zip(grp, grp[1:]):
                assert b[:c_dim] == a[:c_dim] and b[c_dim] == a[c_dim] + 1
    # coalesced: consecutive threads take consecutive vectors along the row
    per_row = shape[c_dim] // v
    for t in range(min(t_used, 32) - 1):
        if (t + 1) % per_row:
            a, b = tab[t][0], tab[t + 1][0]
            assert b[:c_dim] == a[:c_dim] and b[c_dim] == a[c_dim] + v
    # every thread busy when the tile has enough vectors
    if n // v >= threads:
        assert t_used == threads
    else:
        assert t_used == n // v
    return v


@pytest.mark.parametrize("shape,dtype,threads", COPY_CASES)
def test_copy_layout_properties(shape, dtype, threads):
    bits = {"f16": 16, "f32": 32, "i8": 8}[dtype]
    v = min(128 // bits, shape[-1] & -shape[-1])
    vectors = math.prod(shape) // v
    if vectors > threads and vectors % threads:
        # more vectors than threads, unevenly: refused with a hint
        with pytest.raises(argus.LayoutError) as ei:
            L.copy_layout(shape, dtype, threads)
        assert ei.value.hint
        return
    text = L.copy_layout(shape, dtype, threads).text
    _check_copy_properties(text, shape, dtype, threads)


def test_copy_layout_reproduces_the_handwritten_examples():
    assert L.copy_layout((128, 32), "f16", 256).text == "((4,64),(8,2)):((1024,1),(128,64))"
    assert L.copy_layout((32, 128), "f16", 256).text == "((16,16),(8,2)):((256,1),(32,16))"
    assert L.copy_layout((64, 64), "f16", 256).text == "((8,32),(8,2)):((512,1),(64,32))"
    sw = argus.swizzle(2, 3, 2, "(64,32):(32,1)")
    assert L.copy_layout((64, 32), "f16", 128, memory=[None, sw]).text == \
        "((4,32),(8,2)):((512,1),(64,32))"


@pytest.mark.parametrize("swz,expect_v", [((3, 3, 3), 8), ((3, 2, 3), 4), ((2, 1, 3), 2),
                                          ((3, 0, 3), 1)])
def test_copy_layout_matches_a_swizzle(swz, expect_v):
    """The vector shrinks to the swizzle's contiguous run (2^M elements) and
    every vector is contiguous and aligned in the swizzled shared layout."""
    shape = (32, 64)
    sw = argus.swizzle(*swz, "(32,64):(64,1)")
    text = L.copy_layout(shape, "f16", 128, memory=[None, sw]).text
    tab = L.thread_values(text, shape)
    v = None
    for row in tab:
        offs = [L.memory_offset(sw, shape, c) for c in row]
        v = v or next((k for k in (8, 4, 2, 1) if all(
            offs[g + i] == offs[g] + i for g in range(0, len(offs), k) for i in range(k))), 1)
    assert v == expect_v
    for row in tab:
        offs = [L.memory_offset(sw, shape, c) for c in row]
        for g in range(0, len(offs), v):
            assert offs[g] % v == 0 and offs[g:g + v] == list(range(offs[g], offs[g] + v))
    # the same vector width as Sw's run, and the shared layout is a bijection
    assert sorted(L.memory_offset(sw, shape, (r, c)) for r in range(32) for c in range(64)) == \
        list(range(2048))


def test_copy_layout_column_major_memory():
    """A column-major shared tile: dimension 0 is contiguous."""
    cm = argus.col_major(64, 16)
    text = L.copy_layout((64, 16), "f32", 64, memory=[cm]).text
    tab = L.thread_values(text, (64, 16))
    assert tab[0][:4] == [(0, 0), (1, 0), (2, 0), (3, 0)] and tab[1][0] == (4, 0)


def test_copy_layout_errors():
    with pytest.raises(argus.LayoutError) as ei:
        L.copy_layout((100, 64), "f16", 256)  # BAD: 800 vectors over 256 threads
    assert ei.value.hint and "multiples" in ei.value.hint
    assert ei.value.file.endswith("test_layouts.py")
    with pytest.raises(argus.LayoutError) as ei:
        L.copy_layout((64, 12), "f16", 64, vector=8)
    assert "does not divide" in str(ei.value) and "vector=4" in ei.value.hint
    sw = argus.swizzle(3, 2, 3, "(32,64):(64,1)")
    with pytest.raises(argus.LayoutError) as ei:
        L.copy_layout((32, 64), "f16", 128, vector=8, memory=[sw])
    assert "2^M" in ei.value.hint
    with pytest.raises(argus.LayoutError):
        L.copy_layout((64, 64), "f16", 0)


#===------------------------------------------------------------------------===#
# Tiled MMA
#===------------------------------------------------------------------------===#

MMA_CASES = [("v_mfma_f32_32x32x8_f16", (2, 2), (128, 128, 32)),
             ("v_mfma_f32_16x16x16_bf16", (4, 1), (64, 32, 32)),
             ("v_mfma_f32_32x32x16_fp8_fp8", (1, 2), (64, 64, 32)),
             ("mma.m16n8k16.f32.f16", (2, 2), (64, 64, 32)),
             ("mma.m16n8k16.f32.bf16", (4, 2), (64, 32, 16)),
             ("wgmma.m64n64k16.f32.f16", (2, 1), (128, 64, 16)),
             ("wgmma.m64n128k16.f32.bf16.ss", (1, 1), (64, 128, 32))]


@pytest.mark.parametrize("instr,warps,tile", MMA_CASES)
def test_tiled_mma_fragments(instr, warps, tile):
    mma = argus.tiled_mma(instr, warps=warps, tile=tile)
    desc = argus.instruction(instr)
    assert mma.threads == desc["threads"] * warps[0] * warps[1]
    assert mma.c == argus.frag(instr, "c", warps=warps)
    TM, TN, TK = tile
    for op, shape, use in (("a", (TM, TK), 0), ("b", (TK, TN), 1), ("c", (TM, TN), None)):
        text = mma.tv(op).text
        tab = tv_table(text, shape, mma.threads) if ARGUS_LAYOUT else \
            L.thread_values(text, shape)
        assert len(tab) == mma.threads
        count = {}
        for row in tab:
            for c in row:
                assert all(0 <= c[d] < shape[d] for d in range(2))
                count[c] = count.get(c, 0) + 1
        assert len(count) == shape[0] * shape[1]   # every element held
        # C: each element exactly once; A (B) replicated over the warp
        # columns (rows) it ignores; operands read from shared memory by
        # every thread of the warp(group).
        mult = set(count.values())
        if op == "c":
            assert mult == {1}
        elif desc[f"{op}_from_shared"]:
            assert mult == {mma.threads}
        else:
            assert mult == {warps[1 - use]}


def test_c_fragment_matches_the_instruction_table():
    """Warp w, lane l, slot s of a 1x1 grid over one instruction tile is the
    descriptor's (l, s) -> m + M*n."""
    for instr in ("v_mfma_f32_32x32x8_f16", "mma.m16n8k16.f32.f16"):
        d = argus.instruction(instr)
        M, N = d["M"], d["N"]
        tab = L.thread_values(argus.tiled_mma(instr, warps=(1, 1)).tv("c", (M, N)), (M, N))
        base = L.instruction_tv(instr)["c"]
        for t, row in enumerate(tab):
            for s, (m, n) in enumerate(row):
                assert L.evaluate(base, (t, s)) == m + M * n


def test_tiled_mma_picks_warp_grid_and_checks_tiles():
    assert argus.tiled_mma("v_mfma_f32_32x32x8_f16", threads=256, tile=(128, 128, 32)).warps == (2, 2)
    assert argus.tiled_mma("v_mfma_f32_32x32x8_f16", threads=256, tile=(128, 64, 32)).warps == (4, 1)
    assert argus.tiled_mma("mma.m16n8k16.f32.f16", threads=128, tile=(64, 64, 32)).warps == (2, 2)
    with pytest.raises(argus.ShapeError) as ei:
        argus.tiled_mma("v_mfma_f32_32x32x8_f16", warps=(2, 2), tile=(96, 128, 32))  # BAD
    assert "multiple of 64" in ei.value.hint and ei.value.file.endswith("test_layouts.py")
    with pytest.raises(argus.ShapeError) as ei:
        argus.tiled_mma("v_mfma_f32_32x32x8_f16", threads=100)
    assert "multiple of 64" in ei.value.hint
    with pytest.raises(argus.UnknownInstructionError):
        argus.tiled_mma("v_mfma_f32_32x32x9_f16", warps=(1, 1))


#===------------------------------------------------------------------------===#
# Reduce and broadcast layouts
#===------------------------------------------------------------------------===#

REDUCE_SOURCES = [
    ("(64,64):(1,64)", (64, 64)),                                # a row per thread
    (L.copy_layout((64, 64), "f32", 64), (64, 64)),              # rows over 16 lanes
    (L.copy_layout((32, 128), "f16", 256), (32, 128)),
    (L.copy_layout((4, 16, 8), "f32", 64), (4, 16, 8)),
    (argus.frag("v_mfma_f32_32x32x8_f16", "c", warps=(4, 1)), (128, 64)),
    (argus.frag("v_mfma_f32_16x16x16_f16", "c", warps=(2, 2)), (64, 64)),
    (argus.frag("mma.m16n8k16.f32.f16", "c", warps=(2, 2)), (64, 64)),
    (argus.frag("wgmma.m64n128k16.f32.f16", "c", warps=(2, 1)), (128, 128)),
]


def _holders(tab, project):
    """output coordinate -> set of threads holding an element of it."""
    h = {}
    for t, row in enumerate(tab):
        for c in row:
            h.setdefault(project(c), set()).add(t)
    return h


@pytest.mark.parametrize("src,shape", REDUCE_SOURCES)
def test_reduce_layout_holders(src, shape):
    threads = L.layout_threads(src, shape)
    src_tab = L.thread_values(src, shape)
    for dim in range(len(shape)):
        lay = argus.reduce_layout(src, shape, dim)
        rshape = tuple(s for d, s in enumerate(shape) if d != dim)
        size, cosize = size_cosize(lay.text)
        assert cosize == math.prod(rshape)
        tab = tv_table(lay.text, rshape, threads) if ARGUS_LAYOUT else \
            L.thread_values(lay, rshape)
        assert len(tab) == threads
        proj = lambda c: tuple(x for d, x in enumerate(c) if d != dim)  # noqa: E731
        want = _holders(src_tab, proj)
        got = _holders(tab, lambda c: c)
        # the holders of each result are exactly the threads that held its row
        assert got == want
        for row in tab:  # each thread holds each of its results once
            assert len(row) == len(set(row))


def test_reduce_layout_of_the_flash_attention_rows():
    """The handwritten ROWS of examples/python/flash_attention.py gives each
    lane all 32 rows of its wave; the derived layout gives each lane the 16
    rows it holds in the C fragment (a subset, so the same results)."""
    fc = argus.frag("v_mfma_f32_32x32x8_f16", "c", warps=(4, 1))
    derived = L.thread_values(argus.reduce_layout(fc, (128, 64), 1), (128,))
    hand = L.thread_values("((64,4),32):((0,32),1)", (128,))
    for t in range(256):
        assert set(derived[t]) < set(hand[t]) and len(derived[t]) == 16


def test_broadcast_layout():
    src = argus.reduce_layout(L.copy_layout((64, 64), "f32", 64), (64, 64), 1)
    for dim, size in ((0, 8), (1, 64)):
        lay = argus.broadcast_layout(src, (64,), dim, size)
        shape = (size, 64) if dim == 0 else (64, size)
        tab = L.thread_values(lay, shape)
        base = L.thread_values(src, (64,))
        for t, row in enumerate(tab):
            want = {(r,) for r in range(size)}
            got = {tuple(c[d] for d in range(2) if d != dim) for c in row}
            assert got == set(base[t])
            assert len(row) == len(set(row)) == len(base[t]) * size
            assert {c[dim] for c in row} == {w[0] for w in want}


def test_reduce_layout_errors():
    with pytest.raises(argus.ShapeError):
        argus.reduce_layout("(64,64):(1,64)", (64, 64), 2)
    with pytest.raises(argus.LayoutError) as ei:
        # the thread mode 4:2 wraps the 6 rows unevenly (0 2 4 | 6)
        argus.reduce_layout("(4,(2,3)):(2,(1,8))", (6, 4), 1)
    assert "reduce(..., layout=...)" in ei.value.hint


#===------------------------------------------------------------------------===#
# The DSL derives them; the examples use no layout strings
#===------------------------------------------------------------------------===#

import re  # noqa: E402

import gemm  # noqa: E402
import pipelined_gemm  # noqa: E402
import softmax  # noqa: E402

_LAYOUT_STRING = re.compile(r"""["'][^"'\n]*\)?:\(?[-\d(]""")


@pytest.mark.parametrize("mod", [gemm, softmax, pipelined_gemm])
def test_examples_write_no_layout_string(mod):
    src = open(mod.__file__).read()
    assert "threads=" not in src and not _LAYOUT_STRING.search(src), \
        _LAYOUT_STRING.search(src)


def test_derived_copies_equal_the_handwritten_ones():
    src = gemm.gemm_mfma.source()
    assert 'threads "((4,64),(8,2)):((1024,1),(128,64))"' in src
    assert 'threads "((16,16),(8,2)):((256,1),(32,16))"' in src
    src = pipelined_gemm.gemm_pipelined_3stage.source()
    assert 'threads "((4,32),(8,2)):((512,1),(64,32))"' in src
    assert 'threads "((8,16),(8,2)):((256,1),(32,16))"' in src


EXAMPLES = [(lambda t: gemm.gemm_mfma, ["gfx942"]),
            (lambda t: pipelined_gemm.gemm_pipelined_2stage, ["sm_90a"]),
            (lambda t: softmax.make_softmax(t), ["sm_90a", "gfx942"]),
            (lambda t: softmax.make_softmax(t, log=True, dtype="bf16"), ["sm_90a", "gfx942"]),
            (lambda t: softmax.make_softmax(t, rows=16, cols=64, threads=256), ["sm_90a"]),
            (lambda t: softmax.make_layernorm(t), ["sm_90a", "gfx942"])]


@pytest.mark.parametrize("make,targets", EXAMPLES)
def test_derived_layout_kernels_prove_and_compile(make, targets, need_verifier):
    for t in targets:
        k = make(t)
        r = k.verify()
        assert r.checks and r.proved, r.summary()
        asm = k.compile().asm
        assert asm and "__nv_" not in asm and "__ocml_" not in asm


def test_reduce_and_broadcast_derive_in_a_kernel():
    @argus.kernel(target="sm_90a", block=128)
    def k(X: argus.Tensor[(64, 128), "f32"], Y: argus.Tensor[(64, 128), "f32"]):
        x = argus.load(argus.view(X, (0, 0), (64, 128)))
        r = argus.reduce(x, "max", 1)
        assert r.layout == argus.reduce_layout(x.layout, (64, 128), 1)
        loop = argus.range(0, 2, carry=r)
        for i, m in loop:
            loop.carry(argus.maximum(m, r))
        b = argus.broadcast(loop.results, 1)        # loop-carried: same layout, found
        assert b.ttype == x.ttype
        c = argus.broadcast(r, 0, shape=(8, 64))    # no such parent: broadcast_layout
        assert c.layout == argus.broadcast_layout(r.layout, (64,), 0, 8)
        argus.store(x - b, argus.view(Y, (0, 0), (64, 128)))
    text = k.ir()
    assert "argus.reduce max" in text and "argus.broadcast" in text
    k.compile()
