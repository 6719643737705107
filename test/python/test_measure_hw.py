"""The ``hw`` signal without a GPU: nvdisasm line info and ncu's source page
parsed (pcmap.py), joined with argus-opt's line -> region table, attributed
(weights sum to the totals, entropy 0 for unshared instructions), and the
whole plan run with the real argus-opt and stand-ins for ptxas, ncu and
nvdisasm that derive their outputs from the PTX's own .loc directives."""

import json
import os
import stat
import sys
import textwrap

import pytest

from argus.measure import ArtifactStore, LocalExecutor, Planner, Query, Scope, attribute
from argus.measure import attribution, collect, make_handlers, pcmap
from argus.measure.report import text_summary

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEMM2 = os.path.join(ROOT, "examples", "gemm_pipelined_2stage.mlir")
TOOL = os.environ.get("ARGUS_OPT", os.path.join(ROOT, "build", "bin", "argus-opt"))

NVDISASM = textwrap.dedent("""\
        .section .text.other,"ax",@progbits
        .text.other:
        /*0000*/                   EXIT ;
        .section .text.k,"ax",@progbits
        .text.k:
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        //## File "/src/k.mlir", line 10
        /*0010*/                   S2R R0, SR_TID.X ;
        /*0020*/                   IMAD R2, R0, 0x4, RZ ;
        //## File "/src/k.mlir", line 0
        /*0030*/                   BRA 0x40 ;
        //## File "/src/helper.py", line 7 inlined at "/src/k.mlir", line 12
        /*0040*/                   HMMA.16816.F32 R4, R8, R12, R4 ;
        //## File "/src/k.mlir", line 12
        /*0050*/                   EXIT ;
        //## File "/src/helper.py [argus region inner]", line 7
        /*0060*/                   HMMA.16816.F32 R4, R8, R12, R4 ;
        //## File "/src/helper.py [argus region outer]", line 7
        /*0070*/                   HMMA.16816.F32 R4, R8, R12, R4 ;
""")

NCU_CSV = textwrap.dedent("""\
    "Kernel Name","k"
    "# Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed"
    "0x7f0000001000","MOV R1, c[0x0][0x28]","2","1,024"
    "0x7f0000001010","S2R R0, SR_TID.X","10","1024"
    "0x7f0000001020","IMAD R2, R0, 0x4, RZ","0","1024"
    "0x7f0000001030","BRA 0x40","1","1024"
    "0x7f0000001040","HMMA.16816.F32 R4, R8, R12, R4","40","4096"
    "0x7f0000001050","EXIT","0","1024"
""")

LINES = {"schema": "argus.line_regions/1",
         "regions": [{"name": "outer", "id": 1, "parent": None},
                     {"name": "inner", "id": 2, "parent": "outer"}],
         "lines": [{"file": "/src/k.mlir", "line": 10, "ops": {"outer": 2}},
                   {"file": "/elsewhere/helper.py", "line": 7, "ops": {"inner": 1, "outer": 1}},
                   {"file": "/src/k.mlir", "line": 12, "ops": {"": 1, "inner": 3}}]}


def test_nvdisasm_line_info_per_function():
    lines = pcmap.sass_lines(NVDISASM, "k")
    # before any comment and after line 0: no line
    assert lines == {0x10: ("/src/k.mlir", 10), 0x20: ("/src/k.mlir", 10),
                     0x40: ("/src/helper.py", 7), 0x50: ("/src/k.mlir", 12),
                     0x60: ("/src/helper.py [argus region inner]", 7),
                     0x70: ("/src/helper.py [argus region outer]", 7)}
    assert pcmap.functions(NVDISASM) == ["other", "k"]
    # no name: the first function with line info ("other" has none)
    assert pcmap.sass_lines(NVDISASM) == lines


