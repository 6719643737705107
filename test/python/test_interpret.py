"""The CPU interpreter (argus.interpret, lib/Interpret): the example kernels
run on numpy arrays and match numpy references (bitwise where the order of
operations is fixed, else within the stated tolerance), launches route to it
(interpret=True, ARGUS_INTERPRET=1, the KernelBench executor), and errors
name the op, its location and the block."""

import os
import pathlib
import sys

import numpy as np
import pytest

import argus
from argus import ir

pytestmark = pytest.mark.skipif(ir._argus is None or not hasattr(ir._argus, "interpret_run"),
                                reason="_argus built without lib/Interpret")

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))

import argus.interpret as ai  # noqa: E402


def rng(seed=0):
    return np.random.default_rng(seed)


def f32_gemm_in_k_order(a, b, c0=None):
    """C = A @ B with f32 accumulation in k order (the interpreter's mma)."""
    a = a.astype(np.float32)
    b = b.astype(np.float32)
    c = np.zeros((a.shape[0], b.shape[1]), np.float32) if c0 is None else c0.astype(np.float32)
    for k in range(a.shape[1]):
        c = (c.astype(np.float64) + a[:, k:k + 1].astype(np.float64) * b[k:k + 1, :]).astype(
            np.float32)
    return c


# --- rounding -----------------------------------------------------------------


def test_bf16_bits_roundtrip():
    exact = np.array([1.0, 1.0078125, -3.5, 65536.0])
    assert np.array_equal(ai.bf16_bits_to_float(ai.float_to_bf16_bits(exact)), exact)


def make_roundtrip(dt):
    @argus.kernel(target="sm_90a", block=128, name=f"roundtrip_{dt}")
    def rt(X: argus.Tensor[("M", 128), "f32"], Y: argus.Tensor[("M", 128), "f32"]):
        argus.assume(argus.grid_dim("x").eq(argus.cdiv(X.dim("M"), 4)), "4 rows per block")
        m0 = argus.block_id("x") * 4
        x = argus.load(argus.view(X, (m0, 0), (4, 128), clipped=True))
        argus.store(argus.convert(argus.convert(x, dt), "f32"),
                    argus.view(Y, (m0, 0), (4, 128), clipped=True))
    return rt


def round_e4m3(x):
    a = np.abs(x.astype(np.float64))
    e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    q = np.exp2(np.maximum(e, -6) - 3)
    return np.sign(x) * np.round(a / q) * q


def tricky_values():
    """Ties (to even), subnormals and ordinary values of f16, bf16 and e4m3."""
    ties = [1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8,
            1 + 2.0 ** -4, 1 + 3 * 2.0 ** -4, 2.0 ** -25, 3 * 2.0 ** -25, 2.0 ** -10,
            2.0 ** -7 * 1.5, 2.0 ** -10 * 1.5, 300.0, 0.0, -0.0]
    r = rng(99).standard_normal(512 - 2 * len(ties)) * 20
    return np.concatenate([ties, [-t for t in ties], r]).astype(np.float32).reshape(4, 128)


@pytest.mark.parametrize("dt", ["f16", "bf16", "f8E4M3FN"])
def test_convert_rounds_to_nearest_even(dt):
    from argus.compile import float_to_bf16_bits
    X = tricky_values()
    Y = np.zeros_like(X)
    ai.run(make_roundtrip(dt), X, Y, grid=(1,))
    if dt == "f16":
        ref = X.astype(np.float16).astype(np.float32)
    elif dt == "bf16":
        ref = ai.bf16_bits_to_float(float_to_bf16_bits(X)).astype(np.float32)
    else:
        ref = round_e4m3(np.clip(X, -448, 448)).astype(np.float32)
    assert np.array_equal(Y, ref), np.argwhere(Y != ref)[:5]


# --- example kernels ------------------------------------------------------------


def test_gemm_mfma_matches_k_order_f32_bitwise():
    from gemm import gemm_mfma
    r = rng(1)
    M, N, K = 128, 256, 64
    A = r.standard_normal((M, K)).astype(np.float16)
    B = r.standard_normal((K, N)).astype(np.float16)
    C = np.full((M, N), np.nan, np.float32)
    res = ai.run(gemm_mfma, A, B, C, K, grid=(2, 1))
    assert res.written == ["C"]
    assert np.array_equal(C, f32_gemm_in_k_order(A, B))


