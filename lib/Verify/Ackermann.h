//===- Ackermann.h - function applications as variables ---------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The contents of a tensor a kernel reads index values from inside a loop
// are an uninterpreted function of the index (KernelVerifier::
// loadedTensors). The verifier's fast stages (the integer translation, the
// bit-blaster's QF_BV tactic) take no function symbols, so a query's
// applications become fresh variables, and each pair of applications of one
// function gets the congruence `equal arguments -> equal values`
// (Ackermann's reduction): the result is satisfiable exactly when the query
// is, and a model of it gives one of the query (the function defined at the
// applied points).
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_VERIFY_ACKERMANN_H
#define ARGUS_LIB_VERIFY_ACKERMANN_H

#include <z3++.h>

#include <vector>

namespace argus::verify::detail {

/// The applications of uninterpreted functions (of one or more arguments)
/// in a query, each with the fresh variable that stands for it.
struct FunctionApplications {
  z3::expr_vector applied, vars;
  explicit FunctionApplications(z3::context &ctx) : applied(ctx), vars(ctx) {}
  bool empty() const { return applied.empty(); }
};

/// The applications in `roots`, each once, with variables named
/// `applied!1`, `applied!2`, ...
FunctionApplications functionApplications(const z3::expr_vector &roots);

/// The congruence of each pair of applications of one function, with
/// `from` replaced by `to` in it (the caller's abstraction: every
/// application must be among `from`, its variable at the same place in
/// `to`, so that an argument that is itself an application or an
/// abstracted term is written as the abstraction writes it).
std::vector<z3::expr> congruenceLemmas(const FunctionApplications &apps,
                                       const z3::expr_vector &from,
                                       const z3::expr_vector &to);

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_ACKERMANN_H
