//===- KernelVerifier.cpp - solving, the check harness, the driver --------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"
#include "OpNames.h"

#include <chrono>

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify {
namespace detail {

void KernelVerifier::baseCons(Query &Q) {
  for (auto &c : paramCons)
    Q.cons.push_back(c);
}

z3::check_result KernelVerifier::solve(const std::vector<z3::expr> &extra,
                                       std::optional<z3::model> &model,
                                       int skip) {
  // A fresh (non-incremental) solver per query: Z3's bit-blasting tactic is
  // much faster here than its incremental core.
  z3::solver s(ctx, "QF_BV");
  z3::params p(ctx);
  p.set("timeout", opts.timeoutMs);
  s.set(p);
  for (auto &c : q->cons)
    s.add(c);
  for (size_t i = 0; i < q->obligations.size(); ++i)
    if (static_cast<int>(i) != skip)
      s.add(z3::implies(q->obligations[i].guard, q->obligations[i].cond));
  for (auto &c : extra)
    s.add(c);
  ++queries;
  z3::check_result r = s.check();
  if (r == z3::sat)
    model = s.get_model();
  return r;
}

CheckResult KernelVerifier::newCheck(const char *kind, Operation *reportOp,
                                     Operation *site) {
  CheckResult res;
  res.kind = kind;
  res.kernel = func.getSymName().str();
  res.reportOp = reportOp;
  res.siteOp = site;
  if (site) {
    res.siteName = site->getName().getStringRef().str();
    res.siteLocation = locStr(site->getLoc());
  }
  return res;
}

void KernelVerifier::runCheck(ArrayRef<CheckResult *> results,
                              function_ref<void(Query &)> body) {
  unsigned q0 = queries;
  auto start = std::chrono::steady_clock::now();
  auto giveUp = [&](const std::string &reason) {
    for (CheckResult *r : results) {
      r->status = Status::Unknown;
      r->reason = reason;
      r->counterexamples.clear();
    }
  };
  Query Q;
  q = &Q;
  try {
    baseCons(Q);
    body(Q);
  } catch (Unsupported &u) {
    giveUp(u.reason);
  } catch (z3::exception &e) {
    giveUp(std::string("z3: ") + e.msg());
  } catch (std::exception &e) {
    giveUp(std::string("internal error: ") + e.what());
  }
  q = nullptr;
  results.front()->queries = queries - q0;
  results.front()->milliseconds = std::chrono::duration<double, std::milli>(
                                      std::chrono::steady_clock::now() - start)
                                      .count();
}

KernelReport KernelVerifier::run() {
  KernelReport rep;
  rep.name = func.getSymName().str();
  rep.threads = threads;
  rep.warpSize = warpSize;
  auto start = std::chrono::steady_clock::now();
  try {
    collectParams();
    // The model's own scope: parameters are bounded bit-vectors.
    rep.assumptions.push_back(
        "kernel arguments, block ids and values loaded at entry are below " +
        std::to_string(kParamBound) + " (the verifier's parameter range)");
    collectAssumptions(rep.assumptions);
  } catch (z3::exception &) {
  }
  int64_t maxStages = 1;
  func.walk([&](AllocOp a) {
    maxStages = std::max(maxStages,
                         cast<BufferType>(a.getResult().getType()).getStages());
  });
  depth = maxStages;
  func.walk([&](Operation *op) {
    if (auto a = dyn_cast<TagAssertOp>(op))
      rep.checks.push_back(checkAssert(a));
  });
  if (opts.implicitChecks) {
    func.walk([&](Operation *op) {
      if (isa<LoadOp, CopyOp, CopyAsyncOp>(op) &&
          isSharedTile(op->getOperand(0)))
        checkRead(op, op->getOperand(0), rep.checks);
      else if (auto mma = dyn_cast<MmaOp>(op)) {
        for (Value v : {mma.getA(), mma.getB()})
          if (isSharedTile(v))
            checkRead(op, v, rep.checks);
      }
      if (auto st = dyn_cast<StageOp>(op))
        rep.checks.push_back(checkStageRange(st));
      if (isWriteOp(op)) {
        rep.checks.push_back(checkInjective(op));
        if (isSharedTile(writeDest(op))) {
          rep.checks.push_back(checkWar(op));
          rep.checks.push_back(checkWaw(op));
        }
      }
    });
    checkViews(rep.checks);
  }
  if (opts.implicitChecks) {
    // Index ops whose obligations the checks above relied on, in program
    // order (checking one may reach further ones).
    std::set<Operation *> done;
    for (bool more = true; more;) {
      more = false;
      func.walk([&](Operation *op) {
        if (obliged.count(op) && done.insert(op).second) {
          rep.checks.push_back(checkIndexOp(op));
          more = true;
        }
      });
    }
  }
  rep.queries = queries;
  rep.milliseconds = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  return rep;
}

} // namespace detail
} // namespace argus::verify
