"""The argus tile DSL: trace a Python function into argus IR.

A kernel is an ordinary Python function decorated with :func:`kernel`. Calling
``kernel.ir()`` runs the function once with *symbolic* arguments; every DSL
call appends one MLIR operation, with a ``loc("file.py":line:col)`` location
pointing at the user's source line, to the function being built. The text is
then parsed (and op-verified) through the ``_argus`` bindings, so MLIR errors
come back mapped to Python lines.

The package is layered; each module imports only the ones above it here:

- ``_tracer``: source locations, errors at the user's line, the tracer state;
- ``types``: element types, layouts, fragments, tile and parameter types;
- ``layouts``: derived layouts (copy, tiled MMA, reduce/broadcast) and the
  layout evaluator they are checked with;
- ``values``: traced values (index, condition, tensor, tile, buffer), affine
  expressions for tag maps, helpers shared by the ops;
- ``memory``, ``compute``, ``tags``, ``control``, ``hopper``: the ops
  (``hopper``: TMA, mbarrier rings, warp roles, asynchronous wgmma);
- ``kernel``: :class:`Kernel` and the ``kernel`` decorator.

This module re-exports the public API. See docs/Python.md for the reference.
"""

from ._tracer import SourceLoc
from .types import (Frag, In, InOut, Layout, Out, Scalar, ScalarSpec, Tensor, TensorSpec, TileType, check_instruction, col_major,
                    constexpr, dtype_of, frag, index, instruction, layout, row_major, swizzle)
from .layouts import (TiledMMA, broadcast_layout, copy_layout, reduce_layout, swizzled_rows,
                      thread_values, tiled_mma, tma_layout, tv_layout)
from .values import (ABin, AConst, ADim, AffineExpr, ASym, Buffer, Condition, IndexValue,
                     ScalarValue, TensorValue, Tile, Value, cdiv, index_const)
from .memory import (alloc, atomic_add, barrier, commit_group, conv_output_size, copy, copy_async,
                     gather_view, im2col, load, reinterpret, stage, store, transpose, view,
                     wait_group)
from .compute import (abs, add, broadcast, cmp, convert, convert_layout, cummax, cummin, cumprod,
                      cumsum, div, eq, exp, exp2, fill, gelu, iota, log, log2, maximum, minimum,
                      mma, mul, ne, neg, reduce, relu, rsqrt, scale, scan, sigmoid, splat, sqrt,
                      sub, tanh, where, zeros)
from .tags import reduced, tag, tag_assert
from .control import (assume, assume_indices, block_id, cluster_id, cluster_rank, grid_dim,  # noqa: F401
                      num_clusters, pipeline, range, region, thread_id, when)
from .hopper import (BarrierSlot, MBarrier, TensorMap, fence_proxy_async, mbarrier,
                     mbarrier_arrive, mbarrier_arrive_expect_tx, mbarrier_wait, mma_async,
                     named_barrier_arrive, named_barrier_sync, role,
                     tensor_map, tma_load, tma_store, tma_store_wait, wgmma_commit,
                     wgmma_wait)
from .kernel import Kernel, kernel

# `range` and `abs` are left out of `from argus.dsl import *` so the builtins
# are not shadowed.
__all__ = [
    "SourceLoc",
    "Frag", "In", "InOut", "Layout", "Out", "Scalar", "ScalarSpec", "Tensor", "TensorSpec", "TileType", "check_instruction", "col_major",
    "constexpr", "dtype_of", "frag", "index", "instruction", "layout", "row_major", "swizzle",
    "TiledMMA", "broadcast_layout", "copy_layout", "reduce_layout", "thread_values",
    "swizzled_rows", "tiled_mma", "tma_layout", "tv_layout",
    "ABin", "AConst", "ADim", "AffineExpr", "ASym", "Buffer", "Condition", "IndexValue",
    "ScalarValue", "TensorValue", "Tile", "Value", "cdiv", "index_const",
    "alloc", "atomic_add", "barrier", "commit_group", "conv_output_size", "copy", "copy_async",
    "gather_view", "im2col", "load",
    "reinterpret", "stage", "store", "transpose", "view", "wait_group",
    "add", "broadcast", "cmp", "convert", "convert_layout", "div", "eq", "exp", "exp2",
    "fill", "gelu", "iota", "log", "log2", "maximum", "minimum", "mma", "mul", "ne", "neg",
    "reduce", "relu", "rsqrt", "scale", "scan", "cumsum", "cumprod", "cummax", "cummin",
    "sigmoid", "splat", "sqrt", "sub", "tanh", "where",
    "zeros",
    "reduced", "tag", "tag_assert",
    "assume", "assume_indices", "block_id", "cluster_id", "cluster_rank", "grid_dim", "num_clusters", "region",
    "thread_id", "when", "pipeline",
    "BarrierSlot", "MBarrier", "TensorMap", "fence_proxy_async", "mbarrier", "mbarrier_arrive",
    "mbarrier_arrive_expect_tx", "mbarrier_wait", "mma_async", "named_barrier_arrive",
    "named_barrier_sync", "role", "tensor_map", "tma_load",
    "tma_store", "tma_store_wait", "wgmma_commit", "wgmma_wait",
    "Kernel", "kernel",
]
