"""kernel.verify(): result objects, InvariantViolation and counterexamples."""

import inspect
import json

import pytest

import argus
import pipelined_gemm


def _line_of(fn, needle):
    src, start = inspect.getsourcelines(fn)
    return start + next(i for i, l in enumerate(src) if needle in l)


def test_verify_result_objects(need_verifier):
    r = pipelined_gemm.gemm_pipelined_3stage.verify()
    assert r.ok and r.proved and not r.counterexamples
    asserts = [c for c in r.checks if c.kind == "assert"]
    assert asserts and all(c.status == "proved" for c in asserts)
    # Program points map to the Python source.
    assert all(c.py_file.endswith("pipelined_gemm.py") for c in asserts)
    mma_line = _line_of(pipelined_gemm.make_pipelined_gemm, "acc = argus.mma(")
    assert mma_line in {c.py_line for c in asserts}
    json.loads(r.to_json())


def test_wrong_wait_count_raises_with_counterexample(need_verifier):
    k = pipelined_gemm.make_pipelined_gemm(2, wait=1)  # should be S-2 = 0
    with pytest.raises(argus.InvariantViolation) as ei:
        k.verify()
    e = ei.value
    assert e.counterexamples
    cx = e.counterexamples[0]
    assert cx.check.kind == "unsynchronized-read" and cx.op == "argus.load"
    load_lines = {_line_of(pipelined_gemm.make_pipelined_gemm, "af = argus.load("),
                  _line_of(pipelined_gemm.make_pipelined_gemm, "bf = argus.load(")}
    assert cx.line in load_lines and cx.file.endswith("pipelined_gemm.py")
    assert e.line in load_lines
    assert isinstance(cx.thread, int) and cx.thread >= 0 and cx.lane is not None
    assert cx.elements and cx.elements[0].memory in ("sA", "sB")
    assert any("scf.for" in k for k in cx.iterations)
    assert "pipelined_gemm.py" in str(e)
    data = json.loads(e.json)
    assert data[0]["counterexamples"][0]["thread"] == cx.thread
    d = json.loads(cx.to_json())
    assert d["program_point"]["python_line"] == cx.line
    # Without raising, the same information comes back as a result.
    r = k.verify(raise_on_violation=False)
    assert not r.ok and r.violated[0].kind == "unsynchronized-read"


def test_tag_mismatch_counterexample_elements(need_verifier):
    from argus.agent.gemm import Variant, build_gemm
    k = build_gemm(Variant(a_stage_offset=1))
    with pytest.raises(argus.InvariantViolation) as ei:
        k.verify()
    cx = next(c for c in ei.value.counterexamples if c.check.kind == "assert")
    a, b = cx.element("a"), cx.element("b")
    assert a.tags["k"] != b.tags["k"] and (a.tags["k"] - b.tags["k"]) % 32 == 0
    assert cx.op == "argus.mma"


def test_verify_text_of_handwritten_example(need_verifier, examples_dir):
    r = argus.verify_text(open(f"{examples_dir}/gemm_mfma.mlir").read(), "gemm_mfma.mlir")
    assert r.proved
    assert {c.py_file for c in r.checks} == {"gemm_mfma.mlir"}


def test_verify_unavailable_is_clear(monkeypatch):
    import argus.ir
    monkeypatch.setattr(argus.ir, "has_pass", lambda name: False)
    with pytest.raises(argus.FeatureUnavailable) as ei:
        pipelined_gemm.gemm_pipelined_2stage.verify()
    assert ei.value.missing == "argus-verify-tags"
    with pytest.raises(argus.FeatureUnavailable) as ei:
        pipelined_gemm.gemm_pipelined_2stage.compile()
    assert ei.value.missing == "argus-to-nvptx"


def test_compile_targets():
    if not argus.has_pass("argus-to-nvptx"):
        pytest.skip("argus-to-nvptx not built into the _argus extension")
    ck = pipelined_gemm.gemm_pipelined_2stage.compile()
    assert ".entry" in ck.asm and "gemm_pipelined_2stage" in ck.asm
    import gemm
    ck = gemm.gemm_mfma.compile()
    assert "v_mfma" in ck.asm or "mfma" in ck.asm


