"""The _argus bindings: parse, print, verify, pipelines, diagnostics."""

import glob
import os
import random

import pytest

import argus
import _argus


def example_texts(examples_dir):
    return {os.path.basename(p): open(p).read()
            for p in sorted(glob.glob(os.path.join(examples_dir, "*.mlir")))}


def test_examples_roundtrip(examples_dir):
    texts = example_texts(examples_dir)
    assert len(texts) >= 5
    for name, text in texts.items():
        m = argus.parse(text, name)
        printed = m.text()
        assert "argus.kernel" in printed
        again = argus.parse(printed, name + ".printed")
        assert again.text() == printed
        assert m.verify() == []


def test_parse_error_has_location():
    with pytest.raises(argus.MLIRError) as ei:
        argus.parse("module {\n  func.func @f() {\n    %x = arith.addi\n  }\n}\n", "bad.mlir")
    e = ei.value
    assert e.file == "bad.mlir" and e.line == 3
    d = e.diagnostics[0]
    assert d.severity == "error" and d.file == "bad.mlir" and d.line == 3 and d.col > 0
    assert "bad.mlir:3:" in str(e)


def test_op_verifier_error_is_structured():
    text = ('func.func @f() {\n'
            '  %a = argus.fill 0.0 : !argus.tile<128xf32, register, "(64,2):(1,64)">\n'
            '  argus.region.end id 3\n  return\n}\n')
    with pytest.raises(argus.MLIRError) as ei:
        argus.parse(text, "v.mlir")
    assert ei.value.line == 3
    assert "region" in ei.value.diagnostics[0].message


def test_run_pipeline_and_bad_pipeline(examples_dir):
    text = example_texts(examples_dir)["gemm_mfma.mlir"]
    r = argus.run_pipeline(text, "canonicalize,cse")
    assert r.ok and "argus.mma" in r.text
    r = argus.run_pipeline(text, "no-such-pass")
    assert not r.ok
    assert "no-such-pass" in r.errors[0].message
    m = argus.parse(text)
    with pytest.raises(argus.PipelineError):
        m.run_pipeline("builtin.module(no-such-pass)")


def test_has_pass_and_features():
    assert argus.has_pass("canonicalize")
    assert not argus.has_pass("no-such-pass")
    f = argus.features()
    assert set(f) >= {"verify", "transforms"}
    assert argus.has_pass("argus-verify-tags") == f["verify"]
    assert argus.has_pass("argus-to-nvptx") == f["transforms"]


def test_layout_and_instruction_helpers():
    canon, size, cosize = _argus.parse_layout("(128,32):(32,1)")
    assert size == 4096 and cosize == 4096
    with pytest.raises(ValueError):
        _argus.parse_layout("(128,32):(32")
    d = _argus.mma_instruction("v_mfma_f32_32x32x8_f16")
    assert (d["M"], d["N"], d["K"], d["target"]) == (32, 32, 8, "gfx942")
    assert _argus.mma_instruction("v_mfma_bogus") is None
    assert "mma.m16n8k16.f32.f16" in _argus.known_mma_instructions()


def test_fuzz_never_crashes(examples_dir):
    """Random truncations and byte edits of the examples must come back as
    errors (or parse), never crash the interpreter."""
    rng = random.Random(1234)
    texts = list(example_texts(examples_dir).values())
    junk = ["}", "{", "%", "!argus.tile<", "#argus.frag<", "\"", "0x", "-1", "@",
            "argus.mma", "loc(", "affine_map<(d0)->(d0 floordiv 0)>", "\x00", "é"]
    for i in range(150):
        t = rng.choice(texts)
        pos = rng.randrange(len(t))
        op = i % 3
        if op == 0:
            t = t[:pos]
        elif op == 1:
            t = t[:pos] + rng.choice(junk) + t[pos:]
        else:
            t = t[:pos] + t[pos + rng.randrange(1, 40):]
        try:
            m = argus.parse(t, f"fuzz{i}.mlir")
            m.text()
            m.run_pipeline("canonicalize", check=False)
        except argus.MLIRError as e:
            assert e.diagnostics
    # Bad pipelines and module handles from failed passes stay usable.
    m = argus.parse(texts[0])
    for p in ["", "(", "canonicalize{", "func.func(", "argus-verify-tags{report=}",
              "builtin.module(func.func(cse))"]:
        m.run_pipeline(p, check=False)
    assert "argus" in m.text()


