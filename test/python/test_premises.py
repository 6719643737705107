"""No proof is vacuous or outside the model (issue 51): the assumptions check,
the launch's envelope, argument roles, the check-kind table and what a report
says it does not check."""

import numpy as np
import pytest

import argus
from argus.grid import check_limits, envelope
from conftest import install_stand_in

BLOCK = 512


def make_copy(pin_grid=None, into_input=False, roles=True, min_k=None):
    """Y[i] = X[i] over grid_dim.x blocks of 512 elements, an index K."""
    In = argus.In if roles else argus.Tensor
    Out = argus.Out if roles else argus.Tensor
    lay = argus.copy_layout((BLOCK,), "f32", 128)

    @argus.kernel(target="sm_90a", block=128, name="copy")
    def copy(X: In[("N",), "f32"], Y: Out[("N",), "f32"], K: argus.index):
        argus.assume(argus.grid_dim("x") <= 8192, "at most 8192 blocks")
        n = argus.grid_dim("x") * BLOCK
        argus.assume(X.dim("N").eq(n) & Y.dim("N").eq(n), "X and Y are 512 * grid_dim.x")
        if pin_grid is not None:
            argus.assume(argus.grid_dim("x").eq(pin_grid), f"grid_dim.x is {pin_grid}")
        if min_k is not None:
            argus.assume(K >= min_k, f"K is at least {min_k}")
        n0 = argus.block_id("x") * BLOCK
        v = argus.load(argus.view(X, (n0,), (BLOCK,)), layout=lay)
        argus.store(v, argus.view(X if into_input else Y, (n0,), (BLOCK,)))

    return copy


def test_correct_kernel_is_proved_with_witnesses(need_verifier):
    r = make_copy().verify()
    assert r.proved, r.summary()
    premises = [c for c in r.checks if c.kind == "assumptions"]
    assert len(premises) == 1 and premises[0].witness.startswith("arg2=")
    # Every proved check carries its witness: a launch where its op runs.
    assert all(c.witness for c in r.checks), [str(c) for c in r.checks if not c.witness]
    access = {c.predicate: c.status for c in r.checks if c.kind == "argument-access"}
    assert access == {"argument 0 ('X') is an input: never written": "proved",
                      "argument 1 ('Y') is an output: written by the kernel": "proved"}


@pytest.mark.parametrize("pin, limit", [(131072, "at most 8192 blocks"), (70000, "at most 8192")])
def test_assumptions_outside_the_model_are_an_error(need_verifier, pin, limit):
    """Before, a grid pinned above 2^16 made every query unsat: every check,
    a planted out-of-bounds store included, was proved."""
    with pytest.raises(argus.InvariantViolation) as ei:
        make_copy(pin_grid=pin).verify()
    bad = ei.value.violations
    assert [c.kind for c in bad] == ["assumptions"]
    notes = bad[0].counterexamples[0].notes
    assert any(f'argus.assume "grid_dim.x is {pin}"' in n for n in notes), notes
    assert any(limit in n or "model limit" in n for n in notes), notes
    # Nothing else was run, so nothing else is proved.
    assert len(ei.value.result.checks) == 1


def test_argument_assumed_above_the_model(need_verifier):
    with pytest.raises(argus.InvariantViolation) as ei:
        make_copy(min_k=70000).verify()
    notes = ei.value.violations[0].counterexamples[0].notes
    assert any("model limit: arg2 in [1, 65536)" in n for n in notes), notes


def test_store_into_an_input_is_violated(need_verifier):
    with pytest.raises(argus.InvariantViolation) as ei:
        make_copy(into_input=True).verify()
    kinds = sorted(c.predicate for c in ei.value.violations if c.kind == "argument-access")
    assert kinds == ["argument 0 ('X') is an input: never written",
                     "argument 1 is an output: written by the kernel"]


def test_undeclared_roles_are_listed_as_unchecked(need_verifier):
    r = make_copy(roles=False).verify()
    assert r.proved
    assert not [c for c in r.checks if c.kind == "argument-access"]
    assert any("argument roles: no tensor argument declares argus.access" in u
               for u in r.unchecked)
    # The values are never checked, and the report says so.
    assert any(u.startswith("copy: values: the numbers computed") for u in r.unchecked)


