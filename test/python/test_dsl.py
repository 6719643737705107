"""The DSL: the GEMM, pipelined GEMM and flash-attention examples, locations
and Python-side errors that name the user's line."""

import inspect

import pytest

import argus
import flash_attention
import gemm
import pipelined_gemm


def _line_of(fn, needle):
    src, start = inspect.getsourcelines(fn)
    for i, l in enumerate(src):
        if needle in l:
            return start + i
    raise AssertionError(needle)


@pytest.mark.parametrize("k", [gemm.gemm_mfma, pipelined_gemm.gemm_pipelined_2stage,
                               pipelined_gemm.gemm_pipelined_3stage,
                               flash_attention.flash_attention_fwd])
def test_examples_produce_valid_ir(k):
    text = k.ir()
    assert "argus.kernel" in text and "argus.tag_assert" in text
    # The printed IR parses again and passes the op verifiers.
    assert argus.parse(text).verify() == []


@pytest.mark.parametrize("k", [gemm.gemm_mfma, pipelined_gemm.gemm_pipelined_2stage,
                               pipelined_gemm.gemm_pipelined_3stage,
                               flash_attention.flash_attention_fwd])
def test_examples_verify(k, need_verifier):
    r = k.verify()
    assert r.checks and r.proved, r.summary()


def test_dsl_ir_matches_handwritten_structure(examples_dir):
    """The DSL GEMM has the same ops as examples/gemm_mfma.mlir."""
    import collections
    import re
    hand = argus.parse(open(f"{examples_dir}/gemm_mfma.mlir").read()).text()
    dsl = gemm.gemm_mfma.ir()
    def ops(t):
        c = collections.Counter(re.findall(r"\b(argus\.[a-z_.]+|scf\.for|gpu\.block_id)", t))
        # Preconditions differ in form: the DSL derives some from the shape
        # annotations' dim names, the handwritten kernel states them one by one.
        c.pop("argus.assume", None)
        return c
    assert ops(hand) == ops(dsl)
    assert "argus.assume" in hand and "argus.assume" in dsl


def test_locations_point_at_python_lines():
    text = gemm.gemm_mfma.ir(debug_info=True)
    line = _line_of(gemm.gemm_mfma.fn, "acc = argus.mma(")
    assert f'gemm.py":{line}:' in text
    src = gemm.gemm_mfma.source()
    mma_line = next(l for l in src.splitlines() if "argus.mma" in l)
    assert f'gemm.py":{line}:' in mma_line


def test_regions_numbered_in_order():
    k = pipelined_gemm.gemm_pipelined_2stage
    k.ir()
    assert k.region_names == {1: "prologue", 2: "mainloop", 3: "wait", 4: "issue", 5: "mma",
                              6: "drain", 7: "epilogue"}


