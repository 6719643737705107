//===- OpNames.cpp - how ops and locations are named in reports -----------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "OpNames.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace argus::verify::detail {

std::string locStr(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    os << fl.getFilename().getValue() << ":" << fl.getLine() << ":"
       << fl.getColumn();
  else if (auto nl = dyn_cast<NameLoc>(loc))
    return locStr(nl.getChildLoc());
  else if (auto fused = dyn_cast<FusedLoc>(loc);
           fused && !fused.getLocations().empty())
    return locStr(fused.getLocations().front());
  else
    loc.print(os);
  return s;
}

std::string opDesc(Operation *op) {
  return ("'" + op->getName().getStringRef() + "' at " + locStr(op->getLoc()))
      .str();
}

std::string loopName(Operation *loop) {
  // A loop the user named is called by that name: the DSL names the
  // induction variable of `for kt in argus.range(...)` (its block argument's
  // loc("kt"(...))); hand-written IR may name the loop op itself.
  auto named = dyn_cast<NameLoc>(loop->getLoc());
  if (auto forOp = dyn_cast<scf::ForOp>(loop))
    if (auto iv = dyn_cast<NameLoc>(forOp.getInductionVar().getLoc()))
      named = iv;
  if (named)
    return "loop '" + named.getName().str() + "' (scf.for at " +
           locStr(loop->getLoc()) + ")";
  return "scf.for at " + locStr(loop->getLoc());
}

} // namespace argus::verify::detail
