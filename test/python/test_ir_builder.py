"""The DSL builds IR through the C++ builder (_argus.Builder), not text:
no module text is parsed on the way from a Python kernel to the verifier,
every op carries its Python line, and what cannot be built is an error at
that line."""

import inspect

import pytest

import argus
import argus.ir

_argus = argus.ir.extension()


def _line(fn, needle):
    src, first = inspect.getsourcelines(fn)
    return first + next(i for i, l in enumerate(src) if needle in l)


def _rowwise():
    @argus.kernel(target="sm_90a", block=128)
    def rows(X: argus.Tensor[(512,), "f32"], Y: argus.Tensor[(512,), "f32"]):
        for kt in argus.range(0, 2):
            acc = argus.load(argus.view(X, (kt * 256,), (256,)))
            argus.store(acc * 2.0, argus.view(Y, (kt * 256,), (256,)))
    return rows


def test_no_module_text_is_parsed(monkeypatch):
    def no_parsing(*a, **k):
        raise AssertionError("the DSL parsed module text")
    monkeypatch.setattr(_argus.Context, "parse", no_parsing)
    monkeypatch.setattr(argus.ir, "parse", no_parsing)
    k = _rowwise()
    mod = k.module()
    assert "argus.load" in mod.text()
    if argus.ir.features().get("verify"):
        assert k.verify().proved


def test_source_names_values_as_the_python_code_does():
    src = _rowwise().source()
    assert "func.func @rows(%X: memref<512xf32>" in src
    assert "scf.for %kt = " in src
    assert "%r = argus.load %gX" in src
    # every op carries its Python line
    line = _line(_rowwise, "acc = argus.load(")
    load_line = next(l for l in src.splitlines() if "%r = argus.load" in l)
    assert f'test_ir_builder.py":{line}:' in load_line


def test_a_value_of_another_kernel_is_an_error_at_its_line():
    kept = {}

    @argus.kernel(target="sm_90a", block=128)
    def first(N: argus.index):
        kept["b"] = argus.block_id("x")

    first.source()

    @argus.kernel(target="sm_90a", block=128)
    def second(N: argus.index):
        argus.assume(kept["b"] < N, "b < N")  # HERE

    with pytest.raises(argus.IRVerificationError) as ei:
        second.source()
    assert ei.value.line == _line(second.fn, "# HERE")
    assert "trace that made them" in str(ei.value)


def test_the_verifier_names_loops_after_their_python_variable(need_verifier):
    @argus.kernel(target="sm_90a", block=128)
    def twice(C: argus.Tensor[(256,), "f32"]):
        for kk in argus.range(0, 2):
            argus.store(argus.fill(1.0, (256,), "f32", "(128,2):(2,1)"),
                        argus.view(C, (0,), (256,)))

    r = twice.verify(raise_on_violation=False)
    assert r.violated
    assert any("loop 'kk' (scf.for at " in repr(c) for c in r.violated)


def test_builder_rejects_what_it_cannot_build():
    for block, target, why in (([], "sm_90a", "1 to 3 dimensions"),
                               ([0], "sm_90a", "positive"), ([64], "sm_77", "unknown")):
        with pytest.raises(_argus.BuildError, match=why) as ei:
            _argus.Builder(argus.ir.context(), "k", block, target, "k.py", 4, 1)
        assert ei.value.args[1][0].line == 4
    b = _argus.Builder(argus.ir.context(), "k", [128], "sm_90a", "k.py", 1, 1)
    at = b.loc("k.py", 3, 5)
    with pytest.raises(_argus.BuildError) as ei:
        b.op("argus.no_such_op", [], [], at)
    message, diags = ei.value.args
    assert "unknown operation 'argus.no_such_op'" in message
    assert (diags[0].file, diags[0].line, diags[0].col) == ("k.py", 3, 5)
    with pytest.raises(_argus.BuildError, match="invalid type"):
        b.type("!argus.tile<", at)
    with pytest.raises(_argus.BuildError, match="invalid layout"):
        src = b.alloc("s", b.type('!argus.buffer<1 x <8x8xf32, shared, "(8,8):(8,1)">>', at), at)
        b.copy(False, src, src, "(8,8", at)
    n = b.argument(b.type("index", at), at)
    b.begin_for(n, n, n, [n], at, at, [at])
    with pytest.raises(_argus.BuildError, match="no terminator"):
        b.end()  # a loop carrying a value needs its scf.yield
    b2 = _argus.Builder(argus.ir.context(), "k2", [128], "sm_90a", "k.py", 1, 1)
    b2.begin_if(b2.cmpi("ult", b2.constant_index(0, at), b2.constant_index(1, at), at), at)
    with pytest.raises(_argus.BuildError, match="still open"):
        b2.finish(at)


def test_op_verifier_errors_point_at_the_python_line():
    FC = argus.frag("wgmma.m64n128k16.f32.bf16.ss", "c", warps=(2, 1))

    @argus.kernel(target="sm_90a", block=256)
    def bad(N: argus.index):
        x = argus.tag(argus.zeros((128, 128), "f32", FC), lambda m, n: (m, n))
        y = x + x
        argus.tag_assert(y, "result.q == lhs.m")  # HERE

    with pytest.raises(argus.TagFieldError) as ei:
        bad.module()
    assert ei.value.line == _line(bad.fn, "# HERE")
    assert "argus.tag_assert" in bad.source()  # the rejected module still prints


def test_builder_fuzz_never_crashes():
    """Random text where the builder parses (types, layouts, tag maps, op
    names): a BuildError with a location, or a value; never a crash."""
    import random
    rng = random.Random(7)
    alphabet = 'abcdefxyz0123456789!<>()[]{}:,;"#%@ -+*/.=?\\\n'
    seeds = ['!argus.tile<16x16xf32, register, "(64,4):(4,1)">', "(4,8):(8,1)",
             "(d0, d1)[s0] -> (d0 + s0, d1)", "argus.barrier", "index"]
    b = _argus.Builder(argus.ir.context(), "fz", [64], "sm_90a", "fz.py", 1, 1)
    at = b.loc("fz.py", 2, 1)
    n = b.argument(b.type("index", at), at)
    buf = b.alloc("s", b.type('!argus.buffer<1 x <8x8xf32, shared, "(8,8):(8,1)">>', at), at)
    tile = b.op("argus.stage", [buf, n], [b.type('!argus.tile<8x8xf32, shared, "(8,8):(8,1)">',
                                                  at)], at)[0]
    for i in range(400):
        s = rng.choice(seeds)
        chars = list(s)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(chars) + 1)
            if rng.random() < 0.5 and chars:
                del chars[min(pos, len(chars) - 1)]
            else:
                chars.insert(pos, rng.choice(alphabet))
        text = "".join(chars)
        for call in (lambda: b.type(text, at),
                     lambda: b.copy(False, tile, tile, text, at),
                     lambda: b.tag(tile, [n], ["m", "n"], text, at),
                     lambda: b.op(text, [], [], at)):
            try:
                call()
            except _argus.BuildError as e:
                message, diags = e.args
                assert message and diags and diags[0].file == "fz.py"
    b.finish(at)  # the module holds whatever was built; the verifiers judge it
