"""argus.scan (cumsum, cumprod, cummax, cummin) and atomic accumulation
(argus.atomic_add, store(..., atomic=)) in the DSL: the IR they emit, their
Python-side errors, the verifier's rules (scan tags, atomic races, coverage
of an accumulated output) and the two examples (cumsum.py, column_sum.py),
which must verify and compile for sm_90a and gfx942."""

import re

import numpy as np
import pytest

import argus
import column_sum
import cumsum

ROWS = argus.copy_layout((16, 128), "f32", 128)


def _scan_kernel(fn_name, kind=None, dim=1, dtype="f32"):
    @argus.kernel(target="sm_90a", block=128, name="scan_" + fn_name)
    def k(X: argus.Tensor[(16, 128), dtype], Y: argus.Tensor[(16, 128), dtype]):
        x = argus.load(argus.view(X, (0, 0), (16, 128)))
        f = getattr(argus, fn_name)
        y = f(x, kind, dim) if kind is not None else f(x, dim)
        argus.store(y, argus.view(Y, (0, 0), (16, 128)))
    return k


@pytest.mark.parametrize("fn,kind,ir", [("cumsum", None, "sum"), ("cumprod", None, "prod"),
                                        ("cummax", None, "max"), ("cummin", None, "min"),
                                        ("scan", "add", "sum"), ("scan", "mul", "prod"),
                                        ("scan", "max", "max"), ("scan", "min", "min")])
def test_scan_ir(fn, kind, ir):
    text = _scan_kernel(fn, kind).ir()
    m = re.search(r"argus\.scan (\w+) %\S+ dim (\d) : (<[^>]*>) -> (<[^>]*>)", text)
    assert m, text
    assert m.group(1) == ir and m.group(2) == "1"
    assert m.group(3) == m.group(4)  # same shape, dtype and layout
    assert argus.parse(text).verify() == []


def test_scan_int_dim0():
    text = _scan_kernel("cummax", dim=0, dtype="i32").ir()
    assert re.search(r"argus\.scan max %\S+ dim 0 : <16x128xi32", text)


def test_scan_errors_name_the_line():
    for bad, exc in [(lambda x: argus.scan(x, "avg", 1), argus.TraceError),
                     (lambda x: argus.cumsum(x, 2), argus.ShapeError),
                     (lambda x: argus.cumsum(x, True), argus.ShapeError),
                     (lambda x: argus.cumsum(x > 0.0, 1), argus.DTypeError)]:
        @argus.kernel(target="sm_90a", block=128)
        def k(X: argus.Tensor[(16, 128), "f32"]):
            x = argus.load(argus.view(X, (0, 0), (16, 128)))
            bad(x)
        with pytest.raises(exc) as e:
            k.ir()
        assert e.value.hint, e.value


def test_scan_drops_fields_of_the_scanned_dim():
    @argus.kernel(target="sm_90a", block=128)
    def k(X: argus.Tensor[(16, 128), "f32"], Y: argus.Tensor[(16, 128), "f32"]):
        gx = argus.tag(argus.view(X, (0, 0), (16, 128)), lambda m, n: (m, n))
        y = argus.cumsum(argus.load(gx), 1)
        gy = argus.tag(argus.view(Y, (0, 0), (16, 128)), lambda m, n: (m, n))
        argus.store(y, gy)
        argus.tag_assert("value.n == dest.n")  # ASSERT
    # The field exists (the C++ field inference is structural); the
    # verifier says the assertion depends on the scanned dimension.
    r = k.verify(raise_on_violation=False)
    bad = [c for c in r.checks if c.status != "proved"]
    assert bad and all("reduced dimension" in c.reason for c in bad)


def _accumulate(atomic, dtype="f32", space="global", kind="store"):
    @argus.kernel(target="sm_90a", block=128)
    def k(X: argus.Tensor[(16, 128), dtype], S: argus.Tensor[(16, 128), dtype]):
        x = argus.load(argus.view(X, (0, 0), (16, 128)))
        if space == "shared":
            dest = argus.alloc((16, 128), dtype, name="s")[0]
        else:
            dest = argus.view(S, (0, 0), (16, 128))
        if kind == "atomic_add":
            argus.atomic_add(x, dest)
        else:
            argus.store(x, dest, atomic=atomic)
    return k


def test_atomic_ir():
    assert re.search(r"argus\.store %\S+, %\S+ atomic add : ", _accumulate("add").ir())
    assert re.search(r"argus\.store %\S+, %\S+ atomic add : ",
                     _accumulate(None, kind="atomic_add").ir())
    assert re.search(r"argus\.store %\S+, %\S+ atomic max : .*xi32",
                     _accumulate("max", dtype="i32").ir())
    assert re.search(r"argus\.store %\S+, %\S+ atomic min : .*xi64",
                     _accumulate("min", dtype="i64").ir())
    assert " atomic " not in _accumulate(None).ir()


