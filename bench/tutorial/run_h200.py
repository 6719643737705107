"""Device machine: run the tutorial kernels prepared by prepare.py in process
(argus.runtime over libargus_runtime.so), check each output against PyTorch
on the same random inputs, and time PyTorch eager and torch.compile in the
same run. Prints a table (speed vs X = X's time / argus's time).

    ARGUS_RUNTIME_LIB=/tmp/rt/lib/libargus_runtime.so python3 bench/tutorial/run_h200.py
"""

import json
import math
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


def make_input(op, name, shape, dtype, gen):
    if op == "column_sum" and name == "S":
        return torch.zeros(shape, dtype=dtype, device="cuda")  # accumulated into
    x = torch.rand(shape, generator=gen, device="cuda") * 2 - 1
    if op == "rmsnorm":
        x = 1 + 0.1 * x if name == "W" else 3 * x
    return x.to(dtype)


# op -> (reference in fp32/fp64 for the error, eager peer)
def peers(op, t, eps):
    if op == "matmul_tf32":
        ref = lambda: (t["A"].double() @ t["B"].double()).float()  # noqa: E731
        peer = lambda: t["A"] @ t["B"]  # noqa: E731 (tf32 allowed below)
    elif op == "matmul_nt_tf32":  # C = A B^T, B stored N x K
        ref = lambda: (t["A"].double() @ t["B"].double().t()).float()  # noqa: E731
        peer = lambda: t["A"] @ t["B"].t()  # noqa: E731 (tf32 allowed below)
    elif op == "matmul":
        ref = lambda: t["A"].float() @ t["B"].float()  # noqa: E731
        peer = lambda: t["A"] @ t["B"]  # noqa: E731
    elif op == "matmul_bias_gelu":
        ref = lambda: F.gelu(t["A"].float() @ t["B"].float() + t["Bias"].float())  # noqa: E731
        peer = lambda: F.gelu(torch.addmm(t["Bias"], t["A"], t["B"]))  # noqa: E731
    elif op == "softmax":
        ref = lambda: torch.softmax(t["X"].double(), 1).float()  # noqa: E731
        peer = lambda: torch.softmax(t["X"], 1)  # noqa: E731
    elif op == "matmul_bias_gelu_tanh":
        ref = lambda: F.gelu(t["A"].float() @ t["B"].float() + t["Bias"].float(),  # noqa: E731
                             approximate="tanh")
        peer = lambda: F.gelu(torch.addmm(t["Bias"], t["A"], t["B"]),  # noqa: E731
                              approximate="tanh")
    elif op == "rmsnorm":
        ref = lambda: F.rms_norm(t["X"].float(), (t["X"].shape[-1],), t["W"].float(), eps)  # noqa
        peer = lambda: F.rms_norm(t["X"], (t["X"].shape[-1],), t["W"], eps)  # noqa: E731
    elif op == "cumsum":
        ref = lambda: torch.cumsum(t["X"].double(), 1).float()  # noqa: E731
        peer = lambda: torch.cumsum(t["X"], 1)  # noqa: E731
    elif op == "log_softmax":
        ref = lambda: torch.log_softmax(t["X"].double(), 1).float()  # noqa: E731
        peer = lambda: torch.log_softmax(t["X"], 1)  # noqa: E731
    elif op == "layernorm":
        ref = lambda: F.layer_norm(t["X"].double(), (t["X"].shape[-1],), eps=eps).float()  # noqa
        peer = lambda: F.layer_norm(t["X"], (t["X"].shape[-1],), eps=eps)  # noqa: E731
    elif op == "conv3x3":
        # channels-last X (N, H, W, C) and weights (CO, 3 * 3 * C) as the
        # NCHW / OIHW views PyTorch's channels_last convolution takes.
        n, h, w, c = t["X"].shape
        co = t["Wt"].shape[0]
        x_cl = t["X"].permute(0, 3, 1, 2)
        w_cl = t["Wt"].view(co, 3, 3, c).permute(0, 3, 1, 2)
        ref = lambda: F.conv2d(x_cl.double(), w_cl.double(), padding=1).permute(  # noqa: E731
            0, 2, 3, 1).reshape(n * h * w, co).float()
        peer = lambda: F.conv2d(x_cl, w_cl, padding=1)  # noqa: E731
        peer_out = lambda y: y.permute(0, 2, 3, 1).reshape(n * h * w, co)  # noqa: E731
        return ref, peer, peer_out
    elif op == "column_sum":
        ref = lambda: t["X"].double().sum(0).float()  # noqa: E731
        peer = lambda: t["X"].sum(0)  # noqa: E731
    else:
        raise ValueError(op)
    return ref, peer, lambda y: y