def test_gemm_grid_rule_and_interpret_flag():
    from gemm import gemm_mfma
    r = rng(2)
    M, N, K = 128, 128, 32
    A = r.standard_normal((M, K)).astype(np.float16)
    B = r.standard_normal((K, N)).astype(np.float16)
    C = np.zeros((M, N), np.float32)
    res = gemm_mfma[None](A, B, C, K, interpret=True)  # the grid from the kernel's assumptions
    assert res.report["launch"] == "argus.interpret"
    assert res.outputs["C"] is C
    assert np.array_equal(C, f32_gemm_in_k_order(A, B))


def test_interpret_launch_refuses_runtime_options():
    from gemm import gemm_mfma
    A = np.zeros((128, 32), np.float16)
    B = np.zeros((32, 128), np.float16)
    C = np.zeros((128, 128), np.float32)
    with pytest.raises(argus.ArgusError, match="probes: not available in the interpreter"):
        gemm_mfma[(1, 1)](A, B, C, 32, interpret=True, probes=True)


def test_argus_interpret_env_routes_launch(monkeypatch):
    from gemm import gemm_mfma
    monkeypatch.setenv("ARGUS_INTERPRET", "1")
    r = rng(3)
    A = r.standard_normal((128, 32)).astype(np.float16)
    B = r.standard_normal((32, 128)).astype(np.float16)
    C = np.zeros((128, 128), np.float32)
    gemm_mfma[(1, 1)](A, B, C, 32)
    assert np.array_equal(C, f32_gemm_in_k_order(A, B))


def test_assumption_violation_is_an_error():
    from gemm import gemm_mfma
    A = np.zeros((128, 32), np.float16)
    B = np.zeros((32, 128), np.float16)
    C = np.zeros((128, 128), np.float32)
    with pytest.raises(ai.InterpretError, match="argus.assume.*K a multiple of 32|"
                       "assumption"):
        ai.run(gemm_mfma, A, B, C, 31, grid=(1, 1))


def test_softmax_clipped_rows():
    from softmax import softmax
    r = rng(4)
    X = r.standard_normal((100, 128)).astype(np.float32)  # 100: the last tile is clipped
    Y = np.full_like(X, np.nan)
    ai.run(softmax, X, Y, grid=(2,))
    x = X.astype(np.float64)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(Y, e / e.sum(1, keepdims=True), rtol=2e-6, atol=1e-7)


def test_softmax_any_other_is_minus_inf():
    from softmax import softmax_any
    r = rng(5)
    X = r.standard_normal((5, 300)).astype(np.float32)
    Y = np.zeros_like(X)
    ai.run(softmax_any, X, Y, grid=(3,))
    x = X.astype(np.float64)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(Y, e / e.sum(1, keepdims=True), rtol=2e-6, atol=1e-7)


def test_layernorm_and_rmsnorm_scalar_argument():
    from softmax import layernorm, rmsnorm
    r = rng(6)
    X = r.standard_normal((40, 256)).astype(np.float32)
    Y = np.zeros_like(X)
    ai.run(layernorm, X, Y, 1e-5, grid=(2,))
    x = X.astype(np.float64)
    ref = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(Y, ref, rtol=1e-4, atol=1e-5)
    W = r.standard_normal(256).astype(np.float32)
    ai.run(rmsnorm, X, W, Y, 1e-5, grid=(2,))
    ref = x / np.sqrt((x * x).mean(1, keepdims=True) + 1e-5) * W
    np.testing.assert_allclose(Y, ref, rtol=1e-4, atol=1e-5)


def test_column_sum_atomic_add_over_blocks():
    from column_sum import column_sum, reference
    r = rng(7)
    X = r.standard_normal((300, 200)).astype(np.float32)
    S = np.zeros(200, np.float32)
    column_sum[None](X, S, interpret=True)
    np.testing.assert_allclose(S, reference(X), rtol=1e-5, atol=1e-4)


