"""Device machine: run lowered kernels in process through the runtime's C API
(argus.runtime, ctypes over libargus_runtime.so) and through an argus-run
process, on the same spec and module, and print a table: the wall time of one
run call (module load, uploads, warm-up, timed launches, checked run, copy
back), the kernel's median time, and whether the outputs agree.

    ARGUS_RUNTIME_LIB=build-rt/lib/libargus_runtime.so PYTHONPATH=python \
      python3 bench/runtime/inprocess.py --argus-run build-rt/bin/argus-run bench/runtime/gen/*.json
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import argus.runtime as art  # noqa: E402

NP = {"f32": "<f4", "f16": "<f2", "bf16": "<u2", "i32": "<i4", "i64": "<i8"}


def inputs_for(spec, seed):
    """Random inputs (bf16 as bit patterns of values in [-1, 1])."""
    rng = np.random.default_rng(seed)
    data = {}
    for i, a in enumerate(spec["args"]):
        if a["kind"] != "buffer" or a.get("role") == "output":
            continue
        x = rng.uniform(-1, 1, size=a["shape"]).astype(np.float32)
        if a["dtype"] == "bf16":
            data[i] = (x.view("<u4") >> 16).astype("<u2").tobytes()
        else:
            data[i] = x.astype(NP[a["dtype"]]).tobytes()
    return data


def outputs_for(spec):
    out = {}
    for i, a in enumerate(spec["args"]):
        if a["kind"] == "buffer" and a.get("role") in ("output", "inout"):
            out[i] = int(np.prod(a["shape"])) * np.dtype(NP[a["dtype"]]).itemsize
    return out


def via_process(exe, spec, module, inputs, outputs):
    with tempfile.TemporaryDirectory() as d:
        s = json.loads(json.dumps(spec))
        with open(os.path.join(d, "m.ptx"), "wb") as f:
            f.write(module)
        s["module"] = "m.ptx"
        for i, raw in inputs.items():
            with open(os.path.join(d, f"in{i}"), "wb") as f:
                f.write(raw)
            s["args"][i]["init"] = {"file": f"in{i}"}
        for i in outputs:
            s["args"][i]["save"] = f"out{i}"
        with open(os.path.join(d, "s.json"), "w") as f:
            json.dump(s, f)
        t = time.perf_counter()
        p = subprocess.run([exe, os.path.join(d, "s.json"), "--report",
                            os.path.join(d, "r.json"), "--quiet"], capture_output=True, text=True)
        wall = time.perf_counter() - t
        if p.returncode not in (0, 6):
            raise RuntimeError(p.stderr)
        rep = json.load(open(os.path.join(d, "r.json")))
        outs = {i: open(os.path.join(d, f"out{i}"), "rb").read() for i in outputs}
    return wall, rep, outs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--argus-run", default=None)
    ap.add_argument("--calls", type=int, default=5)
    a = ap.parse_args()
    rows = []
    for path in a.specs:
        spec = json.load(open(path))
        module = open(os.path.join(os.path.dirname(path), spec["module"]), "rb").read()
        inputs, outputs = inputs_for(spec, 1), outputs_for(spec)
        walls, run = [], None
        for _ in range(a.calls):
            t = time.perf_counter()
            run = art.run(spec, module, inputs=inputs, outputs=outputs)
            walls.append(time.perf_counter() - t)
        med = run.report["timing"]["median"]["value"]
        row = {"spec": spec["name"], "inproc_wall_s": sorted(walls)[len(walls) // 2],
               "inproc_first_s": walls[0], "kernel_ms": med, "check": run.passed}
        if a.argus_run:
            pw = []
            for _ in range(a.calls):
                wall, rep, outs = via_process(a.argus_run, spec, module, inputs, outputs)
                pw.append(wall)
            row["process_wall_s"] = sorted(pw)[len(pw) // 2]
            row["process_kernel_ms"] = rep["timing"]["median"]["value"]
            row["same_outputs"] = all(outs[i] == run.outputs[i] for i in outputs)
        rows.append(row)
        print(json.dumps(row), flush=True)
    print()
    print("| spec | in-process call (s) | first call (s) | argus-run call (s) | kernel ms "
          "(in-process / argus-run) | check | outputs identical |")
    print("| --- | ---: | ---: | ---: | ---: | --- | --- |")
    for r in rows:
        print(f"| {r['spec']} | {r['inproc_wall_s']:.3f} | {r['inproc_first_s']:.3f} | "
              f"{r.get('process_wall_s', float('nan')):.3f} | {r['kernel_ms']:.3f} / "
              f"{r.get('process_kernel_ms', float('nan')):.3f} | {r['check']} | "
              f"{r.get('same_outputs')} |")


if __name__ == "__main__":
    main()
