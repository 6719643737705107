"""GEMM with a fused epilogue, for any M, N and K, in the argus DSL without a
layout string: ``C = act(A @ B + bias)``.

* ``gemm_fp32``: f32 operands. On sm_90 the matrix cores read them as tf32
  (``mma.m16n8k8.f32.tf32``: 10 mantissa bits, fp32 accumulation, as
  PyTorch's ``allow_tf32``); on gfx942 ``v_mfma_f32_32x32x2_f32`` computes
  in full fp32. The tiles stay f32: an fp32 task is never silently computed
  in fp16.
* ``gemm_bias_gelu``: f16 operands, an f32 accumulator, then + bias (one
  value per column of C, broadcast over the rows in the accumulator's own
  layout) and the exact (erf) GELU, stored as f16.

M, N and K need not be multiples of the tile: the views are clipped, so the
boundary tiles read zeros past the edges (which add nothing to the sum) and
the store skips the elements outside C. 16-byte vector accesses need N and K
to be multiples of 16 bytes' worth of elements (a stated precondition);
``any_shape=True`` variants move elements one by one and take any size. The verifier proves that every k in
[0, K) reaches every C(m, n) once, that the bias of column n meets column n,
and that no access leaves the tensors.

    PYTHONPATH=build/python:python python3 examples/python/gemm_epilogue.py
"""

import argus

# (instruction, warp grid, (TM, TN, TK)) per target family and input type.
CONFIGS = {
    ("sm_90", "f32"): ("mma.m16n8k8.f32.tf32", (2, 2), (64, 64, 32)),
    ("sm_90", "f16"): ("mma.m16n8k16.f32.f16", (2, 2), (64, 64, 32)),
    ("sm_90", "bf16"): ("mma.m16n8k16.f32.bf16", (2, 2), (64, 64, 32)),
    ("gfx942", "f32"): ("v_mfma_f32_32x32x2_f32", (2, 2), (64, 64, 16)),
    ("gfx942", "f16"): ("v_mfma_f32_32x32x8_f16", (2, 2), (64, 64, 32)),
    ("gfx942", "bf16"): ("v_mfma_f32_32x32x8_bf16", (2, 2), (64, 64, 32)),
}


