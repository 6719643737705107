"""Convolutions as implicit GEMMs over argus.im2col (examples/python/conv2d.py):
proved, lowered for both targets; the im2col view's errors at the user's
line; planted bugs found with their counterexamples."""

import re

import numpy as np
import pytest

import argus
import conv2d


@pytest.mark.parametrize("make", [
    lambda: conv2d.make_conv2d("sm_90", "f16", name="c3"),
    lambda: conv2d.make_conv2d("sm_90", "f16", bias=True, activation="relu", name="c3br"),
    lambda: conv2d.make_conv2d("sm_90", "f16", name="c3any", any_channels=True),
    lambda: conv2d.make_conv2d("sm_90", "f32", window=(5, 3), stride=2, padding=2,
                               dilation=1, name="c53s2"),
    lambda: conv2d.make_conv2d("gfx942", "bf16", window=(3, 3), dilation=2, padding=2,
                               name="c3d2"),
    # Pipelined (cp.async stages), swizzled, other tiles, any channel count.
    lambda: conv2d.make_conv2d("sm_90", "f16", name="c3s3sw", stages=3, swizzle=True),
    lambda: conv2d.make_conv2d("sm_90", "f16", name="c3s2", stages=2, tile=(128, 64, 32),
                               warps=(4, 2)),
    lambda: conv2d.make_conv2d("sm_90", "f16", name="c3s3any", stages=3, any_channels=True),
])
def test_convolutions_prove(make, need_verifier):
    r = make().verify()
    assert r.checks and r.proved, r.summary()
    kinds = {c.kind for c in r.checks}
    # k covers every (tap, channel) once, the output once, the view tags hold.
    assert {"reduction-coverage", "output-coverage", "view-tag"} <= kinds, kinds


def test_conv_lowers_for_both_targets(need_verifier):
    ptx = conv2d.make_conv2d("sm_90", "f16", name="c").compile().asm
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    assert "mma.sync.aligned.m16n8k16" in ptx
    assert "div.u64" in ptx or "div.u32" in ptx or "rem.u64" in ptx  # im2col addressing
    asm = conv2d.make_conv2d("gfx942", "f16", name="c").compile().asm
    asm = asm.decode() if isinstance(asm, bytes) else asm
    assert "v_mfma_f32_32x32x8" in asm


