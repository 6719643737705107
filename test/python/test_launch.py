"""kernel[grid](...), argus.constexpr and argus.autotune (issue 15, item 8)
without a GPU: a stand-in argus-run (through $ARGUS_RUN, $ARGUS_GPU=1, as in
test_run.py) that writes 2 * input + 1 into every saved tensor and reports
a median time of 1000 / (threads per block) ms, so larger blocks "run
faster". Kernels are traced, verified and compiled for real."""

import json
import os
import sys

import numpy as np
import pytest
from conftest import install_stand_in

import argus
import argus.compile as acomp
from argus.launch import to_host

FAKE = r'''#!%(python)s
import json, os, sys
import numpy as np
NP = {"f32": "<f4", "f16": "<f2", "bf16": "<u2", "i32": "<i4"}
spec_path = sys.argv[1]
report = sys.argv[sys.argv.index("--report") + 1]
base = os.path.dirname(spec_path)
spec = json.load(open(spec_path))
threads = spec["block"][0] * spec["block"][1] * spec["block"][2]
if threads in [int(x) for x in os.environ.get("ARGUS_FAKE_FAIL_BLOCK", "").split(",") if x]:
    sys.stderr.write("argus-run: error: launch failed\n")
    sys.exit(4)
for a in spec["args"]:
    if "save" not in a:
        continue
    x = np.frombuffer(open(os.path.join(base, a["init"]["file"]), "rb").read(), NP[a["dtype"]])
    if a["dtype"] == "bf16":
        x = (x.astype("<u4") << 16).view("<f4")
    out = x.astype(np.float64) * 2 + 1
    if a["dtype"] == "bf16":
        raw = (out.astype("<f4").view("<u4") >> 16).astype("<u2")
    else:
        raw = out.astype(NP[a["dtype"]])
    open(os.path.join(base, a["save"]), "wb").write(raw.tobytes())
with open(os.environ["ARGUS_FAKE_LOG"], "a") as f:
    f.write(json.dumps(spec) + "\n")
json.dump({"schema": "argus.run_report/1", "name": spec["name"],
           "timing": {"median": {"value": 1000.0 / threads, "provenance": "derived"}},
           "check": None, "probes": None, "saved": []}, open(report, "w"))
'''


@pytest.fixture
def fake_run(tmp_path, monkeypatch):
    log = install_stand_in(tmp_path, monkeypatch, FAKE % {"python": sys.executable},
                           "runs.jsonl")
    monkeypatch.delenv("ARGUS_FAKE_FAIL_BLOCK", raising=False)

    def specs():
        if not log.exists():
            return []
        return [json.loads(l) for l in log.read_text().splitlines()]
    return specs


SEEN = []


def make_add1(shift_when=None):
    @argus.kernel(target="sm_90a", block=128)
    def add1(X: argus.Tensor[("N",), "f32"], Y: argus.Tensor[("N",), "f32"],
             BLOCK: argus.constexpr, SHIFT: argus.constexpr = 0):
        SEEN.append((type(BLOCK), BLOCK))
        argus.assume(X.dim("N").eq(argus.grid_dim("x") * BLOCK), "N = BLOCK * grid")
        n0 = argus.block_id("x") * BLOCK
        gx = argus.tag(argus.view(X, (n0,), (BLOCK,)), lambda i: n0 + i)
        gy = argus.tag(argus.view(Y, (n0,), (BLOCK,)), lambda i: n0 + i + SHIFT)
        argus.store(argus.load(gx) + 1.0, gy)
        argus.tag_assert("value.i == dest.i")
    return add1


#===------------------------------------------------------------------------===#
# constexpr
#===------------------------------------------------------------------------===#


def test_constexpr_specialises_at_trace_time():
    k = make_add1()
    assert k.constexpr_names == ["BLOCK", "SHIFT"]
    v = k.specialize(BLOCK=256)
    SEEN.clear()
    src = v.source()
    assert SEEN == [(int, 256)]
    assert "<256xf32, global>" in src
    assert [p for p, _ in v.params] == ["X", "Y"]       # constexprs are not kernel arguments
    assert k.specialize(BLOCK=256) is v                 # cached
    assert k.specialize(BLOCK=512) is not v
    assert k.specialize(BLOCK=256, SHIFT=0) is v         # the default is the same variant
    assert k.specialize(BLOCK=256, target="gfx942").target == "gfx942"
    assert k.specialize(BLOCK=256, block=256).block == (256,)


