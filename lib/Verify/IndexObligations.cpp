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
  runCheck({&res}, [&](Query &Q) {
    Inst in = freshInst(op);
    std::optional<z3::expr> lhs, rhs;
    if (sub) {
      // The operands' own obligations are assumed (and checked at their ops).
      lhs = evalIndex(op->getOperand(0), in);
      rhs = evalIndex(op->getOperand(1), in);
      Q.obligations.push_back({in.guard, z3::uge(*lhs, *rhs), op,
                               "the subtraction does not underflow"});
    } else
      evalIndex(op->getResult(0), in);
    res.status = Status::Proved;
    for (size_t i = 0; i < Q.obligations.size(); ++i) {
      const Obligation &ob = Q.obligations[i];
      if (ob.op != op)
        continue;
      z3::expr bad = ob.guard && !ob.cond;
      std::optional<z3::model> m;
      z3::check_result r = solve({bad}, m, static_cast<int>(i));
      if (r == z3::unsat)
        continue;
      if (r == z3::unknown) {
        res.status = Status::Unknown;
        res.reason = "solver returned unknown (timeout?) on: " + ob.what;
        continue;
      }
      preferSmall({bad}, in, m, static_cast<int>(i));
      std::string params;
      llvm::raw_string_ostream os(params);
      for (auto &[name, e] : paramVars)
        os << (params.empty() ? "" : ", ") << name << "=" << uval(*m, e);
      for (auto &[loop, iv] : in.ivs)
        os << ", " << loopName(loop) << " iteration " << uval(*m, iv);
      if (!bug) {
        // Beyond the model, not a bug of the kernel.
        res.status = Status::Unknown;
        res.reason = "the verifier assumes that " + ob.what +
                     ", which it cannot prove (e.g. " + params +
                     "); bound the arguments with argus.assume";
        return;
      }
      std::string why = replay(*m);
      if (!why.empty()) {
        res.status = Status::Unknown;
        res.reason = "counterexample replay disagrees: " + why;
        return;
      }
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
