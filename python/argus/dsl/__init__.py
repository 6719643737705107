"""The argus tile DSL (being split into modules; see values.py for now)."""

from .values import (ADim, ABin, AConst, AffineExpr, ASym, Buffer, Condition,  # noqa: F401
                     Diagnostic, Frag, IndexValue, Kernel, Layout, SourceLoc, TagInfo, Tensor,
                     TensorSpec, TensorValue, Tile, TileType, Value, add, alloc, assume, barrier,
                     block_id, broadcast, check_instruction, col_major, commit_group, convert,
                     convert_layout, copy, copy_async, div, dtype_of, exp, exp2, fill, frag,
                     gather_view, grid_dim, index, instruction, kernel, layout, load, maximum,
                     mma, mul, neg, range, reduce, region, reinterpret, row_major, scale, stage,
                     store, sub, swizzle, tag, tag_assert, thread_id, transpose, view,
                     wait_group, zeros)
