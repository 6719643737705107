"""Development machine: lower DSL kernels in process and write, for each, the
PTX and the launch spec that CompiledKernel.launch_spec derives from the
lowering's launch ABI (bench/runtime/gen/). The device machine runs them with
bench/runtime/inprocess.py, which needs only numpy and the runtime library.

    PYTHONPATH=build/python:python:examples/python python3 bench/runtime/prepare.py
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "python"))

import argus.compile as acomp  # noqa: E402
import gemm_tma_ws  # noqa: E402


def write(name, ck, sizes, grid, check, outputs):
    gen = os.path.join(HERE, "gen")
    os.makedirs(gen, exist_ok=True)
    with open(os.path.join(gen, name + ".ptx"), "wb") as f:
        f.write(ck.binary)
    spec = ck.launch_spec(name + ".ptx", sizes, grid, name=name, check=check,
                          outputs=outputs, repetitions=20, warmup=5)
    with open(os.path.join(gen, name + ".json"), "w") as f:
        json.dump(spec, f, indent=1)
    print(f"{name}: {len(ck.binary)} bytes of PTX, {len(spec['args'])} arguments, "
          f"written {ck.written}, dynamic smem {ck.abi.dynamic_smem}")


def main():
    k = gemm_tma_ws.make_gemm_tma_ws()
    ck = acomp.compile_kernel(k)
    for m in (1024, 4096):
        sizes = {"M": m, "N": m, "K": m}
        check = {"kind": "gemm", "A": 0, "B": 3, "C": 6, "M": m, "N": m, "K": m,
                 "atol": 0.05, "rtol": 0.02}
        write(f"gemm_tma_ws_{m}", ck, sizes, ["sms"], check, ["C"])


if __name__ == "__main__":
    main()
