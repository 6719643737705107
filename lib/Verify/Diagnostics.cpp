//===- Diagnostics.cpp - violated and unknown checks as diagnostics -------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Diagnostics are emitted at the op's location rather than through the op,
// so that MLIR does not append a dump of the op: a violation is one error
// and the counterexample's notes.
//
//===----------------------------------------------------------------------===//

#include "argus/Verify/TagVerifier.h"

#include "argus/Dialect/ArgusDialect.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace argus::verify {

static std::string coordStr(const std::vector<int64_t> &c) {
  std::string s = "(";
  for (size_t i = 0; i < c.size(); ++i)
    s += (i ? "," : "") + std::to_string(c[i]);
  return s + ")";
}

void emitDiagnostics(const std::vector<KernelReport> &reports) {
  for (const KernelReport &k : reports) {
    for (const CheckResult &c : k.checks) {
      if (c.status == Status::Proved || !c.reportOp)
        continue;
      std::string what =
          c.kind == "assert"        ? "tag assertion '" + c.predicate + "'"
          : c.kind == "assumptions" ? "assumptions (no launch satisfies them)"
                                    : c.kind;
      if (c.status == Status::Unknown) {
        mlir::emitWarning(c.reportOp->getLoc())
            << what << " is unknown at '" << c.siteName << "': " << c.reason;
        continue;
      }
      const Counterexample &cx = c.counterexamples.front();
      InFlightDiagnostic d = mlir::emitError(c.reportOp->getLoc());
      d << what << " violated at '" << c.siteName << "' (" << c.siteLocation
        << ")";
      if (!cx.loops.empty()) {
        d << " in iteration";
        for (auto &[l, v] : cx.loops)
          d << " " << v << " of " << l;
      }
      std::string blk;
      for (auto &[dim, v] : cx.blockIds)
        blk += (blk.empty() ? "" : ", ") + dim + "=" + std::to_string(v);
      Location siteLoc = c.siteOp ? c.siteOp->getLoc() : c.reportOp->getLoc();
      auto &who = d.attachNote(siteLoc);
      who << (blk.empty() ? std::string("any block") : "block (" + blk + ")");
      // Inside a warp role, threads count from the role's first: say so,
      // and give the block's thread and warp as well.
      mlir::argus::RoleOp role =
          c.siteOp ? c.siteOp->getParentOfType<mlir::argus::RoleOp>() : nullptr;
      mlir::argus::KernelAttr kernel =
          c.siteOp ? mlir::argus::getEnclosingKernel(c.siteOp) : nullptr;
      if (cx.thread >= 0 && role && kernel) {
        int64_t ws = kernel.getWarpSize();
        int64_t t = role.getFirstWarp() * ws + cx.thread;
        who << ", thread " << cx.thread << " of role '" << role.getName()
            << "' (block thread " << t << ", warp " << t / ws << ", lane "
            << t % ws << "), slot " << cx.slot;
      } else if (cx.thread >= 0)
        who << ", thread " << cx.thread << " (warp " << cx.warp << ", lane "
            << cx.lane << "), slot " << cx.slot;
      else
        who << ", any thread";
      for (const ElementInfo &e : cx.elements) {
        std::string tags;
        for (auto &[f, v] : e.tags)
          tags += (tags.empty() ? "" : ", ") + f + "=" + std::to_string(v);
        auto &n = d.attachNote(siteLoc);
        n << e.role << " element";
        if (!e.tileCoords.empty())
          n << " " << coordStr(e.tileCoords);
        if (!e.memory.empty())
          n << " of " << e.memory;
        if (!e.globalCoords.empty())
          n << " at global " << coordStr(e.globalCoords);
        if (e.thread >= 0)
          n << " held by thread " << e.thread << " slot " << e.slot;
        if (!e.tags.empty())
          n << " has tags {" << tags << "}";
      }
      if (!cx.params.empty()) {
        std::string ps;
        for (auto &[p, v] : cx.params)
          ps += (ps.empty() ? "" : ", ") + p + "=" + std::to_string(v);
        d.attachNote(c.reportOp->getLoc()) << "kernel arguments: " << ps;
      }
      for (const std::string &note : cx.notes)
        d.attachNote(c.reportOp->getLoc()) << note;
    }
  }
}

} // namespace argus::verify
