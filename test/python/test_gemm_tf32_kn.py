"""The fp32 (tf32) Hopper GEMM with B as K x N (examples/python/gemm_tf32_kn.py):
C^T = B^T A^T with B^T's fragment loaded from B's shared stage into registers
(wgmma.m64n256k8.f32.tf32, A from registers) and A's stage read through
argus.transpose; C stored through argus.transpose of its view. It proves
with derived layouts, lowers to the register-A tf32 wgmma, and planted
mistakes come back violated at their Python line."""

import inspect
import os
import re

import pytest

import argus
import gemm_tf32_kn
from conftest import violated_at

EXAMPLE_PY = os.path.abspath(gemm_tf32_kn.__file__)
RS_WGMMA = "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32"


def _line(needle):
    src, start = inspect.getsourcelines(gemm_tf32_kn.make_gemm_tf32_kn)
    hits = [start + i for i, l in enumerate(src) if needle in l]
    assert len(hits) == 1, needle
    return hits[0]


def test_example_has_no_layout_strings():
    # Every layout is derived (tma_layout, transpose, frag).
    src = open(EXAMPLE_PY).read()
    code = src[src.index('"""', 3) + 3:]
    assert not re.search(r'"[^"]*\):\(', code), "a hand-written layout string"
    assert "Sw<" not in code


@pytest.mark.parametrize("knobs", [{}, {"b_swizzle": 0}, {"any_shape": False}],
                         ids=["sw128", "sw0", "tiles"])
def test_proves_and_lowers_to_register_a_tf32_wgmma(need_verifier, knobs):
    k = gemm_tf32_kn.make_gemm_tf32_kn(name="gemm_tf32_kn_t", **knobs)
    src = k.source()
    # A from registers: the instruction without .ss; B^T's fragment loaded
    # from B's stage read as N x K, A's stage read as K x M.
    assert '"wgmma.m64n256k8.f32.tf32"' in src and ".tf32.ss" not in src
    assert src.count("argus.transpose") == 3
    r = k.verify(strict=True)
    assert r.proved, r.summary()
    if not argus.has_pass("argus-to-nvptx"):
        return
    ck = k.compile()
    # Four k-steps of 8 per 32-deep slab, each with four f32 registers of
    # B^T's fragment (a0..a3) and A^T's descriptor.
    assert ck.asm.count(RS_WGMMA) == 4
    assert len(re.findall(re.escape(RS_WGMMA) + r" \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, "
                          r"%rd\d+, p, 1, 1;", ck.asm)) == 4
    # The fragment: 16 scalar shared loads a slab; C leaves as 4-byte stores
    # (C^T's fragment holds no two consecutive elements of a row of C).
    assert ck.asm.count("ld.shared.b32") == 16
    assert "st.global.b32" in ck.asm and "st.global.v" not in ck.asm
    boxes = [(m["name"], m["box"], m["element"]) for m in ck.launch["tensor_maps"]]
    b_box = [32, 8] if knobs.get("b_swizzle") == 0 else [32, 32]
    assert boxes == [("A", [256, 32], "f32"), ("B", b_box, "f32")]


def test_wrong_k_slab_of_b_is_violated_at_the_mma(need_verifier):
    # The producer copies B's slab kt + 1 beside A's slab kt.
    k = gemm_tf32_kn.make_gemm_tf32_kn(name="gemm_tf32_kn_bug", b_slab_shift=1)
    c, e = violated_at(k, "assert", EXAMPLE_PY, _line("acc = argus.mma_async(WGMMA"))
    cx = c.counterexamples[0]
    tags = {el.operand: el.tags for el in cx.elements}
    assert tags["a"]["k"] != tags["b"]["k"], tags  # B(k + 32, n) meets A(m, k)
    assert any("from B[32, 0]" in str(n) for n in cx.notes), cx.notes
    assert not e.result.unknown, e.result.summary()


def test_c_stored_at_the_transposed_tile_is_violated_at_the_store(need_verifier):
    # The epilogue's view of C starts at (n0, m0), C^T's tile offsets.
    k = gemm_tf32_kn.make_gemm_tf32_kn(name="gemm_tf32_kn_bug", c_offsets_swapped=True)
    c, e = violated_at(k, "assert", EXAMPLE_PY, _line("argus.store(acc, argus.transpose(gc))"))
    tags = {el.operand: el.tags for el in c.counterexamples[0].elements}
    assert (tags["value"]["m"], tags["value"]["n"]) != (tags["dest"]["m"], tags["dest"]["n"])
    kinds = {v.kind for v in e.violations}
    assert {"output-coverage", "output-once"} <= kinds, kinds


def test_register_a_left_in_flight_is_violated_at_the_mma(need_verifier):
    # One slab's wgmma kept in flight (wgmma_wait(1)): the next slab's
    # fragment load may take the A registers the running wgmma still reads
    # (wrong results on the H200). Everything else still holds.
    k = gemm_tf32_kn.make_gemm_tf32_kn(name="gemm_tf32_kn_bug", in_flight=True)
    c, e = violated_at(k, "wgmma-register-operand", EXAMPLE_PY,
                       _line("acc = argus.mma_async(WGMMA"))
    assert any("no wgmma_wait after it in its block retires the group" in str(n)
               for n in c.counterexamples[0].notes)
    assert {v.kind for v in e.violations} == {"wgmma-register-operand"}
    assert not e.result.unknown, e.result.summary()