def test_ncu_source_page_is_made_function_relative():
    t = pcmap.ncu_source_table(NCU_CSV)
    assert sorted(t) == [0, 0x10, 0x20, 0x30, 0x40, 0x50]
    assert t[0] == {"Warp Stall Sampling (All Samples)": 2.0, "Instructions Executed": 1024.0}
    assert t[0x40]["Instructions Executed"] == 4096.0
    with pytest.raises(ValueError, match="Address"):
        pcmap.ncu_source_table('"a","b"\n"1","2"\n')
    with pytest.raises(ValueError, match="no instruction rows"):
        pcmap.ncu_source_table('"Address","Source"\n')


def test_pcs_attributed_through_lines_weights_sum_to_totals():
    owners = pcmap.pc_regions(pcmap.sass_lines(NVDISASM, "k"), LINES)
    # helper.py:7 is matched by file name although the table's directory differs
    # an untagged PC of a line with ops outside every region is theirs; the
    # region the lowering named in the file is exact, whatever the line has
    assert owners == {0x10: {"outer": 2}, 0x20: {"outer": 2},
                      0x40: {"inner": 1, "outer": 1}, 0x50: {"": 1},
                      0x60: {"inner": 1}, 0x70: {"outer": 1}}
    del owners[0x60], owners[0x70]
    a = attribute(pcmap.ncu_source_table(NCU_CSV), owners)
    for m in a["totals"]:
        s = sum(f[m]["value"] for f in a["regions"].values() if m in f)
        assert s + a["unattributed"].get(m, 0.0) == pytest.approx(a["totals"][m])
    inst = "Instructions Executed"
    # PC 0 (no line), 0x30 (line 0) and 0x50 (outside) unattributed
    assert a["unattributed"][inst] == pytest.approx(1024 + 1024 + 1024)
    assert a["regions"]["outer"][inst]["value"] == pytest.approx(2048 + 2048)
    assert a["regions"]["inner"][inst]["value"] == pytest.approx(2048)
    # outer's lines 10 are its own (entropy 0), half the HMMA is shared
    assert a["regions"]["outer"][inst]["shared_fraction"] == pytest.approx(2048 / 4096)
    solo = attribute({1: {"x": 3.0}}, {1: {"r": 5}})
    assert solo["regions"]["r"]["x"]["entropy"] == 0.0
    assert solo["regions"]["r"]["x"]["shared_fraction"] == 0.0
    # inclusive: outer holds inner
    inc = attribution.inclusive(a, pcmap.region_parents(LINES))
    assert inc["outer"][inst]["value"] == pytest.approx(4096 + 2048)
    assert inc["outer"][inst]["regions"] == ["inner", "outer"]
    assert inc["inner"][inst]["value"] == pytest.approx(2048)


def test_ptx_target_and_tool_command_lines():
    assert collect.ptx_target("//\n.version 8.5\n.target sm_90a\n") == "sm_90a"
    with pytest.raises(ValueError):
        collect.ptx_target(".version 8.5\n")
    assert collect.ptxas_command("ptxas", "m.ptx", "m.cubin", "sm_90a") == \
        ["ptxas", "-arch=sm_90a", "-lineinfo", "-o", "m.cubin", "m.ptx"]
    cmd = collect.ncu_command("ncu", "argus-run", "spec.json", "k", "base")
    assert cmd[:3] == ["ncu", "--clock-control", "none"] and "SourceCounters" in cmd


