//===- ModelledOps.cpp - what the semantic model interprets ---------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The one table of the constructs the verifier's model interprets. An op of
// the argus dialect, index arithmetic, scf.for / scf.if and the gpu ids are
// modelled (a check that reaches one it cannot interpret is unknown with
// the reason). Anything else inside a kernel (a memref.store, gpu.barrier,
// scf.while, a call, inline assembly) could write memory, order threads or
// change control flow where no check looks: every check of such a kernel
// is unknown, "not modelled: X", instead of a proof that ignores X.
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"
#include "OpNames.h"

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

namespace {
/// A row of the table: an op name (or a dialect prefix ending in '.') and
/// how the model reads it.
struct ModelledOp {
  llvm::StringLiteral name;
  llvm::StringLiteral how;
};
} // namespace

static constexpr ModelledOp kModelled[] = {
    {"argus.", "tiles, memory, synchronisation, tags: docs/Verifier.md"},
    {"arith.", "index and i1 arithmetic as bit-vector terms; float "
               "arithmetic on scalars carries no tags (values)"},
    {"math.", "values only (no tags, no memory)"},
    {"scf.for", "induction variables over their range; iter_args by "
                "induction"},
    {"scf.if", "both branches, each under its condition"},
    {"scf.yield", "the values a loop or branch passes on"},
    {"gpu.block_id", "a parameter below the grid's size"},
    {"gpu.grid_dim", "a parameter (ModelLimits.h)"},
    {"gpu.thread_id", "the thread (where a check interprets it)"},
    {"gpu.cluster_id", "cluster id = block id / cluster size"},
    {"gpu.cluster_block_id", "rank in the cluster"},
    {"gpu.cluster_dim", "the number of clusters"},
    {"gpu.cluster_dim_blocks", "the cluster's size"},
    {"memref.dim", "a tensor size parameter"},
    {"memref.load", "at the top level: a parameter; below it, a function "
                    "of the indices of a tensor the kernel never writes"},
    {"func.return", "the end of the kernel"},
};

void KernelVerifier::collectUnmodelled() {
  std::map<std::string, std::string> first; // op name -> first location
  func.walk([&](Operation *op) {
    if (op == func.getOperation())
      return;
    llvm::StringRef name = op->getName().getStringRef();
    for (const ModelledOp &m : kModelled)
      if (m.name.ends_with(".") ? name.starts_with(m.name) : name == m.name)
        return;
    first.emplace(name.str(), locStr(op->getLoc()));
  });
  for (auto &[name, loc] : first)
    unmodelled.push_back(
        "'" + name + "' at " + loc +
        " (the model interprets the argus dialect, index arithmetic, "
        "scf.for / scf.if, the gpu ids and memref.dim / memref.load: see "
        "docs/Verifier.md, \"What the model interprets\")");
}

} // namespace argus::verify::detail
