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