# Stand-ins for the GPU host's tools: ptxas copies the PTX (so the "cubin"
# keeps its .loc lines), nvdisasm gives each PTX instruction a 16-byte slot
# under the line of the .loc before it, ncu's source page counts every
# instruction once.
FAKE_TOOLS = {
    "ptxas": """
import shutil, sys
a = sys.argv[1:]
shutil.copy(a[-1], a[a.index("-o") + 1])
""",
    "nvdisasm": r"""
import re, sys
text = open(sys.argv[-1]).read()
kernel = re.search(r"\.entry\s+(\w+)", text).group(1)
files = dict(re.findall(r'\.file\s+(\d+)\s+"([^"]+)"', text))
print(f".text.{kernel}:")
pc = 0
body = text[text.index(".entry"):]
for line in body.splitlines():
    s = line.strip()
    m = re.match(r"\.loc\s+(\d+)\s+(\d+)", s)
    if m:
        print(f'        //## File "{files[m.group(1)]}", line {m.group(2)}')
    elif s and not s.startswith((".", "//", "$", "{", "}", ")", "(")) and s.endswith(";"):
        print(f"        /*{pc:04x}*/   {s.split()[0].upper()} ;")
        pc += 16
""",
    "ncu": r"""
import os, re, sys
a = sys.argv[1:]
if "--import" in a:
    base = a[a.index("--import") + 1][:-len(".ncu-rep")]
    pcs = open(base + ".ncu-rep").read().split()
    print('"# Address","Source","Instructions Executed"')
    for pc, op in zip(pcs[::2], pcs[1::2]):
        print(f'"{int(pc, 16) + 4096:#x}","{op}","1"')
    sys.exit(0)
base = a[a.index("-o") + 1]
spec = a[a.index("-o") + 2 + 1]
import json
cubin = json.load(open(spec))["module"]
ops = []
pc = 0
for line in open(cubin).read().split(".entry", 1)[1].splitlines():
    s = line.strip()
    if s and not s.startswith((".", "//", "$", "{", "}", ")", "(")) and s.endswith(";"):
        ops.append(f"{pc:x} {s.split()[0].split('.')[0].upper()}")
        pc += 16
open(base + ".ncu-rep", "w").write("\n".join(ops))
""",
}


def _fake_tools(d):
    tools = {}
    for name, body in FAKE_TOOLS.items():
        p = d / name
        p.write_text(f"#!{sys.executable}\n" + body)
        p.chmod(p.stat().st_mode | stat.S_IEXEC)
        tools[name] = str(p)
    return tools


def test_hw_signal_end_to_end_with_real_argus_opt(tmp_path):
    """asks=(mma, hw), (mainloop, hw): the plan lowers the unprobed kernel
    with line info and its line table (real argus-opt), the ncu collection
    runs ptxas, ncu and nvdisasm (stand-ins), and the report attributes the
    counters to the regions: the mma region has its own instructions, the
    main loop includes them, and the totals are kept."""
    if not os.path.exists(TOOL):
        pytest.skip("argus-opt not built")
    launch = {"kernel": "gemm_pipelined_2stage", "grid": [1, 1, 1], "block": [128, 1, 1],
              "args": []}
    q = Query(GEMM2, asks=[("mma", "hw"), ("mainloop", "hw")], scope=Scope(), launch=launch)
    plan = Planner().plan(q)
    assert not plan.unavailable, plan.unavailable
    assert [t.op for t in plan.by_op("analysis:pc-regions")] == ["analysis:pc-regions"]
    ncu = plan.by_op("ncu")
    assert len(ncu) == 1 and ncu[0].device
    tools = dict(_fake_tools(tmp_path), **{"argus-opt": TOOL, "argus-run": "argus-run"})
    ex = LocalExecutor(ArtifactStore(str(tmp_path / "art")), workers=1, devices=[0]).execute(
        plan, make_handlers(tools))
    # the reference run needs a GPU: only it may fail here
    failed = {t for t, o in ex.outcomes.items() if o.status == "failed"}
    assert all(plan.tasks[t].op == "argus-run" for t in failed), ex.to_json()
    rep = ex.outcomes[plan.by_op("report")[0].id].result
    mma, main = rep["regions"]["mma"]["hw"], rep["regions"]["mainloop"]["hw"]
    inst = "Instructions Executed"
    assert mma["own"][inst]["provenance"] == "attributed"
    # the line info names each instruction's region: nothing is shared
    assert mma["own"][inst]["entropy"] == 0.0 and mma["own"][inst]["shared_fraction"] == 0.0
    assert main["inclusive"][inst]["value"] >= mma["inclusive"][inst]["value"] > 0
    assert "mma" in main["inclusive"][inst]["regions"]
    res = ex.outcomes[ncu[0].id].result
    assert res["pcs"]["with_line"] > 0 and res["pcs"]["in_table"] > 0
    total = rep["hw"]["totals"][inst]["value"]
    owned = sum(f[inst]["value"] for f in res["hw"]["regions"].values() if inst in f)
    assert owned + rep["hw"]["unattributed"].get(inst, {}).get("value", 0) == pytest.approx(total)
    text = text_summary(rep)
    assert "attributed, entropy" in text and "% of the kernel" in text