def test_cumsum_rows_bitwise_sequential():
    from cumsum import cumsum_rows
    r = rng(8)
    X = r.standard_normal((20, 128)).astype(np.float32)
    Y = np.zeros_like(X)
    cumsum_rows[None](X, Y, interpret=True)
    ref = np.zeros_like(X)
    acc = np.zeros(20, np.float32)
    for j in range(128):  # the interpreter scans in order, rounding to f32 each step
        acc = (acc + X[:, j]).astype(np.float32)
        ref[:, j] = acc
    assert np.array_equal(Y, ref)


def test_gemm_epilogue_bias_gelu_f16():
    from gemm_epilogue import gemm_bias_gelu
    from scipy_free_gelu import gelu
    r = rng(9)
    M, N, K = 70, 80, 48
    A = (r.standard_normal((M, K)) * 0.5).astype(np.float16)
    B = (r.standard_normal((K, N)) * 0.5).astype(np.float16)
    Bias = r.standard_normal(N).astype(np.float16)
    C = np.zeros((M, N), np.float16)
    gemm_bias_gelu[None](A, B, C, Bias, interpret=True)
    ref = gelu(A.astype(np.float64) @ B.astype(np.float64) + Bias.astype(np.float64))
    np.testing.assert_allclose(C.astype(np.float64), ref, rtol=2e-3, atol=2e-3)


def test_gemm_fp32_tf32_rounding():
    from gemm_epilogue import gemm_fp32
    r = rng(10)
    M, N, K = 64, 64, 32
    A = r.standard_normal((M, K)).astype(np.float32)
    B = r.standard_normal((K, N)).astype(np.float32)
    C = np.zeros((M, N), np.float32)
    gemm_fp32[None](A, B, C, interpret=True)
    exact = A.astype(np.float64) @ B.astype(np.float64)
    err = np.abs(C - exact).max()
    assert err < 5e-2  # tf32 operands: about 2^-11 relative per product
    assert err > 1e-5  # and not full f32 precision: the operands were rounded


def test_conv2d_im2col():
    from conv2d import conv3x3, reference
    r = rng(11)
    n, h, w, c, co = 2, 6, 5, 16, 32
    X = r.standard_normal((n, h, w, c)).astype(np.float16)
    Wt4 = r.standard_normal((co, 3, 3, c)).astype(np.float16)
    Wt = Wt4.reshape(co, 9 * c)
    Y = np.zeros((n * h * w, co), np.float16)
    conv3x3[None](X, Wt, Y, interpret=True)
    ref = reference(X, Wt4)
    np.testing.assert_allclose(Y.astype(np.float64), ref, rtol=2e-3, atol=2e-2)


def flash_reference(q, k, v, scale=0.125):
    s = q.astype(np.float64) @ k.astype(np.float64).T * scale
    p = np.exp(s - s.max(1, keepdims=True))
    return (p / p.sum(1, keepdims=True)) @ v.astype(np.float64)


def test_flash_attention_fwd():
    from flash_attention import flash_attention_fwd
    r = rng(12)
    S = 256
    Q, K, V = (r.standard_normal((S, 64)).astype(np.float16) for _ in range(3))
    O = np.zeros((S, 64), np.float16)
    ai.run(flash_attention_fwd, Q, K, V, O, S, grid=(2,))
    np.testing.assert_allclose(O.astype(np.float64), flash_reference(Q, K, V), atol=4e-3)


# --- MLIR examples ----------------------------------------------------------------


def test_mlir_gemm_mfma_file():
    r = rng(13)
    M, N, K = 128, 128, 64
    A = r.standard_normal((M, K)).astype(np.float16)
    B = r.standard_normal((K, N)).astype(np.float16)
    C = np.zeros((M, N), np.float32)
    ai.run(str(ROOT / "examples" / "gemm_mfma.mlir"), A, B, C, K, grid=(1, 1))
    assert np.array_equal(C, f32_gemm_in_k_order(A, B))


