"""argus.assume_indices: the data preconditions of index tensors (gathered
and scattered rows). The verifier proves gathered rows in bounds and a
scatter writing each row once only from the declaration (unknown without
it), lists it among the kernel's assumptions, and the host checks the
entries before a launch (argus.grid.check_indices)."""

import pytest

import argus
from argus.grid import check_indices

ROWS = "(128,1):(1,0)"
TILE = "(128,8):(1,128)"


def _scatter(declare: bool, distinct: bool = True, bound_of_x: bool = False):
    @argus.kernel(target="sm_90a", block=128)
    def scatter(X: argus.Tensor[("P", 8), "f32"], Y: argus.Tensor[("R", 8), "f32"],
                ids: argus.Tensor[("P",), "i32"]):
        argus.assume(X.dim(0).eq(argus.grid_dim("x") * 128), "X has 128 rows per block")
        if declare:
            argus.assume_indices(ids, below=X.dim(0) if bound_of_x else Y.dim(0),
                                 distinct=distinct, message="ids are rows of Y")
        r0 = argus.block_id("x") * 128
        i = argus.load(argus.view(ids, (r0,), (128,)), layout=ROWS)
        x = argus.load(argus.view(X, (r0, 0), (128, 8)), layout=TILE)
        argus.store(x, argus.gather_view(Y, i, 0, (128, 8)))
    return scatter


def _status(result, kind):
    return {c.status for c in result.checks if c.kind == kind}


def test_scatter_without_declaration_is_unknown_not_proved(need_verifier):
    r = _scatter(False).verify(raise_on_violation=False)
    for kind in ("out-of-bounds", "non-injective-write", "output-once"):
        assert "unknown" in _status(r, kind), (kind, r.summary())
    reasons = " ".join(c.reason for c in r.checks if c.status == "unknown")
    assert "assume_indices" in reasons


def test_scatter_with_distinct_indices_is_proved_and_listed(need_verifier):
    r = _scatter(True).verify(strict=True)
    assert r.proved, r.summary()
    assert "proved" in _status(r, "output-once")
    assumptions = r.report["kernels"][0]["assumptions"]
    assert any(a.startswith("data: ids are rows of Y") for a in assumptions), assumptions


def test_scatter_without_distinct_is_unknown(need_verifier):
    r = _scatter(True, distinct=False).verify(raise_on_violation=False)
    assert _status(r, "non-injective-write") == {"unknown"}
    assert _status(r, "output-once") == {"unknown"}
    assert _status(r, "out-of-bounds") == {"proved"}


def test_bound_larger_than_the_gathered_tensor_is_violated(need_verifier):
    with pytest.raises(argus.InvariantViolation) as ei:
        _scatter(True, bound_of_x=True).verify()
    hit = [c for c in ei.value.violations if c.kind == "out-of-bounds"]
    assert hit and "declared below" in " ".join(hit[0].counterexamples[0].notes)


def test_misuse_is_reported_at_the_users_line():
    @argus.kernel(target="sm_90a", block=128)
    def bad(X: argus.Tensor[("P", 8), "f32"]):
        argus.assume_indices(X, below=4)

    with pytest.raises(argus.TraceError, match="1-D integer tensor") as ei:
        bad.source()
    assert ei.value.line is not None


RULES = [{"arg": 2, "distinct": True, "message": "ids are rows of Y",
          "below": {"size": [1, 0]}}]


class _Shaped:
    def __init__(self, *shape):
        self.shape = shape


def test_check_indices_accepts_good_entries():
    check_indices(RULES, [None, _Shaped(4, 8), [3, 0, 2, 1]])
    check_indices([], [])
    check_indices(None, [])