# --- strict=True: unknown checks raise VerificationUnknown --------------------

def _store_kernel(nonlinear):
    """Tags at row m0 = block * N (a product of two symbolic values that may
    leave the verifier's index range: its "index-range" obligation is
    unknown), or a 64x4 store of each block's rows of C at m0 = block * 64,
    the grid covering C (proved)."""
    @argus.kernel(target="gfx942", block=64)
    def store_rows(C: argus.Tensor[("M", "N"), "f32"], N: argus.index):
        b = argus.block_id("x")
        m0 = b * N if nonlinear else b * 64  # MUL
        t = argus.tag(argus.zeros((64, 4), "f32", "(64,4):(1,64)"), lambda m, n: (m0 + m, n))
        if nonlinear:
            u = argus.add(t, t)
            argus.tag_assert(u, "lhs.m == rhs.m && lhs.n == rhs.n")
            return
        rows = argus.grid_dim("x") * 64
        argus.assume(C.dim("M").eq(rows) & C.dim("N").eq(4), "C has 64 rows per block, 4 columns")
        g = argus.tag(argus.view(C, (m0, 0), (64, 4)), lambda m, n: (m0 + m, n))
        argus.store(t, g)  # STORE
        argus.tag_assert("value.m == dest.m && value.n == dest.n")
    return store_rows


def test_unknown_returns_result_by_default(need_verifier):
    r = _store_kernel(nonlinear=True).verify()
    assert r.ok and not r.proved and not r.violated
    u = [c for c in r.unknown if c.kind == "index-range"]
    assert len(u) == 1 and "the verifier assumes" in u[0].reason
    assert u[0].py_line == _line_of(_store_kernel, "# MUL")


def test_strict_raises_on_unknown_with_kind_line_and_reason(need_verifier):
    k = _store_kernel(nonlinear=True)
    with pytest.raises(argus.VerificationUnknown) as ei:
        k.verify(strict=True)
    e = ei.value
    assert isinstance(e, argus.ArgusError) and not isinstance(e, argus.InvariantViolation)
    assert e.result.unknown and not e.result.violated
    assert e.unknowns == e.result.unknown
    line = _line_of(_store_kernel, "# MUL")
    assert e.line == line and e.file.endswith("test_verify.py")
    msg = str(e)
    # Every unknown check: its kind, its Python line and its reason.
    for c in e.unknowns:
        assert f"test_verify.py:{c.py_line}: {c.kind} '{c.predicate}' unknown" in msg
        assert c.reason and c.reason in msg
    assert f"test_verify.py:{line}: index-range" in msg
    assert "the verifier assumes that the product does not wrap" in msg
    assert json.loads(e.json)[0]["status"] == "unknown"


def test_strict_passes_a_proved_kernel(need_verifier):
    r = _store_kernel(nonlinear=False).verify(strict=True)
    assert r.proved and not r.unknown


def test_strict_violation_is_still_invariant_violation(need_verifier):
    k = pipelined_gemm.make_pipelined_gemm(2, wait=1)
    with pytest.raises(argus.InvariantViolation):
        k.verify(strict=True)
    # Not raising on violations: the result comes back, even with strict.
    r = k.verify(raise_on_violation=False, strict=True)
    assert r.violated


def test_verify_text_and_module_strict(need_verifier):
    text = _store_kernel(nonlinear=True).source()
    r = argus.verify_text(text, "unknown.mlir")
    assert r.unknown and not r.violated
    with pytest.raises(argus.VerificationUnknown) as ei:
        argus.verify_text(text, "unknown.mlir", strict=True)
    assert "the verifier assumes" in str(ei.value)
    from argus.verify import verify_module
    with pytest.raises(argus.VerificationUnknown):
        verify_module(argus.parse(text, "unknown.mlir"), strict=True)
    assert verify_module(argus.parse(text, "unknown.mlir")).unknown


# --- argus.assume: preconditions the verifier uses ----------------------------