@pytest.mark.parametrize("args,exc", [(("mul",), argus.TraceError),
                                      (("add", "f32", "shared"), argus.TraceError),
                                      (("max", "f32"), argus.DTypeError),
                                      (("add", "f16"), argus.DTypeError)])
def test_atomic_errors(args, exc):
    with pytest.raises(exc) as e:
        _accumulate(*args).ir()
    assert e.value.hint


# ---- the verifier --------------------------------------------------------


def _colsum(load_back=False, plain_too=False, strips=True):
    """Each block adds the column sums of its 32 x 128 tile of X into S
    (any N: loads of one element per slot, no vector to align)."""
    lay = argus.copy_layout((32, 128), "f32", 128, vector=1)
    part_layout = argus.reduce_layout(lay, (32, 128), 0)

    @argus.kernel(target="sm_90a", block=128)
    def k(X: argus.Tensor[("M", "N"), "f32"], S: argus.Tensor[("N",), "f32"]):
        argus.assume((X.dim("M") < 2 ** 22) & (X.dim("N") < 2 ** 22), "sizes")
        gxc = argus.grid_dim("x") * 128
        gyr = argus.grid_dim("y") * 32
        cond = (X.dim("N") <= gxc) & (gxc < X.dim("N") + 128)
        if strips:
            cond = cond & (X.dim("M") <= gyr) & (gyr < X.dim("M") + 32)
        argus.assume(cond, "grid")
        n0 = argus.block_id("x") * 128
        m0 = argus.block_id("y") * 32
        gx = argus.tag(argus.view(X, (m0, n0), (32, 128), clipped=True),
                       lambda m, n: (m0 + m, n0 + n))
        part = argus.reduce(argus.load(gx, layout=lay), "sum", 0)
        gs = argus.tag(argus.view(S, (n0,), (128,), clipped=True), lambda n: (n0 + n,))
        argus.atomic_add(part, gs)   # ATOMIC
        argus.tag_assert("value.n == dest.n")
        if load_back:
            back = argus.load(gs, layout=part_layout)   # PLAIN LOAD
            argus.store(back, argus.view(S, (n0,), (128,), clipped=True), atomic="add")
        if plain_too:
            argus.store(part, gs)   # PLAIN STORE
    return k


def test_atomic_accumulation_is_proved(need_verifier):
    r = _colsum().verify(strict=True)
    kinds = {c.kind for c in r.checks}
    assert r.proved and not r.unknown, r.summary()
    assert "atomic-race" in kinds and "output-coverage" in kinds
    assert "output-once" not in kinds  # every write is atomic


def test_plain_load_of_accumulated_tensor_races(need_verifier):
    r = _colsum(load_back=True).verify(raise_on_violation=False)
    bad = [c for c in r.violated if c.kind == "atomic-race"]
    assert bad, r.summary()
    notes = " ".join(n for c in bad for cx in c.counterexamples for n in cx.notes)
    assert "read" in notes and "accumulated atomically" in notes and "block" in notes


def test_plain_store_of_accumulated_tensor_races(need_verifier):
    r = _colsum(plain_too=True).verify(raise_on_violation=False)
    assert [c for c in r.violated if c.kind == "atomic-race"], r.summary()


def test_atomic_uncovered_columns_are_reported(need_verifier):
    """A grid that may stop short of N leaves columns of S without any
    contribution: not covered."""
    lay = argus.copy_layout((32, 128), "f32", 128)

    @argus.kernel(target="sm_90a", block=128)
    def k(X: argus.Tensor[(32, "N"), "f32"], S: argus.Tensor[("N",), "f32"]):
        argus.assume(argus.grid_dim("x") * 128 <= X.dim("N"), "the grid stays inside N")
        n0 = argus.block_id("x") * 128
        part = argus.reduce(argus.load(argus.view(X, (0, n0), (32, 128)), layout=lay), "sum", 0)
        argus.atomic_add(part, argus.view(S, (n0,), (128,)))
    r = k.verify(raise_on_violation=False)
    assert [c for c in r.violated if c.kind == "output-coverage"], r.summary()
    assert not [c for c in r.violated if c.kind in ("output-once", "atomic-race")]


def test_atomic_unclipped_past_the_edge_is_out_of_bounds(need_verifier):
    @argus.kernel(target="sm_90a", block=128)
    def k(X: argus.Tensor[(32, "N"), "f32"], S: argus.Tensor[("N",), "f32"]):
        gxc = argus.grid_dim("x") * 128
        argus.assume((X.dim("N") <= gxc) & (gxc < X.dim("N") + 128), "grid")
        n0 = argus.block_id("x") * 128
        x = argus.load(argus.view(X, (0, n0), (32, 128), clipped=True))
        argus.atomic_add(argus.reduce(x, "sum", 0), argus.view(S, (n0,), (128,)))
    r = k.verify(raise_on_violation=False)
    assert [c for c in r.violated if c.kind == "out-of-bounds"], r.summary()


