"""Mutants of example kernels through the CPU interpreter (argus.interpret):
every mutant that parses must end in a result or a Python error
(InterpretError, ValueError, TypeError), never a crash of the process.

    PYTHONPATH=build/python:python python3 test/fuzz/interpret_mutants.py --seed 1 --count 500

Prints "mutants N parsed P ran R errors E"; a crash ends the process (the
caller sees the signal), and the last mutant is in --last.
"""

import argparse
import pathlib
import random
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "fuzz"))

from mutate_argus_opt import mutate  # noqa: E402

import argus.interpret as ai  # noqa: E402
from argus import ir  # noqa: E402


def cases(r):
    h = lambda *s: r.standard_normal(s).astype(np.float32)  # noqa: E731
    b = lambda *s: ai.float_to_bf16_bits(h(*s))  # noqa: E731
    z16 = lambda *s: np.zeros(s, np.uint16)  # noqa: E731
    z32 = lambda *s: np.zeros(s, np.float32)  # noqa: E731
    return {
        "gemm_mfma.mlir": (lambda: [h(128, 64), h(64, 128), z32(128, 128), 64], (1, 1)),
        "gemm_pipelined_3stage.mlir": (lambda: [h(64, 128), h(128, 64), z32(64, 64), 128], (1, 1)),
        "gemm_wgmma.mlir": (lambda: [h(64, 64), h(64, 128), z32(64, 128), 64], (1, 1)),
        "flash_attention_fwd.mlir": (lambda: [h(128, 64), h(128, 64), h(128, 64), z32(128, 64),
                                              128], (1, 1)),
        "sm90a/gemm_tma_ws.mlir": (lambda: [b(128, 64), b(64, 256), z16(128, 256), 128, 256, 64],
                                   (1, 1)),
        "sm90a/flash_attention_ws.mlir": (lambda: [b(128, 128), b(128, 128), b(128, 128),
                                                   z16(128, 128), z32(128), 128], (1, 1)),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--last", default=None, help="write each mutant here before running it")
    a = p.parse_args()
    rng = random.Random(a.seed)
    r = np.random.default_rng(a.seed)
    table = cases(r)
    texts = {k: (ROOT / "examples" / k).read_text() for k in table}
    parsed = ran = errors = 0
    for _ in range(a.count):
        name = rng.choice(sorted(table))
        text = mutate(texts[name], rng)
        if a.last:
            pathlib.Path(a.last).write_text(text)
        try:
            ir._argus.interpret_signature(text)
        except (ValueError, RuntimeError):
            continue
        parsed += 1
        make, grid = table[name]
        try:
            ai.run(text, *make(), grid=grid, step_budget=200000)
            ran += 1
        except (ai.InterpretError, ValueError, TypeError):
            errors += 1
    print(f"mutants {a.count} parsed {parsed} ran {ran} errors {errors}")


if __name__ == "__main__":
    main()
