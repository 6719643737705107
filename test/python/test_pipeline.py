"""argus.pipeline: the software-pipelined k loop (prologue, wait_group S-2,
refill after the barrier, drain) as the tutorial GEMM and the convolution
use it: proved for any K through clipped views, lowered to cp.async, a
too-shallow wait found, bad arguments rejected at the user's line."""

import re

import pytest

import argus
import gemm_epilogue


def _gemm(stages, wait=None, swizzle=False, name="gp"):
    """The tutorial GEMM's structure through argus.pipeline, with `wait`."""
    instr = "mma.m16n8k16.f32.f16"
    mma = argus.tiled_mma(instr, warps=(2, 2), tile=(64, 64, 32))

    @argus.kernel(target="sm_90", block=mma.threads, name=name)
    def k(A: argus.Tensor[("M", "K"), "f16"], B: argus.Tensor[("K", "N"), "f16"],
          C: argus.Tensor[("M", "N"), "f32"]):
        M, N, K = A.dim("M"), B.dim("N"), A.dim("K")
        argus.assume(argus.grid_dim("y").eq(argus.cdiv(M, 64)) &
                     argus.grid_dim("x").eq(argus.cdiv(N, 64)), "grid")
        argus.assume((N % 8).eq(0) & (K % 8).eq(0) & (K < 2 ** 22), "vectors, sizes")
        m0 = argus.block_id("y") * 64
        n0 = argus.block_id("x") * 64
        sa = argus.alloc((64, 32), "f16", name="sA", stages=stages)
        sb = argus.alloc((32, 64), "f16", name="sB", stages=stages)

        def load(kt, s):
            k0 = kt * 32
            argus.copy_async(argus.tag(argus.view(A, (m0, k0), (64, 32), clipped=True),
                                       lambda m, k: (m0 + m, k0 + k)), sa[s])
            argus.copy_async(argus.tag(argus.view(B, (k0, n0), (32, 64), clipped=True),
                                       lambda k, n: (k0 + k, n0 + n)), sb[s])

        def compute(kt, s, acc):
            acc = argus.mma(instr, argus.load(sa[s], layout=mma.a),
                            argus.load(sb[s], layout=mma.b), acc)
            argus.tag_assert(acc, "a.k == b.k && a.m == acc.m && b.n == acc.n")
            return acc

        acc = argus.tag(argus.zeros((64, 64), "f32", mma.c), lambda m, n: (m0 + m, n0 + n))
        acc = argus.pipeline(argus.cdiv(K, 32), load, compute, carry=acc, stages=stages,
                             wait=wait)
        argus.store(acc, argus.tag(argus.view(C, (m0, n0), (64, 64), clipped=True),
                                   lambda m, n: (m0 + m, n0 + n)))
        argus.tag_assert("value.m == dest.m && value.n == dest.n")
    return k


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
def test_pipeline_proves_for_any_k(stages, need_verifier):
    r = _gemm(stages).verify()
    assert r.proved, r.summary()
    kinds = {c.kind for c in r.checks}
    assert {"reduction-coverage", "unsynchronized-read", "write-after-write"} <= kinds, kinds


def test_pipeline_ir_shape():
    ir = _gemm(3).ir()
    # The prologue loop over S - 1 slabs, the main loop's wait depth S - 2
    # and the final drain.
    assert ir.count("scf.for") == 2 and "scf.for %arg3 = %c0 to %c2 step %c1 {" in ir
    assert ir.count("argus.commit_group") == 2
    assert re.search(r"argus\.wait_group 1\b", ir) and re.search(r"argus\.wait_group 0\b", ir)


@pytest.mark.parametrize("stages,wait", [(2, 1), (3, 2)])
def test_pipeline_wait_too_shallow_is_violated(stages, wait, need_verifier):
    # wait_group(S - 1) lets slab kt's copies still be in flight at its mma.
    r = _gemm(stages, wait=wait).verify(raise_on_violation=False)
    bad = {c.kind for c in r.checks if c.status == "violated"}
    assert bad == {"unsynchronized-read"}, r.summary()


def test_pipelined_tutorial_gemms_prove_and_lower(need_verifier):
    for k in (gemm_epilogue.make_gemm("sm_90", "f32", name="gf3", stages=3, swizzle=True),
              gemm_epilogue.make_gemm("sm_90", "f16", bias=True, activation="gelu",
                                      name="gbg3", stages=3, swizzle=True, any_shape=True)):
        r = k.verify()
        assert r.proved, r.summary()
        if argus.has_pass("argus-to-nvptx"):
            asm = k.compile().asm
            asm = asm.decode() if isinstance(asm, bytes) else asm
            assert "cp.async" in asm


@pytest.mark.parametrize("kwargs,msg", [
    ({"stages": 0}, "stages >= 1"), ({"stages": 2.0}, "stages >= 1"),
    ({"stages": 3, "wait": -1}, "wait must be an int >= 0")])
def test_pipeline_bad_arguments_are_trace_errors_at_the_line(kwargs, msg):
    @argus.kernel(target="sm_90", block=128, name="bad")
    def k(A: argus.Tensor[("M", "K"), "f16"]):
        acc = argus.zeros((64, 64), "f32", argus.tiled_mma("mma.m16n8k16.f32.f16",
                                                            warps=(2, 2), tile=(64, 64, 32)).c)
        argus.pipeline(4, lambda kt, s: None, lambda kt, s, a: a, carry=acc, **kwargs)
    with pytest.raises(argus.TraceError, match=msg) as e:
        k.ir()
    assert "test_pipeline.py" in str(e.value)


def test_make_gemm_stages_checked():
    with pytest.raises(argus.ArgusError, match="stages must be at least 1"):
        gemm_epilogue.make_gemm("sm_90", "f32", stages=0)


def test_swizzled_rows():
    # 16-byte chunks XORed with the row: Sw<B,M,3>, M for 16 bytes, B for
    # the chunks a row holds (at most 3); rows of one chunk stay row-major.
    assert argus.swizzled_rows((64, 32), "f16").text == "Sw<2,3,3> o (64,32):(32,1)"
    assert argus.swizzled_rows((64, 32), "f32").text == "Sw<3,2,3> o (64,32):(32,1)"
    assert argus.swizzled_rows((32, 128), "bf16").text == "Sw<3,3,3> o (32,128):(128,1)"
    assert argus.swizzled_rows((32, 8), "f16") is None
    with pytest.raises(argus.ArgusError, match="2-D tile"):
        argus.swizzled_rows((4, 8, 16), "f16")
