"""Issue 13: no crash and no silent wrong answer. Inputs that used to kill
the interpreter, or were taken although they mean something else, now raise
clear Python exceptions (and the process survives)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

import argus
from argus.compile import compile_module
from argus.errors import MLIRError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run_python(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter with this one's import path, so
    that a process-ending failure is a failed assertion, not a dead pytest."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=300)


def _need(pipeline: str):
    if not argus.has_pass(pipeline):
        pytest.skip(f"{pipeline} not built into the _argus extension")


# -- 2. shared-memory budget and LLVM backend errors ---------------------------

def test_compile_over_lds_budget_raises_and_process_survives():
    """An 80 KiB gfx942 kernel reached LLVM's "local memory (81920) exceeds
    limit (65536)", which called exit(1) inside kernel.compile()."""
    _need("argus-to-gfx942")
    r = _run_python("""
        import argus

        @argus.kernel(target="gfx942", block=256)
        def big_lds(X: argus.Tensor[("M", "K"), "f16"], Y: argus.Tensor[("M", "K"), "f16"]):
            s = argus.alloc((256, 160), "f16", name="sA")
            argus.copy(argus.view(X, (0, 0), (256, 160)), s[0], threads="(256,160):(160,1)")
            argus.barrier()
            r = argus.load(s[0], layout="(256,160):(1,256)")
            argus.store(r, argus.view(Y, (0, 0), (256, 160)))

        try:
            big_lds.compile()
        except argus.CompileError as e:
            print("raised:", type(e).__name__)
            print(e)
        print("alive")
    """)
    assert r.returncode == 0, r.stderr
    assert "raised: CompileError" in r.stdout and "alive" in r.stdout
    assert "needs 81920 bytes of shared memory but a block on gfx942 may use at most " \
           "65536 bytes" in r.stdout
    assert "LLVM ERROR" not in r.stderr


def test_parse_of_a_huge_result_number_raises_and_process_survives():
    """`%r#2147483647` made MLIR's parser abort the interpreter ("LLVM
    ERROR: out of memory"; the long bindings fuzz run, 2 of 100,000)."""
    r = _run_python('''
        import argus
        text = """func.func @f(%a: index, %b: index) -> index {
          %r:2 = arith.addui_extended %a, %b : index, i1
          %s = arith.addi %r#2147483647, %a : index
          return %s : index
        }"""
        try:
            argus.parse(text, "huge.mlir")
        except argus.MLIRError as e:
            print("raised:", type(e).__name__)
            print(e)
        print("alive")
    ''')
    assert r.returncode == 0, r.stderr
    assert "raised: MLIRError" in r.stdout and "alive" in r.stdout
    assert "huge.mlir:3:21: error: result number 2147483647 of '%r' is out of range" \
        in r.stdout
    assert "LLVM ERROR" not in r.stderr


def test_backend_error_in_serialisation_is_a_pipeline_error():
    """A module the budget check does not see (not an argus kernel) still
    cannot end the process: the LLVM backend's error becomes a diagnostic."""
    _need("argus-module-to-binary")
    r = _run_python("""
        import argus
        m = argus.parse('''
        module attributes {gpu.container_module} {
          gpu.module @lds [#rocdl.target<chip = "gfx942">] {
            llvm.mlir.global internal @big() {addr_space = 3 : i32} : !llvm.array<20480 x f32>
            llvm.func @k(%v: f32) attributes {gpu.kernel, rocdl.kernel} {
              %p = llvm.mlir.addressof @big : !llvm.ptr<3>
              llvm.store volatile %v, %p : f32, !llvm.ptr<3>
              llvm.return
            }
          }
        }''')
        try:
            m.run_pipeline("argus-module-to-binary")
        except argus.PipelineError as e:
            print("raised:", type(e).__name__)
            print(e)
        print("alive")
    """)
    assert r.returncode == 0, r.stderr
    assert "raised: PipelineError" in r.stdout and "alive" in r.stdout
    assert "local memory (81920) exceeds limit (65536)" in r.stdout


# -- 1. exp / exp2 lower in the bindings as in argus-opt -----------------------

@pytest.mark.parametrize("target", ["sm_90a", "gfx942"])
def test_exp_kernels_compile(target):
    _need("argus-to-nvptx")
    block = 128

    @argus.kernel(target=target, block=block)
    def softexp(X: argus.Tensor[("M", "N"), "f32"], Y: argus.Tensor[("M", "N"), "f32"]):
        x = argus.load(argus.view(X, (0, 0), (128, 8)), layout="(128,8):(1,128)")
        y = argus.exp2(argus.exp(x))
        argus.store(y, argus.view(Y, (0, 0), (128, 8)))

    asm = softexp.compile().asm
    if target.startswith("sm_"):
        assert "ex2.approx" in asm and "__nv_" not in asm
    else:
        assert "v_exp_f32" in asm


# -- 3. register tiles over more threads than the block ------------------------