@pytest.mark.parametrize("ids,match", [
    ([3, 0, 4, 1], "entry 2 is 4, outside \\[0, 4\\)"),
    ([3, -1, 2, 1], "entry 1 is -1"),
    ([3, 0, 3, 1], "entries 0 and 2 are both 3"),
])
def test_check_indices_names_the_first_bad_entry(ids, match):
    with pytest.raises(argus.ArgusError, match=match):
        check_indices(RULES, [None, _Shaped(4, 8), ids])


def test_check_indices_reads_numpy_arrays():
    np = pytest.importorskip("numpy")
    check_indices(RULES, [None, np.zeros((5, 8)), np.array([4, 0, 1], dtype=np.int32)])
    with pytest.raises(argus.ArgusError, match="both 1"):
        check_indices(RULES, [None, np.zeros((5, 8)), np.array([1, 0, 1], dtype=np.int32)])


def test_launch_checks_the_entries_before_running(need_verifier, monkeypatch):
    np = pytest.importorskip("numpy")
    if not argus.has_pass("argus-to-nvptx"):
        pytest.skip("argus-to-nvptx not built")
    import argus.compile as compile_mod
    # The entries are checked before anything runs: no GPU needed to see it.
    monkeypatch.setattr(compile_mod, "gpu_available", lambda: True)
    k = _scatter(True)
    X = np.zeros((256, 8), dtype=np.float32)
    Y = np.zeros((256, 8), dtype=np.float32)
    ids = np.arange(256, dtype=np.int32)
    ids[7] = 3  # entries 3 and 7 both name row 3
    with pytest.raises(argus.ArgusError, match="entries 3 and 7 are both 3"):
        k[(2,)](X, Y, ids)
    ck = k.compile()
    assert ck.launch["indices"] == [{"arg": 2, "below": {"size": [1, 0]}, "distinct": True,
                                     "message": "ids are rows of Y"}]


def test_view_tag_with_a_python_int_slab_offset_is_proved(need_verifier):
    """A Python int slab index folded into both the view's offset and the tag
    lambda (k = 32 + k) is the view's offset, as a traced one is: view-tag
    proves it (it used to be a false alarm)."""
    @argus.kernel(target="sm_90a", block=128)
    def slab(A: argus.Tensor[("M", 64), "f32"], Y: argus.Tensor[("M", 32), "f32"]):
        argus.assume(A.dim(0).eq(argus.grid_dim("x") * 128), "A has 128 rows per block")
        m0 = argus.block_id("x") * 128
        k0 = 32  # a Python int: folded into the view and the map
        a = argus.load(argus.tag(argus.view(A, (m0, k0), (128, 32)),
                                 lambda m, k: (m0 + m, k0 + k)), layout="(128,32):(1,128)")
        argus.store(a, argus.view(Y, (m0, 0), (128, 32)))

    r = slab.verify(raise_on_violation=False)
    assert {c.status for c in r.checks if c.kind == "view-tag"} == {"proved"}, r.summary()


@pytest.mark.parametrize("ids,match", [
    ([3, 0, 4, 1], "entry 2 is 4, outside \\[0, 4\\)"),
    ([3, -1, 2, 1], "entry 1 is -1"),
    ([3, 0, 3, 1], "entries 0 and 2 are both 3"),
    ([2, 1, 0, 1], "entries 1 and 3 are both 1"),
])
def test_check_indices_numpy_names_the_same_entry_as_lists(ids, match):
    np = pytest.importorskip("numpy")
    for form in (ids, np.array(ids, dtype=np.int32)):
        with pytest.raises(argus.ArgusError, match=match):
            check_indices(RULES, [None, _Shaped(4, 8), form])


def test_check_indices_rejects_a_nested_array():
    np = pytest.importorskip("numpy")
    with pytest.raises(argus.ArgusError, match="1-D index tensor"):
        check_indices(RULES, [None, _Shaped(4, 8), np.zeros((2, 2), dtype=np.int32)])
    with pytest.raises(argus.ArgusError, match="1-D index tensor"):
        check_indices(RULES, [None, _Shaped(4, 8), [[1, 2], [3, 0]]])
