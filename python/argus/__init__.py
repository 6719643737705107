"""argus: a Python tile DSL, bindings and agent loop over the argus MLIR
dialect (tags and tag assertions verified at compile time, regions measured
at run time). See docs/Python.md."""

from .errors import (ArgusError, CompileError, DTypeError, FeatureUnavailable,  # noqa: F401
                     InvariantViolation, IRVerificationError, LayoutError, MLIRError, NoGPU,
                     PipelineError, ShapeError, TagFieldError, TraceError,
                     UnknownInstructionError, VerificationUnknown)
from .ir import features, has_pass, parse, run_pipeline  # noqa: F401
from .dsl import (Buffer, Condition, Frag, In, InOut, IndexValue, Kernel, Layout, Out, Tensor, TensorSpec,  # noqa: F401
                  Tile, TileType, add, alloc, assume, barrier, block_id, broadcast, col_major,
                  commit_group, convert, convert_layout, copy, copy_async, div, exp, exp2,
                  fill, frag, gather_view, grid_dim, index, instruction, kernel, layout, load, maximum, mma, mul,
                  neg, range, reduce, region, reinterpret, row_major, scale, stage, store,
                  reduced, sub, swizzle, tag, tag_assert, thread_id, transpose, view, wait_group,
                  zeros)
from .dsl import (Scalar, ScalarSpec, ScalarValue, abs, cmp, eq, gelu, iota, log,  # noqa: F401
                  log2, minimum, ne, relu, rsqrt, sigmoid, splat, sqrt, tanh, where)
from .dsl import (atomic_add, conv_output_size, cummax, cummin, cumprod, cumsum, im2col,  # noqa: F401
                  scan)
from .dsl import assume_indices, cluster_id, cluster_rank, num_clusters, pipeline  # noqa: F401
from .dsl import (BarrierSlot, MBarrier, TensorMap, cdiv, fence_proxy_async, index_const,  # noqa: F401
                  mbarrier, mbarrier_arrive, mbarrier_arrive_expect_tx, mbarrier_wait, mma_async,
                  named_barrier_arrive, named_barrier_sync,
                  role, tensor_map, tma_load, tma_store, tma_store_wait, wgmma_commit,
                  wgmma_wait, when)
from .dsl import (TiledMMA, broadcast_layout, constexpr, copy_layout, layouts,  # noqa: F401
                  reduce_layout, swizzled_rows, thread_values, tiled_mma, tma_layout,
                  tv_layout)
from .verify import (Check, Counterexample, Element, VerificationResult,  # noqa: F401
                     verifier_available, verify_text)
from .compile import CompiledKernel, RunResult, gpu_available  # noqa: F401
from .tools import find_tool  # noqa: F401
from .launch import Autotuner, TuneRecord, autotune  # noqa: F401
from . import aot  # noqa: F401  (argus.aot.export / load without importing it)

# `range` and `abs` are left out of `from argus import *` so the builtins are
# not shadowed.
__all__ = [n for n in dir() if not n.startswith("_") and n not in ("range", "abs")]
