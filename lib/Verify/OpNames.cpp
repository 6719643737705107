//===- OpNames.cpp - how ops and locations are named in reports -----------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "OpNames.h"

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
  // A loop the user named (the DSL names `for kt in argus.range(...)`
  // after its variable: loc("kt"(...))) is called by that name.
  if (auto named = dyn_cast<NameLoc>(loop->getLoc()))
    return "loop '" + named.getName().str() + "' (scf.for at " +
           locStr(loop->getLoc()) + ")";
  return "scf.for at " + locStr(loop->getLoc());
}

} // namespace argus::verify::detail