def test_assume_bounds_a_product_and_is_in_the_ir(need_verifier):
    @argus.kernel(target="gfx942", block=64)
    # (C's columns were once named "N" too: the shape relation C.dim1 == N
    # then contradicted N == 64 and C.dim1 == 4, and the kernel was proved
    # vacuously. The assumptions check now reports that; the columns are W.)
    def store_rows(C: argus.Tensor[("M", "W"), "f32"], N: argus.index):
        b = argus.block_id("x")
        argus.assume(N.eq(64) & (b < 1024), "N is 64, at most 1024 blocks")
        m0 = b * N
        argus.assume(C.dim("M").eq(argus.grid_dim("x") * N) & C.dim("W").eq(4),
                     "C has N rows per block, 4 columns")
        t = argus.tag(argus.zeros((64, 4), "f32", "(64,4):(1,64)"), lambda m, n: (m0 + m, n))
        g = argus.tag(argus.view(C, (m0, 0), (64, 4)), lambda m, n: (m0 + m, n))
        argus.store(t, g)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")
    assert 'argus.assume' in store_rows.source()
    r = store_rows.verify(strict=True)
    assert r.proved and not r.unknown


def test_contradicting_shape_relation_is_not_a_proof(need_verifier):
    """A dim named like an index parameter is that parameter (a shape
    relation); with assumptions pinning both to different values no launch
    exists, and the verdict says so instead of proving every check."""
    @argus.kernel(target="gfx942", block=64)
    def store_rows(C: argus.Tensor[("M", "N"), "f32"], N: argus.index):
        b = argus.block_id("x")
        argus.assume(N.eq(64) & (b < 1024), "N is 64, at most 1024 blocks")
        m0 = b * N
        argus.assume(C.dim("M").eq(argus.grid_dim("x") * N) & C.dim("N").eq(4),
                     "C has N rows per block, 4 columns")
        t = argus.tag(argus.zeros((64, 4), "f32", "(64,4):(1,64)"), lambda m, n: (m0 + m, n))
        g = argus.tag(argus.view(C, (m0, 0), (64, 4)), lambda m, n: (m0 + m, n))
        argus.store(t, g)
    with pytest.raises(argus.InvariantViolation) as ei:
        store_rows.verify()
    (bad,) = ei.value.violations
    assert bad.kind == "assumptions"
    notes = "\n".join(bad.counterexamples[0].notes)
    assert "N is 64" in notes and "4 columns" in notes and "C.dim1 (N)" in notes


def test_assume_inside_a_loop_is_a_trace_error():
    with pytest.raises(argus.TraceError):
        @argus.kernel(target="gfx942", block=64)
        def bad(C: argus.Tensor[("M", "N"), "f32"], N: argus.index):
            for i in argus.range(0, N):
                argus.assume(i < 4, "never")
        bad.source()


def test_verify_runs_in_process_on_structured_results(need_verifier):
    # The verifier is called directly (no pipeline string, no report file):
    # the report comes back as Python objects and the module is unchanged.
    k = _store_kernel(nonlinear=False)
    m = k.module()
    before = m.text()
    report, diags = m.verify_tags()
    assert isinstance(report, dict) and report["kernels"][0]["name"] == "store_rows"
    kinds = {c["kind"] for c in report["checks"]}
    assert {"assert", "output-once", "output-coverage", "out-of-bounds"} <= kinds
    assert all(c["status"] == "proved" for c in report["checks"]) and not diags
    assert m.text() == before
    with pytest.raises(ValueError):
        m.verify_tags(max_counterexamples=0)


# --- clipped views: boundary tiles -------------------------------------------

def _ragged_rows(clipped):
    """Each block stores 64 rows of C; the grid rounds M up to 64 rows, so
    the last block's tile reaches past C unless its view is clipped."""
    @argus.kernel(target="sm_90a", block=64)
    def store_ragged(C: argus.Tensor[("M", "N"), "f32"]):
        b = argus.block_id("x")
        m0 = b * 64
        rows = argus.grid_dim("x") * 64
        argus.assume(C.dim("N").eq(4) & (C.dim("M") <= rows) & (rows < C.dim("M") + 64),
                     "C has 4 columns; the grid rounds its rows up to 64")
        t = argus.tag(argus.zeros((64, 4), "f32", "(64,4):(1,64)"), lambda m, n: (m0 + m, n))
        g = argus.tag(argus.view(C, (m0, 0), (64, 4), clipped=clipped), lambda m, n: (m0 + m, n))
        argus.store(t, g)  # RAGGED STORE
        argus.tag_assert("value.m == dest.m && value.n == dest.n")
    return store_ragged


