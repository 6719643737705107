//===- WrittenArguments.cpp - tensor arguments a kernel may store into ----===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Analysis/WrittenArguments.h"
#include "argus/Dialect/ArgusDialect.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::argus;

/// Whether values of type `t` can address the memory of a kernel argument.
static bool mayAddressMemory(Type t) {
  if (auto tile = dyn_cast<TileType>(t))
    return tile.isMemory();
  return isa<BaseMemRefType, TensorMapType>(t);
}

/// Whether `op` may write through its operand `v` (an alias of an argument).
/// Ops that declare no effects and are not known to be free of them count as
/// writers, except region holders, whose bodies are looked at instead, and
/// argus.assume_indices.
static bool mayWriteThrough(Operation *op, Value v) {
  // A precondition on an index tensor's entries reads them only. It
  // declares no effects so that no dead-code elimination drops it.
  if (isa<AssumeIndicesOp>(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
           !op->hasTrait<OpTrait::IsTerminator>();
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  for (const MemoryEffects::EffectInstance &e : list)
    if (isa<MemoryEffects::Write>(e.getEffect()) &&
        (!e.getValue() || e.getValue() == v))
      return true;
  return false;
}

/// The values an op makes from an alias that may address the same memory:
/// its memory-typed results, the memory-typed entry arguments of its regions
/// (loop-carried views) and, for a terminator, its parent's results and
/// region arguments.
static void forwardAliases(Operation *op, SmallVectorImpl<Value> &out) {
  auto add = [&](Operation *from) {
    for (Value r : from->getResults())
      if (mayAddressMemory(r.getType()))
        out.push_back(r);
    for (Region &region : from->getRegions())
      if (!region.empty())
        for (BlockArgument a : region.front().getArguments())
          if (mayAddressMemory(a.getType()))
            out.push_back(a);
  };
  add(op);
  if (op->hasTrait<OpTrait::IsTerminator>())
    if (Operation *parent = op->getParentOp())
      add(parent);
}

Operation *mlir::argus::firstWriterOf(func::FuncOp kernel, unsigned argNumber) {
  BlockArgument arg = kernel.getArgument(argNumber);
  if (!isa<BaseMemRefType>(arg.getType()))
    return nullptr;
  SmallVector<Value> work{arg};
  llvm::DenseSet<Value> seen{arg};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (mayWriteThrough(user, v))
        return user;
      SmallVector<Value> next;
      forwardAliases(user, next);
      for (Value n : next)
        if (seen.insert(n).second)
          work.push_back(n);
    }
  }
  return nullptr;
}

llvm::BitVector mlir::argus::writtenArguments(func::FuncOp kernel) {
  llvm::BitVector written(kernel.getNumArguments());
  for (BlockArgument arg : kernel.getArguments())
    if (firstWriterOf(kernel, arg.getArgNumber()))
      written.set(arg.getArgNumber());
  return written;
}
