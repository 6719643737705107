"""2-D convolution (3x3 by default, any window, stride, padding and
dilation) as an implicit GEMM, in the argus DSL without a layout string:
``Y = act(conv2d(X, W) [+ bias])``.

Tensors are channels-last, as PyTorch's ``channels_last`` memory format
keeps them: X is (N, H, W, C); the weights are (CO, KH * KW * C) (a
channels-last ``w`` of shape (CO, C, KH, KW) is ``w.permute(0, 2, 3, 1)``,
contiguous, seen as a matrix); Y is the (N * OH * OW, CO) matrix of a
channels-last (N, OH, OW, CO) output.

``argus.im2col`` reads the tiles of the im2col matrix straight from X
(zeros in the padding), so the kernel is the tutorial GEMM with A replaced
by it and B by the transposed weight tile; the matrix is never built. The
verifier proves that every (tap, channel) index k in [0, KH * KW * C)
reaches every output element once, that A's k meets the weights' k, that
each output position and channel goes where its tags say, and that no
access leaves the tensors.

    PYTHONPATH=build/python:python python3 examples/python/conv2d.py
"""

import argus

# (instruction, warp grid, (TM, TN, TK)) per target family and input type.
CONFIGS = {
    ("sm_90", "f16"): ("mma.m16n8k16.f32.f16", (2, 2), (64, 64, 32)),
    ("sm_90", "bf16"): ("mma.m16n8k16.f32.bf16", (2, 2), (64, 64, 32)),
    ("sm_90", "f32"): ("mma.m16n8k8.f32.tf32", (2, 2), (64, 64, 32)),
    ("gfx942", "f16"): ("v_mfma_f32_32x32x8_f16", (2, 2), (64, 64, 32)),
    ("gfx942", "bf16"): ("v_mfma_f32_32x32x8_bf16", (2, 2), (64, 64, 32)),
    ("gfx942", "f32"): ("v_mfma_f32_32x32x2_f32", (2, 2), (64, 64, 16)),
}


