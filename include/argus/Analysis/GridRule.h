//===- GridRule.h - the grid a launch of a kernel must use -------*- C++
//-*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// How a host computes the grid of a kernel from the arguments of a launch,
// derived from the kernel's `argus.assume` conditions on `gpu.grid_dim`
// (docs/Lowering.md, "Grid rule"). A kernel states its grid as a
// precondition ("M = 64 * grid_dim.y", "grid_dim.x == ceil(S / 128)",
// "N <= grid_dim.x * 64"); the rule solves it for the grid: an equality
// gives the extent, lower bounds the smallest extent above all of them,
// upper bounds (caps) are left to the launch-time check. The launch ABI
// records the rule so that no host re-derives the grid from the kernel's
// name or its source.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_ANALYSIS_GRIDRULE_H
#define ARGUS_ANALYSIS_GRIDRULE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::argus {

/// The grid rule of `kernel`: one dictionary per dimension x, y, z with
///   - `extent`: an extent expression, or the string "free" when no
///     assumption determines it (a persistent kernel's grid is the host's
///     choice);
///   - `assume` (when an assumption gave the extent): its message;
///   - `exact` (true, when the extent is `div(e, m)` from an equality
///     `grid_dim * m == e`): a launch where m does not divide e cannot
///     satisfy the assumption, which the host reports instead of rounding.
/// An extent expression is an integer (a constant: 1 for a dimension the
/// kernel never reads), or a one-entry dictionary: `size = [a, d]` (dim d of
/// tensor argument a), `arg = a` (the value of integer argument a), or
/// `add | sub | mul | div | ceildiv | max = [lhs, rhs]` over non-negative
/// integers (`div` rounds down).
ArrayAttr gridRule(func::FuncOp kernel);

/// The kernel's argus.assume_indices, for a host to check before a launch:
/// one dictionary each, {arg = N, distinct = BOOL, message = "...", below =
/// EXTENT} (the bound as an extent expression over the launch's arguments;
/// absent when it depends on anything else).
ArrayAttr indexRules(func::FuncOp kernel);

} // namespace mlir::argus

#endif // ARGUS_ANALYSIS_GRIDRULE_H