def test_register_tile_wider_than_block_is_rejected():
    text = """
    func.func @k(%X: memref<?x?xf32>)
        attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
      %c0 = arith.constant 0 : index
      %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !argus.tile<256x4xf32, global>
      %r = argus.load %x : !argus.tile<256x4xf32, global> -> !argus.tile<256x4xf32, register, "(256,4):(1,256)">
      argus.store %r, %x : !argus.tile<256x4xf32, register, "(256,4):(1,256)">, !argus.tile<256x4xf32, global>
      return
    }"""
    with pytest.raises(MLIRError) as ei:
        argus.parse(text)
    assert "spans 256 threads but the kernel block has 128" in str(ei.value)


# -- 6. options that meant something else -------------------------------------

def test_range_step_must_be_positive():
    for step in (0, -1):
        @argus.kernel(target="gfx942", block=256)
        def k(A: argus.Tensor[("M", "K"), "f16"]):
            for i in argus.range(0, 4, step=step):  # STEP
                pass
        with pytest.raises(argus.TraceError) as ei:
            k.ir()
        assert "step must be a positive integer" in str(ei.value)


def test_compile_unknown_target_is_a_value_error():
    import gemm
    with pytest.raises(ValueError) as ei:
        gemm.gemm_mfma.compile(target="cuda")
    msg = str(ei.value)
    assert "'cuda'" in msg and "gfx942" in msg and "sm_90a" in msg
    with pytest.raises(ValueError):
        compile_module(gemm.gemm_mfma.module(), "gfx942", fmt="elf")


def test_lowering_rejects_unknown_chip():
    _need("argus-to-nvptx")
    import gemm
    with pytest.raises(argus.PipelineError) as ei:
        gemm.gemm_mfma.module().clone().run_pipeline("argus-to-nvptx{chip=cuda}")
    assert "unknown target chip 'cuda'" in str(ei.value)


@pytest.mark.parametrize("opts", [dict(implicit_checks="maybe"), dict(implicit_checks=1),
                                  dict(max_counterexamples=0), dict(timeout_ms=-1),
                                  dict(timeout_ms="10"), dict(threads=0),
                                  dict(threads=2.0), dict(threads=True)])
def test_verify_option_types(opts, need_verifier):
    import gemm
    with pytest.raises(ValueError):
        gemm.gemm_mfma.verify(**opts)


def test_verify_threads_same_report(need_verifier):
    # Shards change who runs a check, never its result.
    import pipelined_gemm
    one = pipelined_gemm.gemm_pipelined_2stage.verify(threads=1)
    two = pipelined_gemm.gemm_pipelined_2stage.verify(threads=2)
    key = lambda r: sorted((c.kind, c.location, c.status) for c in r.checks)
    assert one.checks and key(one) == key(two)


def test_verify_timeout_zero_means_no_limit(need_verifier):
    import gemm
    r = gemm.gemm_mfma.verify(timeout_ms=0)
    assert r.checks and r.proved and not r.unknown


# -- 6. argus-agent command line ------------------------------------------------

def _agent(args, capsys):
    from argus.agent.__main__ import main
    with pytest.raises(SystemExit) as ei:
        main(args)
    return ei.value.code, capsys.readouterr().err


@pytest.mark.parametrize("args", [["--M", "0"], ["--M", "-64"], ["--N", "x"],
                                  ["--steps", "-1"]])
def test_agent_rejects_bad_sizes(args, capsys):
    code, err = _agent(args, capsys)
    assert code == 2 and "expected a" in err and "Traceback" not in err


def test_agent_corrupt_resume_log(tmp_path, capsys):
    (tmp_path / "log.jsonl").write_text('{"step": 0, "status": "pending", "variant": {}}\n'
                                        "{not json\n")
    code, err = _agent(["--resume", str(tmp_path), "--steps", "0"], capsys)
    assert code == 2 and "log.jsonl:2: not a JSON record" in err
    (tmp_path / "log.jsonl").write_text('[1, 2]\n')
    code, err = _agent(["--resume", str(tmp_path), "--steps", "0"], capsys)
    assert code == 2 and "log.jsonl:1: not an argus-agent record" in err


def test_agent_unwritable_outputs_fail_before_work(tmp_path, capsys):
    missing = tmp_path / "no" / "such"
    code, err = _agent(["--log", str(missing / "log.jsonl")], capsys)
    assert code == 2 and "--log" in err and "does not exist" in err
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, err = _agent(["--batch-dir", str(blocker / "batch")], capsys)
    assert code == 2 and "--batch-dir" in err
    code, err = _agent(["--batch-dir", str(blocker)], capsys)
    assert code == 2 and "is not a directory" in err
    if os.geteuid() != 0:  # root writes anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        code, err = _agent(["--log", str(ro / "log.jsonl")], capsys)
        assert code == 2 and "not writable" in err


# -- 7. the repository's mutator ------------------------------------------------

def test_mutator_handles_tiny_inputs():
    sys.path.insert(0, os.path.join(ROOT, "test", "fuzz"))
    try:
        import mutate_argus_opt
    finally:
        sys.path.pop(0)
    import random
    rng = random.Random(0)
    for text in ["", "x", "%", "\n", "a\n", "func"]:
        for _ in range(200):
            assert isinstance(mutate_argus_opt.mutate(text, rng), str)
