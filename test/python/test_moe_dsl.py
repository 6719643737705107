"""The Hopper MoE grouped GEMM in the DSL (examples/python/moe_grouped_gemm_ws.py):
every check proved (both hidden sizes of bench/moe), PTX with gathered
16-byte cp.async rows and no local memory, planted mistakes of the gather
ring violated at their Python line, and TensorValue.index_at (the routing
table read) reporting misuse at the user's line."""

import inspect
import os

import pytest

import argus
import moe_grouped_gemm_ws as moe
from conftest import violated_at

EXAMPLE_PY = os.path.abspath(moe.__file__)


def _line_of(needle, nth=0):
    src, start = inspect.getsourcelines(moe.make_moe_grouped_gemm_ws)
    hits = [start + i for i, l in enumerate(src) if needle in l]
    assert len(hits) > nth, needle
    return hits[nth]


@pytest.mark.parametrize("hidden", [4096, 7168])
def test_twin_proves_every_check(need_verifier, hidden):
    k = moe.make_moe_grouped_gemm_ws(hidden=hidden, name=f"moe_{hidden}")
    r = k.verify(strict=True)
    assert r.proved, r.summary()
    # The scatter is written once per slot, from the declared routing data.
    assert "output-once" in {c.kind for c in r.checks}
    assert any(a.startswith("data: sorted_ids are distinct rows of Y")
               for a in r.report["kernels"][0]["assumptions"])
    kinds = {c.kind for c in r.checks}
    # The weight ring's protocol, the consumers' gather ring, the expert
    # pairing and the reduction over all of K.
    assert {"mbarrier-tx-bytes", "tma-slot", "async-read-order", "unsynchronized-read",
            "unsynchronized-write", "write-after-write", "reduction-coverage",
            "output-coverage"} <= kinds, kinds


@pytest.mark.parametrize("hidden", [4096, 7168])
def test_persistent_twin_proves_every_check(need_verifier, hidden):
    k = moe.make_moe_grouped_gemm_ws(hidden=hidden, persistent=True, name=f"moe_p_{hidden}")
    src = k.source()
    # The expert is read per work item, inside the item loop.
    assert src.count("memref.load %block_expert") == 2  # one per role
    r = k.verify(strict=True)
    assert r.proved, r.summary()
    kinds = {c.kind for c in r.checks}
    assert {"output-once", "output-coverage", "mbarrier-parity", "reduction-coverage",
            "assert"} <= kinds, kinds


def test_persistent_twin_planted_gather_bug_is_violated_at_its_line(need_verifier):
    k = moe.make_moe_grouped_gemm_ws(persistent=True, barrier=False, name="moe_p_bug")
    c, _ = violated_at(k, "unsynchronized-read", EXAMPLE_PY, _line_of("acc = argus.mma_async("))
    assert c.counterexamples and c.counterexamples[0].notes


def test_persistent_twin_grid_is_the_callers_choice():
    if not argus.has_pass("argus-to-nvptx"):
        pytest.skip("argus-to-nvptx not built")
    ck = moe.make_moe_grouped_gemm_ws(persistent=True).compile()
    assert ck.launch["grid"][0] == {"extent": "free"}
    # Index tables are read, never written: the launcher needs no writable
    # copy of them.
    assert ck.written == ["Y"]


def test_compiles_to_ptx_with_gathered_cp_async_and_no_local_memory():
    if not argus.has_pass("argus-to-nvptx"):
        pytest.skip("argus-to-nvptx not built")
    ck = moe.moe_grouped_gemm_ws.compile()
    asm = ck.asm
    for needle in ("wgmma.mma_async", "cp.async.bulk.tensor.2d", "cp.async.cg.shared.global",
                   "cp.async.wait_group \t1;", "fence.proxy.async", "setmaxnreg"):
        assert needle in asm, needle
    # The row indices are taken from compile-time register slots: no index
    # table in local memory.
    assert ".local" not in asm
    assert ck.launch["dynamic_smem"] == 4 * (128 * 64 + 64 * 256) * 2 + 64
    # The routing's declared data, for the host to check before a launch:
    # token rows below X's rows, slot ids distinct and below Y's rows.
    rules = {r["message"]: r for r in ck.launch["indices"]}
    assert rules["sorted_rows are rows of X"]["distinct"] is False
    assert rules["sorted_rows are rows of X"]["below"] == {"size": [0, 0]}
    assert rules["sorted_ids are distinct rows of Y"]["distinct"] is True
    assert rules["sorted_ids are distinct rows of Y"]["below"] == {"size": [2, 0]}


BUGS = [
    # (knobs, violated kind, needle of the op the check names)
    (dict(fence=False), "unsynchronized-read", "acc = argus.mma_async("),
    (dict(gather_wait=2), "unsynchronized-read", "acc = argus.mma_async("),
    (dict(barrier=False), "unsynchronized-read", "acc = argus.mma_async("),
    (dict(prefetch_stage_shift=1), "unsynchronized-write", "argus.copy_async(gx"),
]


@pytest.mark.parametrize("knobs,kind,needle", BUGS, ids=[str(b[0]) for b in BUGS])
def test_planted_gather_bug_is_violated_at_its_line(need_verifier, knobs, kind, needle):
    k = moe.make_moe_grouped_gemm_ws(name="moe_bug", **knobs)
    c, _ = violated_at(k, kind, EXAMPLE_PY, _line_of(needle))
    assert c.counterexamples and c.counterexamples[0].notes


def test_hidden_size_is_checked():
    with pytest.raises(ValueError, match="multiple of 64"):
        moe.make_moe_grouped_gemm_ws(hidden=100)


def test_index_at_reads_a_routing_table(need_verifier):
    @argus.kernel(target="sm_90a", block=128)
    def pick(X: argus.Tensor[("R", 64), "f32"], Y: argus.Tensor[("R", 64), "f32"],
             table: argus.Tensor[("B",), "i32"]):
        r = table.index_at(argus.block_id("x"))
        argus.assume(r < 1024, "rows are below 1024")
        argus.assume(r < X.dim(0), "the row is inside X")
        argus.assume(Y.dim(0).eq(argus.grid_dim("x")), "Y has a row per block")
        x = argus.load(argus.view(X, (r, 0), (1, 64)), layout="(64,1):(1,0)")
        argus.store(x, argus.view(Y, (argus.block_id("x"), 0), (1, 64)))

    src = pick.source()
    assert "memref.load" in src and "arith.index_cast" in src
    assert not pick.verify(raise_on_violation=False).violated


@pytest.mark.parametrize("annotation,error", [
    ((("R", 4), "i32"), argus.ShapeError),
    ((("B",), "f32"), argus.DTypeError),
])
def test_index_at_misuse_is_reported_at_the_users_line(annotation, error):
    shape, dtype = annotation

    def body(T):
        return T.index_at(0)

    @argus.kernel(target="sm_90a", block=128)
    def bad(T: argus.Tensor[shape, dtype]):
        body(T)

    with pytest.raises(error) as ei:
        bad.source()
    assert ei.value.line == _body_line(body, "T.index_at(0)")


def _body_line(fn, needle):
    src, start = inspect.getsourcelines(fn)
    return next(start + i for i, l in enumerate(src) if needle in l)
