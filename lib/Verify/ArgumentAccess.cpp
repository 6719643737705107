//===- ArgumentAccess.cpp - the argument-access check ---------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Output coverage proves that every element a kernel writes is written
// once, but not that it writes the right tensor: an attention kernel storing
// its output into Q (same shape) instead of O was proved. The author's
// intent is stated per tensor argument, `argus.access = "in" | "out" |
// "inout"` (the DSL's argus.In / argus.Out / argus.InOut annotations):
//
//   in     never written (any op that may write through an alias of it is
//          a violation: the write's op and location);
//   out    written (a kernel that never writes it is a violation); that
//          each of its elements is written exactly once is output-coverage;
//   inout  no constraint here.
//
// The writes are those of WrittenArguments.h (over-approximated: an op of
// unknown effects counts as a writer).
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"
#include "OpNames.h"

#include "argus/Analysis/WrittenArguments.h"

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

/// The name of the first argus.view of argument `n` ("" without one).
static std::string viewNameOf(func::FuncOp func, unsigned n) {
  std::string name;
  func.walk([&](ViewOp v) {
    auto a = dyn_cast<BlockArgument>(v.getTensor());
    if (name.empty() && a && a.getOwner()->getParentOp() == func &&
        a.getArgNumber() == n)
      name = v.getName().str();
  });
  return name;
}

void KernelVerifier::checkArgumentAccess(std::vector<CheckResult> &out) {
  for (unsigned n = 0; n < func.getNumArguments(); ++n) {
    auto access = func.getArgAttrOfType<StringAttr>(n, "argus.access");
    if (!access || access.getValue() == "inout")
      continue;
    bool in = access.getValue() == "in";
    Operation *writer = firstWriterOf(func, n);
    std::string view = viewNameOf(func, n);
    std::string who = "argument " + std::to_string(n) +
                      (view.empty() ? "" : " ('" + view + "')");
    CheckResult res =
        newCheck("argument-access", writer ? writer : func.getOperation(),
                 writer ? writer : func.getOperation());
    res.predicate = who + (in ? " is an input: never written"
                              : " is an output: written by the kernel");
    res.queries = 0;
    if (in == (writer == nullptr)) {
      res.status = Status::Proved;
      res.witness = in ? "no op may write through any alias of it"
                       : "written by " + opDesc(writer);
    } else {
      res.status = Status::Violated;
      Counterexample cx;
      if (in)
        cx.notes.push_back(who + " is declared argus.access = \"in\" but " +
                           opDesc(writer) +
                           " writes it (is the store meant for another "
                           "tensor, or is the argument \"inout\"?)");
      else
        cx.notes.push_back(who +
                           " is declared argus.access = \"out\" but no op of "
                           "the kernel writes it (is its result stored into "
                           "another tensor?)");
      res.counterexamples.push_back(std::move(cx));
    }
    out.push_back(std::move(res));
  }
}

} // namespace argus::verify::detail
