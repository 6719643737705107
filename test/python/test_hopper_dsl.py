"""The DSL's Hopper constructs (argus.dsl.hopper, argus.when): the
warp-specialized TMA GEMM (examples/python/gemm_tma_ws.py) proves like its
IR twin and compiles to PTX with TMA, mbarriers, async wgmma and setmaxnreg;
planted protocol mistakes come back violated at their Python line; misuse is
reported at the user's line, by the DSL where it needs to know (argument
kinds) and by the C++ op verifiers otherwise."""

import collections
import inspect
import os
import re

import pytest

import argus
import gemm_tma_ws
from conftest import violated_at

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE_PY = os.path.abspath(gemm_tma_ws.__file__)


def _line_of(fn, needle, nth=0):
    """The file line of the ``nth`` source line of ``fn`` containing ``needle``."""
    src, start = inspect.getsourcelines(fn)
    hits = [start + i for i, l in enumerate(src) if needle in l]
    assert len(hits) > nth, needle
    return hits[nth]


def _example_line(needle, nth=0):
    return _line_of(gemm_tma_ws.make_gemm_tma_ws, needle, nth)


def _lit_counts():
    """The (kind, status) -> count table that test/lit/Verify/sm90a-protocol.test
    expects of the IR twin."""
    text = open(os.path.join(ROOT, "test/lit/Verify/sm90a-protocol.test")).read()
    rows = re.findall(r"// CHECK(?:-NEXT)?: (\S+) (\S+) (\d+)", text)
    assert rows, "no check table in sm90a-protocol.test"
    return {(k, s): int(n) for k, s, n in rows}


#===------------------------------------------------------------------------===#
# The example
#===------------------------------------------------------------------------===#


def test_example_has_the_ops_of_the_handwritten_kernel(examples_dir):
    hand = argus.parse(open(f"{examples_dir}/sm90a/gemm_tma_ws.mlir").read()).text()
    dsl = gemm_tma_ws.gemm_tma_ws.ir()

    def ops(t):
        c = collections.Counter(re.findall(
            r"\b(argus\.[a-z_.]+|scf\.for|scf\.if|gpu\.block_id|gpu\.grid_dim)\b", t))
        c.pop("argus.assume", None)  # the DSL states some from the dim names
        return c
    assert ops(hand) == ops(dsl)
    assert 'argus.role "producer" warps 0 to 4 regs 40' in dsl
    assert 'argus.role "consumer" warps 4 to 12 regs 232' in dsl
    assert argus.parse(dsl).verify() == []

    # From the tensor maps on, the two are the same ops up to value names and
    # the order of independent ops (where constants are, stage before copy).
    def body(t):
        t = re.sub(r"%[A-Za-z0-9_#]+", "%V", t[t.index("argus.tensor_map"):])
        return sorted(l.strip() for l in t.splitlines() if "arith.constant" not in l)
    assert body(hand) == body(dsl)


def test_example_proves_every_check(need_verifier):
    r = gemm_tma_ws.gemm_tma_ws.verify(strict=True)
    assert r.proved, r.summary()
    got = collections.Counter((c.kind, c.status) for c in r.checks)
    assert dict(got) == _lit_counts(), r.summary()