def test_error_kinds_come_from_the_verifier_not_the_message():
    from argus.errors import (DTypeIRError, IRVerificationError, LayoutIRError, RegionIRError,
                              ShapeIRError, TagFieldIRError, InstructionIRError,
                              classify_ir_error)
    tile = '!argus.tile<16x16xf32, register, "(64,4):(4,1)">'
    other = '!argus.tile<16x8xf32, register, "(64,2):(2,1)">'
    kernel = ('func.func @k() attributes {argus.kernel = #argus.kernel<block = [64], '
              'target = "gfx942">} {\n%s\n  return\n}\n')
    cases = {
        # a reduce whose result drops the wrong dimension: a shape error
        "shape": ('  %a = argus.fill 0.0 : ' + tile + '\n'
                  '  %r = argus.reduce sum %a dim 0 : ' + tile + ' -> ' + other, ShapeIRError),
        "tag_field": ('  %a = argus.fill 0.0 : ' + tile + '\n'
                      '  %t = argus.tag %a [] ["m", "m"] = affine_map<(d0, d1) -> (d0, d1)> : '
                      + tile, TagFieldIRError),
        # an elementwise op whose operands differ in element type, or layout
        "element_type": ('  %a = argus.fill 0.0 : ' + tile + '\n'
                         '  %b = argus.fill 0.0 : !argus.tile<16x16xf16, register, "(64,4):(4,1)">'
                         '\n  %c = "argus.add"(%a, %b) : (' + tile + ', !argus.tile<16x16xf16, '
                         'register, "(64,4):(4,1)">) -> ' + tile, DTypeIRError),
        "layout": ('  %a = argus.fill 0.0 : ' + tile + '\n'
                   '  %b = argus.fill 0.0 : !argus.tile<16x16xf32, register, "(64,4):(1,64)">'
                   '\n  %c = "argus.max"(%a, %b) : (' + tile + ', !argus.tile<16x16xf32, '
                   'register, "(64,4):(1,64)">) -> ' + tile, LayoutIRError),
        "region": ('  argus.region.begin "a" id 1\n  argus.region.end id 1\n'
                   '  argus.region.begin "b" id 1\n  argus.region.end id 1', RegionIRError),
    }
    for kind, (body, cls) in cases.items():
        with pytest.raises(argus.MLIRError) as ei:
            argus.parse(kernel % body, "k.mlir")
        d = next(d for d in ei.value.diagnostics if d.severity == "error")
        assert d.kind == kind, (kind, d.message)
        line = 3 if kind in ("shape", "tag_field") else 4
        assert d.file == "k.mlir" and d.line == line   # the op's own location
        assert classify_ir_error(ei.value.diagnostics) is cls
    # A message that merely mentions a shape is not a shape error.
    with pytest.raises(argus.MLIRError) as ei:
        argus.parse('func.func @f() {\n  %s = argus.alloc "" : !argus.buffer<1 x '
                    '!argus.tile<4x4xf32, shared, "(4,4):(4,1)">>\n  return\n}\n', "v.mlir")
    assert ei.value.diagnostics[0].kind == ""
    assert classify_ir_error(ei.value.diagnostics) is IRVerificationError
    assert InstructionIRError is not None


def test_every_error_kind_of_the_verifier_has_an_exception_class():
    """The kinds are defined once, in C++ (ErrorKinds.h); Python maps each to
    its exception class and may not miss or invent one."""
    from argus.errors import _IR_ERROR_BY_KIND
    ext = argus.ir.extension()
    assert list(ext.error_kinds) == ["shape", "element_type", "layout", "instruction",
                                     "tag_field", "region"]
    assert set(_IR_ERROR_BY_KIND) == set(ext.error_kinds)