@pytest.mark.parametrize("name,tm,tn", [("gemm_pipelined_2stage.mlir", 64, 64),
                                         ("gemm_pipelined_3stage.mlir", 64, 64),
                                         ("gemm_wgmma.mlir", 64, 128)])
def test_mlir_gemms(name, tm, tn):
    """cp.async pipelines (commit/wait groups, stages) and wgmma, bitwise."""
    r = rng(14)
    M, N, K = 2 * tm, 2 * tn, 128
    A = r.standard_normal((M, K)).astype(np.float16)
    B = r.standard_normal((K, N)).astype(np.float16)
    C = np.zeros((M, N), np.float32)
    ai.run(str(ROOT / "examples" / name), A, B, C, K, grid=(2, 2))
    assert np.array_equal(C, f32_gemm_in_k_order(A, B))


def test_mlir_flash_attention_fwd():
    r = rng(15)
    S = 256
    Q, K, V = (r.standard_normal((S, 64)).astype(np.float16) for _ in range(3))
    O = np.zeros((S, 64), np.float16)
    ai.run(str(ROOT / "examples" / "flash_attention_fwd.mlir"), Q, K, V, O, S, grid=(2,))
    np.testing.assert_allclose(O.astype(np.float64), flash_reference(Q, K, V), atol=4e-3)


