//===- IndexObligations.cpp - what index arithmetic must guarantee --------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Every query assumes that index arithmetic does not wrap: a subtraction
// does not go below zero and no value leaves the modelled range. Those are
// obligations, not assumptions: each index op that relied on one is checked
// here for every instance the kernel executes (under its `argus.assume`
// preconditions). An underflow is a bug of the kernel (violated, with the
// iteration and arguments); a value beyond the modelled range is a limit of
// the verifier (unknown, naming the assumption).
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"
#include "OpNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/Support/SaveAndRestore.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

CheckResult KernelVerifier::checkIndexOp(Operation *op) {
  bool sub = isa<arith::SubIOp>(op);
  bool div = isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp,
                 arith::CeilDivUIOp, arith::CeilDivSIOp, arith::RemUIOp,
                 arith::RemSIOp>(op);
  CheckResult res = newCheck(sub   ? "index-underflow"
                             : div ? "division-by-zero"
                                   : "index-range",
                             op, op);
  res.predicate = sub   ? "the index subtraction never goes below zero"
                  : div ? "the divisor is never zero"
                        : "the index value stays below 2^" +
                              std::to_string(kWidth - 1) +
                              " (the verifier's index range)";
  // Underflow and division by zero are bugs of the kernel; a value beyond
  // the modelled range is a limit of the verifier.
  bool bug = sub || div;
  // An assumption's own arithmetic is checked without assuming the
  // obligations of any assumption (see assumptionObligations).
  llvm::SaveAndRestore<bool> alone(checkingAssumptionOp,
                                   assumptionOps.count(op) != 0);
  runCheck({&res}, [&](Query &Q) {
    auto loop = dyn_cast<scf::ForOp>(op);
    // For a loop: its carried index values, in an iteration of its body.
    Inst in = freshInst(loop ? loop.getBody()->getTerminator() : op);
    std::optional<z3::expr> lhs, rhs;
    if (loop) {
      for (auto [k, a] : llvm::enumerate(loop.getRegionIterArgs()))
        if (a.getType().isIndex()) {
          try {
            carriedIndex(loop, k, in);
          } catch (Unsupported &) {
            // Not a closed form: every use of it is unknown already.
          }
        }
    } else if (sub) {
      // The operands' own obligations are assumed (and checked at their ops).
      lhs = evalIndex(op->getOperand(0), in);
      rhs = evalIndex(op->getOperand(1), in);
      Q.obligations.push_back({in.guard, z3::uge(*lhs, *rhs), op,
                               "the subtraction does not underflow"});
    } else
      evalIndex(op->getResult(0), in);
    res.status = Status::Proved;
    // All of this op's obligations in one query first (each assuming the
    // other ops' obligations, not its own siblings'): unsat proves them all.
    // Otherwise each is checked alone, for its reason or counterexample.
    {
      std::vector<z3::expr> mine;
      std::vector<Obligation> others;
      for (const Obligation &ob : Q.obligations)
        if (ob.op == op)
          mine.push_back(ob.guard && !ob.cond);
        else
          others.push_back(ob);
      if (mine.empty())
        return;
      if (mine.size() > 1) {
        z3::expr anyBad = ctx.bool_val(false);
        for (auto &b : mine)
          anyBad = anyBad || b;
        std::vector<Obligation> all = Q.obligations;
        Q.obligations = others;
        std::optional<z3::model> m;
        z3::check_result r = solve({anyBad}, m);
        Q.obligations = all;
        if (r == z3::unsat)
          return;
      }
    }
    for (size_t i = 0; i < Q.obligations.size(); ++i) {
      const Obligation &ob = Q.obligations[i];
      if (ob.op != op)
        continue;
      z3::expr bad = ob.guard && !ob.cond;
      int skip = static_cast<int>(i);
      auto describe = [&](const z3::model &m) {
        std::string params;
        llvm::raw_string_ostream os(params);
        for (auto &[name, e] : paramVars)
          os << (params.empty() ? "" : ", ") << name << "=" << uval(m, e);
        for (auto &[loop, iv] : in.ivs)
          os << ", " << loopName(loop) << " iteration " << uval(m, iv);
        return params;
      };
      if (!bug) {
        // Beyond the model, not a bug of the kernel: no replay (the model
        // wraps by construction), the assumption is named instead.
        std::optional<z3::model> m;
        z3::check_result r = solve({bad}, m, skip);
        if (r == z3::unsat)
          continue;
        res.status = Status::Unknown;
        res.reason = r == z3::unknown
                         ? "solver returned unknown (timeout?) on: " + ob.what
                         : "the verifier assumes that " + ob.what +
                               ", which it cannot prove (e.g. " + describe(*m) +
                               "); bound the arguments with argus.assume";
        return;
      }
      CheckResult one = res;
      std::optional<z3::model> m = findWitness(one, {bad}, in, skip);
      if (!m) {
        if (one.status == Status::Unknown) {
          res.status = Status::Unknown;
          res.reason = one.reason + " on: " + ob.what;
        }
        continue;
      }
      std::string params = describe(*m);
      res.status = Status::Violated;
      Counterexample cx;
      fillCommon(cx, *m, in);
      if (sub)
        cx.notes.push_back(std::to_string(uval(*m, *lhs)) + " - " +
                           std::to_string(uval(*m, *rhs)) +
                           " is negative: an index below zero (state the "
                           "kernel's preconditions with argus.assume)");
      else
        cx.notes.push_back("the divisor is zero (with " + params +
                           "); state the kernel's preconditions with "
                           "argus.assume");
      res.counterexamples.push_back(cx);
      return;
    }
  });
  return res;
}

} // namespace argus::verify::detail