def test_constexpr_missing_and_unknown():
    k = make_add1()
    with pytest.raises(argus.ArgusError) as ei:
        k.ir()
    assert "BLOCK" in str(ei.value) and "specialize(BLOCK=" in ei.value.hint
    assert ei.value.line == k.fn.__code__.co_firstlineno
    with pytest.raises(argus.ArgusError) as ei:
        k.specialize(BLOKC=4)
    assert "not an argus.constexpr parameter" in str(ei.value)


def test_variant_cache_is_bounded():
    k = make_add1()
    for b in range(1, 70):
        k.specialize(BLOCK=b)
    assert len(k._variants) == argus.Kernel._MAX_VARIANTS


def test_compiled_variants_are_cached():
    v = make_add1().specialize(BLOCK=256)
    ck = v.compile()
    assert v.compile() is ck and "ld.global" in ck.asm
    assert v.compile(target="gfx942") is not ck


def test_constexpr_variant_verifies(need_verifier):
    k = make_add1()
    assert k.specialize(BLOCK=256).verify().proved
    with pytest.raises(argus.InvariantViolation):
        k.specialize(BLOCK=256, SHIFT=1).verify()


#===------------------------------------------------------------------------===#
# kernel[grid](...)
#===------------------------------------------------------------------------===#


def test_launch_numpy(fake_run):
    k = make_add1()
    x = np.arange(1024, dtype=np.float32)
    y = np.zeros(1024, np.float32)
    r = k[(1024 // 256,)](x, y, BLOCK=256)
    assert isinstance(r, acomp.RunResult) and r.time_ms == pytest.approx(1000 / 128)
    assert (y == 1).all() and (x == np.arange(1024)).all()     # Y written back: 2*0+1
    assert r.outputs["Y"] is y
    spec = fake_run()[-1]
    assert spec["grid"] == [4, 1, 1] and spec["block"] == [128, 1, 1]
    assert spec["repetitions"] == 1 and spec["warmup"] == 0
    assert [a["name"] for a in spec["args"] if a["kind"] == "buffer"] == ["X", "Y"]
    assert [a["role"] for a in spec["args"] if a["kind"] == "buffer"] == ["input", "inout"]


def test_launch_grid_callable_positional_constexpr_and_options(fake_run):
    k = make_add1()
    x = np.ones(2048, np.float32)
    y = np.full(2048, 3.0, np.float32)
    metas = []

    def grid(meta):
        metas.append(meta)
        return (meta["N"] // meta["BLOCK"],)
    k[grid](x, y, 512, block=256, repetitions=7)
    assert metas[0]["N"] == 2048 and metas[0]["BLOCK"] == 512 and metas[0]["SHIFT"] == 0
    assert metas[0]["block"] == (256,)
    spec = fake_run()[-1]
    assert spec["grid"] == [4, 1, 1] and spec["block"] == [256, 1, 1]
    assert spec["repetitions"] == 7
    assert (y == 7).all()


def test_launch_with_the_grid_the_kernel_assumes(fake_run):
    # add1 assumes N = BLOCK * grid_dim.x: kernel[None] launches that grid.
    k = make_add1()
    k[None](np.ones(1024, np.float32), np.zeros(1024, np.float32), BLOCK=256)
    assert fake_run()[-1]["grid"] == [4, 1, 1]
    with pytest.raises(argus.ArgusError) as ei:
        k[None](np.ones(1000, np.float32), np.zeros(1000, np.float32), BLOCK=256)
    assert "1000 is not a multiple of 256" in str(ei.value)
    assert "N = BLOCK * grid" in str(ei.value)


def test_launch_errors(fake_run):
    k = make_add1()
    x = np.ones(256, np.float32)
    with pytest.raises(argus.ArgusError) as ei:
        k[(1,)](x, BLOCK=256)                 # Y missing
    assert "missing" in str(ei.value) and "launch options" in ei.value.hint
    with pytest.raises(argus.ArgusError) as ei:
        k[(0,)](x, x.copy(), BLOCK=256)
    assert "grid" in str(ei.value) and ei.value.hint
    with pytest.raises(argus.ArgusError):
        k[lambda m: (1, 1, 1, 1)](x, x.copy(), BLOCK=256)
    with pytest.raises(argus.ArgusError) as ei:
        k[(1,)]([1.0] * 256, x.copy(), BLOCK=256)
    assert "rank-1 array" in str(ei.value)
    with pytest.raises(argus.TraceError) as ei:
        k(x, x, BLOCK=256)
    assert "kernel[grid]" in str(ei.value)


def test_launch_without_gpu_raises_nogpu(monkeypatch):
    monkeypatch.setenv("ARGUS_GPU", "0")
    k = make_add1()
    with pytest.raises(argus.NoGPU):
        k[(1,)](np.ones(256, np.float32), np.ones(256, np.float32), BLOCK=256)


def test_to_host_numpy_is_passed_through():
    a = np.zeros((2, 3), np.float32)
    h = to_host(a, "f32")
    assert h.array is a and h.source is None
    h.write_back()  # nothing to do


#===------------------------------------------------------------------------===#
# PyTorch tensors (where torch is installed)
#===------------------------------------------------------------------------===#


def test_launch_torch_tensors(fake_run):
    torch = pytest.importorskip("torch")
    k = make_add1()
    x = torch.arange(512, dtype=torch.float32)
    y = torch.zeros(512, dtype=torch.float32)
    r = k[(2,)](x, y, BLOCK=256)
    assert torch.equal(y, torch.ones(512)) and r.outputs["Y"] is y
    assert torch.equal(x, torch.arange(512, dtype=torch.float32))


def test_launch_torch_bf16(fake_run):
    torch = pytest.importorskip("torch")

    @argus.kernel(target="sm_90a", block=128)
    def cp(X: argus.Tensor[("N",), "bf16"], Y: argus.Tensor[("N",), "bf16"],
           BLOCK: argus.constexpr):
        n0 = argus.block_id("x") * BLOCK
        argus.store(argus.load(argus.view(X, (n0,), (BLOCK,))), argus.view(Y, (n0,), (BLOCK,)))
    x = torch.full((256,), 1.5, dtype=torch.bfloat16)
    y = torch.full((256,), 0.75, dtype=torch.bfloat16)
    cp[(1,)](x, y, BLOCK=256)
    assert y.dtype == torch.bfloat16 and torch.equal(y.float(), torch.full((256,), 2.5))
    h = to_host(x, "bf16")
    assert h.bits and h.array.dtype == np.uint16 and int(h.array[0]) == 0x3FC0
    h32 = to_host(x, "f32")
    assert h32.array.dtype == np.float32 and float(h32.array[0]) == 1.5


#===------------------------------------------------------------------------===#
# autotune
#===------------------------------------------------------------------------===#

CONFIGS = [{"BLOCK": 256}, {"BLOCK": 256, "block": 256}, {"BLOCK": 0},
           {"BLOCK": 256, "SHIFT": 1, "block": 64}, {"BLOCK": 128, "block": 32}]


def test_autotune_picks_the_fastest_and_caches(fake_run, need_verifier, monkeypatch):
    monkeypatch.setenv("ARGUS_FAKE_FAIL_BLOCK", "32")
    tuned = argus.autotune(configs=CONFIGS, key=["N"])(make_add1())
    x = np.arange(1024, dtype=np.float32)
    y = np.zeros(1024, np.float32)
    grid = lambda m: (m["N"] // m["BLOCK"],)  # noqa: E731
    r = tuned[grid](x, y)
    assert tuned.best(1024) == {"BLOCK": 256, "block": 256}
    recs = tuned.history[(1024,)]
    assert [r.status for r in recs] == ["measured", "measured", "trace_error", "violated",
                                        "run_error"]
    assert recs[0].time_ms == pytest.approx(1000 / 128)
    assert recs[1].time_ms == pytest.approx(1000 / 256)
    assert "shape" in recs[2].reason
    assert "assert" in recs[3].reason
    assert "launch failed" in recs[4].reason
    runs = fake_run()  # the stand-in logs the runs that succeed
    # two measured configurations (50 repetitions after 5 warm-ups), then
    # the launch of the best on the caller's arrays
    assert [s["repetitions"] for s in runs] == [50, 50, 1]
    assert runs[-1]["block"] == [256, 1, 1] and runs[-1]["grid"] == [4, 1, 1]
    assert (y == 1).all() and r.outputs["Y"] is y
    # the same key: no tuning again
    y2 = np.zeros(1024, np.float32)
    tuned[grid](x, y2)
    assert len(fake_run()) == 4 and (y2 == 1).all()
    # another key tunes again
    tuned[grid](np.ones(2048, np.float32), np.zeros(2048, np.float32))
    assert (2048,) in tuned.history and len(fake_run()) == 4 + 3
    assert [r.status for r in tuned.history[(2048,)]] == [r.status for r in recs]


def test_autotune_compile_errors_are_recorded(fake_run, monkeypatch):
    real = acomp.compile_kernel

    def compile_kernel(kernel, target=None, probes=False, fmt="isa"):
        if kernel.block == (64,):
            raise argus.CompileError("lowering for sm_90a failed (argus-to-nvptx)", [])
        return real(kernel, target=target, probes=probes, fmt=fmt)
    monkeypatch.setattr(acomp, "compile_kernel", compile_kernel)
    tuned = argus.autotune(configs=[{"BLOCK": 256, "block": 64}, {"BLOCK": 256}],
                           key=["N"], verify=False)(make_add1())
    tuned[(4,)](np.ones(1024, np.float32), np.zeros(1024, np.float32))
    recs = tuned.history[(1024,)]
    assert [r.status for r in recs] == ["compile_error", "measured"]
    assert "argus-to-nvptx" in recs[0].reason


def test_autotune_all_failing_and_bad_configs(fake_run):
    tuned = argus.autotune(configs=[{"BLOCK": 0}], key=["N"])(make_add1())
    with pytest.raises(argus.ArgusError) as ei:
        tuned[(1,)](np.ones(256, np.float32), np.zeros(256, np.float32))
    assert "no configuration ran" in str(ei.value) and "trace_error" in str(ei.value)
    with pytest.raises(argus.ArgusError) as ei:
        argus.autotune(configs=[{"BM": 64}], key=["N"])(make_add1())
    assert "not argus.constexpr" in str(ei.value)
    with pytest.raises(argus.ArgusError) as ei:
        argus.autotune(configs=[{"BLOCK": 256}], key=["Q"])(make_add1())[(1,)](
            np.ones(256, np.float32), np.zeros(256, np.float32))
    assert "key 'Q'" in str(ei.value)


#===------------------------------------------------------------------------===#
# min_blocks_per_sm: occupancy as a variant option
#===------------------------------------------------------------------------===#

def test_min_blocks_per_sm_reaches_the_ptx(need_verifier):
    k = make_add1()
    plain = k.specialize(BLOCK=256)
    assert plain.min_blocks_per_sm == 0 and ".minnctapersm" not in plain.compile().asm
    v = k.specialize(BLOCK=256, min_blocks_per_sm=4)
    assert v is not plain and v.min_blocks_per_sm == 4
    assert v is k.specialize(BLOCK=256, min_blocks_per_sm=4)  # cached per value
    assert ".minnctapersm 4" in v.compile().asm
    # from the decorator, kept by specialisations that do not set it
    @argus.kernel(target="sm_90a", block=128, min_blocks_per_sm=3)
    def copy(X: argus.Tensor[(128,), "f32"], Y: argus.Tensor[(128,), "f32"]):
        argus.store(argus.load(argus.view(X, (0,), (128,))), argus.view(Y, (0,), (128,)))
    assert ".minnctapersm 3" in copy.compile().asm
    assert copy.specialize(block=64).min_blocks_per_sm == 3


def test_min_blocks_per_sm_bad_values_are_argus_errors():
    for bad in (-1, 1.5, True, "4"):
        with pytest.raises(argus.ArgusError) as ei:
            argus.kernel(target="sm_90a", block=128, min_blocks_per_sm=bad)(lambda: None)
        assert "min_blocks_per_sm must be an int >= 0" in str(ei.value)
        with pytest.raises(argus.ArgusError):
            make_add1().specialize(BLOCK=256, min_blocks_per_sm=bad)


def test_min_blocks_per_sm_in_autotune_configs_and_launch(fake_run, monkeypatch):
    seen = []
    real = acomp.compile_kernel

    def compile_kernel(kernel, target=None, probes=False, fmt="isa"):
        seen.append(kernel.min_blocks_per_sm)
        return real(kernel, target=target, probes=probes, fmt=fmt)
    monkeypatch.setattr(acomp, "compile_kernel", compile_kernel)
    tuned = argus.autotune(configs=[{"BLOCK": 256, "min_blocks_per_sm": 2},
                                    {"BLOCK": 256, "block": 256, "min_blocks_per_sm": 4}],
                           key=["N"], verify=False)(make_add1())
    y = np.zeros(1024, np.float32)
    tuned[(4,)](np.arange(1024, dtype=np.float32), y)
    # the stand-in's time falls with the block: the second wins, and is launched
    assert tuned.best(1024) == {"BLOCK": 256, "block": 256, "min_blocks_per_sm": 4}
    assert seen == [2, 4] and (y == 1).all()  # the launch reuses the compiled variant
    # a launch option too
    make_add1()[(4,)](np.ones(1024, np.float32), np.zeros(1024, np.float32), BLOCK=256,
                      min_blocks_per_sm=5)
    assert seen[-1] == 5