def test_mlir_moe_grouped_gemm_gather_bf16():
    r = rng(16)
    T, N, E = 100, 64, 2
    X = r.standard_normal((T, 4096)).astype(np.float32)
    W = (r.standard_normal((E * 4096, N)) * 0.05).astype(np.float32)
    # Tokens sorted by expert, padded to 64-row blocks by repeating a token
    # of the same expert (the scatter writes the same value again).
    expert = r.integers(0, E, T)
    ids, blocks = [], []
    for e in range(E):
        toks = list(np.nonzero(expert == e)[0])
        while len(toks) % 64:
            toks.append(toks[-1])
        ids += toks
        blocks += [e] * (len(toks) // 64)
    sorted_ids = np.array(ids, np.int32)
    block_expert = np.array(blocks, np.int32)
    Xb = ai.float_to_bf16_bits(ai.bf16_bits_to_float(ai.float_to_bf16_bits(X)))
    Wb = ai.float_to_bf16_bits(W)  # truncated to bf16: the test's inputs, exact
    Y = np.zeros((T, N), np.float32)
    ai.run(str(ROOT / "examples" / "moe_grouped_gemm.mlir"), Xb, Wb, Y, sorted_ids,
           block_expert, grid=(1, len(blocks)))
    xf, wf = ai.bf16_bits_to_float(Xb), ai.bf16_bits_to_float(Wb)
    for t in range(T):
        e = expert[t]
        ref = xf[t] @ wf[e * 4096:(e + 1) * 4096]
        np.testing.assert_allclose(Y[t], ref, rtol=1e-4, atol=1e-3)


def test_unsupported_op_names_op_and_location():
    """Clusters (multicast TMA, cluster arrivals) are not interpreted: a
    located error naming the op and the block, never a silent skip."""
    text = (ROOT / "examples" / "sm90a" / "gemm_tma_cluster_ws.mlir").read_text()
    sig = ir._argus.interpret_signature(text)
    r = rng(23)
    M, N, K = 256, 256, 64
    shapes = {0: (M, K), 1: (K, N), 2: (M, N)}
    args = [np.zeros(shapes[i], np.uint16) if kind == "buffer" else {3: M, 4: N, 5: K}[i]
            for i, (kind, elt, rank) in enumerate(sig)]
    with pytest.raises(ai.InterpretError,
                       match=r"'gpu\.cluster_id' at loc\(.*:\d+:\d+\): "
                       r".*not support.*\(block \(0, 0, 0\)\)"):
        ai.run(text, *args, grid=(2,))


def test_step_budget_stops_the_run():
    from gemm import gemm_mfma
    A = np.zeros((128, 3200), np.float16)
    B = np.zeros((3200, 128), np.float16)
    C = np.zeros((128, 128), np.float32)
    with pytest.raises(ai.InterpretError, match="step budget"):
        ai.run(gemm_mfma, A, B, C, 3200, grid=(1, 1), step_budget=100)


# --- torch and the KernelBench executor ---------------------------------------------


def test_torch_cpu_tensors_in_place():
    torch = pytest.importorskip("torch")
    from softmax import softmax
    X = torch.randn(64, 128)
    Y = torch.zeros(64, 128)
    softmax[(1,)](X, Y, interpret=True)
    torch.testing.assert_close(Y, torch.softmax(X.double(), 1).float(), rtol=2e-6, atol=1e-7)


def test_torch_bf16_tensor_written_back():
    torch = pytest.importorskip("torch")
    import interp_bf16_kernel as m
    X = torch.randn(4, 128).to(torch.bfloat16)
    Y = torch.zeros(4, 128, dtype=torch.bfloat16)
    ai.run(m.scale2, X, Y, grid=(1,))
    assert torch.equal(Y, X * 2)


@pytest.fixture
def kb_env(tmp_path, monkeypatch, need_verifier):
    pytest.importorskip("torch")
    import test_kernelbench as kb

    def make(solution, n=4096):
        t = tmp_path / "task.py"
        t.write_text(kb.TASK.format(N=n))
        s = tmp_path / f"sol_{abs(hash(solution))}.py"
        s.write_text(solution)
        return str(t), str(s)
    return make


def test_kernelbench_cpu_executor_checks_correctness(kb_env, monkeypatch):
    import test_kernelbench as kb
    from argus.kernelbench import Options, evaluate, executors
    monkeypatch.delenv("ARGUS_KB_EXECUTOR", raising=False)
    # The interpreter is the default CPU executor once it is importable.
    assert executors.cpu_executor_spec() == "argus.interpret:kernelbench_execute"
    task, sol = kb_env(kb.HONEST)
    rec = evaluate(task, sol, Options(seeds=2, executor="argus.interpret:kernelbench_execute",
                                      timeout_s=120))
    assert rec["accepted"] and rec["correct"] is True, "\n".join(rec["reasons"])
    # A kernel that computes x + 2 for the model's x + 1 is caught by value.
    wrong = kb.HONEST.replace("argus.load(gx) + 1.0", "argus.load(gx) + 2.0")
    task, sol = kb_env(wrong)
    monkeypatch.setenv("ARGUS_KB_EXECUTOR", "argus.interpret:kernelbench_execute")
    rec = evaluate(task, sol, Options(seeds=2, timeout_s=120))
    assert rec["correct"] is False and not rec["accepted"]


# --- Hopper: warp roles, mbarrier rings, TMA, async wgmma ---------------------------


def bf16_inputs(r, *shape, scale=1.0):
    """Random bf16 bit patterns (exact bf16 values) and their float64 values."""
    bits = ai.float_to_bf16_bits((r.standard_normal(shape) * scale).astype(np.float32))
    return bits, ai.bf16_bits_to_float(bits)


@pytest.mark.parametrize("name", ["gemm_tma_ws.mlir", "gemm_tma_store_ws.mlir"])
@pytest.mark.parametrize("seed", [0, 7])
def test_hopper_ws_gemm_roles_and_schedules(name, seed):
    """Producer and consumer roles through mbarrier rings, persistent over a
    grid smaller than the tile count, clipped edges; every schedule seed gives
    the same (bf16-rounded) result."""
    r = rng(20)
    M, N, K = 200, 296, 136
    A, a = bf16_inputs(r, M, K)
    B, b = bf16_inputs(r, K, N)
    C = np.zeros((M, N), np.uint16)
    ai.run(str(ROOT / "examples" / "sm90a" / name), A, B, C, M, N, K, grid=(3,),
           schedule_seed=seed)
    ref = f32_gemm_in_k_order(a, b)
    expected = ai.bf16_bits_to_float(ai.float_to_bf16_bits(ref))  # truncation vs RNE: 1 ulp
    got = ai.bf16_bits_to_float(C)
    np.testing.assert_allclose(got, ref, rtol=2 ** -7, atol=1e-6)
    assert np.abs(got - expected).max() <= np.abs(expected).max() * 2 ** -7


def test_hopper_flash_attention_ws():
    r = rng(21)
    H, S, D = 2, 256, 128
    Q, q = bf16_inputs(r, H * S, D)
    K, k = bf16_inputs(r, H * S, D)
    V, v = bf16_inputs(r, H * S, D)
    O = np.zeros((H * S, D), np.uint16)
    LSE = np.zeros(H * S, np.float32)
    ai.run(str(ROOT / "examples" / "sm90a" / "flash_attention_ws.mlir"), Q, K, V, O, LSE, S,
           grid=(S // 128, H))
    for h in range(H):
        rows = slice(h * S, (h + 1) * S)
        s = q[rows] @ k[rows].T / np.sqrt(D)
        mx = s.max(1, keepdims=True)
        p = np.exp(s - mx)
        np.testing.assert_allclose(ai.bf16_bits_to_float(O[rows]),
                                   (p / p.sum(1, keepdims=True)) @ v[rows], atol=2e-2)
        np.testing.assert_allclose(LSE[rows], (mx + np.log(p.sum(1, keepdims=True)))[:, 0],
                                   rtol=1e-4, atol=1e-3)


def test_hopper_deadlock_names_roles_ops_and_iterations():
    """The consumer waits for the wrong phase parity of the full ring: no role
    can run, and the error says which role waits where, at which iteration."""
    text = (ROOT / "examples" / "sm90a" / "gemm_tma_ws.mlir").read_text()
    bad = text.replace("argus.mbarrier.wait %full[%s], %phase : !Ring",
                       "argus.mbarrier.wait %full[%s], %free : !Ring", 1)
    assert bad != text
    bad = bad.replace("%round = arith.divui %i, %c4 : index\n        %phase = arith.remui "
                      "%round, %c2 : index\n        argus.mbarrier.wait %full",
                      "%round = arith.divui %i, %c4 : index\n        %phase = arith.remui "
                      "%round, %c2 : index\n        %free = arith.subi %c1, %phase : index\n"
                      "        argus.mbarrier.wait %full")
    r = rng(22)
    M, N, K = 128, 256, 256
    A, _ = bf16_inputs(r, M, K)
    B, _ = bf16_inputs(r, K, N)
    C = np.zeros((M, N), np.uint16)
    with pytest.raises(ai.InterpretError) as info:
        ai.run(bad, A, B, C, M, N, K, grid=(1,))
    msg = str(info.value)
    assert "deadlock" in msg and "role 'consumer' waits at 'argus.mbarrier.wait'" in msg
    # The producer filled all four stages (phase 0 of each full barrier) and
    # finished; the consumer waits for phase 1 at its first tile and k step.
    assert "producer" not in msg
    assert "full[0] parity 1" in msg and "loop iterations [0, 0]" in msg
    assert "gpu" not in msg and "(block (0, 0, 0))" in msg


def test_hopper_dsl_gemm_tma_ws():
    from gemm_tma_ws import gemm_tma_ws
    r = rng(24)
    M, N, K = 200, 296, 136
    A, a = bf16_inputs(r, M, K)
    B, b = bf16_inputs(r, K, N)
    C = np.zeros((M, N), np.uint16)
    gemm_tma_ws[(2,)](A, B, C, M, N, K, interpret=True)
    np.testing.assert_allclose(ai.bf16_bits_to_float(C), f32_gemm_in_k_order(a, b),
                               rtol=2 ** -7, atol=1e-6)


def test_hopper_dsl_flash_attention_ws():
    from flash_attention_ws import flash_attention_ws
    r = rng(25)
    H, S, D = 1, 256, 128
    Q, q = bf16_inputs(r, H * S, D)
    K, k = bf16_inputs(r, H * S, D)
    V, v = bf16_inputs(r, H * S, D)
    O = np.zeros((H * S, D), np.uint16)
    LSE = np.zeros(H * S, np.float32)
    ai.run(flash_attention_ws, Q, K, V, O, LSE, S, grid=(S // 128, H))
    s = q @ k.T / np.sqrt(D)
    p = np.exp(s - s.max(1, keepdims=True))
    np.testing.assert_allclose(ai.bf16_bits_to_float(O), (p / p.sum(1, keepdims=True)) @ v,
                               atol=2e-2)


@pytest.mark.parametrize("name,grid", [("moe_grouped_gemm_ws.mlir", (2, 1)),
                                       ("moe_grouped_gemm_persistent_ws.mlir", (1, 1))])
def test_hopper_moe_grouped_gemm_ws_toy(name, grid):
    """Weights through TMA and the mbarrier ring, token rows gathered with
    cp.async inside the consumer role, named barriers, scatter with routing
    weights: two position blocks of 128 rows (experts 1 and 0) and one
    256-column slab; the persistent kernel walks both work items in one block."""
    r = rng(26)
    T, N, E = 40, 256, 2
    X, x = bf16_inputs(r, T, 4096)
    W, w = bf16_inputs(r, E * 4096, N, scale=0.05)
    P = 256
    toks = r.permutation(T)
    rows = np.zeros(P, np.int32)
    rows[:T // 2], rows[128:128 + T // 2] = toks[:T // 2], toks[T // 2:]
    live = np.zeros(P, bool)
    live[:T // 2] = live[128:128 + T // 2] = True
    ids = np.where(live, rows, T + np.arange(P)).astype(np.int32)  # padding: spare rows
    weights = np.where(live, r.uniform(0.5, 1.5, P), 0).astype(np.float32)
    block_expert = np.array([1, 0], np.int32)
    Y = np.zeros((T + P, N), np.uint16)
    ai.run(str(ROOT / "examples" / "sm90a" / name), X, W, Y, rows, ids, weights, block_expert,
           grid=grid)
    got = ai.bf16_bits_to_float(Y)
    for p in np.nonzero(live)[0]:
        e = block_expert[p // 128]
        ref = weights[p] * (x[rows[p]] @ w[e * 4096:(e + 1) * 4096])
        np.testing.assert_allclose(got[ids[p]], ref, rtol=2 ** -7, atol=2e-3)
    assert np.all(got[T:] == 0)  # padding positions have weight 0


def test_uninitialised_shared_read_is_an_error():
    """The planted 2-stage pipeline bug: the copy goes to stage 0 and the
    load reads stage 1, which nothing wrote."""
    @argus.kernel(target="sm_90a", block=128, name="stale_stage")
    def stale(X: argus.Tensor[(32, 128), "f32"], Y: argus.Tensor[(32, 128), "f32"]):
        s = argus.alloc((32, 128), "f32", name="sX", stages=2)
        argus.copy(argus.view(X, (0, 0), (32, 128)), s[0])
        argus.barrier()
        argus.store(argus.load(s[1]), argus.view(Y, (0, 0), (32, 128)))
    X = np.ones((32, 128), np.float32)
    Y = np.zeros_like(X)
    with pytest.raises(ai.InterpretError,
                       match=r"'argus.load' at .*reads element \(0, 0\) of shared stage "
                       r"sX\[1\], which nothing wrote \(block \(0, 0, 0\)\)"):
        ai.run(stale, X, Y, grid=(1,))


@pytest.mark.parametrize("stages", [2, 3])
def test_dsl_pipelined_gemm_bitwise(stages):
    from pipelined_gemm import make_pipelined_gemm
    r = rng(30)
    M, N, K = 128, 64, 160
    A = r.standard_normal((M, K)).astype(np.float16)
    B = r.standard_normal((K, N)).astype(np.float16)
    C = np.zeros((M, N), np.float32)
    make_pipelined_gemm(stages)[(1, 2)](A, B, C, K, interpret=True)
    assert np.array_equal(C, f32_gemm_in_k_order(A, B))


def test_dsl_pipelined_gemm_wait_too_shallow_reads_stale_stage():
    """wait_group 2 in a 3-stage pipeline lets slab kt be read before its
    cp.async group landed: the first such read finds a stage nothing wrote."""
    from pipelined_gemm import make_pipelined_gemm
    r = rng(31)
    M, N, K = 64, 64, 128
    A = r.standard_normal((M, K)).astype(np.float16)
    B = r.standard_normal((K, N)).astype(np.float16)
    C = np.zeros((M, N), np.float32)
    with pytest.raises(ai.InterpretError, match=r"'argus.load' at .*pipelined_gemm.py.*"
                       r"reads element \(0, 0\) of shared stage .*which nothing wrote"):
        make_pipelined_gemm(3, wait=2)[(1, 1)](A, B, C, K, interpret=True)


def test_dsl_gemm_tf32_kn_hopper():
    from gemm_tf32_kn import gemm_tf32_kn
    r = rng(32)
    M, N, K = 150, 260, 100
    A = r.standard_normal((M, K)).astype(np.float32)
    B = r.standard_normal((K, N)).astype(np.float32)
    C = np.zeros((M, N), np.float32)
    gemm_tf32_kn[(2,)](A, B, C, M, N, K, interpret=True)
    exact = A.astype(np.float64) @ B.astype(np.float64)
    err = np.abs(C - exact).max()
    assert 1e-4 < err < 5e-2  # tf32 operands, f32 accumulation


def test_hopper_flash_attention_causal_ws():
    r = rng(27)
    H, S, D = 2, 256, 128
    Q, q = bf16_inputs(r, H * S, D)
    K, k = bf16_inputs(r, H * S, D)
    V, v = bf16_inputs(r, H * S, D)
    O = np.zeros((H * S, D), np.uint16)
    LSE = np.zeros(H * S, np.float32)
    ai.run(str(ROOT / "examples" / "sm90a" / "flash_attention_causal_ws.mlir"), Q, K, V, O, LSE,
           S, grid=(H, S // 128))
    mask = np.tril(np.ones((S, S), bool))
    for h in range(H):
        rows = slice(h * S, (h + 1) * S)
        s = np.where(mask, q[rows] @ k[rows].T / np.sqrt(D), -np.inf)
        mx = s.max(1, keepdims=True)
        p = np.exp(s - mx)
        np.testing.assert_allclose(ai.bf16_bits_to_float(O[rows]),
                                   (p / p.sum(1, keepdims=True)) @ v[rows], atol=2e-2)
        np.testing.assert_allclose(LSE[rows], (mx + np.log(p.sum(1, keepdims=True)))[:, 0],
                                   rtol=1e-4, atol=1e-3)


def test_hopper_flash_attention_ragged_ws():
    """S = 200: the last query tile of each head is clipped at the head's
    end ('clipped to' bounds), the partial key tile masked to -inf."""
    r = rng(28)
    H, S, D = 2, 200, 128
    Q, q = bf16_inputs(r, H * S, D)
    K, k = bf16_inputs(r, H * S, D)
    V, v = bf16_inputs(r, H * S, D)
    O = np.zeros((H * S, D), np.uint16)
    LSE = np.zeros(H * S, np.float32)
    ai.run(str(ROOT / "examples" / "sm90a" / "flash_attention_ragged_ws.mlir"), Q, K, V, O, LSE,
           S, grid=(2, H))
    for h in range(H):
        rows = slice(h * S, (h + 1) * S)
        s = q[rows] @ k[rows].T / np.sqrt(D)
        mx = s.max(1, keepdims=True)
        p = np.exp(s - mx)
        np.testing.assert_allclose(ai.bf16_bits_to_float(O[rows]),
                                   (p / p.sum(1, keepdims=True)) @ v[rows], atol=2e-2)
        np.testing.assert_allclose(LSE[rows], (mx + np.log(p.sum(1, keepdims=True)))[:, 0],
                                   rtol=1e-4, atol=1e-3)


def test_mutants_never_crash_the_interpreter(tmp_path):
    """test/fuzz/interpret_mutants.py in a subprocess: mutated example kernels
    end in a result or a Python error, never a crash (a fixed seed; CI-sized)."""
    import subprocess
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    last = tmp_path / "last.mlir"
    p = subprocess.run([sys.executable, str(ROOT / "test" / "fuzz" / "interpret_mutants.py"),
                        "--seed", "5", "--count", "120", "--last", str(last)],
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:],
                               last.read_text() if last.exists() else "")
    assert p.stdout.startswith("mutants 120 parsed ")