def test_check_kind_table_covers_every_reported_kind(need_verifier, examples_dir):
    kinds = argus.verify.CHECK_KINDS
    assert {"assumptions", "argument-access", "named-barrier", "assert",
            "output-coverage", "reduction-coverage"} <= set(kinds)
    for name, row in kinds.items():
        assert row.name == name and row.family and row.meaning and row.models
    r = argus.verify_text(open(f"{examples_dir}/gemm_mfma.mlir").read(), "gemm_mfma.mlir")
    assert {c.kind for c in r.checks} <= set(kinds)
    assert all(c.meaning for c in r.checks)
    assert "every element of an output tensor is written" in argus.verify.explain("output-coverage")
    with pytest.raises(KeyError, match="unknown check kind 'no-such-check'"):
        argus.verify.explain("no-such-check")


def test_launch_outside_the_model_is_refused(need_verifier, tmp_path, monkeypatch):
    """K = 100000 is beyond the model's 2^16 for integer arguments: the
    launch is refused before anything runs (the stand-in argus-run, which
    would log a run, is never started)."""
    log = install_stand_in(tmp_path, monkeypatch, "#!/bin/sh\necho ran >> $ARGUS_FAKE_LOG\n",
                           "runs.log")
    k = make_copy()
    x = np.zeros(BLOCK, np.float32)
    y = np.zeros(BLOCK, np.float32)
    with pytest.raises(argus.ArgusError, match=r"integer argument 'K' is 100000, outside "
                                               r"\[1, 65536\)"):
        argus.compile.run_kernel(k, x, y, 100000)
    with pytest.raises(argus.ArgusError, match=r"outside \[1, 65536\)"):
        argus.compile.run_kernel(k, x, y, 0)
    # The spec argus-run and the C API read carries the same envelope.
    ck = k.compile()
    assert ck.abi.limits == {"integer": [1, 65536], "size": [1, 8388608], "grid": [1, 65536]}
    spec = ck.launch_spec("copy.ptx", {"N": BLOCK, "K": 5}, (1, 1, 1))
    assert not log.exists()
    assert spec["envelope"] == {"grid": [1, 65536],
                                "scalars": {"X_size0": [1, 8388608], "Y_size0": [1, 8388608],
                                            "K": [1, 65536]}}


def test_check_limits_edges():
    limits = {"integer": [1, 65536], "size": [1, 8388608], "grid": [1, 65536]}
    slots = [{"kind": "buffer", "arg": 0, "dim": -1, "dtype": "f32"},
             {"kind": "size", "arg": 0, "dim": 0, "dtype": "i64"},
             {"kind": "index", "arg": 1, "dim": -1, "dtype": "i64"},
             {"kind": "scalar", "arg": 2, "dim": -1, "dtype": "f32"}]
    x = np.zeros(4, np.float32)
    check_limits(limits, slots, [x, 65535, 1e9], (65535, 1, 1))  # floats are not modelled
    for bad, grid in (([x, 65536, 0.0], None), ([x, 0, 0.0], None), ([x, 5, 0.0], (65536, 1, 1))):
        with pytest.raises(argus.ArgusError, match="outside"):
            check_limits(limits, slots, bad, grid, ["X", "K", "eps"])
    big = np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), shape=(8388608,),
                                          strides=(0,))
    with pytest.raises(argus.ArgusError, match="size 0 of tensor argument 'X' is 8388608"):
        check_limits(limits, slots, [big, 5, 0.0], None, ["X", "K", "eps"])
    assert envelope(None, slots, ["X", "K", "eps"]) is None
    assert envelope(limits, slots, ["X", "K", "eps"])["scalars"] == {
        "X_size0": [1, 8388608], "K": [1, 65536]}


def test_docs_list_every_check_kind(need_verifier):
    """docs/Verifier.md's "Check kinds" table is the C++ table's."""
    import os
    doc = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "Verifier.md")).read()
    section = doc.split("## Check kinds", 1)[1].split("\n## ", 1)[0]
    rows = [l for l in section.splitlines() if l.startswith("| `")]
    documented = {l.split("`")[1]: l for l in rows}
    assert set(documented) == set(argus.verify.CHECK_KINDS)
    for name, row in argus.verify.CHECK_KINDS.items():
        assert row.meaning in documented[name], name
