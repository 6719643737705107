"""Flash-attention forward (one head, D = 64) on MI300X (gfx942): the Python
twin of examples/flash_attention_fwd.mlir.

O = softmax(Q K^T / sqrt(D)) V with an online softmax: a 256-thread block
(4 waves stacked along the query rows) owns 128 query rows and streams over
the keys 64 at a time.
"""

import argus

MFMA = "v_mfma_f32_32x32x8_f16"
FQ = argus.frag(MFMA, "a", warps=(4, 1))
FKT = argus.frag(MFMA, "b", warps=(4, 1))
FC = argus.frag(MFMA, "c", warps=(4, 1))
ROWS = "((64,4),32):((0,32),1)"
COPY64 = "((8,32),(8,2)):((512,1),(64,32))"
COPY128 = "((8,32),(8,4)):((1024,1),(128,32))"


@argus.kernel(target="gfx942", block=256)
def flash_attention_fwd(Q: argus.Tensor[("S", 64), "f16"], K: argus.Tensor[("S", 64), "f16"],
                        V: argus.Tensor[("S", 64), "f16"], O: argus.Tensor[("S", 64), "f16"],
                        S: argus.index):
    # The grid covers the S queries with 128-row blocks (the annotations
    # already make every tensor's rows S).
    argus.assume(S.eq(argus.grid_dim("x") * 128), "S = 128 * grid_dim.x")
    q0 = argus.block_id("x") * 128
    nblocks = S // 64
    sq = argus.alloc((128, 64), "f16", name="sQ")[0]
    sk = argus.alloc((64, 64), "f16", name="sK")[0]
    sv = argus.alloc((64, 64), "f16", name="sV")[0]

    with argus.region("load_q"):
        gq = argus.tag(argus.view(Q, (q0, 0), (128, 64)), lambda m, d: (q0 + m, d))
        argus.copy(gq, sq, threads=COPY128)
        argus.barrier()
        qf = argus.load(sq, layout=FQ)

    m_i = argus.tag(argus.fill(float("-inf"), (128,), "f32", ROWS), lambda m: q0 + m)
    l_i = argus.tag(argus.zeros((128,), "f32", ROWS), lambda m: q0 + m)
    o_i = argus.tag(argus.zeros((128, 64), "f32", FC), lambda m, d: (q0 + m, d))

    with argus.region("kv_loop"):
        loop = argus.range(0, nblocks, carry=(m_i, l_i, o_i), name="j")
        for j, (m_i, l_i, o_i) in loop:
            n0 = j * 64
            with argus.region("load_kv"):
                gk = argus.tag(argus.view(K, (n0, 0), (64, 64)), lambda n, d: (n0 + n, d))
                gv = argus.tag(argus.view(V, (n0, 0), (64, 64)), lambda n, d: (n0 + n, d))
                argus.copy(gk, sk, threads=COPY64)
                argus.copy(gv, sv, threads=COPY64)
                argus.barrier()

            with argus.region("qk"):
                ktf = argus.load(argus.transpose(sk), layout=FKT)
                s0 = argus.tag(argus.zeros((128, 64), "f32", FC), lambda m, n: (q0 + m, n0 + n))
                s = argus.mma(MFMA, qf, ktf, s0)
                argus.tag_assert(s, "a.d == b.d && a.m == acc.m && b.n == acc.n")
                s = s * 0.125

            with argus.region("softmax"):
                mt = argus.reduce(s, "max", 1, layout=ROWS)
                m_new = argus.maximum(m_i, mt)
                argus.tag_assert(m_new, "lhs.m == rhs.m")
                d = s - argus.broadcast(m_new, 1, like=s)
                argus.tag_assert(d, "lhs.m == rhs.m")
                p = argus.exp(d)
                alpha = argus.exp(m_i - m_new)
                l_new = l_i * alpha + argus.reduce(p, "sum", 1, layout=ROWS)
                argus.tag_assert(l_new, "lhs.m == rhs.m")

            with argus.region("pv"):
                os_ = o_i * argus.broadcast(alpha, 1, like=o_i)
                argus.tag_assert(os_, "lhs.m == rhs.m")
                p16 = argus.convert(argus.convert_layout(p, FQ), "f16")
                vf = argus.load(sv, layout=FKT)
                o_new = argus.mma(MFMA, p16, vf, os_)
                argus.tag_assert(o_new, "a.n == b.n && a.m == acc.m && b.d == acc.d")
            argus.barrier()
            loop.carry(m_new, l_new, o_new)
        m_i, l_i, o_i = loop.results

    with argus.region("epilogue"):
        on = o_i / argus.broadcast(l_i, 1, like=o_i)
        argus.tag_assert(on, "lhs.m == rhs.m")
        o16 = argus.convert(on, "f16")
        go = argus.tag(argus.view(O, (q0, 0), (128, 64)), lambda m, d: (q0 + m, d))
        argus.store(o16, go)
        argus.tag_assert("value.m == dest.m && value.d == dest.d")


if __name__ == "__main__":
    print(flash_attention_fwd.ir())
    if argus.verifier_available():
        print(flash_attention_fwd.verify().summary())