def test_tag_lambda_builds_affine_map():
    @argus.kernel(target="gfx942", block=256)
    def k(A: argus.Tensor[("M", "K"), "f16"]):
        b = argus.block_id("x")
        t = argus.view(A, (b * 64, 0), (64, 32))
        argus.tag(t, lambda m, k: (b * 64 + m, (k // 8) * 2 + k % 8 - 1))
        argus.tag(t, lambda i, j: {"row": 3 * i + b, "col": j})
    text = k.ir()
    assert '["m", "k"]' in text and '["row", "col"]' in text
    assert "floordiv 8" in text and "mod 8" in text


def _raises_at(exc, fn, needle):
    with pytest.raises(exc) as ei:
        fn()
    line = _line_of(fn, needle) if not hasattr(fn, "fn") else None
    return ei.value


def test_error_wrong_shape_names_line():
    @argus.kernel(target="gfx942", block=256)
    def k(A: argus.Tensor[("M", "K"), "f16"]):
        s = argus.alloc((64, 32), "f16")
        g = argus.view(A, (0, 0), (128, 32))
        argus.copy(g, s[0], threads="((4,64),(8,2)):((1024,1),(128,64))")  # BAD
    with pytest.raises(argus.ShapeError) as ei:
        k.ir()
    e = ei.value
    assert e.line == _line_of(k.fn, "# BAD") and e.file.endswith("test_dsl.py")
    assert f"test_dsl.py:{e.line}:" in str(e) and "128x32" in str(e)


def test_error_unknown_instruction():
    with pytest.raises(argus.UnknownInstructionError) as ei:
        argus.frag("v_mfma_f32_32x32x8_f61", "a", warps=(2, 2))
    assert "did you mean 'v_mfma_f32_32x32x8_f16'" in str(ei.value)
    assert ei.value.line == inspect.currentframe().f_lineno - 2


def test_error_wrong_dtype_and_target():
    FA = argus.frag("v_mfma_f32_32x32x8_f16", "a", warps=(2, 2))
    FB = argus.frag("v_mfma_f32_32x32x8_f16", "b", warps=(2, 2))
    FC = argus.frag("v_mfma_f32_32x32x8_f16", "c", warps=(2, 2))

    @argus.kernel(target="gfx942", block=256)
    def k(A: argus.Tensor[("M", "K"), "f32"]):
        s = argus.alloc((128, 32), "f32")[0]
        argus.copy(argus.view(A, (0, 0), (128, 32)), s,
                   threads="((4,64),(8,2)):((1024,1),(128,64))")
        a = argus.load(s, layout=FA)
        b = argus.fill(0.0, (32, 128), "f16", FB)
        argus.mma("v_mfma_f32_32x32x8_f16", a, b, argus.zeros((128, 128), "f32", FC))  # BAD
    with pytest.raises(argus.DTypeError) as ei:
        k.ir()
    assert ei.value.line == _line_of(k.fn, "# BAD") and "must be 'f16'" in str(ei.value)

    @argus.kernel(target="sm_90a", block=256)
    def k2(A: argus.Tensor[("M", "K"), "f16"]):
        argus.mma("v_mfma_f32_32x32x8_f16", argus.zeros((128, 32), "f16", FA),  # BAD
                  argus.zeros((32, 128), "f16", FB), argus.zeros((128, 128), "f32", FC))
    with pytest.raises(argus.UnknownInstructionError) as ei:
        k2.ir()
    assert "targets sm_90a" in str(ei.value) and ei.value.line == _line_of(k2.fn, "# BAD")


def test_error_unknown_tag_field_and_operand():
    MFMA = "v_mfma_f32_32x32x8_f16"

    def make(pred):
        @argus.kernel(target="gfx942", block=256)
        def k(A: argus.Tensor[("M", "K"), "f16"], B: argus.Tensor[("K", "N"), "f16"]):
            sa = argus.alloc((128, 32), "f16")[0]
            sb = argus.alloc((32, 128), "f16")[0]
            ga = argus.tag(argus.view(A, (0, 0), (128, 32)), lambda m, k: (m, k))
            gb = argus.tag(argus.view(B, (0, 0), (32, 128)), lambda k, n: (k, n))
            argus.copy(ga, sa, threads="((4,64),(8,2)):((1024,1),(128,64))")
            argus.copy(gb, sb, threads="((16,16),(8,2)):((256,1),(32,16))")
            argus.barrier()
            a = argus.load(sa, layout=argus.frag(MFMA, "a", warps=(2, 2)))
            b = argus.load(sb, layout=argus.frag(MFMA, "b", warps=(2, 2)))
            acc = argus.tag(argus.zeros((128, 128), "f32", argus.frag(MFMA, "c", warps=(2, 2))),
                            lambda m, n: (m, n))
            acc = argus.mma(MFMA, a, b, acc)
            argus.tag_assert(acc, pred)  # ASSERT
        return k
    make("a.k == b.k").ir()
    with pytest.raises(argus.TagFieldError) as ei:
        make("a.k == b.q").ir()
    assert "unknown tag field 'q'" in str(ei.value) and "k, n" in str(ei.value)
    assert "# ASSERT" in open(ei.value.file).read().splitlines()[ei.value.line - 1]
    with pytest.raises(argus.TagFieldError) as ei:
        make("lhs.k == b.k").ir()
    assert "no operand 'lhs'" in str(ei.value)


def test_unknown_tag_field_found_by_mlir_is_a_tag_field_error():
    """The tag fields are the C++ verifier's to check (the DSL keeps no
    copy of them); the error is still a TagFieldError at the Python line."""
    FC = argus.frag("v_mfma_f32_32x32x8_f16", "c", warps=(2, 2))

    @argus.kernel(target="gfx942", block=256)
    def k(A: argus.Tensor[("M", "K"), "f16"]):
        x = argus.tag(argus.zeros((128, 128), "f32", FC), lambda m, n: (m, n))
        y = x + x
        argus.tag_assert(y, "result.q == lhs.m")  # HERE
    with pytest.raises(argus.TagFieldError) as ei:
        k.ir()
    assert isinstance(ei.value, argus.IRVerificationError)
    assert ei.value.line == _line_of(k.fn, "# HERE") and "'q'" in str(ei.value)


def test_mlir_verifier_error_maps_to_python_line():
    """An error only MLIR's op verifier finds comes back at the Python line."""
    @argus.kernel(target="gfx942", block=256)
    def k(A: argus.Tensor[("M", "K"), "f16"]):
        argus.fill(0.0, (100, 32), "f32", argus.frag("v_mfma_f32_32x32x8_f16", "c",
                                                      warps=(2, 2)))  # BAD
    with pytest.raises(argus.IRVerificationError) as ei:
        k.ir()
    e = ei.value
    assert e.file.endswith("test_dsl.py")
    assert e.line == _line_of(k.fn, "argus.fill(0.0, (100")
    assert e.diagnostics and e.diagnostics[0].severity == "error"


def test_misuse_errors():
    @argus.kernel(target="gfx942", block=256)
    def k1(A: argus.Tensor[("M", "K"), "f16"]):
        with argus.region("a", id=1):
            pass
        with argus.region("b", id=1):  # DUP
            pass
    with pytest.raises(argus.TraceError) as ei:
        k1.ir()
    assert "already used" in str(ei.value) and ei.value.line == _line_of(k1.fn, "# DUP")

    @argus.kernel(target="gfx942", block=256)
    def k2(A: argus.Tensor[("M", "K"), "f16"]):
        acc = argus.zeros((64,), "f32", "(64,1):(1,0)")
        for i, acc in argus.range(0, 4, carry=acc):  # LOOP
            pass
    with pytest.raises(argus.TraceError) as ei:
        k2.ir()
    assert "loop.carry" in str(ei.value) and ei.value.line == _line_of(k2.fn, "# LOOP")

    @argus.kernel(target="gfx942", block=256)
    def k3(A: argus.Tensor[("M", "K"), "f16"]):
        s = argus.alloc((64, 32), "f16", stages=2)
        s[2]  # STAGE
    with pytest.raises(argus.ShapeError) as ei:
        k3.ir()
    assert ei.value.line == _line_of(k3.fn, "# STAGE")

    with pytest.raises(argus.LayoutError):
        argus.layout("(128,32):(32")
    with pytest.raises(argus.DTypeError):
        argus.Tensor[("M",), "f17"]
    with pytest.raises(argus.TraceError):
        argus.barrier()  # outside a kernel


def test_kernel_features_raise_clearly_without_gpu():
    if argus.gpu_available():
        pytest.skip("a GPU driver is present")
    with pytest.raises(argus.NoGPU):
        gemm.gemm_mfma.run()


def test_gather_view():
    @argus.kernel(target="gfx942", block=256)
    def k(X: argus.Tensor[("T", "K"), "f16"], R: argus.Tensor[("E",), "i32"]):
        rows = argus.load(argus.view(R, (0,), (64,)), layout="(64,1):(1,0)")
        g = argus.gather_view(X, rows, 32, (64, 32))
        argus.tag(g, lambda r, c: (r, c))
    assert "argus.gather_view" in k.ir()


def test_dsl_fuzz_never_crashes():
    """Random (mostly wrong) argument combinations raise ArgusErrors (or
    trace), never anything else."""
    import random
    rng = random.Random(7)
    MFMA = "v_mfma_f32_32x32x8_f16"
    pool_layouts = ["(64,32):(32,1)", "(128,32):(32,1)", "bad(", argus.frag(MFMA, "a", (2, 2)),
                    argus.frag(MFMA, "c", (2, 2)), None]
    shapes = [(64, 32), (128, 32), (32, 128), (128, 128), (100, 3), (0, 4), (64,)]
    dtypes = ["f16", "f32", "i32", "f17"]
    for i in range(60):
        ops = [rng.randrange(8) for _ in range(5)]
        picks = [(rng.choice(shapes), rng.choice(dtypes), rng.choice(pool_layouts))
                 for _ in range(5)]

        @argus.kernel(target=rng.choice(["gfx942", "sm_90a"]), block=256)
        def k(A: argus.Tensor[("M", "K"), "f16"]):
            vals = []
            for op, (shp, dt, lay) in zip(ops, picks):
                if op == 0:
                    vals.append(argus.view(A, (0, 0), shp))
                elif op == 1:
                    vals.append(argus.alloc(shp, dt, lay if isinstance(lay, str) else None)[0])
                elif op == 2:
                    vals.append(argus.fill(1.0, shp, dt, lay))
                elif op == 3 and len(vals) >= 2:
                    argus.copy(vals[-2], vals[-1], threads="((4,64),(8,2)):((1024,1),(128,64))")
                elif op == 4 and vals:
                    vals.append(argus.load(vals[-1], layout=lay))
                elif op == 5 and len(vals) >= 3:
                    vals.append(argus.mma(MFMA, vals[-3], vals[-2], vals[-1]))
                elif op == 6 and len(vals) >= 2:
                    vals.append(vals[-1] + vals[-2])
                elif op == 7 and vals:
                    argus.tag_assert(vals[-1], "a.k == b.k")
        try:
            k.ir()
        except argus.ArgusError:
            pass


def test_tag_fields_are_what_the_verifier_infers():
    """Tile.tag_fields asks the C++ inference (inferTagFields) while tracing:
    tags flow through elementwise ops and loads; a reduce keeps them only
    when the verifier can name them."""
    seen = {}
    FC = argus.frag("v_mfma_f32_32x32x8_f16", "c", warps=(2, 2))

    @argus.kernel(target="gfx942", block=256)
    def k(A: argus.Tensor[("M", "K"), "f16"]):
        x = argus.tag(argus.zeros((128, 128), "f32", FC), lambda m, n: (m, n))
        y = argus.tag(x + x, lambda m, n: {"q": m + n})
        g = argus.view(A, (0, 0), (128, 32))
        seen["x"], seen["y"], seen["g"] = x.tag_fields, y.tag_fields, g.tag_fields
    k.ir()
    assert {"m", "n"} <= set(seen["x"]) and "q" not in seen["x"]
    assert {"m", "n", "q", "lhs.m", "rhs.n"} <= set(seen["y"])
    assert seen["g"] == ["tensor"]