def test_reference_is_a_convolution():
    """The numpy reference of the benchmark against a direct loop."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 6, 3))
    w = rng.standard_normal((4, 3, 3, 3))
    y = conv2d.reference(x, w, stride=2, padding=1, dilation=1)
    oh, ow = (5 + 2 - 3) // 2 + 1, (6 + 2 - 3) // 2 + 1
    want = np.zeros((2, oh, ow, 4))
    for n in range(2):
        for i in range(oh):
            for j in range(ow):
                for r in range(3):
                    for s in range(3):
                        h, v = i * 2 + r - 1, j * 2 + s - 1
                        if 0 <= h < 5 and 0 <= v < 6:
                            want[n, i, j] += w[:, r, s, :] @ x[n, h, v]
    assert np.allclose(y, want.reshape(-1, 4))


def _im2col_kernel(body, rank=4):
    names = ("N", "H", "W", "C")[:rank]

    @argus.kernel(target="sm_90", block=128, name="im2col_k")
    def k(X: argus.Tensor[names, "f16"], Y: argus.Tensor[("P", "Q"), "f16"]):
        body(X, Y)
    return k


def test_im2col_window_count_is_checked_at_the_line():
    def body(X, Y):
        argus.im2col(X, (0, 0), (64, 32), window=(3, 3, 3))
    with pytest.raises(argus.TraceError) as e:
        _im2col_kernel(body).ir()
    assert "one per spatial dimension" in str(e.value)
    assert "test_conv.py" in str(e.value)


def test_im2col_tensor_rank_is_the_verifiers():
    def body(X, Y):
        argus.im2col(X, (0, 0), (64, 32), window=3)
    with pytest.raises(argus.ShapeError) as e:
        _im2col_kernel(body, rank=2).ir()
    assert "channels-last tensor of rank 3" in str(e.value), str(e.value)
    assert "test_conv.py" in str(e.value)


def test_im2col_is_read_only():
    def body(X, Y):
        g = argus.im2col(X, (0, 0), (64, 32), window=(3, 3), padding=1)
        argus.store(argus.zeros((64, 32), "f16", argus.copy_layout((64, 32), "f16", 128)), g)
    with pytest.raises(argus.TraceError) as e:
        _im2col_kernel(body).ir()
    assert "read-only" in str(e.value) and "argus.view" in str(e.value)
    assert "test_conv.py" in str(e.value)


def test_conv_output_size():
    assert argus.conv_output_size(56, 3, 1, 1) == 56
    assert argus.conv_output_size(224, 7, 2, 3) == 112
    assert argus.conv_output_size(10, 3, 1, 0, dilation=2) == 6


def _bug(kind):
    """The f16 3x3 kernel with one planted bug."""
    instr, warps, (TM, TN, TK) = conv2d.CONFIGS[("sm_90", "f16")]
    mma = argus.tiled_mma(instr, warps=warps, tile=(TM, TN, TK))

    @argus.kernel(target="sm_90", block=mma.threads, name="conv_bug_" + kind)
    def k(X: argus.Tensor[("N", "H", "W", "C"), "f16"], Wt: argus.Tensor[("CO", "K"), "f16"],
          Y: argus.Tensor[("P", "CO"), "f16"]):
        N, H, W, C = X.dim("N"), X.dim("H"), X.dim("W"), X.dim("C")
        CO, K = Wt.dim("CO"), Wt.dim("K")
        P = Y.dim("P")
        argus.assume(P.eq(N * H * W) & Y.dim("CO").eq(CO) & K.eq(9 * C), "shapes")
        argus.assume(argus.grid_dim("y").eq(argus.cdiv(P, TM)) &
                     argus.grid_dim("x").eq(argus.cdiv(CO, TN)), "grid")
        argus.assume((C % 8).eq(0) & (CO % 8).eq(0), "vectors")
        p0 = argus.block_id("y") * TM
        n0 = argus.block_id("x") * TN
        sa = argus.alloc((TM, TK), "f16", name="sA")[0]
        sb = argus.alloc((TN, TK), "f16", name="sB")[0]
        acc = argus.tag(argus.zeros((TM, TN), "f32", mma.c), lambda m, n: (p0 + m, n0 + n))
        # the k loop stops one slab short of 9 C
        steps = argus.cdiv(K, TK) - 1 if kind == "short" else argus.cdiv(K, TK)
        loop = argus.range(0, steps, carry=acc, name="kt")
        for kt, acc in loop:
            k0 = kt * TK
            ka = k0 + TK if kind == "shifted" else k0  # A's columns one slab ahead
            ga = argus.tag(argus.im2col(X, (p0, ka), (TM, TK), window=3, padding=1),
                           lambda m, k: (p0 + m, ka + k))
            gb = argus.tag(argus.view(Wt, (n0, k0), (TN, TK), clipped=True),
                           lambda n, k: (n0 + n, k0 + k))
            argus.copy(ga, sa)
            argus.copy(gb, sb)
            argus.barrier()
            acc = argus.mma(instr, argus.load(sa, layout=mma.a),
                            argus.load(argus.transpose(sb), layout=mma.b), acc)
            argus.tag_assert(acc, "a.k == b.k && a.m == acc.m && b.n == acc.n")
            argus.barrier()
            loop.carry(acc)
        gy = argus.tag(argus.view(Y, (p0, n0), (TM, TN), clipped=True),
                       lambda m, n: (p0 + m, n0 + n))
        argus.store(argus.convert(loop.results, "f16"), gy)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")
    return k


@pytest.mark.parametrize("kind,check", [("shifted", "assert"),
                                        ("short", "reduction-coverage")])
def test_conv_bugs_are_found(kind, check, need_verifier):
    r = _bug(kind).verify(raise_on_violation=False)
    bad = [c for c in r.checks if c.status == "violated"]
    assert bad and any(c.kind == check for c in bad), r.summary()
    c = next(c for c in bad if c.kind == check)
    assert c.counterexamples, c
    text = " ".join(c.counterexamples[0].notes) + str(c.counterexamples[0].raw)
    assert re.search(r"\bk\b|arg", text), text


def test_pipelined_conv_copies_with_zero_filling_cp_async(need_verifier):
    # The im2col and the clipped weight tiles go through cp.async (16 bytes,
    # the source size zero when the run lies in the padding or past the
    # matrix); the misaligned fallback reads element by element.
    k = conv2d.make_conv2d("sm_90", "f16", name="c3s3", stages=3, swizzle=True)
    ptx = k.compile(target="sm_90a").asm
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    zfill = re.findall(r"cp\.async\.cg\.shared\.global(?:\.\w+)* \[[^]]*\], \[[^]]*\], 16, %r\d+;",
                       ptx)
    assert len(zfill) >= 2, zfill  # A and B, each with a run-time source size
    assert re.search(r"cp\.async\.wait_group\s+1;", ptx) and re.search(r"cp\.async\.wait_group\s+0;", ptx)
    assert "ldmatrix" in ptx


def test_pipelined_conv_wait_too_shallow_is_violated(need_verifier):
    # wait_group(S - 1) lets slab kt's copies still be in flight at its mma.
    k = conv2d.make_conv2d("sm_90", "f16", name="c3s3w", stages=3, wait=2)
    r = k.verify(raise_on_violation=False)
    bad = {c.kind for c in r.checks if c.status == "violated"}
    assert bad == {"unsynchronized-read"}, r.summary()


def test_conv_stages_must_be_positive():
    with pytest.raises(argus.ArgusError, match="stages must be at least 1"):
        conv2d.make_conv2d("sm_90", "f16", stages=0)
