//===- Interpreter.h - run argus kernels on the CPU ------------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// A tile-level interpreter of argus-dialect kernels: one launch (a grid of
// blocks, run one after another) on host buffers. Block-collective ops
// compute whole tiles in logical coordinates; values are exact for their
// element types (f32, f16, bf16, fp8 rounded to nearest even; tf32 operand
// rounding at tf32 matrix instructions; f32 accumulation in k order). Host
// buffers hold every element as a double (exact for all element types the
// dialect has except i64 beyond 2^53). An op it cannot interpret is an
// error naming the op and its location.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_INTERPRET_INTERPRETER_H
#define ARGUS_INTERPRET_INTERPRETER_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace argus::interp {

/// A row-major contiguous host tensor of doubles (the caller owns it).
struct HostBuffer {
  double *data = nullptr;
  std::vector<int64_t> shape;
};

/// One kernel argument: a tensor, an integer (index or iN) or a float.
struct KernelArg {
  enum Kind { Buffer, Int, Float } kind = Int;
  HostBuffer buffer;
  int64_t i = 0;
  double f = 0;
  /// Set by the run when a store, copy or atomic wrote the buffer.
  bool written = false;
  /// With Options::trackWriters: per element, the linear block id
  /// (x + gx * (y + gy * z)) and the op (an index into Result::writerOps)
  /// that wrote it last, or -1.
  std::vector<int32_t> writerBlock, writerOp;
  /// With trackWriters: per element, the first thread whose registers held
  /// the stored value (register stores: the register layout's first holder,
  /// which writes it), or -1 (copies, TMA stores, unwritten).
  std::vector<int32_t> writerThread;
};

struct Options {
  /// Ops executed (all blocks) before the run stops with an error; 0: none.
  int64_t stepBudget = 0;
  /// Warp roles run as cooperative tasks switched only where a role waits
  /// (mbarrier.wait, named_barrier.sync). 0: the next runnable role in
  /// program order after the one that blocked; otherwise a seeded random
  /// choice among the runnable roles (another deterministic schedule).
  uint64_t scheduleSeed = 0;
  /// Record which block and op wrote each element of each buffer.
  bool trackWriters = false;
};

struct Result {
  bool ok = true;
  std::string error;
  int64_t steps = 0;
  /// The writing ops' names and locations (trackWriters).
  std::vector<std::string> writerOps;
};

/// Runs `fn` once over `grid` blocks on `args` (one per function argument).
/// Buffers are first rounded to their memref element type in place (the
/// values the kernel would see after an upload).
Result runLaunch(mlir::func::FuncOp fn, std::vector<KernelArg> &args,
                 std::array<int64_t, 3> grid, const Options &options = {});

/// `v` rounded to element type `t` (to nearest even for floats, wrapped to
/// the width for integers; index and f64 unchanged).
double roundTo(mlir::Type t, double v);

/// `v` rounded to tf32 (10 explicit mantissa bits, to nearest even).
double roundTf32(double v);

} // namespace argus::interp

#endif // ARGUS_INTERPRET_INTERPRETER_H