# ---- the examples --------------------------------------------------------


@pytest.mark.parametrize("k", [cumsum.cumsum_rows, column_sum.column_sum])
def test_examples_verify(k, need_verifier):
    r = k.verify(strict=True)
    assert r.checks and r.proved and not r.unknown, r.summary()


def test_cumsum_example_compiles():
    asm = cumsum.cumsum_rows.compile(target="sm_90a").asm
    assert "shfl.sync.idx" in asm
    assert "ld.global" in asm and "st.global" in asm
    gfx = cumsum.cumsum_rows.compile(target="gfx942").asm
    assert "ds_bpermute" in gfx or "v_mov_b32_dpp" in gfx or "ds_swizzle" in gfx


def test_column_sum_example_compiles():
    asm = column_sum.column_sum.compile(target="sm_90a").asm
    assert re.search(r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add\.f32", asm), asm[-3000:]
    gfx = column_sum.column_sum.compile(target="gfx942").asm
    assert "global_atomic_add_f32" in gfx or "global_atomic_cmpswap" in gfx


@pytest.mark.parametrize("rows,cols,threads", [(16, 128, 128), (8, 256, 128), (4, 512, 128),
                                               (32, 64, 128), (2, 1024, 256)])
def test_cumsum_shapes_compile_and_verify(rows, cols, threads, need_verifier):
    """A row over one warp, two warps, four warps, a part of a warp, and
    threads repeating over a row (several rounds)."""
    k = cumsum.make_cumsum(rows=rows, cols=cols, threads=threads)
    assert k.verify(strict=True).proved
    assert k.compile(target="sm_90a").asm
    assert k.compile(target="gfx942").asm


# ---- the scan lowering, executed -----------------------------------------
# No GPU here: the lowered IR runs in a SIMT interpreter (simt_interp.py),
# for the DSL's blocked layouts over one warp, several warps, part of a
# warp and repeated rounds, both scan directions and both warp sizes.

def _lowered_scan(shape, layout, dim, kind, block, target):
    import subprocess
    tile = f'!argus.tile<{"x".join(map(str, shape))}xi32, register, "{layout}">'
    half = float(shape[-1] // 2)
    src = f'''
func.func @k() attributes {{argus.kernel = #argus.kernel<block = [{block}], target = "{target}">}} {{
  %a = argus.iota dim {len(shape) - 1} : {tile}
  %b = argus.iota dim 0 : {tile}
  %f = argus.fill {half} : {tile}
  %d = argus.sub %f, %a : {tile}
  %p = argus.mul %a, %d : {tile}
  %x = argus.add %p, %b : {tile}
  %s = argus.scan {kind} %x dim {dim} : {tile} -> {tile}
  return
}}'''
    opt = argus.find_tool("argus-opt")
    r = subprocess.run([opt, "--argus-to-gpu", "--mlir-print-op-generic"], input=src,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout, half


SCAN_CASES = [((rows, cols, threads), dim, kind, target)
              for rows, cols, threads in [(16, 128, 128), (8, 256, 128), (2, 1024, 256),
                                          (64, 8, 64), (4, 64, 64), (4, 16, 128),
                                          (2, 256, 256)]
              for dim in (0, 1) for kind, target in [("sum", "sm_90a"), ("max", "gfx942"),
                                                     ("min", "sm_90a")]]


@pytest.mark.parametrize("shape,dim,kind,target", SCAN_CASES)
def test_scan_lowering_computes_the_scan(shape, dim, kind, target):
    import simt_interp
    rows, cols, threads = shape
    lay = argus.copy_layout((rows, cols), "i32", threads).text
    text, half = _lowered_scan((rows, cols), lay, dim, kind, threads, target)
    # (4, 16) over 128 threads: the derived layout spans 16 of them; (2, 256)
    # over 256: 128 threads, rows over two warps (the others skip the scratch).
    out = simt_interp.run(text, threads, 64 if target == "gfx942" else 32)
    holders = argus.thread_values(lay, (rows, cols))
    m, n = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    x = n * (half - n) + m
    ref = {"sum": np.cumsum, "max": np.maximum.accumulate,
           "min": np.minimum.accumulate}[kind](x, axis=dim)
    got = np.full((rows, cols), np.nan)
    for t, coords in enumerate(holders):
        for v, c in enumerate(coords):
            got[tuple(c)] = out[t, v]
    assert np.array_equal(got, ref), np.argwhere(got != ref)[:5]