def test_spec_takes_the_lowered_modules_shared_memory(tmp_path):
    """Probes keep state in shared memory: an instrumented TMA kernel asks
    for more dynamic shared memory than the unprobed template says (measured
    on the H200: 196768 vs 196672 bytes, and every probed run with the
    template's value failed with an illegal address)."""
    from types import SimpleNamespace
    from argus.measure.handlers import write_spec
    files = tmp_path / "files"
    files.mkdir()
    (files / "module.ptx").write_text("// ptx\n")
    (files / "module.ptx.json").write_text(json.dumps(
        {"kernels": {"k": {"dynamic_smem": 196768}}}))
    work = tmp_path / "work"
    work.mkdir()
    template = {"kernel": "k", "grid": [1, 1, 1], "block": [384, 1, 1],
                "shared_mem": 196672, "args": []}
    task = SimpleNamespace(inputs=["t1"], op="argus-run",
                           options={"launch": template, "run": "run01", "repeat": 0})
    ctx = SimpleNamespace(task=task, inputs={"t1": {"module": "module.ptx"}},
                          input_files=lambda tid: str(files), workdir=str(work))
    spec = json.load(open(write_spec(ctx)[0]))
    assert spec["shared_mem"] == 196768
    # no ABI beside the module: the template's value stays
    (files / "module.ptx.json").unlink()
    assert json.load(open(write_spec(ctx)[0]))["shared_mem"] == 196672


def test_cli_hw_ask_offline_names_the_gpu_hosts_tools(tmp_path, capsys):
    """argus-measure run --ask R:hw --offline: the line table is made here
    (real argus-opt), the ncu collection's script runs the ptxas, ncu and
    nvdisasm given on the command line."""
    if not os.path.exists(TOOL):
        pytest.skip("argus-opt not built")
    from argus.measure.cli import main as measure_main
    launch = tmp_path / "launch.json"
    launch.write_text(json.dumps({"kernel": "gemm_pipelined_2stage", "grid": [1, 1, 1],
                                  "block": [128, 1, 1], "args": []}))
    art = tmp_path / "art"
    code = measure_main(["run", GEMM2, "--ask", "mma:hw", "--launch", str(launch),
                         "--artifacts", str(art), "--offline", "--argus-opt", TOOL,
                         "--argus-run", "/gpu/bin/argus-run", "--ncu", "/gpu/bin/ncu",
                         "--ptxas", "/gpu/bin/ptxas", "--nvdisasm", "/gpu/bin/nvdisasm"])
    err = capsys.readouterr().err
    assert code == 3, err
    script = open(art / "offline" / "collect.sh").read()
    for tool in ("/gpu/bin/ptxas -arch=sm_90a -lineinfo", "/gpu/bin/ncu --clock-control none",
                 "/gpu/bin/nvdisasm --print-line-info", "/gpu/bin/argus-run"):
        assert tool in script


def test_parsers_take_any_text_without_crashing():
    """Truncated or foreign tool output: the ncu table is a ValueError or a
    table, the nvdisasm listing a (possibly empty) map; nothing else."""
    import random
    rng = random.Random(7)
    pieces = [NCU_CSV, NVDISASM, '"Address"', "0x10", ",", "\n", '"', "//## File", " line ",
              ".text.k:", "/*0010*/ X ;", "nan", "-", "1e309", "\x00", "é"]
    for _ in range(400):
        text = "".join(rng.choice(pieces)[:rng.randint(0, 40)] for _ in range(rng.randint(0, 12)))
        try:
            t = pcmap.ncu_source_table(text)
            assert isinstance(t, dict) and t and min(t) == 0
        except ValueError:
            pass
        lines = pcmap.sass_lines(text)
        assert all(isinstance(pc, int) and ln > 0 for pc, (_, ln) in lines.items())
        pcmap.pc_regions(lines, LINES)
