"""What the prepare_*.py scripts of bench/measure share: the two pipelined
GEMM examples, the command line (size, repetitions, argus-opt), the output
folder and the argus-run spec of one variant."""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "lowering"))

from make_specs import gemm_spec  # noqa: E402

KERNELS = ("gemm_pipelined_2stage", "gemm_pipelined_3stage")
# The examples' tiles and block (the specs' grid and probe layout).
INFO = {"block": 128, "tile_m": 64, "tile_n": 64, "tile_k": 32}


def parse_args(reps: int) -> argparse.Namespace:
    """--size (M = N = K), --reps (timed launches), --opt (argus-opt)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=reps)
    ap.add_argument("--opt", default=os.path.join(ROOT, "build", "bin", "argus-opt"))
    return ap.parse_args()


def gen_dir() -> str:
    """bench/measure/gen (git-ignored), created."""
    gen = os.path.join(HERE, "gen")
    os.makedirs(gen, exist_ok=True)
    return gen


def write_index(gen: str, name: str, index: dict) -> None:
    """gen/<name>_index.json, which run_specs_h200.sh and the table scripts read."""
    with open(os.path.join(gen, f"{name}_index.json"), "w") as f:
        json.dump(index, f, indent=1)


def source(kernel: str) -> str:
    return os.path.join(ROOT, "examples", kernel + ".mlir")


def write_spec(gen: str, name: str, ptx: str, kernel: str, a: argparse.Namespace,
               regions=None, probes_capacity=None, check: bool = True) -> dict:
    """The argus-run spec of one variant, written as gen/NAME.json next to
    its PTX; ``check=False`` for timing only (the host GEMM at 4096^3
    takes minutes)."""
    info = dict(INFO, regions=regions or {})
    spec = gemm_spec(name, ptx, kernel, a.size, a.size, a.size, info, a.reps,
                     probes_capacity=probes_capacity)
    spec["module"] = os.path.basename(ptx)
    if not check:
        spec.pop("check", None)
    with open(os.path.join(gen, name + ".json"), "w") as f:
        json.dump(spec, f, indent=1)
    return spec