def test_clipped_view_proves_a_ragged_store(need_verifier):
    k = _ragged_rows(clipped=True)
    assert " clipped :" in k.source()
    r = k.verify(strict=True)
    assert r.proved and not r.unknown
    assert "out-of-bounds" not in {c.kind for c in r.checks}


def test_unclipped_ragged_store_is_out_of_bounds(need_verifier):
    r = _ragged_rows(clipped=False).verify(raise_on_violation=False)
    bad = [c for c in r.violated if c.kind == "out-of-bounds"]
    assert len(bad) == 1 and bad[0].py_line == _line_of(_ragged_rows, "# RAGGED STORE")


def _segments(bounded):
    """C stacks G segments of S rows (S any length); block (x, y) stores
    tile x of segment y, its view cut at the segment's end when bounded."""
    @argus.kernel(target="sm_90a", block=32)
    def store_segments(C: argus.Tensor[("?", 4), "f32"], S: argus.index):
        gx, gy = argus.grid_dim("x"), argus.grid_dim("y")
        argus.assume(S >= 1, "S >= 1")
        argus.assume(gx.eq((S + 31) // 32), "grid_dim.x == ceil(S / 32)")
        argus.assume(gy < (1 << 20) // S, "grid_dim.y * S < 2^20")
        argus.assume(C.dim(0).eq(gy * S), "C has grid_dim.y * S rows")
        seg0 = argus.block_id("y") * S
        r0 = seg0 + argus.block_id("x") * 32
        cut = dict(bounds=(seg0 + S, 4)) if bounded else {}
        g = argus.view(C, (r0, 0), (32, 4), clipped=True, **cut)
        argus.store(argus.zeros((32, 4), "f32", "(32,4):(1,32)"), g)  # SEGMENT STORE
    return store_segments


def test_view_bounds_cut_each_segment(need_verifier):
    k = _segments(bounded=True)
    assert " clipped to [" in k.source()
    r = k.verify(strict=True)
    assert r.proved and {"output-once", "output-coverage"} <= {c.kind for c in r.checks}


def test_view_without_bounds_writes_the_next_segment(need_verifier):
    r = _segments(bounded=False).verify(raise_on_violation=False)
    bad = [c for c in r.violated if c.kind == "output-once"]
    assert len(bad) == 1 and bad[0].py_line == _line_of(_segments, "# SEGMENT STORE")


def test_view_bounds_misuse_is_reported_at_its_line():
    @argus.kernel(target="sm_90a", block=64)
    def unclipped(C: argus.Tensor[("M", "N"), "f32"]):
        argus.view(C, (0, 0), (64, 4), bounds=(8, 4))  # NO CLIP
    with pytest.raises(argus.TraceError) as e:
        unclipped.source()
    assert "clipped=True" in str(e.value) and e.value.line == _line_of(test_view_bounds_misuse_is_reported_at_its_line, "# NO CLIP")

    @argus.kernel(target="sm_90a", block=64)
    def one_bound(C: argus.Tensor[("M", "N"), "f32"]):
        argus.view(C, (0, 0), (64, 4), clipped=True, bounds=(8,))  # ONE BOUND
    with pytest.raises(argus.ShapeError) as e:
        one_bound.ir()
    assert "1 bounds" in str(e.value) and e.value.line == _line_of(test_view_bounds_misuse_is_reported_at_its_line, "# ONE BOUND")


def test_view_clipped_takes_a_bool():
    @argus.kernel(target="sm_90a", block=64)
    def bad(C: argus.Tensor[("M", "N"), "f32"]):
        argus.view(C, (0, 0), (64, 4), clipped="yes")
    with pytest.raises(argus.TraceError):
        bad.source()
