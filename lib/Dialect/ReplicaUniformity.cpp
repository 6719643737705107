//===- ReplicaUniformity.cpp - equal values in every replica --------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/ReplicaUniformity.h"

#include "argus/Dialect/ArgusDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::argus;

namespace {

/// Greatest fixpoint over the def-use graph: a loop-carried value is
/// assumed uniform while its own definition is being checked (every op on
/// the cycle must then preserve uniformity for the answer to be true).
struct Uniformity {
  llvm::DenseSet<Value> assumed;

  bool uniform(Value v) {
    if (!isa<TileType>(v.getType()))
      return true; // scalars are the same in every thread that computes them
    if (!assumed.insert(v).second)
      return true;
    bool r = compute(v);
    if (!r)
      assumed.erase(v);
    return r;
  }

  bool compute(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!loop || arg.getArgNumber() == 0)
        return false;
      unsigned i = arg.getArgNumber() - 1;
      auto yield =
          dyn_cast_or_null<scf::YieldOp>(loop.getBody()->getTerminator());
      return yield && uniform(loop.getInitArgs()[i]) &&
             uniform(yield.getOperand(i));
    }
    Operation *def = v.getDefiningOp();
    unsigned idx = cast<OpResult>(v).getResultNumber();
    if (isa<FillOp, SplatOp, IotaOp, ReduceOp, LoadOp>(def))
      return true;
    if (isa<MmaOp, MmaAsyncOp>(def))
      return false;
    if (auto w = dyn_cast<WgmmaWaitOp>(def))
      return uniform(w.getValues()[idx]);
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      auto yield =
          dyn_cast_or_null<scf::YieldOp>(loop.getBody()->getTerminator());
      return yield && uniform(loop.getInitArgs()[idx]) &&
             uniform(yield.getOperand(idx));
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
      if (ifOp.getElseRegion().empty())
        return false;
      return uniform(ifOp.thenYield().getOperand(idx)) &&
             uniform(ifOp.elseYield().getOperand(idx));
    }
    // Elementwise ops, conversions, layout changes, broadcasts and tags:
    // pure argus ops whose every operand is uniform.
    if (def->getDialect() == v.getContext()->getLoadedDialect<ArgusDialect>() &&
        isPure(def)) {
      for (Value o : def->getOperands())
        if (!uniform(o))
          return false;
      return true;
    }
    return false;
  }
};

} // namespace

bool mlir::argus::isReplicaUniform(Value v) { return Uniformity().uniform(v); }
