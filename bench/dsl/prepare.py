"""Development machine: lower the DSL's row kernels (examples/python/softmax.py:
softmax, log-softmax, LayerNorm; no layout strings) for sm_90a in process and
write the PTX and the launch spec (from the lowering's launch ABI) for each
shape to bench/dsl/gen/. The device runs them with run_h200.py.

    PYTHONPATH=build/python:python python3 bench/dsl/prepare.py
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "python"))

import softmax as sm  # noqa: E402

# (kernel name, factory, rows per block, cols, dtype, torch op)
KERNELS = [
    ("softmax_f32", lambda: sm.make_softmax(cols=128, dtype="f32"), 64, 128, "f32", "softmax"),
    ("log_softmax_bf16", lambda: sm.make_softmax(cols=128, dtype="bf16", log=True), 64, 128,
     "bf16", "log_softmax"),
    ("layernorm_f32", lambda: sm.make_layernorm(cols=256, dtype="f32"), 32, 256, "f32",
     "layernorm"),
]
ROWS = (8192, 262144)


def main():
    gen = os.path.join(HERE, "gen")
    os.makedirs(gen, exist_ok=True)
    index = []
    for name, make, rows, cols, dtype, op in KERNELS:
        k = make()
        report = k.verify(raise_on_violation=False)
        ck = k.compile(target="sm_90a")
        with open(os.path.join(gen, name + ".ptx"), "wb") as f:
            f.write(ck.binary)
        for m in ROWS:
            sizes = {"M": m, "eps": 1e-5}
            spec = ck.launch_spec(name + ".ptx", sizes, (m // rows, 1, 1), name=f"{name}_{m}",
                                  outputs=ck.written, repetitions=50, warmup=10)
            path = os.path.join(gen, f"{name}_{m}.json")
            with open(path, "w") as f:
                json.dump(spec, f, indent=1)
            index.append({"spec": os.path.basename(path), "op": op, "M": m, "N": cols,
                          "dtype": dtype, "proved": report.summary()})
        print(name, report.summary(), f"{len(ck.binary)} bytes PTX, written {ck.written}")
    with open(os.path.join(gen, "index.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