def test_example_compiles_to_ptx():
    if not argus.has_pass("argus-to-nvptx"):
        pytest.skip("argus-to-nvptx not built")
    ck = gemm_tma_ws.gemm_tma_ws.compile()
    for needle in ("wgmma.mma_async", "cp.async.bulk.tensor", "mbarrier.try_wait",
                   "setmaxnreg", "wgmma.wait_group", "cp.async.bulk.tensor.2d"):
        assert needle in ck.asm, needle
    # Both register budgets: 40 for the producer, 232 for the consumers.
    assert re.search(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+40", ck.asm)
    assert re.search(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+232", ck.asm)


def test_launch_spec_has_the_tensor_maps_and_dynamic_shared_memory():
    if not argus.has_pass("argus-to-nvptx"):
        pytest.skip("argus-to-nvptx not built")
    ck = gemm_tma_ws.gemm_tma_ws.compile()
    assert ck.launch["dynamic_smem"] > 48 * 1024
    # A persistent kernel: its grid is the caller's (the JSON says so).
    assert ck.launch["grid"] == ck.abi.grid and ck.abi.grid[0] == {"extent": "free"}
    spec = ck.launch_spec("k.ptx", {"M": 4000, "N": 4000, "K": 4000}, ["sms", 1, 1])
    assert spec["shared_mem"] == ck.launch["dynamic_smem"]
    tms = [a for a in spec["args"] if a.get("kind") == "tensor_map"]
    assert [(a["name"], a["buffer"], a["box"], a["swizzle"]) for a in tms] == [
        ("tmA", "A", [128, 64], 128), ("tmB", "B", [64, 64], 128)]
    # The maps follow the user's arguments (3 tensors as pointer + 2 sizes,
    # 3 indices): kernel parameters 12 and 13, as the lowering numbers them.
    assert [spec["args"].index(a) for a in tms] == [m["param"] for m in ck.launch["tensor_maps"]]
    run = argus.find_tool("argus-run")
    if run:
        import json
        import subprocess
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            ck.write(os.path.join(d, "k.ptx"))
            with open(os.path.join(d, "spec.json"), "w") as f:
                json.dump(spec, f)
            p = subprocess.run([run, "--validate", os.path.join(d, "spec.json")],
                               capture_output=True, text=True)
            assert p.returncode == 0, p.stdout + p.stderr


def test_locations_point_at_python_lines():
    src = gemm_tma_ws.gemm_tma_ws.source()
    for op, needle in (("argus.tma_load", "argus.tma_load(ga"),
                       ("argus.mbarrier.arrive_expect_tx", "argus.mbarrier_arrive_expect_tx("),
                       ("argus.mma_async", "argus.mma_async("),
                       ("argus.wgmma_wait 1", "argus.wgmma_wait(wgmma_pending)"),
                       ('argus.role "consumer"', 'argus.role("consumer"')):
        line = _example_line(needle)
        if op.startswith("argus.role"):
            # A region op's location follows its closing brace.
            lines = src.splitlines()
            start = next(i for i, l in enumerate(lines) if op in l)
            depth, j = 0, start
            for j in range(start, len(lines)):
                depth += lines[j].count("{") - lines[j].count("}")
                if depth == 0:
                    break
            text = lines[j]
        else:
            text = next(l for l in src.splitlines() if op in l)
        assert f'gemm_tma_ws.py":{line}:' in text, (op, text)


#===------------------------------------------------------------------------===#
# Planted protocol mistakes, each at its Python line
#===------------------------------------------------------------------------===#

BUGS = [
    # (knobs, violated kind, needle of the op the check names, nth match, note text)
    (dict(flip_parity=False), "mbarrier-parity", "argus.mbarrier_wait(full[", 0,
     "waiting for it needs parity 1"),
    (dict(expect_bytes=40960), "mbarrier-tx-bytes", "argus.mbarrier_arrive_expect_tx(", 0,
     "deliver 49152 bytes"),
    (dict(wgmma_pending=2), "stage-release", "argus.mbarrier_arrive(empty[", 0,
     "has not retired"),
    (dict(b_stage_shift=1), "tma-slot", "argus.tma_load(gb", 0, "writes stage 1"),
    (dict(empty_arrivals=128), "mbarrier-arrivals", 'argus.mbarrier("empty"', 0,
     "initialised for 128"),
]


@pytest.mark.parametrize("knobs,kind,needle,nth,note", BUGS,
                         ids=[b[1] for b in BUGS])
def test_planted_protocol_bug_is_violated_at_its_line(need_verifier, knobs, kind, needle, nth,
                                                      note):
    k = gemm_tma_ws.make_gemm_tma_ws(**knobs, name="gemm_tma_ws_bug")
    line = _example_line(needle, nth)
    c, e = violated_at(k, kind, EXAMPLE_PY, line)
    cx = c.counterexamples[0]
    assert cx.program_point == f"{c.py_file}:{line}"
    assert any(note in str(n) for n in cx.notes), cx.notes
    # The exception itself points at a violated op of the example, and the
    # result says every other check still holds or is violated (no unknowns).
    assert os.path.abspath(e.file) == EXAMPLE_PY and e.line
    assert not e.result.unknown, e.result.summary()


#===------------------------------------------------------------------------===#
# The bulk-store epilogue (gemm_tma_store_ws)
#===------------------------------------------------------------------------===#


def test_bulk_store_twin_proves_every_check_and_emits_bulk_stores(need_verifier):
    k = gemm_tma_ws.gemm_tma_store_ws
    src = k.source()
    for op in ("argus.tma_store %", "argus.tma_store_wait 0", "argus.fence_proxy_async"):
        assert op in src, op
    r = k.verify(strict=True)
    assert r.proved, r.summary()
    kinds = {c.kind for c in r.checks}
    assert {"tma-store-drained", "unsynchronized-read", "unsynchronized-write"} <= kinds
    if argus.has_pass("argus-to-nvptx"):
        asm = k.compile().asm
        assert asm.count("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group") == 4
        assert "cp.async.bulk.wait_group.read 0;" in asm
        assert re.search(r"bar\.sync\s+2,\s+256;", asm)


def test_grouped_raster_twin_proves_every_check(need_verifier):
    # Tiles walked in groups of 8 tile rows (a last, partial group with the
    # rows left): the verifier reads the tile index as group, column and row
    # digits and proves that every tile is written once.
    k = gemm_tma_ws.gemm_tma_store_ws_grouped
    src = k.source()
    assert src.count("arith.minui") == 2, "both roles clamp the last group's rows"
    r = k.verify(strict=True)
    assert r.proved, r.summary()
    kinds = collections.Counter(c.kind for c in r.checks)
    assert kinds["output-coverage"] == 1 and kinds["output-once"] == 1, kinds


def test_grouped_raster_over_clusters_proves(need_verifier):
    # Groups of cluster-tall tile rows: the rank is solved with the digits.
    k = gemm_tma_ws.make_gemm_tma_ws(epilogue="tma_store", cluster=2, group_m=8,
                                     name="gemm_tma_cluster_ws_grouped")
    r = k.verify(strict=True)
    assert r.proved, r.summary()


def test_grouped_raster_knob_is_checked():
    with pytest.raises(ValueError, match="group_m is a positive number"):
        gemm_tma_ws.make_gemm_tma_ws(group_m=0)
    with pytest.raises(ValueError, match="group_m is a positive number"):
        gemm_tma_ws.make_gemm_tma_ws(group_m=2.5)


STORE_BUGS = [
    (dict(fence=False), "unsynchronized-read", "argus.tma_store(sc[0]", "fence.proxy.async"),
    (dict(store_wait=1), "unsynchronized-write", "argus.store(out, sc[0])",
     "no tma_store_wait followed by a barrier retires"),
]


@pytest.mark.parametrize("knobs,kind,needle,text", STORE_BUGS, ids=[b[1] for b in STORE_BUGS])
def test_planted_bulk_store_bug_is_violated_at_its_line(need_verifier, knobs, kind, needle, text):
    k = gemm_tma_ws.make_gemm_tma_ws(epilogue="tma_store", name="gemm_tma_store_ws_bug", **knobs)
    c, _ = violated_at(k, kind, EXAMPLE_PY, _example_line(needle))
    cx = c.counterexamples[0]
    assert any(text in str(n) for n in cx.notes) or text in c.predicate, (cx.notes, c.predicate)


#===------------------------------------------------------------------------===#
# Thread-block clusters: B shared through TMA multicast (gemm_tma_cluster_ws)
#===------------------------------------------------------------------------===#


def test_cluster_gemm_proves_every_check_and_lowers_to_multicast(need_verifier):
    k = gemm_tma_ws.gemm_tma_cluster_ws
    src = k.source()
    assert 'cluster = [2]>' in src
    for op in ("gpu.cluster_id", "gpu.cluster_block_id", "gpu.cluster_dim", "] multicast :",
               "] cluster :", '"empty" arrivals 512'):
        assert op in src, op
    r = k.verify(strict=True)
    assert r.proved, r.summary()
    kinds = collections.Counter(c.kind for c in r.checks)
    assert kinds["cluster-lockstep"] == 3, kinds
    if argus.has_pass("argus-to-nvptx"):
        c = k.compile()
        assert list(c.abi.cluster) == [2, 1, 1]
        assert c.launch["cluster"] == [2, 1, 1]
        assert c.asm.count(".multicast::cluster") == 4
        assert ".reqnctapercluster 2, 1, 1" in c.asm


def test_cluster_of_four_blocks_proves_and_multicasts_b_in_quarters(need_verifier):
    # Four vertically adjacent tiles share B's slab: each block issues one
    # of its four 64-column boxes to all four (every block's empty barrier
    # counts the 4 x 256 consumers that release a stage).
    k = gemm_tma_ws.make_gemm_tma_ws(epilogue="tma_store", cluster=4,
                                     name="gemm_tma_cluster4_ws")
    src = k.source()
    assert 'cluster = [4]>' in src and '"empty" arrivals 1024' in src
    r = k.verify(strict=True)
    assert r.proved, r.summary()
    if argus.has_pass("argus-to-nvptx"):
        c = k.compile()
        assert c.launch["cluster"] == [4, 1, 1]
        assert ".reqnctapercluster 4, 1, 1" in c.asm
        assert c.asm.count(".multicast::cluster") == 4


def test_cluster_gemm_with_one_blocks_arrival_count_is_violated(need_verifier):
    # 256 arrivals expected where both blocks' 256 consumers arrive.
    k = gemm_tma_ws.make_gemm_tma_ws(epilogue="tma_store", cluster=2, empty_arrivals=128,
                                     name="gemm_tma_cluster_ws_bug")
    with pytest.raises(argus.InvariantViolation) as ei:
        k.verify()
    kinds = {c.kind for c in ei.value.violations}
    assert "mbarrier-arrivals" in kinds, ei.value.result.summary()


def test_cluster_knob_is_checked():
    with pytest.raises(ValueError, match="cluster is a positive number"):
        gemm_tma_ws.make_gemm_tma_ws(dtype="tf32", cluster=2)
    with pytest.raises(argus.ArgusError, match="cluster must be a positive int"):
        argus.kernel(target="sm_90a", block=128, cluster=0)(lambda: None)


def test_cluster_misuse_is_reported_at_the_line():
    def multicast_without_cluster(A, K, tm, sa, full, empty):
        argus.tma_load(argus.view(A, (0, 0), (128, 64)), sa[0], tm, full[0], multicast=True)
    _raises_at(multicast_without_cluster, argus.IRVerificationError, "multicast=True",
               "a multicast bulk copy needs a kernel with a thread-block cluster")

    def arrive_without_cluster(A, K, tm, sa, full, empty):
        argus.mbarrier_arrive(empty[0], cluster=True)
    _raises_at(arrive_without_cluster, argus.IRVerificationError, "cluster=True",
               "an arrival on every block's barrier needs a kernel with a thread-block cluster")

    def multicast_not_bool(A, K, tm, sa, full, empty):
        argus.tma_load(argus.view(A, (0, 0), (128, 64)), sa[0], tm, full[0], multicast=2)
    _raises_at(multicast_not_bool, argus.TraceError, "multicast=2",
               "tma_load's multicast must be True or False")

    def bad_dim(A, K, tm, sa, full, empty):
        argus.cluster_rank("w")
    _raises_at(bad_dim, argus.TraceError, 'cluster_rank("w")',
               "cluster_rank dimension must be 'x', 'y' or 'z'")


def test_epilogue_knob_is_checked():
    with pytest.raises(ValueError, match="epilogue is one of"):
        gemm_tma_ws.make_gemm_tma_ws(epilogue="smem")


def test_dtype_knob_is_checked():
    with pytest.raises(ValueError, match="dtype is one of"):
        gemm_tma_ws.make_gemm_tma_ws(dtype="f32")
    with pytest.raises(ValueError, match="stores C .f32. from registers"):
        gemm_tma_ws.make_gemm_tma_ws(dtype="tf32", epilogue="tma_store")


#===------------------------------------------------------------------------===#
# The fp32 GEMM on the tensor cores (dtype="tf32": wgmma.m64n256k8 on f32)
#===------------------------------------------------------------------------===#


def test_tf32_gemm_proves_and_lowers_to_tf32_wgmma(need_verifier):
    k = gemm_tma_ws.gemm_tf32_tma_ws
    src = k.source()
    assert '"wgmma.m64n256k8.f32.tf32.ss"' in src
    assert "argus.transpose" in src and "Sw<3,2,3> o (256,32):(32,1)" in src
    r = k.verify(strict=True)
    assert r.proved, r.summary()
    if not argus.has_pass("argus-to-nvptx"):
        return
    ck = k.compile()
    # Four k-steps of 8 per 32-deep slab, no transpose immediates, no
    # rounding: wgmma reads the f32 words of shared memory as tf32.
    assert ck.asm.count("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32") == 4
    assert re.search(r"m64n256k8\.f32\.tf32\.tf32 \{[^}]*\}, %rd\d+, %rd\d+, p, 1, 1;", ck.asm)
    assert "cvt.rna.tf32" not in ck.asm
    boxes = [(m["name"], m["box"], m["element"]) for m in ck.launch["tensor_maps"]]
    assert boxes == [("A", [128, 32], "f32"), ("B", [256, 32], "f32")]


TF32_BUGS = [
    (dict(flip_parity=False), "mbarrier-parity", "argus.mbarrier_wait(full[", "needs parity 1"),
    (dict(expect_bytes=32768), "mbarrier-tx-bytes", "argus.mbarrier_arrive_expect_tx(",
     "deliver 49152 bytes"),
    (dict(b_stage_shift=1), "tma-slot", "argus.tma_load(gb", "writes stage 1"),
]


@pytest.mark.parametrize("knobs,kind,needle,note", TF32_BUGS, ids=[b[1] for b in TF32_BUGS])
def test_planted_tf32_bug_is_violated_at_its_line(need_verifier, knobs, kind, needle, note):
    k = gemm_tma_ws.make_gemm_tma_ws(dtype="tf32", name="gemm_tf32_bug", **knobs)
    c, e = violated_at(k, kind, EXAMPLE_PY, _example_line(needle))
    assert any(note in str(n) for n in c.counterexamples[0].notes), c.counterexamples[0].notes
    assert not e.result.unknown, e.result.summary()


def test_tma_layout_is_what_the_copies_write():
    # The hand-written layouts of examples/sm90a, derived.
    assert argus.tma_layout((128, 64), (128, 64), "bf16").text == "Sw<3,3,3> o (128,64):(64,1)"
    assert (argus.tma_layout((64, 64), (64, 256), "bf16").text
            == "Sw<3,3,3> o (64,(64,4)):(64,(1,4096))")
    assert (argus.tma_layout((128, 64), (128, 256), "f16").text
            == "Sw<3,3,3> o (128,(64,4)):(64,(1,8192))")
    assert argus.tma_layout((128, 32), (128, 32), "f32").text == "Sw<3,2,3> o (128,32):(32,1)"
    # Boxes along both dimensions, row-major over the box grid.
    assert (argus.tma_layout((64, 64), (128, 128), "bf16").text
            == "Sw<3,3,3> o ((64,2),(64,2)):((64,8192),(1,4096))")
    # Narrower swizzles and none.
    assert argus.tma_layout((8, 32), (8, 32), "bf16", swizzle=64).text == "Sw<2,3,3> o (8,32):(32,1)"
    assert argus.tma_layout((8, 8), (16, 8), "f32", swizzle=32).text == "Sw<1,2,3> o (16,8):(8,1)"
    assert argus.tma_layout((4, 8), (8, 8), "bf16", swizzle=0).text == "(8,8):(8,1)"
    # Every element where the TMA model puts it: the C++ op verifier checks
    # the placement of a tma_load into an alloc with the derived layout.
    for box, shape, dt in (((64, 32), (128, 64), "f32"), ((32, 64), (64, 128), "bf16")):
        lay = argus.tma_layout(box, shape, dt)
        ir = (f"func.func @k(%A: memref<?x?x{dt}>) attributes {{argus.kernel = "
              f"#argus.kernel<block = [128], target = \"sm_90a\">}} {{\n"
              f"  %c0 = arith.constant 0 : index\n"
              f"  %m = argus.tensor_map \"A\" %A : memref<?x?x{dt}> -> "
              f"!argus.tensor_map<{box[0]}x{box[1]}x{dt}, swizzle = 128>\n"
              f"  %full = argus.mbarrier.alloc \"full\" arrivals 1 : !argus.mbarrier<1>\n"
              f"  %s = argus.alloc \"s\" : !argus.buffer<1 x !argus.tile<{shape[0]}x{shape[1]}x{dt}"
              f", shared, \"{lay.text}\">>\n"
              f"  %d = argus.stage %s[%c0] : !argus.buffer<1 x !argus.tile<{shape[0]}x{shape[1]}x{dt}"
              f", shared, \"{lay.text}\">>\n"
              f"  %g = argus.view \"A\" %A[%c0, %c0] : memref<?x?x{dt}> -> "
              f"!argus.tile<{shape[0]}x{shape[1]}x{dt}, global>\n"
              f"  argus.tma_load %g, %d, %m, %full[%c0] : !argus.tile<{shape[0]}x{shape[1]}x{dt}, "
              f"global>, !argus.tile<{shape[0]}x{shape[1]}x{dt}, shared, \"{lay.text}\">, "
              f"!argus.tensor_map<{box[0]}x{box[1]}x{dt}, swizzle = 128>, !argus.mbarrier<1>\n"
              f"  return\n}}\n")
        assert argus.parse(ir).verify() == [], (box, shape, dt)


def test_tma_layout_misuse():
    with pytest.raises(argus.ShapeError, match="not a grid of"):
        argus.tma_layout((128, 64), (100, 64), "bf16")
    with pytest.raises(argus.LayoutError, match="needs 128-byte rows") as ei:
        argus.tma_layout((128, 64), (128, 64), "f32")
    assert "32 elements" in str(ei.value)
    with pytest.raises(argus.LayoutError, match="needs the element type"):
        argus.tma_layout((128, 64), (128, 64))
    with pytest.raises(argus.LayoutError, match="swizzle 48"):
        argus.tma_layout((128, 64), (128, 64), "bf16", swizzle=48)


#===------------------------------------------------------------------------===#
# Smaller kernels: the constructs one at a time
#===------------------------------------------------------------------------===#

SA = argus.swizzle(3, 3, 3, "(128,64):(64,1)")


def _tiny(body, block=384):
    """A kernel with A (M x K bf16), a tensor map, a 2-stage buffer and two
    rings, whose remaining body is ``body(A, K, tm, sa, full, empty)``."""
    @argus.kernel(target="sm_90a", block=block, name="tiny")
    def k(A: argus.Tensor[("M", "K"), "bf16"], K: argus.index):
        tm = argus.tensor_map(A, (128, 64))
        sa = argus.alloc((128, 64), "bf16", SA, stages=2, name="sA")
        full = argus.mbarrier("full", stages=2, arrivals=1)
        empty = argus.mbarrier("empty", stages=2, arrivals=128)
        body(A, K, tm, sa, full, empty)
    return k


def test_tiny_kernel_text():
    def body(A, K, tm, sa, full, empty):
        with argus.role("p", warps=(0, 4)):
            argus.mbarrier_arrive_expect_tx(full[0], 16384)
            argus.tma_load(argus.view(A, (0, 0), (128, 64), clipped=True), sa[0], tm, full[0])
        with argus.role("c", warps=(4, 8), regs=232):
            argus.mbarrier_wait(full[0], 0)
            argus.fence_proxy_async()
            loop = argus.range(0, K, carry=0, name="j")
            for j, n in loop:
                with argus.when(j.ne(0) & (j < 4)):
                    argus.mbarrier_arrive(empty[n % 2])
                loop.carry(n + 1)
    src = _tiny(body, block=256).source()
    assert 'argus.role "p" warps 0 to 4 {' in src
    assert 'argus.role "c" warps 4 to 8 regs 232 {' in src
    # Types of the op's own class print without their dialect prefix (as
    # argus-opt prints them).
    assert "argus.tensor_map \"A\" %A : memref<?x?xbf16> -> " \
           "<128x64xbf16, swizzle = 128>" in src
    assert 'argus.mbarrier.alloc "empty" arrivals 128 : <2>' in src
    assert re.search(r"scf\.if %ok_\d+ \{", src)
    assert "argus.fence_proxy_async" in src
    # The int carry became an index constant.
    assert re.search(r"iter_args\(%ia = %c0(_\d+)?\) -> \(index\)", src)
    _tiny(body, block=256).module()  # parses and passes the op verifiers


def test_wgmma_wait_results_and_cdiv():
    W = "wgmma.m64n256k16.f32.bf16.ss"
    SB = argus.swizzle(3, 3, 3, "(64,(64,4)):(64,(1,4096))")
    FC = argus.frag(W, "c", warps=(2, 1))

    @argus.kernel(target="sm_90a", block=256)
    def k(N: argus.index):
        sa = argus.alloc((128, 64), "bf16", SA, name="sA")
        sb = argus.alloc((64, 256), "bf16", SB, name="sB")
        n = argus.cdiv(N, 256)
        m = N.cdiv(7)
        assert argus.cdiv(10, 4) == 3
        x = argus.mma_async(W, sa[0], sb[0], argus.zeros((128, 256), "f32", FC))
        y = argus.mma_async(W, sa[0], sb[0], argus.zeros((128, 256), "f32", FC))
        argus.wgmma_commit()
        x2, y2 = argus.wgmma_wait(0, x, y)
        assert x2.type_str == x.type_str and y2.name.endswith("#1")
        assert argus.wgmma_wait(0) is None
        _ = (n, m)
    src = k.source()
    assert re.search(r"%ready:2 = argus.wgmma_wait 0, %acc, %acc_1 : ", src)
    assert src.count("arith.ceildivui") == 2
    k.module()


def test_tag_assert_names_mma_async_operands():
    W = "wgmma.m64n256k16.f32.bf16.ss"
    SB = argus.swizzle(3, 3, 3, "(64,(64,4)):(64,(1,4096))")
    FC = argus.frag(W, "c", warps=(2, 1))

    @argus.kernel(target="sm_90a", block=256)
    def k(N: argus.index):
        sa = argus.alloc((128, 64), "bf16", SA, name="sA")
        sb = argus.alloc((64, 256), "bf16", SB, name="sB")
        acc = argus.tag(argus.zeros((128, 256), "f32", FC), lambda m, n: (m, n))
        x = argus.mma_async(W, sa[0], sb[0], acc)
        argus.tag_assert(x, "lhs.m == acc.m")
    with pytest.raises(argus.TagFieldError) as ei:
        k.ir()
    assert ei.value.line == _line_of(k.fn, "lhs.m == acc.m")
    assert "'a', 'b', 'acc' or 'result'" in str(ei.value)


#===------------------------------------------------------------------------===#
# Misuse: the DSL's exception at the user's line
#===------------------------------------------------------------------------===#


def _raises_at(body, exc, needle, message):
    """``_tiny(body)`` raises ``exc`` with ``message`` at the line of ``body``
    that contains ``needle``."""
    with pytest.raises(exc) as ei:
        _tiny(body).module()
    e = ei.value
    assert e.line == _line_of(body, needle), (e.line, str(e))
    assert os.path.abspath(e.file) == os.path.abspath(__file__), str(e)
    assert message in str(e), str(e)
    return e


def test_role_warps_out_of_range_is_reported_by_the_op_verifier():
    def body(A, K, tm, sa, full, empty):
        with argus.role("c", warps=(8, 16)):
            argus.mbarrier_arrive(empty[0])
    _raises_at(body, argus.IRVerificationError, 'argus.role("c", warps=(8, 16))',
               "are not a non-empty range of the block's 12 warps")


def test_role_overlap_and_register_budget():
    def overlap(A, K, tm, sa, full, empty):
        with argus.role("p", warps=(0, 4)):
            argus.mbarrier_arrive(full[0])
        with argus.role("c", warps=(2, 8)):
            argus.mbarrier_arrive(empty[0])
    # Each role's verifier sees the overlap; the first one reports it.
    _raises_at(overlap, argus.IRVerificationError, 'argus.role("p", warps=(0, 4))',
               "warps 0 to 4 overlap those of role 'c' (2 to 8)")

    def regs(A, K, tm, sa, full, empty):
        with argus.role("p", warps=(0, 4), regs=41):
            argus.mbarrier_arrive(full[0])
    _raises_at(regs, argus.IRVerificationError, "regs=41",
               "setmaxnreg takes a multiple of 8 in [24, 256], got 41")


def test_role_warps_must_be_a_pair_of_ints():
    def body(A, K, tm, sa, full, empty):
        with argus.role("c", warps=4):
            pass
    _raises_at(body, argus.TraceError, 'argus.role("c", warps=4)',
               "role warps are a pair of Python ints")


def test_barrier_inside_a_role_synchronises_the_role():
    # Inside a role, argus.barrier is the role's named barrier: it verifies.
    def body(A, K, tm, sa, full, empty):
        with argus.role("c", warps=(0, 4)):
            argus.barrier()
    k = _tiny(body)
    k.module()  # the op verifiers accept it
    src = k.source()
    assert "argus.barrier" in src[src.index('argus.role "c"'):]


def test_mbarrier_wait_on_a_non_ring_value():
    def tile(A, K, tm, sa, full, empty):
        argus.mbarrier_wait(sa[0], 0)
    e = _raises_at(tile, argus.TraceError, "argus.mbarrier_wait(sa[0], 0)",
                   "mbarrier_wait takes a barrier of an mbarrier ring")
    assert not isinstance(e, argus.IRVerificationError)

    def whole(A, K, tm, sa, full, empty):
        argus.mbarrier_wait(full, 0)
    _raises_at(whole, argus.TraceError, "argus.mbarrier_wait(full, 0)",
               "full[stage], not the whole ring")


def test_mbarrier_parity_and_stage_checked_by_the_op_verifier():
    def parity(A, K, tm, sa, full, empty):
        argus.mbarrier_wait(full[1], 2)
    _raises_at(parity, argus.IRVerificationError, "argus.mbarrier_wait(full[1], 2)",
               "parity must be 0 or 1, got 2")

    def stage(A, K, tm, sa, full, empty):
        argus.mbarrier_arrive(empty[3])
    _raises_at(stage, argus.IRVerificationError, "argus.mbarrier_arrive(empty[3])",
               "stage 3 is out of range for a ring of 2 mbarriers")


def test_tma_misuse():
    def not_a_map(A, K, tm, sa, full, empty):
        argus.tma_load(argus.view(A, (0, 0), (128, 64)), sa[0], A, full[0])
    _raises_at(not_a_map, argus.TraceError, "sa[0], A, full[0]",
               "tma_load needs a tensor map")

    def swizzle_mismatch(A, K, tm, sa, full, empty):
        tm2 = argus.tensor_map(A, (128, 32), swizzle=64)
        argus.tma_load(argus.view(A, (0, 0), (128, 64)), sa[0], tm2, full[0])
    _raises_at(swizzle_mismatch, argus.IRVerificationError, "sa[0], tm2, full[0]",
               "'argus.tma_load' op the shared tile's layout")

    def map_in_role(A, K, tm, sa, full, empty):
        with argus.role("p", warps=(0, 4)):
            argus.tensor_map(A, (128, 64), name="A2")
    _raises_at(map_in_role, argus.IRVerificationError, 'name="A2"',
               "a tensor map must be at the top level of an argus kernel")


def test_wgmma_wait_and_when_misuse():
    def wait(A, K, tm, sa, full, empty):
        argus.wgmma_wait(-1)
    _raises_at(wait, argus.TraceError, "argus.wgmma_wait(-1)",
               "wgmma_wait needs a non-negative int")

    def when(A, K, tm, sa, full, empty):
        with argus.when(K):
            pass
    _raises_at(when, argus.TraceError, "argus.when(K)",
               "argus.when takes a traced condition")
