"""Device machine: run the DSL row kernels prepared by prepare.py in process
(argus.runtime over libargus_runtime.so, inputs from torch), compare each
output with PyTorch on the same random inputs, and time it against PyTorch
eager and torch.compile in the same run. Prints a table.

    ARGUS_RUNTIME_LIB=/tmp/rt/lib/libargus_runtime.so python3 bench/dsl/run_h200.py
"""

import json
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "hopper"))
sys.path.insert(0, os.path.join(HERE, ".."))

import argus.runtime as art  # noqa: E402
import gemm_bench  # noqa: E402
from torch_bytes import TORCH_DT, from_raw, raw  # noqa: E402


def reference(op, x):
    if op == "softmax":
        return torch.softmax(x, dim=-1)
    if op == "log_softmax":
        return torch.log_softmax(x, dim=-1)
    return F.layer_norm(x, (x.shape[-1],), eps=1e-5)


def time_ms(fn, warmup=10, iters=50):
    """Median ms of `iters` event-timed calls (gemm_bench's timer)."""
    return gemm_bench.time_ms(fn, warmup, iters)[0]


def main():
    gen = os.path.join(HERE, "gen")
    index = json.load(open(os.path.join(gen, "index.json")))
    rows = []
    for e in index:
        spec = json.load(open(os.path.join(gen, e["spec"])))
        module = open(os.path.join(gen, spec["module"]), "rb").read()
        shape = (e["M"], e["N"])
        torch.manual_seed(e["M"])
        x = (torch.randn(shape, device="cuda") * 3).to(TORCH_DT[e["dtype"]])
        idx = {a["name"]: i for i, a in enumerate(spec["args"])}
        nbytes = x.numel() * x.element_size()
        run = art.run(spec, module, inputs={idx["X"]: raw(x)}, outputs={idx["Y"]: nbytes})
        y = from_raw(run.outputs[idx["Y"]], e["dtype"], shape).cuda()
        ref = reference(e["op"], x.float())
        err = ((y.float() - ref).norm() / ref.norm()).item()
        maxerr = (y.float() - ref).abs().max().item()
        t_argus = run.report["timing"]["median"]["value"]
        xe = x.float() if e["op"] == "layernorm" and e["dtype"] == "f32" else x
        eager = lambda: reference(e["op"], xe)  # noqa: E731
        compiled = torch.compile(eager)
        t_eager = time_ms(eager)
        t_comp = time_ms(compiled)
        gbs = lambda t: 2 * nbytes / (t * 1e-3) / 1e9  # noqa: E731
        rows.append((e["spec"].replace(".json", ""), e["proved"], err, maxerr, t_argus, t_eager,
                     t_comp, gbs(t_argus), gbs(t_eager), gbs(t_comp)))
        print(rows[-1], flush=True)
    print()
    print("| kernel | verifier | rel err | max abs err | argus ms | eager ms | compile ms | "
          "argus GB/s | eager GB/s | compile GB/s | argus/eager | argus/compile |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.1e} | {r[3]:.1e} | {r[4]:.4f} | {r[5]:.4f} | "
              f"{r[6]:.4f} | {r[7]:.0f} | {r[8]:.0f} | {r[9]:.0f} | {r[5] / r[4]:.2f} | "
              f"{r[6] / r[4]:.2f} |")


if __name__ == "__main__":
    main()