def make_conv2d(target: str = "sm_90", dtype: str = "f16", window=(3, 3), stride: int = 1,
                padding: int = 1, dilation: int = 1, bias: bool = False,
                activation: str = None, name: str = None, any_channels: bool = False,
                stages: int = 1, tile=None, warps=None, wait: int = None,
                swizzle: bool = False, min_blocks_per_sm: int = 0):
    """Y (N * OH * OW x CO) = activation(conv2d(X, W) [+ bias (CO)]).

    The weights' and Y's rows move as 16-byte vectors, which needs C and CO
    to be multiples of 16 bytes' worth of elements (a stated precondition);
    ``any_channels=True`` moves them element by element, for every C and
    CO (an RGB input layer). X's tiles are read in 16-byte vectors where a
    run of channels allows it (checked at run time), else element by
    element.

    ``stages=S`` (S >= 2) pipelines the k loop (``argus.pipeline``): S
    shared stages filled by cp.async (``copy_async``: 16-byte runs that
    exist, zero-filled in the padding and past the matrix), slab kt + S - 1
    issued while slab kt is multiplied. The issues past the last slab read
    nothing (the views are clipped), so any K works. ``tile=(TM, TN,
    TK)`` and ``warps=(WM, WN)`` override the target's defaults (the grid
    is then cdiv(P, TM) x cdiv(CO, TN)). ``wait`` overrides the loop's
    wait_group depth (S - 2, 0 for one stage; a planted mistake when larger).
    ``swizzle=True`` lays the shared tiles out with ``argus.swizzled_rows``
    (16-byte chunks XORed with the row), so fragment loads do not conflict.
    ``min_blocks_per_sm`` (NVPTX) asks ptxas for that many resident blocks,
    capping registers."""
    family = "gfx942" if target.startswith("gfx") else "sm_90"
    instr, warps0, tile0 = CONFIGS[(family, dtype)]
    warps = tuple(warps or warps0)
    TM, TN, TK = tile or tile0
    S = stages
    if S < 1:
        raise argus.ArgusError(f"stages must be at least 1, got {S}")
    mma = argus.tiled_mma(instr, warps=warps, tile=(TM, TN, TK))
    KH, KW = window
    act = getattr(argus, activation) if activation else None
    vec = 16 // (4 if dtype == "f32" else 2)
    scalar = (lambda shape, ty: argus.copy_layout(shape, ty, mma.threads, vector=1)) \
        if any_channels else (lambda shape, ty: None)

    def body(X, Wt, Y, Bias):
        N, H, W, C = X.dim("N"), X.dim("H"), X.dim("W"), X.dim("C")
        CO, K = Wt.dim("CO"), Wt.dim("K")
        argus.assume((H < 2 ** 22) & (W < 2 ** 22) & (C < 2 ** 22 // (KH * KW)),
                     "sizes in the index range")
        argus.assume((H + 2 * padding >= dilation * (KH - 1) + 1) &
                     (W + 2 * padding >= dilation * (KW - 1) + 1),
                     "the dilated window fits in the padded input")
        OH = argus.conv_output_size(H, KH, stride, padding, dilation)
        OW = argus.conv_output_size(W, KW, stride, padding, dilation)
        argus.assume(N <= 2 ** 22 // OH // OW, "N * OH * OW output positions in the index range")
        P = Y.dim("P")
        argus.assume(P.eq(N * OH * OW) & Y.dim("CO").eq(CO) & K.eq(KH * KW * C),
                     "Y is the (N * OH * OW, CO) output; W is (CO, KH * KW * C)")
        argus.assume(argus.grid_dim("y").eq(argus.cdiv(P, TM)) &
                     argus.grid_dim("x").eq(argus.cdiv(CO, TN)),
                     "one block per output tile, boundary tiles included")
        if not any_channels:
            argus.assume((C % vec).eq(0) & (CO % vec).eq(0),
                         f"rows of W and Y are whole 16-byte vectors (C, CO multiples of {vec})")
        p0 = argus.block_id("y") * TM
        n0 = argus.block_id("x") * TN
        sa = argus.alloc((TM, TK), dtype, argus.swizzled_rows((TM, TK), dtype) if swizzle else None,
                         name="sA", stages=S)
        sb = argus.alloc((TN, TK), dtype, argus.swizzled_rows((TN, TK), dtype) if swizzle else None,
                         name="sB", stages=S)
        ktiles = argus.cdiv(K, TK)

        def load(kidx, st):
            k0 = kidx * TK
            ga = argus.tag(argus.im2col(X, (p0, k0), (TM, TK), window=window, stride=stride,
                                        padding=padding, dilation=dilation),
                           lambda m, k: (p0 + m, k0 + k))
            gb = argus.tag(argus.view(Wt, (n0, k0), (TN, TK), clipped=True),
                           lambda n, k: (n0 + n, k0 + k))
            argus.copy_async(ga, sa[st], threads=scalar((TM, TK), dtype))
            argus.copy_async(gb, sb[st], threads=scalar((TN, TK), dtype))

        def compute(kidx, st, acc):
            acc = argus.mma(instr, argus.load(sa[st], layout=mma.a),
                            argus.load(argus.transpose(sb[st]), layout=mma.b), acc)
            argus.tag_assert(acc, "a.k == b.k && a.m == acc.m && b.n == acc.n")
            return acc

        acc = argus.tag(argus.zeros((TM, TN), "f32", mma.c), lambda m, n: (p0 + m, n0 + n))
        y = argus.pipeline(ktiles, load, compute, carry=acc, stages=S, wait=wait)
        if Bias is not None:
            gbias = argus.tag(argus.view(Bias, (n0,), (TN,), clipped=True), lambda n: (n0 + n,))
            bv = argus.load(gbias, layout=argus.reduce_layout(mma.c, (TM, TN), 0))
            y = y + argus.broadcast(argus.convert(bv, "f32"), 0, like=y)
            argus.tag_assert(y, "lhs.n == rhs.n")
        if act is not None:
            y = act(y)
        gy = argus.tag(argus.view(Y, (p0, n0), (TM, TN), clipped=True),
                       lambda m, n: (p0 + m, n0 + n))
        y = argus.convert(y, dtype) if dtype != "f32" else y
        if any_channels:
            y = argus.convert_layout(y, scalar((TM, TN), dtype))
        argus.store(y, gy)
        argus.tag_assert("value.m == dest.m && value.n == dest.n")

    kname = name or f"conv2d_{dtype}" + ("_bias" if bias else "") + (f"_{activation}" if act else "") \
        + (f"_s{S}" if S > 1 else "")
    if bias:
        @argus.kernel(target=target, block=mma.threads, name=kname,
                      min_blocks_per_sm=min_blocks_per_sm)
        def conv2d(X: argus.Tensor[("N", "H", "W", "C"), dtype],
                   Wt: argus.Tensor[("CO", "K"), dtype], Y: argus.Tensor[("P", "CO"), dtype],
                   Bias: argus.Tensor[("CO",), dtype]):
            body(X, Wt, Y, Bias)
    else:
        @argus.kernel(target=target, block=mma.threads, name=kname,
                      min_blocks_per_sm=min_blocks_per_sm)
        def conv2d(X: argus.Tensor[("N", "H", "W", "C"), dtype],
                   Wt: argus.Tensor[("CO", "K"), dtype], Y: argus.Tensor[("P", "CO"), dtype]):
            body(X, Wt, Y, None)
    return conv2d


conv3x3 = make_conv2d(name="conv3x3_f16")
conv3x3_bias_relu = make_conv2d(bias=True, activation="relu", name="conv3x3_f16_bias_relu")
conv3x3_any = make_conv2d(name="conv3x3_f16_any", any_channels=True)


def reference(x, w, b=None, stride=1, padding=1, dilation=1):
    """The convolution in numpy (fp64), x (N, H, W, C), w (CO, KH, KW, C):
    Y as the (N * OH * OW, CO) matrix."""
    import numpy as np
    n, h, wd, c = x.shape
    co, kh, kw, _ = w.shape
    oh = (h + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    xp = np.zeros((n, h + 2 * padding, wd + 2 * padding, c))
    xp[:, padding:padding + h, padding:padding + wd] = x
    y = np.zeros((n, oh, ow, co))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, i * dilation:i * dilation + stride * (oh - 1) + 1:stride,
                       j * dilation:j * dilation + stride * (ow - 1) + 1:stride]
            y += patch.astype(np.float64) @ w[:, i, j, :].astype(np.float64).T
    if b is not None:
        y += b
    return y.reshape(n * oh * ow, co)


if __name__ == "__main__":
    for target in ("sm_90", "gfx942"):
        for k in (make_conv2d(target, name="conv3x3_f16"),
                  make_conv2d(target, bias=True, activation="relu", name="conv3x3_f16_bias_relu"),
                  make_conv2d(target, name="conv3x3_f16_any", any_channels=True)):
            if argus.verifier_available():
                print(target, k.name, k.verify().summary())
            print(" ", len(k.compile().asm), "bytes of", target, "assembly")