def make_gemm(target: str = "sm_90", dtype: str = "f32", bias: bool = False,
              activation: str = None, name: str = None, any_shape: bool = False,
              stages: int = 1, swizzle: bool = False):
    """C (M x N, ``dtype``) = activation(A (M x K) @ B (K x N) [+ bias (N)]);
    ``activation`` names an elementwise DSL function (``"gelu"``,
    ``"relu"``, ``"sigmoid"``, ...) or None.

    The rows of A, B and C move as 16-byte vectors, which needs N and K to
    be multiples of 16 bytes' worth of elements (a precondition the
    verifier's misaligned-vector check asks for: without it, K = 517 faults
    on the GPU). ``any_shape=True`` moves them element by element instead,
    for every M, N and K.

    ``stages=S`` pipelines the k loop through S shared stages filled by
    cp.async (``argus.pipeline``: zero-filled past the tensors' edges, so
    any K); ``swizzle=True`` lays the stages out with ``argus.swizzled_rows``
    (16-byte chunks XORed with the row) so that fragment loads do not conflict."""
    if isinstance(stages, bool) or not isinstance(stages, int) or stages < 1:
        raise argus.ArgusError(f"stages must be at least 1, got {stages!r}")
    family = "gfx942" if target.startswith("gfx") else "sm_90"
    instr, warps, (TM, TN, TK) = CONFIGS[(family, dtype)]
    mma = argus.tiled_mma(instr, warps=warps, tile=(TM, TN, TK))
    act = getattr(argus, activation) if activation else None
    vec = 16 // (4 if dtype == "f32" else 2)
    scalar = (lambda shape, ty: argus.copy_layout(shape, ty, mma.threads, vector=1)) \
        if any_shape else (lambda shape, ty: None)

    def body(A, B, C, Bias):
        M, N, K = A.dim("M"), B.dim("N"), A.dim("K")
        argus.assume(argus.grid_dim("y").eq(argus.cdiv(M, TM)) &
                     argus.grid_dim("x").eq(argus.cdiv(N, TN)),
                     "one block per C tile, boundary tiles included")
        if not any_shape:
            argus.assume((N % vec).eq(0) & (K % vec).eq(0),
                         f"rows of A, B and C are whole 16-byte vectors (N, K multiples of {vec})")
        if stages > 1:
            # The pipeline issues S - 1 slabs past K: their offsets stay in
            # the index range below 2^22.
            argus.assume(K < 2 ** 22, "K < 2^22")
        m0 = argus.block_id("y") * TM
        n0 = argus.block_id("x") * TN
        sa = argus.alloc((TM, TK), dtype, argus.swizzled_rows((TM, TK), dtype) if swizzle else None,
                         name="sA", stages=stages)
        sb = argus.alloc((TK, TN), dtype, argus.swizzled_rows((TK, TN), dtype) if swizzle else None,
                         name="sB", stages=stages)

        def load(kt, s):
            k0 = kt * TK
            ga = argus.tag(argus.view(A, (m0, k0), (TM, TK), clipped=True),
                           lambda m, k: (m0 + m, k0 + k))
            gb = argus.tag(argus.view(B, (k0, n0), (TK, TN), clipped=True),
                           lambda k, n: (k0 + k, n0 + n))
            argus.copy_async(ga, sa[s], threads=scalar((TM, TK), dtype))
            argus.copy_async(gb, sb[s], threads=scalar((TK, TN), dtype))

        def compute(kt, s, acc):
            acc = argus.mma(instr, argus.load(sa[s], layout=mma.a),
                            argus.load(sb[s], layout=mma.b), acc)
            argus.tag_assert(acc, "a.k == b.k && a.m == acc.m && b.n == acc.n")
            return acc

        acc = argus.tag(argus.zeros((TM, TN), "f32", mma.c), lambda m, n: (m0 + m, n0 + n))
        y = argus.pipeline(argus.cdiv(K, TK), load, compute, carry=acc, stages=stages)
        if Bias is not None:
            # The bias in the layout of the accumulator's columns, broadcast
            # over the rows: no exchange between threads.
            gbias = argus.tag(argus.view(Bias, (n0,), (TN,), clipped=True), lambda n: (n0 + n,))
            bv = argus.load(gbias, layout=argus.reduce_layout(mma.c, (TM, TN), 0))
            y = y + argus.broadcast(argus.convert(bv, "f32"), 0, like=y)
            argus.tag_assert(y, "lhs.n == rhs.n")
        if act is not None:
            y = act(y)
        gc = argus.tag(argus.view(C, (m0, n0), (TM, TN), clipped=True),
                       lambda m, n: (m0 + m, n0 + n))
        y = argus.convert(y, dtype) if dtype != "f32" else y
        if any_shape:  # element by element: through a layout of one element per slot
            y = argus.convert_layout(y, scalar((TM, TN), dtype))
        argus.store(y, gc)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")

    kname = name or f"gemm_{dtype}" + ("_bias" if bias else "") + (f"_{activation}" if act else "")
    if bias:
        @argus.kernel(target=target, block=mma.threads, name=kname)
        def gemm(A: argus.Tensor[("M", "K"), dtype], B: argus.Tensor[("K", "N"), dtype],
                 C: argus.Tensor[("M", "N"), dtype], Bias: argus.Tensor[("N",), dtype]):
            body(A, B, C, Bias)
    else:
        @argus.kernel(target=target, block=mma.threads, name=kname)
        def gemm(A: argus.Tensor[("M", "K"), dtype], B: argus.Tensor[("K", "N"), dtype],
                 C: argus.Tensor[("M", "N"), dtype]):
            body(A, B, C, None)
    return gemm


gemm_fp32 = make_gemm(dtype="f32", name="gemm_fp32")
gemm_fp32_any = make_gemm(dtype="f32", name="gemm_fp32_any", any_shape=True)
gemm_bias_gelu = make_gemm(dtype="f16", bias=True, activation="gelu", name="gemm_bias_gelu")

if __name__ == "__main__":
    for target in ("sm_90", "gfx942"):
        for k in (make_gemm(target, "f32", name="gemm_fp32"),
                  make_gemm(target, "f32", name="gemm_fp32_any", any_shape=True),
                  make_gemm(target, "f16", bias=True, activation="gelu", name="gemm_bias_gelu")):
            if argus.verifier_available():
                print(target, k.name, k.verify().summary())
            print(" ", len(k.compile().asm), "bytes of", target, "assembly")
