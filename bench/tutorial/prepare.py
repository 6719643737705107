"""Development machine: verify and lower the DSL tutorial kernels (no layout
strings; docs/Python.md "Tutorial") for sm_90 in process, and write each
kernel's PTX and one launch spec per shape (shapes that are not multiples
of the tiles included) to bench/tutorial/gen/. The device runs them with
run_h200.py, which generates the inputs, checks the outputs against PyTorch
and times PyTorch eager and torch.compile in the same run.

    PYTHONPATH=build/python:python python3 bench/tutorial/prepare.py
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "python"))

import column_sum as cs  # noqa: E402
import conv2d as cv  # noqa: E402
import cumsum as cu  # noqa: E402
import gemm_epilogue as ge  # noqa: E402
import gemm_tf32_kn as kn  # noqa: E402
import gemm_tma_ws as gt  # noqa: E402

import argus  # noqa: E402
import softmax as sm  # noqa: E402


def cdiv(a, b):
    return -(-a // b)


def gemm_grid(s):
    return (cdiv(s["N"], 64), cdiv(s["M"], 64), 1)


def persistent_grid(s):
    return (132, 1, 1)  # one block per H200 SM; each walks its tiles


def conv_sizes(n, h, w, c, co):
    """A 3x3, stride 1, padding 1 convolution's sizes (output as large as the
    input)."""
    return {"N": n, "H": h, "W": w, "C": c, "CO": co, "K": 9 * c, "P": n * h * w}


def conv_grid(s, tm=64, tn=64):
    return (cdiv(s["CO"], tn), cdiv(s["P"], tm), 1)


CONV_SHAPES = [conv_sizes(32, 56, 56, 64, 64), conv_sizes(8, 28, 28, 256, 256),
               conv_sizes(3, 37, 45, 24, 40)]


HOPPER_SHAPES = [{"M": 4096, "N": 4096, "K": 4096}, {"M": 8192, "N": 8192, "K": 1024},
                 {"M": 4000, "N": 4000, "K": 4000}]


# (name, factory, torch op, outputs, [(sizes, grid)...])
KERNELS = [
    ("gemm_fp32", lambda: ge.make_gemm("sm_90", "f32", name="gemm_fp32"), "matmul_tf32", ["C"],
     [{"M": 4096, "N": 4096, "K": 4096}, {"M": 1000, "N": 1000, "K": 1000}], gemm_grid),
    ("gemm_fp32_any", lambda: ge.make_gemm("sm_90", "f32", name="gemm_fp32_any",
                                           any_shape=True), "matmul_tf32", ["C"],
     [{"M": 2049, "N": 1023, "K": 517}], gemm_grid),
    ("gemm_bias_gelu", lambda: ge.make_gemm("sm_90", "f16", bias=True, activation="gelu",
                                            name="gemm_bias_gelu"),
     "matmul_bias_gelu", ["C"], [{"M": 4096, "N": 4096, "K": 4096}], gemm_grid),
    ("gemm_bias_gelu_any", lambda: ge.make_gemm("sm_90", "f16", bias=True, activation="gelu",
                                                name="gemm_bias_gelu_any", any_shape=True),
     "matmul_bias_gelu", ["C"], [{"M": 1000, "N": 3001, "K": 777}], gemm_grid),
    # The same GEMMs pipelined (argus.pipeline: 3 cp.async stages, zero fill
    # past the edges) into swizzled stages.
    ("gemm_fp32_s3", lambda: ge.make_gemm("sm_90", "f32", name="gemm_fp32_s3", stages=3,
                                          swizzle=True), "matmul_tf32", ["C"],
     [{"M": 4096, "N": 4096, "K": 4096}, {"M": 1000, "N": 1000, "K": 1000}], gemm_grid),
    ("gemm_bias_gelu_s3", lambda: ge.make_gemm("sm_90", "f16", bias=True, activation="gelu",
                                               name="gemm_bias_gelu_s3", stages=3, swizzle=True),
     "matmul_bias_gelu", ["C"], [{"M": 4096, "N": 4096, "K": 4096},
                                 {"M": 1000, "N": 3000, "K": 776}], gemm_grid),
    ("gemm_bias_gelu_any_s3", lambda: ge.make_gemm("sm_90", "f16", bias=True, activation="gelu",
                                                   name="gemm_bias_gelu_any_s3", any_shape=True,
                                                   stages=3, swizzle=True),
     "matmul_bias_gelu", ["C"], [{"M": 1000, "N": 3001, "K": 777}], gemm_grid),
    # The fp32 GEMM on Hopper's tensor cores (tf32 wgmma; B given N x K, as
    # nn.Linear stores it: C = A B^T; N even, K a multiple of 4).
    ("gemm_tf32_tma_ws", lambda: gt.make_gemm_tma_ws(dtype="tf32"), "matmul_nt_tf32", ["C"],
     HOPPER_SHAPES + [{"M": 2049, "N": 1022, "K": 516}], persistent_grid),
    # The same with B as K x N (torch.matmul's B, no host transpose): C^T = B^T A^T
    # with B^T's fragment loaded from B's stage into registers
    # (wgmma.m64n256k8.f32.tf32, A from registers); 256 x 128 tiles; b_swizzle=0
    # takes B in unswizzled 32 x 8 boxes (no bank conflicts on the fragment loads).
    ("gemm_tf32_kn", lambda: kn.gemm_tf32_kn, "matmul_tf32", ["C"],
     HOPPER_SHAPES[:2] + [{"M": 4001, "N": 3996, "K": 4092}], persistent_grid),
    ("gemm_tf32_kn_sw0", lambda: kn.make_gemm_tf32_kn(b_swizzle=0, name="gemm_tf32_kn_sw0"),
     "matmul_tf32", ["C"], HOPPER_SHAPES[:2] + [{"M": 4001, "N": 3996, "K": 4092}],
     persistent_grid),
    # Tile multiples only (any_shape=False): no bounds checks in the epilogue.
    ("gemm_tf32_kn_tiles", lambda: kn.make_gemm_tf32_kn(any_shape=False,
                                                        name="gemm_tf32_kn_tiles"),
     "matmul_tf32", ["C"], HOPPER_SHAPES[:2], persistent_grid),
    ("gemm_tf32_kn_tiles_sw0", lambda: kn.make_gemm_tf32_kn(any_shape=False, b_swizzle=0,
                                                            name="gemm_tf32_kn_tiles_sw0"),
     "matmul_tf32", ["C"], HOPPER_SHAPES[:2], persistent_grid),
    # For the record: one slab's wgmma kept in flight (in_flight=True) lets the
    # next fragment load overwrite its A registers (wrong on the H200; the
    # verifier's wgmma-register-operand check says violated).
    ("gemm_tf32_kn_in_flight", lambda: kn.make_gemm_tf32_kn(in_flight=True,
                                                            name="gemm_tf32_kn_in_flight"),
     "matmul_tf32", ["C"], HOPPER_SHAPES[:1], persistent_grid),
    ("gemm_tma_store_ws", lambda: gt.gemm_tma_store_ws, "matmul", ["C"], HOPPER_SHAPES,
     persistent_grid),
    ("gemm_tma_store_ws_bias_gelu", lambda: gt.gemm_tma_store_ws_bias_gelu, "matmul_bias_gelu",
     ["C"], HOPPER_SHAPES, persistent_grid),
    ("gemm_tma_store_ws_bias_gelu_tanh",
     lambda: gt.make_gemm_tma_ws(epilogue="tma_store", bias=True,
                                 activation=lambda y: argus.gelu(y, approximate="tanh"),
                                 name="gemm_tma_store_ws_bias_gelu_tanh"),
     "matmul_bias_gelu_tanh", ["C"], HOPPER_SHAPES, persistent_grid),
    # The same kernels with duration probes on the roles' regions ("produce",
    # "consume") and each tile's epilogue: the overhead is the time over the
    # kernel's without probes.
    ("gemm_tma_store_ws_probes",
     lambda: gt.make_gemm_tma_ws(epilogue="tma_store", regions=True,
                                 name="gemm_tma_store_ws_probes"),
     "matmul", ["C"], HOPPER_SHAPES[:2], persistent_grid),
    ("gemm_tma_store_ws_bias_gelu_probes",
     lambda: gt.make_gemm_tma_ws(epilogue="tma_store", bias=True, activation="gelu",
                                 regions=True, name="gemm_tma_store_ws_bias_gelu_probes"),
     "matmul_bias_gelu", ["C"], HOPPER_SHAPES[:1], persistent_grid),
    ("conv3x3", lambda: cv.make_conv2d("sm_90", "f16", name="conv3x3"), "conv3x3", ["Y"],
     CONV_SHAPES, conv_grid),
    # Pipelined: cp.async stages (zero fill in the padding and past K),
    # swizzled or not, 64 x 64 tiles on 4 warps, 128 x 64 and 128 x 128 on 8.
    ("conv3x3_s3", lambda: cv.make_conv2d("sm_90", "f16", name="conv3x3_s3", stages=3),
     "conv3x3", ["Y"], CONV_SHAPES, conv_grid),
    ("conv3x3_s4_sw", lambda: cv.make_conv2d("sm_90", "f16", name="conv3x3_s4_sw", stages=4,
                                             swizzle=True),
     "conv3x3", ["Y"], CONV_SHAPES, conv_grid),
    ("conv3x3_s3_sw", lambda: cv.make_conv2d("sm_90", "f16", name="conv3x3_s3_sw", stages=3,
                                             swizzle=True),
     "conv3x3", ["Y"], CONV_SHAPES, conv_grid),
    ("conv3x3_s3_128x64_sw", lambda: cv.make_conv2d("sm_90", "f16", name="conv3x3_s3_128x64_sw",
                                                    stages=3, tile=(128, 64, 32), warps=(4, 2),
                                                    swizzle=True),
     "conv3x3", ["Y"], CONV_SHAPES, lambda s: conv_grid(s, 128, 64)),
    ("conv3x3_s4_128x128_sw", lambda: cv.make_conv2d("sm_90", "f16",
                                                     name="conv3x3_s4_128x128_sw", stages=4,
                                                     tile=(128, 128, 32), warps=(2, 4),
                                                     swizzle=True),
     "conv3x3", ["Y"], CONV_SHAPES, lambda s: conv_grid(s, 128, 128)),
    ("conv3x3_any", lambda: cv.make_conv2d("sm_90", "f16", name="conv3x3_any",
                                           any_channels=True), "conv3x3", ["Y"],
     [conv_sizes(8, 224, 224, 3, 64), conv_sizes(3, 37, 45, 5, 7)], conv_grid),
    ("softmax_any", lambda: sm.make_softmax_any(), "softmax", ["Y"],
     [{"M": 16384, "N": 1000}, {"M": 65536, "N": 777}], lambda s: (cdiv(s["M"], 2), 1, 1)),
    ("log_softmax", lambda: sm.make_softmax(log=True, any_rows=False), "log_softmax", ["Y"],
     [{"M": 262144}], lambda s: (s["M"] // 64, 1, 1)),
    ("log_softmax_any", lambda: sm.make_softmax(log=True), "log_softmax", ["Y"],
     [{"M": 262144}, {"M": 100001}], lambda s: (cdiv(s["M"], 64), 1, 1)),
    ("layernorm", lambda: sm.make_layernorm(), "layernorm", ["Y"],
     [{"M": 262144, "eps": 1e-5}, {"M": 100001, "eps": 1e-5}], lambda s: (cdiv(s["M"], 32), 1, 1)),
    ("rmsnorm", lambda: sm.make_rmsnorm(cols=256, dtype="f32"), "rmsnorm", ["Y"],
     [{"M": 262144, "eps": 1e-6}, {"M": 100001, "eps": 1e-6}],
     lambda s: (cdiv(s["M"], 32), 1, 1)),
    ("cumsum", lambda: cu.make_cumsum("sm_90a"), "cumsum", ["Y"],
     [{"M": 16384, "N": 1000}, {"M": 4096, "N": 8193}], lambda s: (cdiv(s["M"], 16), 1, 1)),
    ("column_sum", lambda: cs.make_column_sum("sm_90a"), "column_sum", [],
     [{"M": 100000, "N": 1023}, {"M": 65536, "N": 4096}],
     lambda s: (cdiv(s["N"], 128), cdiv(s["M"], 128), 1)),
]
# Accumulated outputs: zeros before the launch, restored before the checked run.
INOUTS = {"column_sum": ["S"]}
# Kernels that need sm_90a (the others are lowered for sm_90).
SM90A = {"gemm_tf32_tma_ws", "gemm_tf32_kn", "gemm_tf32_kn_sw0", "gemm_tf32_kn_tiles",
         "gemm_tf32_kn_tiles_sw0", "gemm_tf32_kn_in_flight", "log_softmax", "log_softmax_any", "layernorm", "cumsum", "column_sum", "softmax_any", "gemm_tma_store_ws_bias_gelu_tanh", "gemm_tma_store_ws", "gemm_tma_store_ws_bias_gelu",
         "gemm_tma_store_ws_probes", "gemm_tma_store_ws_bias_gelu_probes"}
# Kernels lowered with probes (region reports come back with the run).
PROBED = {"gemm_tma_store_ws_probes", "gemm_tma_store_ws_bias_gelu_probes"}


def main():
    gen = os.path.join(HERE, "gen")
    os.makedirs(gen, exist_ok=True)
    index = []
    only = set(sys.argv[1:])
    for name, make, op, outputs, shapes, grid in KERNELS:
        if only and name not in only:
            continue
        k = make()
        report = k.verify(raise_on_violation=False)
        ck = k.compile(target="sm_90a" if name in SM90A else "sm_90", probes=name in PROBED)
        with open(os.path.join(gen, name + ".ptx"), "wb") as f:
            f.write(ck.binary)
        for sizes in shapes:
            tag = "x".join(str(v) for key, v in sizes.items() if key != "eps")
            inouts = INOUTS.get(name, [])
            spec = ck.launch_spec(name + ".ptx", sizes, grid(sizes), name=f"{name}_{tag}",
                                  outputs=outputs, inouts=inouts,
                                  inits={n: "zeros" for n in inouts}, repetitions=50, warmup=10)
            path = os.path.join(gen, f"{name}_{tag}.json")
            with open(path, "w") as f:
                json.dump(spec, f, indent=1)
            index.append({"kernel": name, "spec": os.path.basename(path), "op": op, "sizes": sizes,
                          "proved": report.summary()})
        print(name, report.summary(), f"{len(ck.binary)} bytes PTX, written {ck.written}")
    with open(os.path.join(gen, "index.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