def main():
    torch.backends.cuda.matmul.allow_tf32 = True
    gen_dir = os.path.join(HERE, "gen")
    index = json.load(open(os.path.join(gen_dir, "index.json")))
    # Optional kernel names: run only those of the index (a long table in
    # several device calls).
    only = set(sys.argv[1:])
    index = [e for e in index if not only or e.get("kernel") in only]
    rows = []
    for e in index:
        spec = json.load(open(os.path.join(gen_dir, e["spec"])))
        module = open(os.path.join(gen_dir, spec["module"]), "rb").read()
        g = torch.Generator(device="cuda").manual_seed(7)
        t, inputs, outputs, out_meta = {}, {}, {}, {}
        for i, a in enumerate(spec["args"]):
            if a.get("kind") != "buffer":
                continue
            dt = TORCH_DT[a["dtype"]]
            if a["role"] in ("output", "inout"):
                outputs[i] = math.prod(a["shape"]) * torch.tensor([], dtype=dt).element_size()
                out_meta[i] = (a["name"], a["dtype"], a["shape"])
            if a["role"] != "output":
                x = make_input(e["op"], a["name"], a["shape"], dt, g)
                inputs[i] = raw(x)
                if a["role"] == "input":
                    t[a["name"]] = x
        run = art.run(spec, module, inputs=inputs, outputs=outputs)
        (i, (oname, odt, oshape)), = out_meta.items()
        y = from_raw(run.outputs[i], odt, oshape).cuda().float()
        ref, peer, peer_out = peers(e["op"], t, e["sizes"].get("eps", 0.0))
        r = ref()
        err = ((y - r).norm() / r.norm()).item()
        perr = ((peer_out(peer()).float() - r).norm() / r.norm()).item()
        t_argus = run.report["timing"]["median"]["value"]
        t_eager = gemm_bench.time_ms(peer, 10, 50)[0]
        t_comp = gemm_bench.time_ms(torch.compile(peer), 10, 50)[0]
        s = e["sizes"]
        flops = 2 * s["M"] * s["N"] * s["K"] if "M" in s and "K" in s else \
            2 * s["P"] * s["CO"] * s["K"] if "P" in s else None
        # Bytes moved: every input read once, every output written once.
        moved = sum(len(b) for b in inputs.values()) + sum(outputs.values())
        perf = (lambda ms: f"{flops / (ms * 1e-3) / 1e12:.0f} TFLOP/s") if flops else \
            (lambda ms: f"{moved / (ms * 1e-3) / 1e9:.0f} GB/s")
        for reg in ((run.report.get("probes") or {}).get("regions") or []):
            val = lambda k: (reg.get(k) or {}).get("value") if isinstance(reg.get(k), dict) \
                else reg.get(k)  # noqa: E731
            print(f"  region {reg.get('name')}: count {val('count')}, warps {val('warps')}, "
                  f"mean {val('mean')} {reg.get('unit')}, p50 {val('p50')}, max {val('max')}",
                  flush=True)
        rows.append((e["spec"].replace(".json", ""), e["proved"], err, perr, t_argus, t_eager,
                     t_comp, perf(t_argus), perf(t_eager)))
        print(rows[-1], flush=True)
    print()
    print("| kernel | verifier | argus rel err | torch rel err | argus ms | eager ms | compile ms "
          "| argus | eager | speed vs eager | speed vs compile |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.1e} | {r[3]:.1e} | {r[4]:.4f} | {r[5]:.4f} | "
              f"{r[6]:.4f} | {r[7]} | {r[8]} | {r[5] / r[4]:.2f} | {r[6] / r[4]:.2f} |")


if __name__ == "__main__":
    main()
